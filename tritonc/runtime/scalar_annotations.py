"""Typed scalar parameters: a kernel parameter annotated with a language dtype.

`def k(X, v: tl.int8)` makes `v` a scalar of that type whatever Python value is passed
for it. The annotation may be the dtype object, its text (`"tl.uint16"`, as
`from __future__ import annotations` leaves it) or an entry of `k.__annotations__`.
The launch signature then names the annotated type (`i8`) instead of the one the value
would get (`i32`): the kernel's argument has that type, the launchers pack the value
as one, and the interpreter converts the value to it. An int for an int1 is true when
nonzero, as a cast makes it; a float for an integer type is a TypeError, a value out
of the type's range an OverflowError. An int passed for a typed parameter is never
turned into a constexpr (equal to 1); an integer type still takes the div16 rule.

The types read are the scalars a launcher can pass: int1 (also written `bool`), int8 to
int64, uint8 to uint64, fp16, bf16, fp32 and fp64. Any other annotation (`torch.Tensor`,
`int`, a pointer type, `tl.constexpr`) types nothing and is no error.
"""

from __future__ import annotations

import operator
import struct
from typing import Any

# accepted spellings (after a `tl.` or `triton.language.` prefix) -> signature type
_SPELLINGS = {
    "bool": "i1", "int1": "i1", "uint1": "i1", "i1": "i1", "u1": "i1",
    **{f"{kind}{bits}": f"{kind[0]}{bits}" for kind in ("int", "uint") for bits in (8, 16, 32, 64)},
    **{f"{k}{bits}": f"{k}{bits}" for k in ("i", "u") for bits in (8, 16, 32, 64)},
    "float16": "fp16", "fp16": "fp16", "bfloat16": "bf16", "bf16": "bf16",
    "float32": "fp32", "fp32": "fp32", "float64": "fp64", "fp64": "fp64",
}
_PREFIXES = ("tritonc.language.", "triton.language.", "language.", "tl.")
# how a launcher packs each floating type: the value must fit (struct's rule)
_FLOAT_FORMATS = {"fp16": "<e", "bf16": "<f", "fp32": "<f", "fp64": "<d"}


def annotation_type(annotation: Any) -> str | None:
    """The signature type (`i8`, `u16`, `fp16`, ...) a parameter's annotation names, or
    None when it names no scalar dtype."""
    if isinstance(annotation, str):
        text = annotation.strip()
        for prefix in _PREFIXES:
            if text.startswith(prefix):
                text = text[len(prefix):]
                break
        return _SPELLINGS.get(text)
    if annotation is bool:
        return "i1"
    from tritonc.language.dtypes import dtype

    if isinstance(annotation, dtype) and not annotation.is_ptr():
        return _SPELLINGS.get(annotation.codegen_name())
    return None


def is_integer_type(type_name: str) -> bool:
    return type_name[0] in "iu"


def _int_range(type_name: str) -> tuple[int, int]:
    bits = int(type_name[1:])
    if type_name == "i1":  # any 64-bit int: true when nonzero
        return -(1 << 63), (1 << 63) - 1
    if type_name[0] == "i":
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def check_value(type_name: str, value: Any) -> int | float:
    """`value` as a Python int or float for a parameter typed `type_name`: TypeError for a
    value of another kind (a tensor, a float for an integer type), OverflowError for one
    the type cannot hold."""
    if hasattr(value, "data_ptr") or isinstance(value, (str, bytes, tuple)):
        raise TypeError(f"a parameter annotated {type_name} takes a scalar, not "
                        f"{type(value).__name__}")
    if is_integer_type(type_name):
        try:
            number = operator.index(value)
        except TypeError:
            raise TypeError(f"a parameter annotated {type_name} takes an integer, not "
                            f"{type(value).__name__}") from None
        low, high = _int_range(type_name)
        if not low <= number <= high:
            raise OverflowError(f"{number} is out of the range of {type_name} "
                                f"({low} to {high})")
        return number
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"a parameter annotated {type_name} takes a number, not "
                        f"{type(value).__name__}") from None
    try:
        struct.pack(_FLOAT_FORMATS[type_name], number)
    except OverflowError:
        raise OverflowError(f"{number} is out of the range of {type_name}") from None
    return number
