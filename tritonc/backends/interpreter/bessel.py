"""Bessel functions numpy lacks, vectorised over float64 arrays: `j0`, `j1`, `y0`, `y1`
(first and second kind) and `i0`, `i1` (modified, first kind), for libdevice's `__nv_j0`,
`__nv_cyl_bessel_i0` and friends.

Each function picks a method by |x|; each is accurate to about 1e-14 of the value (of
the envelope sqrt(2 / (pi x)) for J and Y, near their zeros):

- |x| < 1: the power series, whose terms fall fast and alternate without cancelling;
- 1 <= x < 25: Miller's backward recurrence J_{n-1} = (2n/x) J_n - J_{n+1} from far above
  x (stable downwards), normalised by J_0 + 2 (J_2 + J_4 + ...) = 1; Y_0 and Y_1 come
  from Neumann's series over the same J_n;
- x >= 25: Hankel's asymptotic expansion sqrt(2 / (pi x)) (P cos chi -/+ Q sin chi), with
  cos chi and sin chi formed from cos x and sin x so that x - pi/4 is never rounded.

I_0 and I_1 sum their power series (every term positive) below |x| = 30 and use the
asymptotic expansion e^x / sqrt(2 pi x) (1 - a_1 / x + a_2 / x^2 - ...) above. J_0 and
I_0 are even, J_1 and I_1 odd; Y is NaN for x < 0 and -inf at 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

Array = np.ndarray

_EULER_GAMMA = 0.57721566490153286061
_SERIES_TERMS = 24  # |x| < 1: the 24th term is below 1e-50 of the first
_HANKEL_TERMS = 40  # x >= 25: still decreasing (a term ~ k / 2x times the one before)
_MILLER_BELOW = 25.0
_I_ASYMPTOTIC_FROM = 30.0
_I_SERIES_TERMS = 80  # |x| < 30: the terms peak near k = 15 and are ~1e-23 by k = 60


def _piecewise(x: Array, pieces: list[tuple[Array, Callable[[Array], Array]]],
               default: float) -> Array:
    """fn(x) where each mask holds (the first mask that holds wins), `default` elsewhere;
    overflow to inf (I near 713, Y near 0) is the answer, not a warning."""
    out = np.full(x.shape, default, dtype=np.float64)
    taken = np.zeros(x.shape, dtype=bool)
    with np.errstate(over="ignore", divide="ignore"):
        for mask, fn in pieces:
            mask = mask & ~taken
            if mask.any():
                out[mask] = fn(x[mask])
            taken |= mask
    return out


def _f64(x: Array) -> Array:
    return np.asarray(x, dtype=np.float64)


# -- |x| < 1: power series ------------------------------------------------------------------
def _series(x: Array, nu: int) -> tuple[Array, Array]:
    """(J_nu(x), sum_k (-1)^k w_k (x^2/4)^k / (k! (k+nu)!)) for nu in {0, 1}, where the
    weights w_k make the logarithm-free part of Y_nu: H_k for nu = 0 and
    psi(k+1) + psi(k+2) for nu = 1 (H_k the harmonic numbers, psi the digamma function)."""
    q = -0.25 * x * x
    term = np.ones_like(x)
    j = np.zeros_like(x)
    weighted = np.zeros_like(x)
    harmonic = 0.0
    for k in range(_SERIES_TERMS):
        if k:
            term = term * q / (k * (k + nu))
            harmonic += 1.0 / k
        j = j + term
        weight = harmonic if nu == 0 else 2.0 * (harmonic - _EULER_GAMMA) + 1.0 / (k + 1)
        weighted = weighted + weight * term
    if nu == 1:
        j, weighted = 0.5 * x * j, 0.5 * x * weighted
    return j, weighted


def _y0_series(x: Array) -> Array:
    j, weighted = _series(x, 0)
    # the k = 0 term carries weight H_0 = 0; the sum runs with (-1)^(k+1)
    return (2.0 / math.pi) * ((np.log(0.5 * x) + _EULER_GAMMA) * j - weighted)


def _y1_series(x: Array) -> Array:
    j, weighted = _series(x, 1)
    return -2.0 / (math.pi * x) + (2.0 / math.pi) * np.log(0.5 * x) * j - weighted / math.pi


# -- 1 <= x < 25: Miller's recurrence and Neumann's series ----------------------------------
def _miller(x: Array) -> tuple[Array, Array, Array, Array]:
    """(J_0, J_1, Y_0, Y_1) at 1 <= x < 25."""
    top = 2 * int((1.5 * float(x.max()) + 30.0) // 2)  # even, far enough above x
    above = np.zeros_like(x)  # J_{n+1}, unnormalised
    here = np.ones_like(x)  # J_n
    norm = np.zeros_like(x)  # J_0 + 2 (J_2 + J_4 + ...)
    even_sum = np.zeros_like(x)  # sum_k (-1)^k J_2k / k, k >= 1
    odd_sum = np.zeros_like(x)  # sum_k (-1)^k (J_2k-1 - J_2k+1) / k, k >= 1, by J_n
    j1 = here
    for n in range(top, -1, -1):
        if n % 2 == 0 and n > 0:
            norm = norm + 2.0 * here
            even_sum = even_sum + (-1.0) ** (n // 2) / (n // 2) * here
        elif n == 1:
            odd_sum = odd_sum - here
            j1 = here
        elif n % 2 == 1:
            i = n // 2
            odd_sum = odd_sum + (-1.0) ** (i + 1) * (1.0 / i + 1.0 / (i + 1)) * here
        if n == 0:
            norm = norm + here
            break
        above, here = here, (2.0 * n / x) * here - above
    j0, j1 = here / norm, j1 / norm
    log_term = (2.0 / math.pi) * (np.log(0.5 * x) + _EULER_GAMMA)
    y0 = log_term * j0 - (4.0 / math.pi) * even_sum / norm
    y1 = -2.0 / (math.pi * x) * j0 + log_term * j1 + (2.0 / math.pi) * odd_sum / norm
    return j0, j1, y0, y1


# -- x >= 25: Hankel's expansion ------------------------------------------------------------
def _hankel(x: Array, nu: int) -> tuple[Array, Array]:
    """(J_nu(x), Y_nu(x)) for large x."""
    mu = 4.0 * nu * nu
    p = np.ones_like(x)
    q = np.zeros_like(x)
    a = np.ones_like(x)  # a_k(nu) / x^k
    for k in range(1, _HANKEL_TERMS):
        a = a * (mu - (2 * k - 1) ** 2) / (8.0 * k * x)
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            q = q + sign * a
        else:
            p = p + sign * a
    c, s = np.cos(x), np.sin(x)
    # chi = x - pi/4 (nu = 0) or x - 3 pi/4 (nu = 1)
    if nu == 0:
        cos_chi, sin_chi = (c + s) / math.sqrt(2.0), (s - c) / math.sqrt(2.0)
    else:
        cos_chi, sin_chi = (s - c) / math.sqrt(2.0), -(s + c) / math.sqrt(2.0)
    scale = np.sqrt(2.0 / (math.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def _first_kind(x: Array, nu: int) -> Array:
    a = np.abs(x)
    j = _piecewise(a, [
        (a < 1.0, lambda t: _series(t, nu)[0]),
        (a < _MILLER_BELOW, lambda t: _miller(t)[nu]),
        (np.isfinite(a), lambda t: _hankel(t, nu)[0]),
        (np.isinf(a), np.zeros_like),
    ], math.nan)
    return j if nu == 0 else np.where(np.signbit(x), -j, j)


def _second_kind(x: Array, nu: int) -> Array:
    return _piecewise(x, [
        (x == 0.0, lambda t: np.full_like(t, -math.inf)),
        ((x > 0.0) & (x < 1.0), _y0_series if nu == 0 else _y1_series),
        ((x > 0.0) & (x < _MILLER_BELOW), lambda t: _miller(t)[2 + nu]),
        ((x > 0.0) & np.isfinite(x), lambda t: _hankel(t, nu)[1]),
        (x == math.inf, np.zeros_like),
    ], math.nan)


def j0(x: Array) -> Array:
    """Bessel function of the first kind of order 0."""
    return _first_kind(_f64(x), 0)


def j1(x: Array) -> Array:
    """Bessel function of the first kind of order 1."""
    return _first_kind(_f64(x), 1)


def y0(x: Array) -> Array:
    """Bessel function of the second kind of order 0."""
    return _second_kind(_f64(x), 0)


def y1(x: Array) -> Array:
    """Bessel function of the second kind of order 1."""
    return _second_kind(_f64(x), 1)


# -- modified Bessel functions ---------------------------------------------------------------
def _i_series(x: Array, nu: int) -> Array:
    q = 0.25 * x * x
    term = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, _I_SERIES_TERMS):
        term = term * q / (k * (k + nu))
        total = total + term
    return total if nu == 0 else 0.5 * x * total


def _i_asymptotic(x: Array, nu: int) -> Array:
    mu = 4.0 * nu * nu
    a = np.ones_like(x)
    total = np.ones_like(x)
    for k in range(1, _HANKEL_TERMS):
        a = a * -(mu - (2 * k - 1) ** 2) / (8.0 * k * x)
        total = total + a
    half = np.exp(0.5 * x)  # e^x in two halves: finite up to where I itself overflows
    return half * (half * total / np.sqrt(2.0 * math.pi * x))


def _modified(x: Array, nu: int) -> Array:
    a = np.abs(x)
    i = _piecewise(a, [
        (a < _I_ASYMPTOTIC_FROM, lambda t: _i_series(t, nu)),
        (np.isfinite(a), lambda t: _i_asymptotic(t, nu)),
        (np.isinf(a), lambda t: np.full_like(t, math.inf)),
    ], math.nan)
    return i if nu == 0 else np.where(np.signbit(x), -i, i)


def i0(x: Array) -> Array:
    """Modified Bessel function of the first kind of order 0."""
    return _modified(_f64(x), 0)


def i1(x: Array) -> Array:
    """Modified Bessel function of the first kind of order 1."""
    return _modified(_f64(x), 1)
