"""Target libraries callable from kernels: `tl.extra.libdevice`."""

from tritonc.language.extra import libdevice

__all__ = ["libdevice"]
