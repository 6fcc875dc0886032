"""Rules for pointers and memory: addptr, load, store and the atomics.

Pointers are int64 virtual addresses (see `memory.py`); `tt.addptr` advances them by
`offset * sizeof(pointee)` bytes. `tt.load`/`tt.store` on a block pointer go to
`block_ops`. Atomics apply their lanes in lane order: lanes hitting distinct
addresses run together, and a lane repeating an address runs in a later round, so
duplicated addresses accumulate exactly and every lane gets the value it replaced.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tritonc.backends.interpreter import block_ops
from tritonc.backends.interpreter.errors import InterpreterUnsupported
from tritonc.backends.interpreter.formats import decode, encode
from tritonc.backends.interpreter.memory import masked_load, masked_store
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import (
    as_signed,
    as_unsigned,
    format_of,
    scalar_of,
    storage_of,
)
from tritonc.language.dtypes import base_type, pointer_type

Array = np.ndarray


def pointee_size(ptr_ty: base_type) -> int:
    """sizeof the element a pointer type (or a block of them) points to."""
    elt = scalar_of(ptr_ty)
    assert isinstance(elt, pointer_type), f"not a pointer type: {ptr_ty}"
    pointee = elt.element_ty
    return max(1, pointee.primitive_bitwidth // 8)


@impl("tt.addptr")
def addptr(ctx: OpContext, ptr: Array, offset: Array) -> Array:
    step = pointee_size(ctx.result_type)
    return ctx.builder.memory.advance(ptr, as_signed(offset).astype(np.int64) * step)


@impl("tt.load")
def load(ctx: OpContext, ptr: Array, mask: Array | None = None,
         other: Array | None = None) -> Array:
    if isinstance(ptr, block_ops.BlockPointer):
        return block_ops.load_block(ctx, ptr)
    want = storage_of(ctx.result_type)
    return masked_load(ctx.builder.memory, ptr, mask, other, want)


@impl("tt.store")
def store(ctx: OpContext, ptr: Array, value: Array, mask: Array | None = None) -> None:
    if isinstance(ptr, block_ops.BlockPointer):
        block_ops.store_block(ctx, ptr, value)
        return
    masked_store(ctx.builder.memory, ptr, value, mask)


# -- atomics ----------------------------------------------------------------------------
Update = Callable[[Array, Array], Array]


def _float_update(fn: Callable[[Array, Array], Array]) -> Callable[[Array, Array], Array]:
    def update(old: Array, val: Array) -> Array:
        fmt = format_of(val)
        if fmt is None:
            return fn(old.view(val.dtype), val).astype(val.dtype)
        return encode(fn(decode(old, fmt), decode(val, fmt)), fmt)

    return update


def _int_add(old: Array, val: Array) -> Array:
    return old.view(val.dtype) + val


def _signed(fn: Callable[[Array, Array], Array]) -> Update:
    def update(old: Array, val: Array) -> Array:
        if val.dtype.kind == "f" or format_of(val):
            return _float_update(fn)(old, val)
        return fn(as_signed(old.view(val.dtype)), as_signed(val)).view(val.dtype)

    return update


def _unsigned(fn: Callable[[Array, Array], Array]) -> Update:
    def update(old: Array, val: Array) -> Array:
        return fn(as_unsigned(old.view(val.dtype)), as_unsigned(val)).view(val.dtype)

    return update


def _bitwise(fn: Callable[[Array, Array], Array]) -> Update:
    def update(old: Array, val: Array) -> Array:
        return fn(as_unsigned(old), as_unsigned(val)).view(val.dtype)

    return update


def _exchange(old: Array, val: Array) -> Array:
    return val


ATOMIC_KINDS: dict[str, Update] = {
    "add": _int_add, "fadd": _float_update(np.add),
    "max": _signed(np.maximum), "min": _signed(np.minimum),
    "umax": _unsigned(np.maximum), "umin": _unsigned(np.minimum),
    "and": _bitwise(np.bitwise_and), "or": _bitwise(np.bitwise_or),
    "xor": _bitwise(np.bitwise_xor), "xchg": _exchange,
}


def _rank_by_address(idx: Array) -> Array:
    """For each lane, how many earlier lanes use the same address."""
    n = idx.size
    order = np.argsort(idx, kind="stable")
    sorted_idx = idx[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = sorted_idx[1:] != sorted_idx[:-1]
    positions = np.arange(n)
    first = np.maximum.accumulate(np.where(starts, positions, 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = positions - first
    return rank


def _atomic(ctx: OpContext, ptr: Array, mask: Array | None, apply: Callable[..., Array],
            operands: list[Array], what: str) -> Array:
    """Run `apply(old, *operands) -> new` lane by lane in lane order; return old values."""
    want = storage_of(ctx.result_type)
    shape = np.shape(ptr)
    addr = np.ravel(ptr)
    vals = [np.ravel(np.broadcast_to(v, shape)).view(want) for v in operands]
    active = np.ones(addr.shape, bool) if mask is None else np.ravel(np.broadcast_to(mask, shape))
    old = np.zeros(addr.shape, dtype=want)
    lanes_on = np.flatnonzero(active)
    if lanes_on.size:
        for lanes, view, idx in ctx.builder.memory.element_view(addr[lanes_on], want, what):
            lane_ids = lanes_on[lanes]
            rank = _rank_by_address(idx)
            for r in range(int(rank.max()) + 1):
                sel = rank == r
                at, ids = idx[sel], lane_ids[sel]
                current = view[at].view(want)
                old[ids] = current
                view[at] = apply(current, *(v[ids] for v in vals))
    return old.reshape(shape)


@impl("tt.atomic_rmw")
def atomic_rmw(ctx: OpContext, ptr: Array, val: Array, mask: Array | None = None) -> Array:
    kind = ctx.attr("kind")
    update = ATOMIC_KINDS.get(kind)
    if update is None:
        raise InterpreterUnsupported(f"tt.atomic_rmw: unknown kind {kind!r}")
    if storage_of(ctx.result_type).kind == "b":
        raise InterpreterUnsupported("tt.atomic_rmw on int1 values")
    return _atomic(ctx, ptr, mask, update, [val], f"atomic_rmw {kind}")


def _compare_and_swap(old: Array, cmp: Array, val: Array) -> Array:
    bits = f"u{old.dtype.itemsize}"
    return np.where(old.view(bits) == cmp.view(bits), val, old)


@impl("tt.atomic_cas")
def atomic_cas(ctx: OpContext, ptr: Array, cmp: Array, val: Array) -> Array:
    return _atomic(ctx, ptr, None, _compare_and_swap, [cmp, val], "atomic_cas")
