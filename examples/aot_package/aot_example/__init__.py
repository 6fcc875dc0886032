"""A package with Triton kernels that ship precompiled: `add(x, y)` and `scale(x, alpha)`."""

from aot_example.kernels import add, add_kernel, scale, scale_kernel

__all__ = ["add", "add_kernel", "scale", "scale_kernel"]
