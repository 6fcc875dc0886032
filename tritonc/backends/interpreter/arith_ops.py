"""Rules for the `arith` dialect: integer and float arithmetic, comparisons, select.

Integer ops follow C on two's-complement values: wrap-around, division truncating
toward zero. Division by zero does not trap: the quotient is all ones (-1, or the
unsigned maximum) and the remainder is the dividend. Shifts by the bit width or
more give 0 (`shli`, `shrui`) or the sign fill (`shrsi`). Float ops on bf16 and fp8
decode to float32 and round the result back (in `storage.finish`).
"""

from __future__ import annotations

import numpy as np

from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import (
    as_float,
    as_signed,
    as_unsigned,
    int_width,
    truncate_int,
)

Array = np.ndarray


def _same(a: Array, b: Array) -> Array:
    """`b` viewed in `a`'s dtype, so numpy does not promote mixed signedness."""
    if b.dtype != a.dtype and b.dtype.itemsize == a.dtype.itemsize:
        return b.view(a.dtype)
    return b


def _wrapping(fn: np.ufunc, a: Array, b: Array) -> Array:
    if a.dtype.kind == "b":
        return truncate_int(fn(as_unsigned(a), as_unsigned(b)), a)
    return fn(a, _same(a, b))


# -- integer arithmetic --------------------------------------------------------------
@impl("arith.addi")
def addi(ctx: OpContext, a: Array, b: Array) -> Array:
    return _wrapping(np.add, a, b)


@impl("arith.subi")
def subi(ctx: OpContext, a: Array, b: Array) -> Array:
    return _wrapping(np.subtract, a, b)


@impl("arith.muli")
def muli(ctx: OpContext, a: Array, b: Array) -> Array:
    return _wrapping(np.multiply, a, b)


