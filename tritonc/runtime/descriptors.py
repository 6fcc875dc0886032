"""Host tensor descriptors as arguments of compiled kernels.

A `TensorDescriptor` (tritonc.tools.tensor_descriptor) passed to a kernel has the
signature type `tensordesc<fp16[64, 64]>` (`tensordesc<fp16[64, 64],nan>` with NaN
padding): its element type and block shape are compile-time facts, its tensor is not. It
travels as 2 + 2 * rank kernel arguments, the base pointer, the shape (i32 each), the
strides (i64 each) and the device address of its CUtensorMap (`runtime/tensormap.py`;
null where no kernel can use one), from which the kernel's entry makes the descriptor
(`tt.make_tensor_descriptor`), as if the kernel had called `tl.make_tensor_descriptor`.
A descriptor is specialized as aligned (`is_aligned`: its base 16-byte aligned, its last
dimension and every stride but the last multiples of 16, no dimension empty) or not; an
aligned one's base, last dimension and strides carry that divisibility into the kernel,
and its TMA copies (`tma_box`) may read it through the CUtensorMap. Nothing here imports MLIR.
"""

from __future__ import annotations

import re
from typing import Any

from tritonc.tools.tensor_descriptor import TensorDescriptor

# on the `tt.make_tensor_descriptor` of an aligned descriptor: the number of the kernel
# argument holding its CUtensorMap
TENSORMAP_ATTR = "tt.tensormap"
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
    return [f"*{element_type}", *["i32"] * len(block), *["i64"] * len(block), "*i8"]


def aligned_arguments(text: str) -> set[int]:
    """The positions among `flat_types(text)` of the arguments an aligned descriptor
    makes divisible by 16: the base, the last dimension and the strides but the last."""
    rank = len(parse(text)[1])
    return {0, rank, *range(1 + rank, 2 * rank)}


def is_aligned(desc: Any) -> bool:
    """Whether the host descriptor `desc` specializes as aligned (see above)."""
    return desc.base.data_ptr() % 16 == 0 and all(s % 16 == 0 for s in desc.strides[:-1]) \
        and desc.shape[-1] % 16 == 0 and all(d > 0 for d in desc.shape)


def tma_box(element_bytes: int, block_shape: list[int]) -> tuple[list[int], int] | None:
    """(box dimensions innermost first, swizzle span in bytes) of the TMA copies that
    bring one `block_shape` block of a 2-D descriptor into shared memory as the cp.async
    ring stores it: rows of 128 bytes at most, a wider block in 128-byte column blocks,
    each its own box; None for a block TMA does not copy that way."""
    if len(block_shape) != 2 or element_bytes not in (1, 2, 4):
        return None
    rows, cols = block_shape
    row_bytes = cols * element_bytes
    if rows > 256 or not (row_bytes in (32, 64) or row_bytes % 128 == 0):
        return None
    span = min(row_bytes, 128)
    return [span // element_bytes, rows], span


def flat_values(desc: Any) -> list:
    """The kernel argument values of the host descriptor `desc`, as `flat_types` types
    them."""
    from tritonc.runtime.tensormap import device_tensormap

    return [desc.base, *desc.shape, *desc.strides, device_tensormap(desc)]
