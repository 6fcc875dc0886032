"""`TensorDescriptor`: a tensor described on the host, passed to a kernel as a descriptor.

A kernel parameter given a `TensorDescriptor` receives a tensor descriptor (as if the
kernel had called `tl.make_tensor_descriptor` on it): `desc.load(offsets)` reads a
`block_shape` block, out-of-bounds elements read as 0 (`padding="zero"`) or NaN
(`padding="nan"`), and `desc.store(offsets, value)` writes one, dropping the elements
outside `shape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PADDINGS = ("zero", "nan")


@dataclass
class TensorDescriptor:
    """`base` (a torch tensor or numpy array) seen as `shape` with `strides` (in elements),
    read and written in blocks of `block_shape`."""

    base: Any
    shape: Sequence[int]
    strides: Sequence[int]
    block_shape: Sequence[int]
    padding: str = "zero"

    def __post_init__(self) -> None:
        self.shape = [int(s) for s in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = [int(b) for b in self.block_shape]
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"a tensor descriptor has 1 to 5 dimensions, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"shape {self.shape}, strides {self.strides} and block_shape "
                             f"{self.block_shape} must have the same length")
        if self.strides[-1] != 1:
            raise ValueError(f"the last dimension must be contiguous (stride 1), got strides "
                             f"{self.strides}")
        if self.padding not in PADDINGS:
            raise ValueError(f"padding must be one of {PADDINGS}, got {self.padding!r}")
        for b in self.block_shape:
            if b <= 0 or b & (b - 1):
                raise ValueError(f"block_shape entries must be powers of two, got "
                                 f"{self.block_shape}")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: Sequence[int],
                    padding: str = "zero") -> TensorDescriptor:
        """A descriptor of the whole of `tensor` (a torch tensor or numpy array)."""
        if hasattr(tensor, "stride") and callable(tensor.stride):
            strides = list(tensor.stride())
        else:
            strides = [s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), strides, block_shape, padding)