@impl("arith.andi")
def andi(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.bitwise_and(a, _same(a, b))


@impl("arith.ori")
def ori(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.bitwise_or(a, _same(a, b))


@impl("arith.xori")
def xori(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.bitwise_xor(a, _same(a, b))


def _all_ones(like: Array) -> Array:
    return ~np.zeros((), like.dtype)


@impl("arith.divsi")
def divsi(ctx: OpContext, a: Array, b: Array) -> Array:
    x, y = as_signed(a), _same(as_signed(a), as_signed(b))
    zero, minus_one = y == 0, y == -1
    safe = np.where(zero | minus_one, 1, y).astype(x.dtype)
    q = np.floor_divide(x, safe)
    r = x - q * safe
    q = q + ((r != 0) & ((x < 0) != (safe < 0))).astype(x.dtype)  # floor -> truncation
    q = np.where(minus_one, np.negative(x), q)
    return truncate_int(np.where(zero, _all_ones(x), q), a)


@impl("arith.remsi")
def remsi(ctx: OpContext, a: Array, b: Array) -> Array:
    x, y = as_signed(a), _same(as_signed(a), as_signed(b))
    zero = y == 0
    safe = np.where(zero | (y == -1), 1, y).astype(x.dtype)
    return truncate_int(np.where(zero, x, np.fmod(x, safe)), a)


@impl("arith.divui")
def divui(ctx: OpContext, a: Array, b: Array) -> Array:
    x, y = as_unsigned(a), _same(as_unsigned(a), as_unsigned(b))
    zero = y == 0
    q = np.floor_divide(x, np.where(zero, 1, y).astype(x.dtype))
    return truncate_int(np.where(zero, _all_ones(x), q), a)


@impl("arith.remui")
def remui(ctx: OpContext, a: Array, b: Array) -> Array:
    x, y = as_unsigned(a), _same(as_unsigned(a), as_unsigned(b))
    zero = y == 0
    r = np.remainder(x, np.where(zero, 1, y).astype(x.dtype))
    return truncate_int(np.where(zero, x, r), a)


def _shift_amount(a: Array, b: Array) -> tuple[Array, Array, int]:
    """(amount in a's unsigned dtype, amount >= width, width)."""
    width = int_width(a)
    ua = as_unsigned(a)
    amount = as_unsigned(b).astype(np.uint64)
    big = amount >= width
    return np.where(big, 0, amount).astype(ua.dtype), big, width


@impl("arith.shli")
def shli(ctx: OpContext, a: Array, b: Array) -> Array:
    amount, big, _ = _shift_amount(a, b)
    r = np.left_shift(as_unsigned(a), amount)
    return truncate_int(np.where(big, 0, r).astype(r.dtype), a)


@impl("arith.shrui")
def shrui(ctx: OpContext, a: Array, b: Array) -> Array:
    amount, big, _ = _shift_amount(a, b)
    r = np.right_shift(as_unsigned(a), amount)
    return truncate_int(np.where(big, 0, r).astype(r.dtype), a)


@impl("arith.shrsi")
def shrsi(ctx: OpContext, a: Array, b: Array) -> Array:
    amount, big, width = _shift_amount(a, b)
    x = as_signed(a)
    amount = np.where(big, width - 1, amount).astype(x.dtype)
    return truncate_int(np.right_shift(x, amount), a)


@impl("arith.maxsi")
def maxsi(ctx: OpContext, a: Array, b: Array) -> Array:
    return truncate_int(np.maximum(as_signed(a), _same(as_signed(a), as_signed(b))), a)


@impl("arith.minsi")
def minsi(ctx: OpContext, a: Array, b: Array) -> Array:
    return truncate_int(np.minimum(as_signed(a), _same(as_signed(a), as_signed(b))), a)


@impl("arith.maxui")
def maxui(ctx: OpContext, a: Array, b: Array) -> Array:
    return truncate_int(np.maximum(as_unsigned(a), as_unsigned(b)), a)


@impl("arith.minui")
def minui(ctx: OpContext, a: Array, b: Array) -> Array:
    return truncate_int(np.minimum(as_unsigned(a), as_unsigned(b)), a)


# -- float arithmetic ----------------------------------------------------------------
@impl("arith.addf")
def addf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.add(as_float(a), as_float(b))


@impl("arith.subf")
def subf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.subtract(as_float(a), as_float(b))


@impl("arith.mulf")
def mulf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.multiply(as_float(a), as_float(b))


@impl("arith.divf")
def divf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.divide(as_float(a), as_float(b))


@impl("arith.remf")
def remf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.fmod(as_float(a), as_float(b))  # C fmod: the sign of the dividend


@impl("arith.negf")
def negf(ctx: OpContext, a: Array) -> Array:
    return np.negative(as_float(a))


@impl("arith.maximumf")
def maximumf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.maximum(as_float(a), as_float(b))


@impl("arith.minimumf")
def minimumf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.minimum(as_float(a), as_float(b))


@impl("arith.maxnumf")
def maxnumf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.fmax(as_float(a), as_float(b))


@impl("arith.minnumf")
def minnumf(ctx: OpContext, a: Array, b: Array) -> Array:
    return np.fmin(as_float(a), as_float(b))


# -- comparisons and select ------------------------------------------------------------
_CMPI = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
         "sgt": np.greater, "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal,
         "ugt": np.greater, "uge": np.greater_equal}


@impl("arith.cmpi")
def cmpi(ctx: OpContext, a: Array, b: Array) -> Array:
    pred = ctx.attr("predicate")
    view = as_unsigned if pred[0] in "eun" else as_signed
    x, y = view(a), view(b)
    return _CMPI[pred](x, _same(x, y))


def _unordered(x: Array, y: Array) -> Array:
    return np.isnan(x) | np.isnan(y)


def _never(x: Array, y: Array) -> Array:
    return np.zeros(np.broadcast(x, y).shape, bool)


def _always(x: Array, y: Array) -> Array:
    return np.ones(np.broadcast(x, y).shape, bool)


def _ordered_ne(x: Array, y: Array) -> Array:
    return np.less(x, y) | np.greater(x, y)


def _ordered(x: Array, y: Array) -> Array:
    return ~_unordered(x, y)


def _unordered_eq(x: Array, y: Array) -> Array:
    return np.equal(x, y) | _unordered(x, y)


def _unordered_gt(x: Array, y: Array) -> Array:
    return ~np.less_equal(x, y)


def _unordered_ge(x: Array, y: Array) -> Array:
    return ~np.less(x, y)


def _unordered_lt(x: Array, y: Array) -> Array:
    return ~np.greater_equal(x, y)


def _unordered_le(x: Array, y: Array) -> Array:
    return ~np.greater(x, y)


_CMPF = {
    "false": _never, "true": _always, "oeq": np.equal, "ogt": np.greater,
    "oge": np.greater_equal, "olt": np.less, "ole": np.less_equal, "one": _ordered_ne,
    "ord": _ordered, "ueq": _unordered_eq, "ugt": _unordered_gt, "uge": _unordered_ge,
    "ult": _unordered_lt, "ule": _unordered_le, "une": np.not_equal, "uno": _unordered,
}


@impl("arith.cmpf")
def cmpf(ctx: OpContext, a: Array, b: Array) -> Array:
    return _CMPF[ctx.attr("predicate")](as_float(a), as_float(b))


@impl("arith.select")
def select(ctx: OpContext, cond: Array, a: Array, b: Array) -> Array:
    return np.where(cond, a, b)
