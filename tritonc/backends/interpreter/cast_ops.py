"""Rules for conversions: integer width changes, int <-> float, float <-> float, bitcasts.

Integer truncation wraps (C). Float to integer truncates toward zero and saturates
like the GPU's `cvt.rzi` (NaN gives 0, out-of-range values the nearest bound).
Float narrowing rounds to nearest even unless `tt.fp_to_fp` asks for "rtz"; see
`formats.py` for the fp8 formats' overflow rules.
"""

from __future__ import annotations

import numpy as np

from tritonc.backends.interpreter.formats import encode, round_to_native
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import (
    PTR,
    as_float,
    as_signed,
    as_unsigned,
    is_encoded,
    scalar_of,
    storage_of,
)

Array = np.ndarray


def _result_name(ctx: OpContext) -> str:
    return scalar_of(ctx.result_type).name


# -- integer <-> integer ---------------------------------------------------------------
@impl("arith.extsi")
def extsi(ctx: OpContext, src: Array) -> Array:
    return as_signed(src)


@impl("arith.extui")
def extui(ctx: OpContext, src: Array) -> Array:
    return as_unsigned(src)


@impl("arith.trunci")
def trunci(ctx: OpContext, src: Array) -> Array:
    want = storage_of(ctx.result_type)
    if want.kind == "b":
        return (src & 1) != 0
    return src.astype(want)


# -- integer <-> float -----------------------------------------------------------------
def _int_to_float(ctx: OpContext, ints: Array) -> Array:
    name = _result_name(ctx)
    if is_encoded(name):
        return ints.astype(np.float64)
    return ints.astype(storage_of(ctx.result_type))


@impl("arith.sitofp")
def sitofp(ctx: OpContext, src: Array) -> Array:
    return _int_to_float(ctx, as_signed(src))


@impl("arith.uitofp")
def uitofp(ctx: OpContext, src: Array) -> Array:
    return _int_to_float(ctx, as_unsigned(src))


def _float_to_int(ctx: OpContext, src: Array, signed: bool) -> Array:
    want = storage_of(ctx.result_type)
    t = np.trunc(as_float(src).astype(np.float64))
    if want.kind == "b":
        return t != 0
    bits = 8 * want.itemsize
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if signed else (0, 2**bits)
    below, above = t < lo, t >= hi
    safe = np.where(np.isnan(t) | below | above, 0, t).astype(want)
    safe = np.where(above, np.array(hi - 1).astype(want), safe)
    return np.where(below, np.array(lo).astype(want), safe)


@impl("arith.fptosi")
def fptosi(ctx: OpContext, src: Array) -> Array:
    return _float_to_int(ctx, src, signed=True)


@impl("arith.fptoui")
def fptoui(ctx: OpContext, src: Array) -> Array:
    return _float_to_int(ctx, src, signed=False)


# -- float <-> float ---------------------------------------------------------------------
def _convert_float(ctx: OpContext, src: Array, rounding: str) -> Array:
    x = as_float(src)
    if rounding != "rtz":
        return x  # storage.finish rounds to nearest even
    name = _result_name(ctx)
    if is_encoded(name):
        return encode(x, name, "rtz").view(storage_of(ctx.result_type))
    return round_to_native(x, name, "rtz")


@impl("arith.extf")
def extf(ctx: OpContext, src: Array) -> Array:
    return _convert_float(ctx, src, "rtne")


@impl("arith.truncf")
def truncf(ctx: OpContext, src: Array) -> Array:
    return _convert_float(ctx, src, "rtne")


@impl("tt.fp_to_fp")
def fp_to_fp(ctx: OpContext, src: Array) -> Array:
    return _convert_float(ctx, src, ctx.attr("rounding") or "rtne")


# -- reinterpretation --------------------------------------------------------------------
def _reinterpret(ctx: OpContext, src: Array) -> Array:
    want = storage_of(ctx.result_type)
    if src.dtype.kind == "b" or want.kind == "b":
        return (src.view(np.uint8) if src.dtype.kind == "b" else src) != 0
    return src.view(want)


@impl("arith.bitcast")
def arith_bitcast(ctx: OpContext, src: Array) -> Array:
    return _reinterpret(ctx, src)


@impl("tt.bitcast")
def tt_bitcast(ctx: OpContext, src: Array) -> Array:
    return _reinterpret(ctx, src)


@impl("tt.int_to_ptr")
def int_to_ptr(ctx: OpContext, src: Array) -> Array:
    return as_signed(src).astype(PTR)


@impl("tt.ptr_to_int")
def ptr_to_int(ctx: OpContext, src: Array) -> Array:
    return src
