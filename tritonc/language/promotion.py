"""Triton's implicit type promotion: the type two operands of a binary op meet in.

The rules are Triton's, for every pair of dtypes, tensor or Python scalar:

* `integer_promote`: C's usual arithmetic conversions. The same signedness gives the
  wider type (the second on a tie); otherwise the unsigned type wins when it is at least
  as wide as the signed one, and the signed type when it is wider.
* `computation_type`: a Python scalar whose kind (bool < int < float) is not above the
  tensor's takes the tensor's type (fp32 for `/` and `%` on a 16-bit float tensor).
  Otherwise: fp64 wins, then fp32; then fp16 (fp32 for `/` and `%`); two bf16 stay bf16
  (fp32 for `/` and `%`); bf16 with anything else is fp32; two fp8 stay when they agree
  and meet in fp16 when not; two integers follow `integer_promote`, and `/` or `%`
  refuses integers of different signedness. Any other pair (fp8 with an integer) is an
  error.
* `scalar_type`: the type a Python scalar gets on its own: int32, uint32, int64,
  uint64 (the first that holds it), fp32 for floats that fp32 represents, else fp64.
"""

from __future__ import annotations

import types

from tritonc.language import dtypes as T

FP32_MIN_NORMAL = 2.0**-126
FP32_MAX = (2 - 2**-23) * 2.0**127


class PromotionError(TypeError):
    """Two operand types that no implicit conversion brings together."""


def kind(ty: T.dtype) -> int:
    """0 for bool, 1 for integers, 2 for floats (the order Python scalars promote by)."""
    if ty.is_bool():
        return 0
    return 1 if ty.is_int() else 2


def _unsigned(ty: T.dtype) -> bool:
    """Whether an integer type is unsigned; bool counts as unsigned, as in Triton."""
    return ty.is_int_unsigned() or ty.is_bool()


def integer_promote(a: T.dtype, b: T.dtype) -> T.dtype:
    """The common type of two integer types (C's usual arithmetic conversions)."""
    wa, wb = a.int_bitwidth, b.int_bitwidth
    if _unsigned(a) == _unsigned(b):
        return a if wa > wb else b
    if _unsigned(a):
        return a if wa >= wb else b
    return b if wb >= wa else a


def computation_type(a: T.dtype, a_scalar: bool, b: T.dtype, b_scalar: bool,
                     div_or_mod: bool = False) -> T.dtype:
    """The type an arithmetic op on `a` and `b` computes in (`*_scalar`: the operand is
    a Python number rather than a tensor)."""
    if a_scalar != b_scalar:
        scalar, tensor = (a, b) if a_scalar else (b, a)
        if kind(scalar) <= kind(tensor):
            if div_or_mod and (tensor.is_fp16() or tensor.is_bf16()):
                return T.float32
            return tensor
    if a.is_fp64() or b.is_fp64():
        return T.float64
    if a.is_fp32() or b.is_fp32():
        return T.float32
    if a.is_fp16() or b.is_fp16():
        return T.float32 if div_or_mod else T.float16
    if a.is_bf16() and b.is_bf16():
        return T.float32 if div_or_mod else T.bfloat16
    if a.is_bf16() or b.is_bf16():
        return T.float32
    if a.is_fp8() and b.is_fp8():
        return a if a == b else T.float16
    if not (a.is_int() and b.is_int()):
        raise PromotionError(f"unexpected operand types {a} and {b}")
    if div_or_mod and _unsigned(a) != _unsigned(b):
        raise PromotionError(f"Cannot use /, // or % with {a} and {b} because they have "
                             "different signedness; cast them to the same signedness")
    return integer_promote(a, b)


def scalar_type(value: bool | int | float) -> T.dtype:
    """The type a Python scalar takes on its own."""
    if isinstance(value, bool):
        return T.int1
    if isinstance(value, int):
        for ty, lo, hi in ((T.int32, -(2**31), 2**31), (T.uint32, 2**31, 2**32),
                           (T.int64, -(2**63), 2**63), (T.uint64, 2**63, 2**64)):
            if lo <= value < hi:
                return ty
        raise PromotionError(f"integer {value} cannot be represented in 64 bits")
    if isinstance(value, float):
        size = abs(value)
        if size in (0.0, float("inf")) or value != value or FP32_MIN_NORMAL <= size <= FP32_MAX:
            return T.float32
        return T.float64
    raise PromotionError(f"cannot use {describe_value(value)} as an operand")


def int_range(ty: T.dtype) -> tuple[int, int]:
    """The smallest and largest value of an integer type."""
    bits = ty.int_bitwidth
    if ty.is_bool():
        return 0, 1
    if ty.is_int_unsigned():
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def check_scalar_fits(value: bool | int | float, ty: T.dtype) -> None:
    """A Python scalar meeting an integer type must be representable in it."""
    if not ty.is_int() or isinstance(value, float):
        return
    if value < 0 and ty.is_int_unsigned():
        raise PromotionError("Cannot perform a binary operation between an unsigned tensor "
                             "and a negative scalar; cast one of them explicitly")
    lo, hi = int_range(ty)
    if not lo <= value <= hi:
        raise PromotionError(f"Scalar {value} is out of range for type {ty}")


def describe_value(x) -> str:
    """A short description of a Python value for an error message."""
    if x is None:
        return "None"
    if isinstance(x, types.ModuleType):
        return f"the module {x.__name__}"
    if callable(x):
        return f"the function {getattr(x, '__name__', '?')}"
    text = repr(x)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{text} of type {type(x).__name__}"
