"""Host tensor descriptors as arguments of compiled kernels.

A `TensorDescriptor` (tritonc.tools.tensor_descriptor) passed to a kernel has the
signature type `tensordesc<fp16[64, 64]>` (`tensordesc<fp16[64, 64],nan>` with NaN
padding): its element type and block shape are compile-time facts, its tensor is not. It
travels as 1 + 2 * rank kernel arguments, the base pointer, the shape (i32 each) and the
strides (i64 each), from which the kernel's entry makes the descriptor
(`tt.make_tensor_descriptor`), as if the kernel had called `tl.make_tensor_descriptor`.
Only the base pointer is specialized (16-byte alignment). Nothing here imports MLIR.
"""

from __future__ import annotations

import re
from typing import Any

from tritonc.tools.tensor_descriptor import TensorDescriptor

_TEXT = re.compile(r"^tensordesc<(\w+)\[([0-9, ]+)\](,nan)?>$")


def is_descriptor(value: Any) -> bool:
    return isinstance(value, TensorDescriptor)


def signature_text(element_type: str, block_shape: list[int], padding: str) -> str:
    """The signature type of a descriptor of `element_type` read in `block_shape` blocks."""
    dims = ", ".join(str(b) for b in block_shape)
    return f"tensordesc<{element_type}[{dims}]{',nan' if padding == 'nan' else ''}>"


def parse(text: Any) -> tuple[str, list[int], str] | None:
    """(element type, block shape, padding) of a descriptor signature type; None for any
    other signature entry."""
    match = _TEXT.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    block = [int(b) for b in match.group(2).split(",")]
    return match.group(1), block, "nan" if match.group(3) else "zero"


def flat_types(text: str) -> list[str]:
    """The kernel argument types a descriptor of signature type `text` travels as."""
    element_type, block, _ = parse(text)
    return [f"*{element_type}", *["i32"] * len(block), *["i64"] * len(block)]


def flat_values(desc: Any) -> list:
    """The kernel argument values of the host descriptor `desc`, as `flat_types` types
    them."""
    return [desc.base, *desc.shape, *desc.strides]
