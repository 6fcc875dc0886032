"""Math builtins of `tl` (`tl.exp`, `tl.sqrt`, `tl.fma`, ...), also reachable as `tl.math.*`."""

from __future__ import annotations

from tritonc.language.core import _unwrap, builtin, tensor, tensor_method


def _unary(name: str, op: str, doc: str):
    def fn(x, _semantic=None) -> tensor:
        return _semantic.float_math(op, _unwrap(x))

    fn.__name__ = name
    fn.__doc__ = doc
    return tensor_method(builtin(fn))


exp = _unary("exp", "math.exp", "e raised to x, elementwise.")
exp2 = _unary("exp2", "math.exp2", "2 raised to x, elementwise.")
log = _unary("log", "math.log", "The natural logarithm, elementwise.")
log2 = _unary("log2", "math.log2", "The base-2 logarithm, elementwise.")
sin = _unary("sin", "math.sin", "The sine, elementwise.")
cos = _unary("cos", "math.cos", "The cosine, elementwise.")
sqrt = _unary("sqrt", "math.sqrt", "The square root (fast, approximate), elementwise.")
rsqrt = _unary("rsqrt", "math.rsqrt", "1 / sqrt(x), elementwise.")
floor = _unary("floor", "math.floor", "The floor, elementwise.")
ceil = _unary("ceil", "math.ceil", "The ceiling, elementwise.")
erf = _unary("erf", "math.erf", "The error function, elementwise.")


@tensor_method
@builtin
def abs(x, _semantic=None) -> tensor:
    """The absolute value, elementwise."""
    return _semantic.abs(_unwrap(x))


@builtin
def sqrt_rn(x, _semantic=None) -> tensor:
    """The square root rounded to nearest (IEEE), fp32 only."""
    return _semantic.precise("tt.precise_sqrt", _unwrap(x))


@builtin
def div_rn(x, y, _semantic=None) -> tensor:
    """x / y rounded to nearest (IEEE), fp32 only."""
    return _semantic.precise("tt.precise_divf", _unwrap(x), _unwrap(y))


@builtin
def fdiv(x, y, ieee_rounding=False, _semantic=None) -> tensor:
    """x / y on floats (IEEE-rounded when `ieee_rounding`)."""
    if _unwrap(ieee_rounding):
        return _semantic.precise("tt.precise_divf", _unwrap(x), _unwrap(y))
    return _semantic.truediv(_unwrap(x), _unwrap(y))


@builtin
def fma(x, y, z, _semantic=None) -> tensor:
    """x * y + z with one rounding, elementwise."""
    return _semantic.fma(_unwrap(x), _unwrap(y), _unwrap(z))


@builtin
def umulhi(x, y, _semantic=None) -> tensor:
    """The high half of the unsigned product x * y, elementwise."""
    return _semantic.umulhi(_unwrap(x), _unwrap(y))
