"""`tritonc.reinterpret`: a tensor's memory seen as elements of another type.

`reinterpret(x, tl.uint32)` wraps a torch tensor so that a kernel receives a pointer to
`uint32` (or `float8e4nv`, ... types torch may lack) over the same bytes: the wrapper has
the tensor's address, shape and strides, and the language dtype in place of torch's. A
wrapper reinterpreted as its base's own dtype gives the base back.
"""

from __future__ import annotations

from typing import Any

from tritonc.language.dtypes import dtype as tl_dtype


class TensorWrapper:
    """`base` (a torch tensor) whose elements a kernel reads as `dtype` (a `tl` dtype)."""

    def __init__(self, base: Any, dtype: tl_dtype) -> None:
        self.base = base
        self.data = base
        self.dtype = dtype
        self.device = base.device
        self.shape = self.base.shape

    def data_ptr(self) -> int:
        return self.base.data_ptr()

    def stride(self, *args: int) -> Any:
        return self.base.stride(*args)

    def numel(self) -> int:
        return self.base.numel()

    def element_size(self) -> int:
        return self.base.element_size()

    def dim(self) -> int:
        return self.base.dim()

    def cpu(self) -> TensorWrapper:
        return TensorWrapper(self.base.cpu(), self.dtype)

    def to(self, device: Any) -> TensorWrapper:
        return TensorWrapper(self.base.to(device), self.dtype)

    def copy_(self, other: Any) -> TensorWrapper:
        self.base.copy_(other.base if isinstance(other, TensorWrapper) else other)
        return self

    def clone(self) -> TensorWrapper:
        return TensorWrapper(self.base.clone(), self.dtype)

    def new_empty(self, sizes: Any) -> TensorWrapper:
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"


def reinterpret(tensor: Any, dtype: tl_dtype) -> Any:
    """`tensor` (a torch tensor or a wrapper) with its elements read as `dtype`."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"reinterpret: cannot reinterpret a {type(tensor).__name__} "
                    "(a torch tensor is needed)")
