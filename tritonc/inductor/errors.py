"""The errors `triton.runtime.errors` and `triton.runtime.autotuner` name."""

from __future__ import annotations

from tritonc.backends.cuda.ptxas import PtxasError
from tritonc.errors import OutOfResources

__all__ = ["InterpreterError", "OutOfResources", "PTXASError"]


class PTXASError(PtxasError):
    """ptxas failed on the PTX tritonc generated."""


class InterpreterError(RuntimeError):
    """A fault while interpreting a kernel."""
