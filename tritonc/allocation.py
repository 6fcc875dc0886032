"""`tritonc.set_allocator`: the function that gives kernels global scratch memory.

Triton calls it `alloc_fn(size, alignment, stream)` and expects a tensor of at least
`size` bytes back; kernels that build tensor descriptors on the device ask for such
memory. tritonc's interpreter needs no scratch memory; the allocator is kept for any
launch path that does, and `get_allocator()` hands it back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Allocator = Callable[[int, int, Any], Any]

_allocator: Allocator | None = None


def set_allocator(allocator: Allocator | None) -> None:
    """Install `allocator(size, alignment, stream)` (None removes it)."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator needs a callable, got {type(allocator).__name__}")
    _allocator = allocator


def get_allocator() -> Allocator | None:
    """The allocator `set_allocator` installed, or None."""
    return _allocator
