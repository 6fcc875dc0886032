"""libdevice functions by symbol, for `tt.extern_elementwise`.

`SYMBOLS` maps each symbol (`__nv_expf`, `__nv_exp`, ...) to a function of numpy
arrays. Float functions are listed once by C name and registered for both the fp32
(`f` suffix) and fp64 symbols; they compute in float64, and the builder rounds the
result to the op's result type. A few functions whose answer depends on the
precision (`nextafter`) compute in the operands' own dtype.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tritonc.backends.interpreter import bessel, special

Array = np.ndarray
Fn = Callable[..., Array]


def _f64(*xs: Array) -> list[Array]:
    return [np.asarray(x, dtype=np.float64) for x in xs]


def _rsqrt(x: Array) -> Array:
    return 1.0 / np.sqrt(x)


def _exp10(x: Array) -> Array:
    return np.power(10.0, x)


def _rcbrt(x: Array) -> Array:
    return 1.0 / np.cbrt(x)


def _round(x: Array) -> Array:
    """C round: halfway cases away from zero."""
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0.0)


def _to_int64(r: Array) -> Array:
    """Rounded floats as int64; NaN and out-of-range give INT64_MIN like the hardware."""
    bad = ~np.isfinite(r) | (np.abs(r) >= 2.0**63)
    return np.where(bad, np.iinfo(np.int64).min, np.where(bad, 0, r).astype(np.int64))


def _llrint(x: Array) -> Array:
    return _to_int64(np.rint(x))


def _llround(x: Array) -> Array:
    return _to_int64(_round(x))


def _fdim(x: Array, y: Array) -> Array:
    return np.where(x > y, x - y, np.where(np.isnan(x) | np.isnan(y), np.nan, 0.0))


def _signbit(x: Array) -> Array:
    return np.signbit(x).astype(np.int32)


def _isnan(x: Array) -> Array:
    return np.isnan(x).astype(np.int32)


def _isinf(x: Array) -> Array:
    return np.isinf(x).astype(np.int32)


def _isfinite(x: Array) -> Array:
    return np.isfinite(x).astype(np.int32)


def _fma(x: Array, y: Array, z: Array) -> Array:
    return x * y + z


def _erfcx(x: Array) -> Array:
    """exp(x^2) erfc(x), by its asymptotic series where exp(x^2) would overflow."""
    direct = np.exp(np.minimum(x, 25.0) ** 2) * special.erfc(np.minimum(x, 25.0))
    big = np.maximum(x, 25.0)
    series = (1 - 1 / (2 * big**2) + 3 / (4 * big**4)) / (big * np.sqrt(np.pi))
    return np.where(x > 25.0, series, direct)


def _ilogb(x: Array) -> Array:
    """The unbiased exponent as int32: INT_MIN for 0 and NaN, INT_MAX for infinities."""
    x = np.asarray(x)
    finite = np.isfinite(x) & (x != 0)
    exponent = np.frexp(np.where(finite, x, 1.0))[1] - 1
    special_value = np.where(np.isinf(x), np.iinfo(np.int32).max, np.iinfo(np.int32).min)
    return np.where(finite, exponent, special_value).astype(np.int32)


def _ldexp(x: Array, n: Array) -> Array:
    return np.ldexp(np.asarray(x, np.float64), np.asarray(n).astype(np.int32))


def _mul_rn_f32(x: Array, y: Array) -> Array:
    """x * y rounded once to fp32 (the float64 product of two fp32 values is exact)."""
    return (np.asarray(x, np.float64) * np.asarray(y, np.float64)).astype(np.float32)


def _remainder(x: Array, y: Array) -> Array:
    """C remainder: x - n*y with n the integer nearest x/y (ties to even); x itself for a
    finite x and an infinite y."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(y) & np.isfinite(x), x, x - np.rint(x / y) * y)


#: C name -> function computed in float64
_FLOAT64: dict[str, Fn] = {
    "sqrt": np.sqrt, "rsqrt": _rsqrt, "cbrt": np.cbrt, "rcbrt": _rcbrt,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": _round,
    "nearbyint": np.rint, "rint": np.rint,
    "exp": np.exp, "exp2": np.exp2, "exp10": _exp10, "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "pow": np.power, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erf": special.erf, "erfc": special.erfc, "erfinv": special.erfinv,
    "lgamma": special.lgamma, "tgamma": special.tgamma,
    "j0": bessel.j0, "j1": bessel.j1, "y0": bessel.y0, "y1": bessel.y1,
    "cyl_bessel_i0": bessel.i0, "cyl_bessel_i1": bessel.i1,
    "hypot": np.hypot, "fmod": np.fmod, "remainder": _remainder,
    "copysign": np.copysign, "fabs": np.abs, "fmin": np.fmin, "fmax": np.fmax,
    "fdim": _fdim, "fma": _fma, "erfcx": _erfcx,
}


#: C name -> function returning int64 (fp32 and fp64 symbols)
_TO_INT64: dict[str, Fn] = {"llrint": _llrint, "llround": _llround}

#: libdevice spells these with a "d" suffix for fp64 and "f" for fp32
_D_SUFFIXED: dict[str, Fn] = {"isnan": _isnan, "isinf": _isinf, "isfinite": _isfinite,
                              "signbit": _signbit}


def _in_float64(fn: Fn) -> Fn:
    def call(*xs: Array) -> Array:
        return fn(*_f64(*xs))

    call.__name__ = f"libdevice_{fn.__name__}"
    return call


def _nextafter(x: Array, y: Array) -> Array:
    return np.nextafter(x, np.asarray(y).astype(np.asarray(x).dtype))


def _iabs(x: Array) -> Array:
    return np.abs(x)


def _build() -> dict[str, Fn]:
    table: dict[str, Fn] = {}
    for cname, fn in _FLOAT64.items():
        wrapped = _in_float64(fn)
        table[f"__nv_{cname}f"] = table[f"__nv_{cname}"] = wrapped
    for cname, fn in _TO_INT64.items():
        wrapped = _in_float64(fn)
        table[f"__nv_{cname}f"] = table[f"__nv_{cname}"] = wrapped
    for cname, fn in _D_SUFFIXED.items():
        table[f"__nv_{cname}f"] = table[f"__nv_{cname}d"] = table[f"__nv_{cname}"] = fn
    table["__nv_finitef"] = _isfinite
    table["__nv_nextafterf"] = table["__nv_nextafter"] = _nextafter
    table["__nv_abs"] = table["__nv_llabs"] = _iabs
    # libdevice's fast-math spellings
    for cname in ("exp", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "pow"):
        table[f"__nv_fast_{cname}f"] = table[f"__nv_{cname}f"]
    table["__nv_fast_fdividef"] = table["__nv_fdividef"] = _in_float64(np.divide)
    table["__nv_fast_tanhf"] = table["__nv_tanhf"]
    table["__nv_ilogbf"] = table["__nv_ilogb"] = _ilogb
    table["__nv_ldexpf"] = table["__nv_ldexp"] = _ldexp
    table["__nv_fmul_rn"] = _mul_rn_f32
    table["__nv_dmul_rn"] = _in_float64(np.multiply)
    return table


SYMBOLS: dict[str, Fn] = _build()
