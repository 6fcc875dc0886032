"""How language values are stored in numpy arrays.

Every handle is an ndarray (0-d for scalars) of its type's storage dtype:

=============  ===========================================================
int1           np.bool_
intN / uintN   np.intN / np.uintN
fp16/32/64     np.float16 / np.float32 / np.float64
bf16           np.uint16 holding the raw bits
fp8*           np.uint8 holding the raw bits
pointers       np.int64 virtual addresses (see `memory.py`)
=============  ===========================================================

The uint16/uint8 arrays of the encoded float formats carry the format's name in
their dtype's metadata (`{"tt": "bf16"}`), so rules whose result type does not say
the operand's format (`extf`, `cmpf`, `tt.dot`) can still decode it. Shape ops keep
the tag; `finish` restores it on every result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tritonc.backends.interpreter.formats import ENCODED, decode, encode
from tritonc.language.dtypes import base_type, block_type, dtype, pointer_type

PTR = np.dtype(np.int64)

_PLAIN = {
    "int1": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
    "uint64": np.uint64, "fp16": np.float16, "fp32": np.float32, "fp64": np.float64,
}
_ENCODED_STORAGE = {"bf16": np.uint16, "fp8e5": np.uint8, "fp8e4nv": np.uint8,
                    "fp8e4b15": np.uint8}

#: scalar type name -> numpy storage dtype (tagged for the encoded float formats)
STORAGE: dict[str, np.dtype] = {name: np.dtype(t) for name, t in _PLAIN.items()}
STORAGE.update({name: np.dtype(t, metadata={"tt": name}) for name, t in _ENCODED_STORAGE.items()})


def scalar_of(ty: base_type) -> base_type:
    """The element type of a block type, or `ty` itself."""
    return ty.element_ty if isinstance(ty, block_type) else ty


def storage_of(ty: base_type) -> np.dtype | None:
    """The numpy dtype storing values of `ty`; None for block pointers and descriptors."""
    elt = scalar_of(ty)
    if isinstance(elt, pointer_type):
        return None if isinstance(elt.element_ty, block_type) else PTR
    if isinstance(elt, dtype):
        return STORAGE[elt.name]
    return None


def shape_of(ty: base_type) -> tuple[int, ...]:
    """The shape of values of `ty` (() for scalars)."""
    return ty.shape if isinstance(ty, block_type) else ()


def format_of(h: np.ndarray) -> str | None:
    """The encoded float format an array holds ("bf16", "fp8e5", ...), or None."""
    meta = h.dtype.metadata
    return meta.get("tt") if meta else None


def float_name(h: np.ndarray) -> str:
    """The language name of a float handle's type: fp16/fp32/fp64 or an encoded format."""
    fmt = format_of(h)
    if fmt is not None:
        return fmt
    return {np.float16: "fp16", np.float32: "fp32", np.float64: "fp64"}[h.dtype.type]


def as_float(h: np.ndarray) -> np.ndarray:
    """A float array to compute with: encoded formats decode to float32, others as they are."""
    fmt = format_of(h)
    if fmt is None:
        if h.dtype.kind != "f":
            raise TypeError(f"expected a floating-point value, got a {h.dtype} array")
        return h
    return decode(h, fmt)


def tag(h: np.ndarray, name: str) -> np.ndarray:
    """View raw bits as encoded format `name`."""
    return h.view(STORAGE[name])


def finish(value: Any, ty: base_type) -> Any:
    """Convert a rule's result to the storage of `ty`.

    Floats bound for an encoded format are rounded to nearest even; other dtype
    mismatches are converted with numpy's `astype` (wrap-around for integers). Shapes
    are left alone except that a 0-d value for a block type is splatted: inside a
    combine function the semantic layer types values as scalars while the arrays
    hold whole slices of the block.
    """
    want = storage_of(ty)
    if want is None:
        return value
    arr = np.asarray(value)
    if arr.dtype is not want:
        if arr.dtype == want:
            arr = arr.view(want)
        elif want.metadata is not None and arr.dtype.kind == "f":
            arr = encode(arr, want.metadata["tt"]).view(want)
        elif want.kind == "b":
            arr = arr != 0
        else:
            with np.errstate(all="ignore"):
                arr = arr.astype(want)
            if want.metadata is not None:
                arr = arr.view(want)
    if arr.ndim == 0 and isinstance(ty, block_type):
        arr = np.broadcast_to(arr, ty.shape).copy()
    return arr


def is_encoded(name: str) -> bool:
    return name in ENCODED


def int_width(h: np.ndarray) -> int:
    """Bit width of an integer handle (1 for int1)."""
    return 1 if h.dtype.kind == "b" else 8 * h.dtype.itemsize


def as_signed(h: np.ndarray) -> np.ndarray:
    """An integer handle's two's-complement value (int1 true is -1)."""
    kind = h.dtype.kind
    if kind == "i":
        return h
    if kind == "b":
        return -(h.astype(np.int8))
    return h.view(f"i{h.dtype.itemsize}")


def as_unsigned(h: np.ndarray) -> np.ndarray:
    """An integer handle's unsigned value (int1 true is 1)."""
    kind = h.dtype.kind
    if kind == "u" and h.dtype.metadata is None:
        return h
    if kind == "b":
        return h.view(np.uint8)
    return h.view(f"u{h.dtype.itemsize}")


def truncate_int(r: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Integer result `r` back in `like`'s storage; for int1 only the low bit counts."""
    r = np.asarray(r)
    if like.dtype.kind == "b":
        return (r & 1).astype(np.bool_)
    if r.dtype.itemsize == like.dtype.itemsize:
        return r.view(like.dtype)
    return r.astype(like.dtype)
