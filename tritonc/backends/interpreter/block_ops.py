"""Rules for block pointers (`tt.make_block_ptr`, `tt.advance`) and tensor descriptors.

A block pointer handle is a `BlockPointer`: base address, the whole tensor's shape
and strides (in elements), the block's offsets, shape and order. Loading or storing
through it computes every element's address and a mask from `boundary_check`: the
dimensions listed there are bounded by the tensor's shape (out-of-bounds reads give
the padding, 0 or NaN; out-of-bounds writes are dropped); the other dimensions are
only bounded by the memory checks. A tensor descriptor (`TensorDescriptor`) bounds
every dimension: out-of-bounds reads give 0, writes and reductions are dropped.

Variadic operands (shape*, strides*, offsets*, indices*) may come flat or as lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tritonc.backends.interpreter.errors import InterpreterError
from tritonc.backends.interpreter.formats import encode
from tritonc.backends.interpreter.memory import masked_load, masked_store
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import scalar_of, storage_of
from tritonc.language.dtypes import block_type, pointer_type, tensor_descriptor_type

Array = np.ndarray


@dataclass(frozen=True)
class BlockPointer:
    """A pointer to a block of a strided tensor (the handle of `tt.make_block_ptr`)."""

    base: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offsets: tuple[int, ...]
    block_shape: tuple[int, ...]
    order: tuple[int, ...]
    itemsize: int


@dataclass(frozen=True)
class TensorDescriptor:
    """A strided tensor read and written in blocks (the handle of `tt.make_tensor_descriptor`)."""

    base: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    block_shape: tuple[int, ...]
    itemsize: int
    padding: str = "zero"


def _flat_ints(values: Sequence[Any]) -> list[int]:
    out: list[int] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flat_ints(v))
        else:
            out.append(int(np.asarray(v)))
    return out


def _block_addresses(base: int, strides: Sequence[int], itemsize: int,
                     coords: Sequence[Array]) -> Array:
    """Byte addresses of a block whose per-dimension coordinates are `coords`."""
    ndim = len(coords)
    addr = np.full((), base, dtype=np.int64)
    for d, (c, stride) in enumerate(zip(coords, strides, strict=True)):
        shape = [1] * ndim
        shape[d] = c.size
        addr = addr + (c.astype(np.int64) * (stride * itemsize)).reshape(shape)
    return addr


def _in_bounds(coords: Sequence[Array], shape: Sequence[int], dims: Sequence[int]) -> Array | None:
    """Mask of the block's elements inside `shape` along the dimensions `dims`."""
    ndim = len(coords)
    mask = None
    for d in dims:
        view = [1] * ndim
        view[d] = coords[d].size
        ok = ((coords[d] >= 0) & (coords[d] < shape[d])).reshape(view)
        mask = ok if mask is None else mask & ok
    if mask is None:
        return None
    return np.broadcast_to(mask, tuple(c.size for c in coords))


def _coords(offsets: Sequence[int], block_shape: Sequence[int]) -> list[Array]:
    return [o + np.arange(n, dtype=np.int64) for o, n in zip(offsets, block_shape, strict=True)]


def _padding(mode: Any, dt: np.dtype) -> Array | None:
    if mode in ("nan", "PAD_NAN", 2) and (dt.kind == "f" or dt.metadata):
        nan = np.array(np.nan, dtype=np.float32)
        fmt = dt.metadata["tt"] if dt.metadata else None
        if fmt is None:
            return nan.astype(dt)
        return encode(nan, fmt).view(dt)
    return None


