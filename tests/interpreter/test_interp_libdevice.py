"""libdevice functions through `tt.extern_elementwise`, against numpy and `math`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from interp_support import new_builder, op, rng, ty

from tritonc.backends.interpreter import InterpreterUnsupported

N = 64


def _vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


def _c_round(x):
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _erfinv_ref(y):
    """Bisection on math.erf (math.erfc in the tails): simple, independent, slow."""
    a = abs(y)
    lo, hi = 0.0, 7.0
    for _ in range(200):
        mid = (lo + hi) / 2
        below = math.erfc(mid) > 1 - a if a > 0.5 else math.erf(mid) < a
        lo, hi = (mid, hi) if below else (lo, mid)
    return math.copysign((lo + hi) / 2, y)


# name -> (reference on float64 arrays, input domain (lo, hi), arity)
UNARY = {
    "sqrt": (np.sqrt, (0, 100)), "rsqrt": (lambda x: 1 / np.sqrt(x), (0.01, 100)),
    "floor": (np.floor, (-50, 50)), "ceil": (np.ceil, (-50, 50)),
    "trunc": (np.trunc, (-50, 50)), "nearbyint": (np.rint, (-50, 50)),
    "exp": (np.exp, (-20, 20)), "exp2": (np.exp2, (-20, 20)),
    "expm1": (np.expm1, (-1, 1)), "log": (np.log, (0.01, 100)),
    "log2": (np.log2, (0.01, 100)), "log10": (np.log10, (0.01, 100)),
    "log1p": (np.log1p, (-0.5, 10)), "sin": (np.sin, (-10, 10)),
    "cos": (np.cos, (-10, 10)), "tan": (np.tan, (-1.5, 1.5)),
    "sinh": (np.sinh, (-5, 5)), "cosh": (np.cosh, (-5, 5)), "tanh": (np.tanh, (-5, 5)),
    "asin": (np.arcsin, (-1, 1)), "acos": (np.arccos, (-1, 1)), "atan": (np.arctan, (-9, 9)),
    "asinh": (np.arcsinh, (-9, 9)), "acosh": (np.arccosh, (1, 9)),
    "atanh": (np.arctanh, (-0.99, 0.99)),
    "erf": (_vec(math.erf), (-4, 4)), "erfc": (_vec(math.erfc), (-4, 9)),
    "erfinv": (_vec(_erfinv_ref), (-0.999999, 0.999999)),
    "lgamma": (_vec(math.lgamma), (0.1, 30)), "fabs": (np.abs, (-9, 9)),
    "cbrt": (np.cbrt, (-9, 9)), "round": (_vec(_c_round), (-9, 9)),
}
BINARY = {
    "pow": (np.power, (0.1, 4)), "atan2": (np.arctan2, (-5, 5)),
    "hypot": (np.hypot, (-5, 5)), "fmod": (np.fmod, (-20, 20)),
    "copysign": (np.copysign, (-5, 5)), "fmin": (np.fmin, (-5, 5)),
    "fmax": (np.fmax, (-5, 5)),
}


def _extern(b, symbol, args, result):
    return op(b, "tt.extern_elementwise", list(args), result, libname="libdevice",
              libpath="", symbol=symbol, pure=True)


def _inputs(lo, hi, seed, dtype):
    x = rng(seed).uniform(lo, hi, N)
    x[:2] = [lo, hi]
    if lo < 0.5 < hi:
        x[2] = 0.5  # rounding functions meet a tie
    if lo < -2.5 < hi:
        x[3] = -2.5
    return x.astype(dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_fp64_and_fp32(name):
    ref, (lo, hi) = UNARY[name]
    b, _ = new_builder()
    x64 = _inputs(lo, hi, hash(name) % 1000, np.float64)
    got = _extern(b, f"__nv_{name}", [x64], ty("fp64", N))
    np.testing.assert_allclose(got, ref(x64), rtol=1e-13, atol=1e-14)
    x32 = x64.astype(np.float32)
    got32 = _extern(b, f"__nv_{name}f", [x32], ty("fp32", N))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, ref(x32.astype(np.float64)), rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_fp64_and_fp32(name):
    ref, (lo, hi) = BINARY[name]
    b, _ = new_builder()
    x = _inputs(lo, hi, 1, np.float64)
    y = _inputs(lo, hi, 2, np.float64)
    np.testing.assert_allclose(_extern(b, f"__nv_{name}", [x, y], ty("fp64", N)), ref(x, y),
                               rtol=1e-13, atol=1e-14)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    got = _extern(b, f"__nv_{name}f", [x32, y32], ty("fp32", N))
    np.testing.assert_allclose(got, ref(x32.astype(np.float64), y32), rtol=2e-7, atol=1e-7)


def test_predicates_and_integer_results():
    b, _ = new_builder()
    x = np.array([1.0, -0.0, np.nan, np.inf, -np.inf, -3.5], np.float32)
    t = ty("int32", 6)
    assert list(_extern(b, "__nv_isnanf", [x], t)) == [0, 0, 1, 0, 0, 0]
    assert list(_extern(b, "__nv_isinff", [x], t)) == [0, 0, 0, 1, 1, 0]
    assert list(_extern(b, "__nv_signbitf", [x], t)) == [0, 1, 0, 0, 1, 1]
    assert list(_extern(b, "__nv_isnand", [x.astype(np.float64)], t)) == [0, 0, 1, 0, 0, 0]
    r = _extern(b, "__nv_llrintf", [np.array([2.5, 3.5, -2.5, 1e10], np.float32)],
                ty("int64", 4))
    assert list(r) == [2, 4, -2, 10**10] and r.dtype == np.int64
    i = np.array([-5, 7, -(2**31)], np.int32)
    assert list(_extern(b, "__nv_abs", [i], ty("int32", 3))) == [5, 7, -(2**31)]
    assert list(_extern(b, "__nv_llabs", [i.astype(np.int64)], ty("int64", 3))) == [5, 7, 2**31]


def test_nextafter_in_operand_precision():
    b, _ = new_builder()
    one = np.ones(1, np.float32)
    up = _extern(b, "__nv_nextafterf", [one, one * 2], ty("fp32", 1))
    assert up[0] == np.nextafter(np.float32(1), np.float32(2))
    up64 = _extern(b, "__nv_nextafter", [one.astype(np.float64), one * 2.0], ty("fp64", 1))
    assert up64[0] == np.nextafter(1.0, 2.0)


def test_special_function_edges():
    b, _ = new_builder()
    y = np.array([-1.0, 1.0, 1.5, 0.0, 1 - 1e-12])
    e = _extern(b, "__nv_erfinv", [y], ty("fp64", 5))
    assert e[0] == -np.inf and e[1] == np.inf and np.isnan(e[2]) and e[3] == 0
    assert abs(math.erfc(e[4]) - (1 - y[4])) < 1e-12 * (1 - y[4])
    lg = _extern(b, "__nv_lgammaf", [np.array([0.0, -2.0, 1e37], np.float32)], ty("fp32", 3))
    assert np.all(np.isinf(lg))


def test_remainder_by_infinity_and_zero():
    """C remainder: x for a finite x over an infinite y, NaN over 0 or for an infinite x."""
    b, _ = new_builder()
    x = np.array([-1.25, 0.75, 3.0, 5.5, 2.0, np.inf])
    y = np.array([-np.inf, np.inf, np.inf, 2.0, 0.0, 3.0])
    want = [math.remainder(a, c) if c != 0 and math.isfinite(a) else math.nan
            for a, c in zip(x, y)]
    for name, dtype, kind in (("__nv_remainder", np.float64, "fp64"),
                              ("__nv_remainderf", np.float32, "fp32")):
        got = _extern(b, name, [x.astype(dtype), y.astype(dtype)], ty(kind, 6))
        np.testing.assert_array_equal(got, np.array(want, dtype))


def test_unknown_symbol():
    b, _ = new_builder()
    with pytest.raises(InterpreterUnsupported, match="__nv_frobf"):
        _extern(b, "__nv_frobf", [np.zeros(2, np.float32)], ty("fp32", 2))


def test_math_dialect_ops():
    b, _ = new_builder()
    x = rng(9).uniform(0.1, 3, N).astype(np.float32)
    t = ty("fp32", N)
    for name, ref in [("math.exp", np.exp), ("math.log2", np.log2), ("math.sqrt", np.sqrt),
                      ("math.erf", _vec(math.erf)), ("math.tanh", np.tanh),
                      ("math.roundeven", np.rint), ("math.rsqrt", lambda v: 1 / np.sqrt(v))]:
        np.testing.assert_allclose(op(b, name, [x], t), ref(x.astype(np.float64)), rtol=1e-6,
                                   err_msg=name)
    f = op(b, "math.fma", [x, x, -x], t)
    np.testing.assert_allclose(f, x.astype(np.float64) ** 2 - x, rtol=1e-6)
    p = op(b, "math.powf", [x, x], t)
    np.testing.assert_allclose(p, np.power(x.astype(np.float64), x), rtol=1e-6)
    i = np.array([-3, 4], np.int32)
    assert list(op(b, "math.absi", [i], ty("int32", 2))) == [3, 4]
