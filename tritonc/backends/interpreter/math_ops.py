"""Rules for elementwise math: the `math` dialect and tt's float/int extras.

Functions compute on the operands' own float dtype where numpy has them (so fp32
stays fp32, like the GPU's approximate intrinsics); `erf` goes through Python's
`math.erf`. bf16/fp8 operands decode to float32 first. `tt.extern_elementwise`
dispatches on the libdevice symbol through `libdevice.SYMBOLS`.
"""

from __future__ import annotations

import numpy as np

from tritonc.backends.interpreter import special
from tritonc.backends.interpreter.errors import InterpreterUnsupported
from tritonc.backends.interpreter.libdevice import SYMBOLS
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import as_float, as_unsigned

Array = np.ndarray


@impl("math.exp")
def exp(ctx: OpContext, x: Array) -> Array:
    return np.exp(as_float(x))


@impl("math.exp2")
def exp2(ctx: OpContext, x: Array) -> Array:
    return np.exp2(as_float(x))


@impl("math.expm1")
def expm1(ctx: OpContext, x: Array) -> Array:
    return np.expm1(as_float(x))


@impl("math.log")
def log(ctx: OpContext, x: Array) -> Array:
    return np.log(as_float(x))


@impl("math.log2")
def log2(ctx: OpContext, x: Array) -> Array:
    return np.log2(as_float(x))


@impl("math.log10")
def log10(ctx: OpContext, x: Array) -> Array:
    return np.log10(as_float(x))


@impl("math.log1p")
def log1p(ctx: OpContext, x: Array) -> Array:
    return np.log1p(as_float(x))


@impl("math.sin")
def sin(ctx: OpContext, x: Array) -> Array:
    return np.sin(as_float(x))


@impl("math.cos")
def cos(ctx: OpContext, x: Array) -> Array:
    return np.cos(as_float(x))


@impl("math.tan")
def tan(ctx: OpContext, x: Array) -> Array:
    return np.tan(as_float(x))


@impl("math.tanh")
def tanh(ctx: OpContext, x: Array) -> Array:
    return np.tanh(as_float(x))


@impl("math.atan")
def atan(ctx: OpContext, x: Array) -> Array:
    return np.arctan(as_float(x))


@impl("math.atan2")
def atan2(ctx: OpContext, y: Array, x: Array) -> Array:
    return np.arctan2(as_float(y), as_float(x))


@impl("math.sqrt")
def sqrt(ctx: OpContext, x: Array) -> Array:
    return np.sqrt(as_float(x))


@impl("math.rsqrt")
def rsqrt(ctx: OpContext, x: Array) -> Array:
    f = as_float(x)
    return np.reciprocal(np.sqrt(f))


@impl("math.cbrt")
def cbrt(ctx: OpContext, x: Array) -> Array:
    return np.cbrt(as_float(x))


@impl("math.absf")
def absf(ctx: OpContext, x: Array) -> Array:
    return np.abs(as_float(x))


@impl("math.absi")
def absi(ctx: OpContext, x: Array) -> Array:
    return np.abs(x)  # wraps: |INT_MIN| == INT_MIN


@impl("math.floor")
def floor(ctx: OpContext, x: Array) -> Array:
    return np.floor(as_float(x))


@impl("math.ceil")
def ceil(ctx: OpContext, x: Array) -> Array:
    return np.ceil(as_float(x))


@impl("math.trunc")
def trunc(ctx: OpContext, x: Array) -> Array:
    return np.trunc(as_float(x))


@impl("math.roundeven")
def roundeven(ctx: OpContext, x: Array) -> Array:
    return np.rint(as_float(x))


@impl("math.erf")
def erf(ctx: OpContext, x: Array) -> Array:
    return special.erf(as_float(x))


@impl("math.copysign")
def copysign(ctx: OpContext, x: Array, y: Array) -> Array:
    return np.copysign(as_float(x), as_float(y))


@impl("math.powf")
def powf(ctx: OpContext, x: Array, y: Array) -> Array:
    return np.power(as_float(x), as_float(y))


@impl("math.fma")
def fma(ctx: OpContext, a: Array, b: Array, c: Array) -> Array:
    fa = as_float(a)
    if fa.dtype == np.float64:
        return fa * as_float(b) + as_float(c)
    # products of fp32 values are exact in float64, so only the sum rounds (twice, rarely)
    return fa.astype(np.float64) * as_float(b) + as_float(c)


# -- tt extras ---------------------------------------------------------------------
@impl("tt.clampf")
def clampf(ctx: OpContext, x: Array, lo: Array, hi: Array) -> Array:
    f, lo_f, hi_f = as_float(x), as_float(lo), as_float(hi)
    if ctx.attr("propagate_nan"):
        return np.minimum(np.maximum(f, lo_f), hi_f)
    return np.fmin(np.fmax(f, lo_f), hi_f)


@impl("tt.precise_sqrt")
def precise_sqrt(ctx: OpContext, x: Array) -> Array:
    return np.sqrt(as_float(x))  # IEEE sqrt, correctly rounded


@impl("tt.precise_divf")
def precise_divf(ctx: OpContext, x: Array, y: Array) -> Array:
    return np.divide(as_float(x), as_float(y))  # IEEE division, correctly rounded


@impl("tt.mulhiu")
def mulhiu(ctx: OpContext, x: Array, y: Array) -> Array:
    """The high half of the unsigned product of two 32- or 64-bit integers."""
    a, b = as_unsigned(x), as_unsigned(y).view(as_unsigned(x).dtype)
    if a.dtype.itemsize <= 4:
        wide = a.astype(np.uint64) * b.astype(np.uint64)
        return (wide >> np.uint64(8 * a.dtype.itemsize)).astype(a.dtype)
    # 64 x 64: schoolbook on 32-bit halves, carrying the middle terms
    mask, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    a_lo, a_hi, b_lo, b_hi = a & mask, a >> s32, b & mask, b >> s32
    lo_lo, hi_lo, lo_hi, hi_hi = a_lo * b_lo, a_hi * b_lo, a_lo * b_hi, a_hi * b_hi
    middle = (lo_lo >> s32) + (hi_lo & mask) + (lo_hi & mask)
    return hi_hi + (hi_lo >> s32) + (lo_hi >> s32) + (middle >> s32)


@impl("tt.extern_elementwise")
def extern_elementwise(ctx: OpContext, *srcs: Array) -> Array:
    symbol = ctx.attr("symbol", "")
    fn = SYMBOLS.get(symbol)
    if fn is None:
        raise InterpreterUnsupported(
            f"tt.extern_elementwise: the interpreter has no implementation of {symbol!r}")
    return fn(*(as_float(s) if s.dtype.metadata else s for s in srcs))


@impl("tt.elementwise_inline_asm")
def elementwise_inline_asm(ctx: OpContext, *args: Array) -> Array:
    raise InterpreterUnsupported("inline_asm_elementwise cannot run in the interpreter")
