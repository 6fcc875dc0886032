"""Targets of the compiler: `cuda/` (PTX and cubins) and `interpreter/` (numpy on the CPU).

A compiling target is a `base.Backend`: it parses its options into one frozen value and
lists its stages in order. `get_backend("cuda:90")` returns the backend for a target
string; importing this package imports no MLIR.
"""

from __future__ import annotations

from tritonc.backends.base import Backend, Target, get_backend, parse_target

__all__ = ["Backend", "Target", "get_backend", "parse_target"]
