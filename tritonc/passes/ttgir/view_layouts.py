"""The layouts under which reshape, trans, split and join move no data.

A view op only renames the coordinates of its elements: `tt.reshape` (row-major, no
reordering) reads the flat index in another shape, `tt.trans` permutes the dimensions,
`tt.split` takes apart a last dimension of size 2 and `tt.join` makes one. On shapes of
powers of two each is a linear map of coordinate bits, so the layout of the result that
keeps every element in the register, lane and warp that held it is the operand's linear
layout with its outputs renamed:

    reshape  each basis's coordinates, read as one row-major flat index, in the new shape
    trans    each basis's coordinates permuted
    split    the register basis that steps the last dimension dropped (None when the two
             halves sit in different lanes or warps: they must move)
    join     a first register basis stepping the new last dimension

and the other way round for an operand from its result. The result is the blocked layout
with that linear layout where one exists (`as_blocked`), else a `#ttg.linear` encoding
(`layouts.LinearEncoding`), or None when the lowering could not place it
(`LinearEncoding.strided`). propagate-mma carries the accumulator of a dot
through such ops with these (the subtiled epilogue of a persistent matmul:
`split(permute(reshape(acc, (M, 2, N / 2)), (0, 2, 1)))` stays in the registers the
wgmma wrote).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

from tritonc.passes.to_llvm.convert import linear_of
from tritonc.passes.ttgir.layouts import BlockedLayout, LinearEncoding
from tritonc.passes.ttgir.linear_encodings import blocked
from tritonc.passes.ttgir.linear_layout import LinearLayout, log2, out_dim_names, unit

VIEW_OPS = ("tt.reshape", "tt.trans", "tt.split", "tt.join")


def _outs(shape: Sequence[int]) -> list[tuple[str, int]]:
    return list(zip(out_dim_names(len(shape)), shape))


def _map_bases(ll: LinearLayout, shape: Sequence[int], f) -> LinearLayout:
    return LinearLayout({name: [f(v) for v in ll.bases(name)] for name in ll.in_dims},
                        _outs(shape))


def reshaped(ll: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """`ll` with its coordinates read row-major in `shape` (same number of elements)."""
    old = ll.out_shape

    def flat(v) -> int:
        index = 0
        for x, size in zip(v, old):
            index = (index << log2(size)) | x
        return index

    def unflat(index: int) -> tuple[int, ...]:
        out = []
        for size in reversed(shape):
            out.append(index & (size - 1))
            index >>= log2(size)
        return tuple(reversed(out))

    return _map_bases(ll, shape, lambda v: unflat(flat(v)))


def split_last(ll: LinearLayout) -> LinearLayout | None:
    """`ll` without its last dimension (of size 2), or None unless exactly one register
    basis steps it and no other basis touches it."""
    last = len(ll.out_shape) - 1
    step = tuple(1 if d == last else 0 for d in range(last + 1))
    regs = list(ll.bases("register"))
    if step not in regs or any(v[last] for name in ll.in_dims for v in ll.bases(name)
                               if not (name == "register" and v == step)):
        return None
    regs.remove(step)
    bases = {name: [v[:last] for v in (regs if name == "register" else ll.bases(name))]
             for name in ll.in_dims}
    return LinearLayout(bases, _outs(ll.out_shape[:last]))


def joined(ll: LinearLayout) -> LinearLayout:
    """`ll` with a last dimension of size 2 stepped by register 0."""
    rank = len(ll.out_shape)
    bases = {name: ([(0,) * rank + (1,)] if name == "register" else [])
             + [(*v, 0) for v in ll.bases(name)] for name in ll.in_dims}
    return LinearLayout(bases, _outs((*ll.out_shape, 2)))


def _run(bases: Sequence[tuple[int, ...]], d: int, first: int) -> int:
    """2 ** the number of bases `first, 2 * first, ...` along dimension `d` among `bases`."""
    rank = len(bases[0]) if bases else 0
    count = 0
    while unit(rank, d, first << count) in bases:
        count += 1
    return 1 << count


def _spread(counts: tuple[int, ...], total: int) -> list[tuple[int, ...]]:
    """`counts` with the factor they lack of `total` (bases wrapped to zero on a tensor
    smaller than the tile) given to one dimension, each in turn."""
    missing = total // max(1, math.prod(counts))
    if missing == 1:
        return [counts]
    return [tuple(c * missing if i == d else c for i, c in enumerate(counts))
            for d in range(len(counts))]


def _order(bases: Sequence[Sequence[tuple[int, ...]]], rank: int) -> tuple[int, ...] | None:
    """The order of dimensions of a blocked layout with these register, lane and warp bases:
    each kind of basis steps the dimensions in that order, so the order is one that keeps
    every kind's sequence of first steps, from the last dimension down where they leave
    the choice; None when the kinds disagree."""
    after: dict[int, set[int]] = {d: set() for d in range(rank)}
    for vectors in bases:
        seen = list(dict.fromkeys(d for v in vectors for d in range(rank) if v[d]))
        for before, later in zip(seen, seen[1:]):
            after[later].add(before)
    order: list[int] = []
    while len(order) < rank:
        ready = [d for d in range(rank - 1, -1, -1)
                 if d not in order and after[d] <= set(order)]
        if not ready:
            return None
        order.append(ready[0])  # dimensions no kind orders against each other: any order
    return tuple(order)


@functools.lru_cache(maxsize=4096)
def as_blocked(ll: LinearLayout) -> BlockedLayout | None:
    """The blocked layout whose linear layout is `ll`, or None: each dimension's chunk per
    thread, lanes and warps read off the bases, in the order they step the dimensions
    (`_order`; on up to three dimensions every order, for wrapped bases)."""
    shape = ll.out_shape
    rank = len(shape)
    regs, lanes, warps = (ll.bases(name) for name in ("register", "lane", "warp"))
    spt = tuple(_run(regs, d, 1) for d in range(rank))
    orders = [_order((regs, lanes, warps), rank)]
    if rank <= 3:  # a dimension of size 1 may hold warps or lanes wrapped to zero bases
        orders += itertools.permutations(range(rank - 1, -1, -1))
    for tpw in _spread(tuple(_run(lanes, d, spt[d]) for d in range(rank)), 1 << len(lanes)):
        wpcs = _spread(tuple(_run(warps, d, spt[d] * tpw[d]) for d in range(rank)),
                       1 << len(warps))
        for wpc, order in itertools.product(wpcs, orders):
            if order is not None and blocked(shape, spt, tpw, wpc, order) == ll:
                return BlockedLayout(spt, tpw, wpc, order)
    return None


def _encoding(ll: LinearLayout | None) -> BlockedLayout | LinearEncoding | None:
    if ll is None:
        return None
    return as_blocked(ll) or (LinearEncoding(ll) if LinearEncoding.strided(ll) else None)


def result_layout(ir, op, layout, src_shape: tuple[int, ...],
                  dst_shape: tuple[int, ...]) -> BlockedLayout | LinearEncoding | None:
    """The layout of `op`'s result(s) (of `dst_shape`) that holds each element where the
    operand (of `src_shape`, in `layout`) does; for a join, where both operands do."""
    return _through(ir, op, linear_of(layout, src_shape), dst_shape, forward=True)


def operand_layout(ir, op, layout, src_shape: tuple[int, ...],
                   dst_shape: tuple[int, ...]) -> BlockedLayout | LinearEncoding | None:
    """The layout of `op`'s operand(s) (of `src_shape`) from which its result (of
    `dst_shape`, in `layout`) moves no data."""
    return _through(ir, op, linear_of(layout, dst_shape), src_shape, forward=False)


def _through(ir, op, ll: LinearLayout | None, shape: tuple[int, ...],
             forward: bool) -> BlockedLayout | LinearEncoding | None:
    """`ll` carried through view op `op` from its operand to its result (`forward`) or
    back, onto `shape`."""
    if ll is None:
        return None
    if op.name == "tt.reshape":
        return _encoding(reshaped(ll, shape))
    if op.name == "tt.trans":
        order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))
        return _encoding(ll.transpose_outs(
            order if forward else [order.index(d) for d in range(len(order))]))
    takes_apart = (op.name == "tt.split") == forward
    return _encoding(split_last(ll) if takes_apart else joined(ll))
