"""Target libraries callable from kernels: `tl.extra.libdevice`, `tl.extra.cuda`."""

from tritonc.language.extra import cuda, libdevice

__all__ = ["cuda", "libdevice"]
