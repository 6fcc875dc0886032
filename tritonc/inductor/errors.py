"""The errors `triton.runtime.errors` and `triton.runtime.autotuner` name."""

from __future__ import annotations

from tritonc.backends.cuda.ptxas import PtxasError


class OutOfResources(Exception):
    """A kernel needs more of a resource (shared memory, registers) than the device has."""

    def __init__(self, required: int, limit: int, name: str) -> None:
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(f"out of resource: {name}, required: {required}, hardware limit: "
                         f"{limit}; reduce the block sizes or `num_stages`")

    def __reduce__(self) -> tuple:
        return (type(self), (self.required, self.limit, self.name))


class PTXASError(PtxasError):
    """ptxas failed on the PTX tritonc generated."""


class InterpreterError(RuntimeError):
    """A fault while interpreting a kernel."""
