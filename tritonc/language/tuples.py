"""`tl.tuple`: a tuple of kernel values, built inside a kernel.

Tuples in kernels are Python tuples (of tensors, constexprs and nested tuples): they
compare, concatenate and index like Python's, and unpack into names.
"""

from __future__ import annotations

import builtins as py

from tritonc.language.core import _unwrap, builtin


@builtin
def tuple(args=(), _semantic=None) -> py.tuple:
    """A tuple of the values in `args` (a tuple, list or other iterable)."""
    return py.tuple(_unwrap(args))


__all__ = ["tuple"]
