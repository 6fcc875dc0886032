"""Triton's typing and arithmetic, in numpy, for the fuzzer's expressions.

Written from Triton's language rules (`computation_type_impl`, `integer_promote_impl`,
truediv, the weak typing of Python scalars, `_pick_sum_dtype`), not from tritonc. Values
are numpy arrays in the type's own numpy dtype; bf16 values live in float32 arrays,
rounded to bf16 after every operation. Float operations are computed in float64 and
rounded once to the result type: for +, -, *, / that equals the correctly rounded
operation in the narrower type (float64 has more than twice the bits plus two).
"""

from __future__ import annotations

import numpy as np

FLOATS = ("fp16", "bf16", "fp32", "fp64")
SIGNED = ("i8", "i16", "i32", "i64")
UNSIGNED = ("u8", "u16", "u32", "u64")
DTYPES = FLOATS + SIGNED + UNSIGNED
FP8 = ("fp8e4nv", "fp8e5")  # inputs only, converted exactly to a wider float where loaded
NUMPY = {"fp16": np.float16, "bf16": np.float32, "fp32": np.float32, "fp64": np.float64,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
         "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
         "fp8e4nv": np.float32, "fp8e5": np.float32}
TL_NAME = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
           "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
           "fp8e4nv": "float8e4nv", "fp8e5": "float8e5"}
EPS = {"fp16": 2.0**-10, "bf16": 2.0**-7, "fp32": 2.0**-23, "fp64": 2.0**-52}


def bits(ty: str) -> int:
    return {"fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64}.get(ty) or int(ty[1:])


def is_float(ty: str) -> bool:
    return ty in FLOATS


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Values rounded once to the nearest bf16 (ties to even), kept in float32. Integers
    are rounded exactly; floats through float64, which holds any float32 exactly."""
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        return np.array([_round_int_bf16(int(v)) for v in x.ravel()],
                        np.float32).reshape(x.shape)
    x = x.astype(np.float64)
    mantissa, exponent = np.frexp(x)
    rounded = np.ldexp(np.rint(np.ldexp(mantissa, 8)), exponent - 8)  # rint: ties to even
    return np.where(np.isfinite(x), rounded, x).astype(np.float32)


def _round_int_bf16(v: int) -> float:
    magnitude = abs(v)
    shift = magnitude.bit_length() - 8
    if shift > 0:
        q, r, half = magnitude >> shift, magnitude & ((1 << shift) - 1), 1 << (shift - 1)
        q += r > half or (r == half and q & 1)
        magnitude = q << shift
    return float(-magnitude if v < 0 else magnitude)


def to_type(values: np.ndarray, ty: str) -> np.ndarray:
    """Values (float64 or integers) converted to `ty`: floats round to nearest even,
    integers wrap modulo 2**bits."""
    values = np.asarray(values)
    if ty == "bf16":
        return round_bf16(values)
    if is_float(ty):
        with np.errstate(over="ignore"):
            return values.astype(NUMPY[ty])
    if values.dtype.kind == "f":
        raise ValueError("the fuzzer never casts floats to integers")
    return values.astype(NUMPY[ty])  # numpy integer casts wrap


# -- typing -------------------------------------------------------------------------------
def integer_promote(a: str, b: str) -> str:
    """C's usual arithmetic conversions."""
    if (a in SIGNED) == (b in SIGNED):
        return a if bits(a) >= bits(b) else b
    unsigned, signed = (a, b) if a in UNSIGNED else (b, a)
    return unsigned if bits(unsigned) >= bits(signed) else signed


def computation_type(a: str, b: str, div_or_mod: bool = False) -> str:
    """The type two tensors of types `a` and `b` meet in."""
    if "fp64" in (a, b):
        return "fp64"
    if "fp32" in (a, b):
        return "fp32"
    if "fp16" in (a, b):  # Triton: fp16 with bf16 is fp16 too (the fuzzer never mixes them)
        return "fp32" if div_or_mod else "fp16"
    if "bf16" in (a, b):
        return "bf16" if a == b == "bf16" and not div_or_mod else "fp32"
    return integer_promote(a, b)


def scalar_type(tensor_ty: str, value: int | float, div_or_mod: bool = False) -> str:
    """A tensor of `tensor_ty` with a Python scalar: the scalar is weakly typed."""
    if isinstance(value, int) or is_float(tensor_ty):
        if div_or_mod and tensor_ty in ("fp16", "bf16"):
            return "fp32"
        return tensor_ty
    return computation_type(tensor_ty, "fp32", div_or_mod)


def truediv_type(a: str, b: str) -> str:
    if not is_float(a) and not is_float(b):
        return "fp32"
    return computation_type(a, b, div_or_mod=True)


def sum_type(ty: str) -> str:
    """tl.sum / tl.cumsum accumulate small integers in 32 bits of the same signedness."""
    if ty in SIGNED and bits(ty) < 32:
        return "i32"
    if ty in UNSIGNED and bits(ty) < 32:
        return "u32"
    return ty


# -- arithmetic ---------------------------------------------------------------------------
def binary(op: str, a: np.ndarray, b: np.ndarray, ty: str) -> np.ndarray:
    """`a op b` with both operands already converted to `ty`."""
    if is_float(ty):
        x, y = a.astype(np.float64), b.astype(np.float64)
        fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
              "max": np.maximum, "min": np.minimum}[op]
        return to_type(fn(x, y), ty)
    fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
          "|": np.bitwise_or, "^": np.bitwise_xor, "max": np.maximum, "min": np.minimum}[op]
    with np.errstate(over="ignore"):
        return fn(a, b).astype(NUMPY[ty])


def unary(op: str, a: np.ndarray, ty: str) -> np.ndarray:
    if op == "neg":
        if is_float(ty):
            return to_type(-a.astype(np.float64), ty)
        with np.errstate(over="ignore"):
            return (np.zeros_like(a) - a).astype(NUMPY[ty])
    if op == "abs":
        if is_float(ty):
            return to_type(np.abs(a.astype(np.float64)), ty)
        with np.errstate(over="ignore"):
            return np.abs(a).astype(NUMPY[ty])
    raise ValueError(op)


def reduce(op: str, a: np.ndarray, ty: str, axis: int) -> np.ndarray:
    """The exact reduction (floats in float64, rounded once; integers wrap)."""
    if is_float(ty):
        x = a.astype(np.float64)
        result = {"sum": np.sum, "max": np.max, "min": np.min}[op](x, axis=axis)
        return to_type(result, ty)
    with np.errstate(over="ignore"):
        if op == "sum":
            return np.sum(a, axis=axis, dtype=NUMPY[ty])
        return {"max": np.max, "min": np.min}[op](a, axis=axis).astype(NUMPY[ty])


def cumsum(a: np.ndarray, ty: str, axis: int) -> np.ndarray:
    if is_float(ty):
        return to_type(np.cumsum(a.astype(np.float64), axis=axis), ty)
    with np.errstate(over="ignore"):
        return np.cumsum(a, axis=axis, dtype=NUMPY[ty])
