"""Special functions numpy lacks, vectorised over float64 arrays.

`erf`, `erfc`, `lgamma` and `tgamma` apply Python's `math` functions element by
element (correctly handling the poles and overflow numpy would not see); `erfinv`
starts from Giles' single-precision approximation and polishes it with three Halley
steps (from an asymptotic start far in the tails) to float64 accuracy on (-1, 1).
"""

from __future__ import annotations

import math

import numpy as np

Array = np.ndarray


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # poles at 0, -1, -2, ...
        return math.inf
    except OverflowError:
        return math.inf


def _tgamma(x: float) -> float:
    try:
        return math.gamma(x)
    except ValueError:
        if x == 0.0:
            return math.copysign(math.inf, x)
        return math.nan
    except OverflowError:
        return math.inf


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_lgamma_v = np.vectorize(_lgamma, otypes=[np.float64])
_tgamma_v = np.vectorize(_tgamma, otypes=[np.float64])


def erf(x: Array) -> Array:
    return _erf(np.asarray(x, dtype=np.float64))


def erfc(x: Array) -> Array:
    return _erfc(np.asarray(x, dtype=np.float64))


def lgamma(x: Array) -> Array:
    return _lgamma_v(np.asarray(x, dtype=np.float64))


def tgamma(x: Array) -> Array:
    return _tgamma_v(np.asarray(x, dtype=np.float64))


def _giles(y: Array) -> Array:
    """Giles (2010) single-precision erfinv, relative error around 1e-7."""
    w = -np.log((1.0 - y) * (1.0 + y))
    central = w < 5.0
    wc = np.where(central, w, 5.0) - 2.5
    pc = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
        pc = c + pc * wc
    wt = np.sqrt(np.where(central, 5.0, w)) - 3.0
    pt = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
        pt = c + pt * wt
    return np.where(central, pc, pt) * y


def erfinv(y: Array) -> Array:
    """Inverse error function: erf(erfinv(y)) == y on (-1, 1), +-inf at +-1, NaN beyond."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        a = np.abs(y)
        inside = a < 1.0
        t = np.where(inside, a, 0.0)
        x = _giles(t)
        # far in the tail Giles' polynomial is out of its range: start from the
        # asymptotic erfc(x) ~ exp(-x^2) / (x sqrt(pi)) instead
        q = 1.0 - t
        tail = q < 1e-10
        xt = np.sqrt(-np.log(np.where(tail, q, 0.5)))
        for _ in range(3):
            xt = np.sqrt(-np.log(np.where(tail, q, 0.5) * xt * math.sqrt(math.pi)))
        x = np.where(tail, xt, x)
        for _ in range(3):
            # Halley step on erf(x) - t, whose residual goes through erfc in the tail
            # (where erf(x) rounds to 1); erf'' = -2x erf'
            resid = np.where(t > 0.5, (1.0 - t) - erfc(x), erf(x) - t)
            step = resid / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
            x = x - step / (1.0 + x * step)
        x = np.where(inside, x, np.where(a == 1.0, np.inf, np.nan))
        return np.copysign(x, y)