# -- block pointers ---------------------------------------------------------------------
@impl("tt.make_block_ptr")
def make_block_ptr(ctx: OpContext, base: Array, *rest: Any) -> BlockPointer:
    ptr_ty = scalar_of(ctx.result_type)
    assert isinstance(ptr_ty, pointer_type) and isinstance(ptr_ty.element_ty, block_type)
    block = ptr_ty.element_ty
    n = len(block.shape)
    ints = _flat_ints(rest)
    return BlockPointer(int(base), tuple(ints[:n]), tuple(ints[n:2 * n]), tuple(ints[2 * n:3 * n]),
                        block.shape, tuple(ctx.attr("order") or range(n - 1, -1, -1)),
                        max(1, block.element_ty.primitive_bitwidth // 8))


@impl("tt.advance")
def advance(ctx: OpContext, ptr: BlockPointer, *offsets: Any) -> BlockPointer:
    delta = _flat_ints(offsets)
    return replace(ptr, offsets=tuple(o + d for o, d in zip(ptr.offsets, delta, strict=True)))


def load_block(ctx: OpContext, ptr: BlockPointer) -> Array:
    """`tt.load` through a block pointer."""
    want = storage_of(ctx.result_type)
    coords = _coords(ptr.offsets, ptr.block_shape)
    addr = _block_addresses(ptr.base, ptr.strides, ptr.itemsize, coords)
    addr = np.broadcast_to(addr, ptr.block_shape)
    mask = _in_bounds(coords, ptr.shape, ctx.attr("boundary_check") or ())
    return masked_load(ctx.builder.memory, addr, mask, _padding(ctx.attr("padding"), want), want,
                       "block load")


def store_block(ctx: OpContext, ptr: BlockPointer, value: Array) -> None:
    """`tt.store` through a block pointer."""
    coords = _coords(ptr.offsets, ptr.block_shape)
    addr = np.broadcast_to(_block_addresses(ptr.base, ptr.strides, ptr.itemsize, coords),
                           ptr.block_shape)
    mask = _in_bounds(coords, ptr.shape, ctx.attr("boundary_check") or ())
    masked_store(ctx.builder.memory, addr, value, mask, "block store")


# -- tensor descriptors ---------------------------------------------------------------------
@impl("tt.make_tensor_descriptor")
def make_tensor_descriptor(ctx: OpContext, base: Array, *rest: Any) -> TensorDescriptor:
    desc_ty = ctx.result_type
    assert isinstance(desc_ty, tensor_descriptor_type)
    block = desc_ty.block_type
    n = len(block.shape)
    itemsize = max(1, block.element_ty.primitive_bitwidth // 8)
    if block.shape[-1] * itemsize < 16:
        raise InterpreterError("Descriptor block shape must have at least 16 bytes in the last "
                               f"dimension, got {block.shape[-1]} x {itemsize} bytes")
    ints = _flat_ints(rest)
    return TensorDescriptor(int(base), tuple(ints[:n]), tuple(ints[n:2 * n]), block.shape,
                            max(1, block.element_ty.primitive_bitwidth // 8),
                            ctx.attr("padding") or "zero")


def _descriptor_access(desc: TensorDescriptor, indices: Sequence[Any]
                       ) -> tuple[Array, Array | None]:
    coords = _coords(_flat_ints(indices), desc.block_shape)
    addr = np.broadcast_to(_block_addresses(desc.base, desc.strides, desc.itemsize, coords),
                           desc.block_shape)
    return addr, _in_bounds(coords, desc.shape, range(len(coords)))


@impl("tt.descriptor_load")
def descriptor_load(ctx: OpContext, desc: TensorDescriptor, *indices: Any) -> Array:
    want = storage_of(ctx.result_type)
    addr, mask = _descriptor_access(desc, indices)
    return masked_load(ctx.builder.memory, addr, mask, _padding(desc.padding, want), want,
                       "descriptor load")


@impl("tt.descriptor_store")
def descriptor_store(ctx: OpContext, desc: TensorDescriptor, src: Array, *indices: Any) -> None:
    addr, mask = _descriptor_access(desc, indices)
    masked_store(ctx.builder.memory, addr, src, mask, "descriptor store")


@impl("tt.descriptor_reduce")
def descriptor_reduce(ctx: OpContext, desc: TensorDescriptor, src: Array, *indices: Any) -> None:
    """Combine `src` into the block at `indices` with the update of the `tt.atomic_rmw`
    of the same kind; elements outside the tensor are skipped. Elements sharing an
    address (a zero stride) are applied one round each, in element order."""
    # here, not at the top: memory_ops imports this module
    from tritonc.backends.interpreter.memory_ops import ATOMIC_KINDS

    kind = ctx.attr("kind")
    update = ATOMIC_KINDS[kind]
    addr, mask = _descriptor_access(desc, indices)
    addr, vals = np.ravel(addr), np.ravel(np.broadcast_to(src, desc.block_shape))
    if mask is not None:
        on = np.ravel(mask)
        addr, vals = addr[on], vals[on]
    what = f"descriptor atomic {kind}"
    for lanes, view, idx in ctx.builder.memory.element_view(addr, src.dtype, what):
        pending, values = idx, vals[lanes]
        while pending.size:
            at, first = np.unique(pending, return_index=True)
            view[at] = update(view[at].view(src.dtype), values[first])
            rest = np.ones(pending.size, dtype=bool)
            rest[first] = False
            pending, values = pending[rest], values[rest]


def _gather_access(desc: TensorDescriptor, x_offsets: Array, y_offset: Any
                   ) -> tuple[Array, Array | None]:
    coords = [np.asarray(x_offsets, dtype=np.int64).reshape(-1),
              int(y_offset) + np.arange(desc.block_shape[1], dtype=np.int64)]
    shape = (coords[0].size, coords[1].size)
    addr = np.broadcast_to(_block_addresses(desc.base, desc.strides, desc.itemsize, coords), shape)
    return addr, _in_bounds(coords, desc.shape, (0, 1))


@impl("tt.descriptor_gather")
def descriptor_gather(ctx: OpContext, desc: TensorDescriptor, x_offsets: Array,
                      y_offset: Any) -> Array:
    want = storage_of(ctx.result_type)
    addr, mask = _gather_access(desc, x_offsets, y_offset)
    return masked_load(ctx.builder.memory, addr, mask, _padding(desc.padding, want), want,
                       "descriptor gather")


@impl("tt.descriptor_scatter")
def descriptor_scatter(ctx: OpContext, desc: TensorDescriptor, src: Array, x_offsets: Array,
                       y_offset: Any) -> None:
    addr, mask = _gather_access(desc, x_offsets, y_offset)
    masked_store(ctx.builder.memory, addr, src, mask, "descriptor scatter")
