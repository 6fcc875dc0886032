"""The root of tritonc's own exceptions: `tritonc.TritonError` (Triton's `triton.TritonError`).

Compilation errors (`tritonc.CompilationError`) and the interpreter's errors derive from it,
so `except tritonc.TritonError` catches every error that tritonc raises about a kernel.
"""

from __future__ import annotations


class TritonError(Exception):
    """Base class of the errors tritonc raises about a kernel."""


class OutOfResources(TritonError):
    """A kernel needs more of a resource (shared memory, registers) than the device has;
    the autotuner rules such a config out, as Triton's does."""

    def __init__(self, required: int, limit: int, name: str) -> None:
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(f"out of resource: {name}, required: {required}, hardware limit: "
                         f"{limit}; reduce the block sizes or `num_stages`")

    def __reduce__(self) -> tuple:
        return (type(self), (self.required, self.limit, self.name))
