"""The root of tritonc's own exceptions: `tritonc.TritonError` (Triton's `triton.TritonError`).

Compilation errors (`tritonc.CompilationError`) and the interpreter's errors derive from it,
so `except tritonc.TritonError` catches every error that tritonc raises about a kernel.
"""

from __future__ import annotations


class TritonError(Exception):
    """Base class of the errors tritonc raises about a kernel."""
