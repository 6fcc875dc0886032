"""Reductions and scans with an arbitrary combine function, vectorised over the block.

The combine function is elementwise, so each step calls it once on whole arrays:

- `reduce_along` pairs neighbours (0 with 1, 2 with 3, ...) until one element is
  left: ceil(log2(n)) calls. An odd element out is carried to the next level
  unchanged. Pairing neighbours keeps the operands in order, so a combine that is
  associative but not commutative still gets the sequential answer.
- `scan_along` is the Hillis-Steele inclusive scan: at distance d = 1, 2, 4, ...,
  element i >= d becomes combine(x[i - d], x[i]); ceil(log2(n)) calls. A reverse scan
  runs forward over the flipped axis.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Array = np.ndarray
Combine = Callable[[list[Array], list[Array]], list[Array]]


def _call(combine: Combine, lhs: list[Array], rhs: list[Array]) -> list[Array]:
    out = combine(lhs, rhs)
    shape = lhs[0].shape
    return [np.broadcast_to(np.asarray(v), shape) for v in out]


def reduce_along(operands: list[Array], axis: int, combine: Combine) -> list[Array]:
    """Reduce every operand along `axis` (which is dropped) with `combine`."""
    xs = [np.moveaxis(np.asarray(x), axis, 0) for x in operands]
    while xs[0].shape[0] > 1:
        n = xs[0].shape[0]
        pairs = n // 2 * 2
        combined = _call(combine, [x[0:pairs:2] for x in xs], [x[1:pairs:2] for x in xs])
        if n > pairs:
            # np.concatenate drops dtype metadata (the tag of bf16/fp8 bits): keep it
            combined = [np.concatenate([c, x[pairs:]], axis=0).view(x.dtype)
                        for c, x in zip(combined, xs, strict=True)]
        xs = combined
    return [x[0] for x in xs]


def scan_along(operands: list[Array], axis: int, reverse: bool, combine: Combine) -> list[Array]:
    """Inclusive scan of every operand along `axis` with `combine`."""
    xs = [np.moveaxis(np.asarray(x), axis, 0) for x in operands]
    if reverse:
        xs = [x[::-1] for x in xs]
    n = xs[0].shape[0]
    d = 1
    while d < n:
        combined = _call(combine, [x[: n - d] for x in xs], [x[d:] for x in xs])
        xs = [np.concatenate([x[:d], c], axis=0).view(x.dtype)
              for x, c in zip(xs, combined, strict=True)]
        d *= 2
    if reverse:
        xs = [x[::-1] for x in xs]
    return [np.moveaxis(x, 0, axis) for x in xs]
