"""Rules for the program's identity (its ids, the timer and SM id it reads), index
ranges and tensor shape manipulation."""

from __future__ import annotations

import time

import numpy as np

from tritonc.backends.interpreter.errors import InterpreterError
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import shape_of

Array = np.ndarray


@impl("tt.get_program_id")
def get_program_id(ctx: OpContext) -> Array:
    return np.array(ctx.builder.program_id[ctx.attr("axis")], dtype=np.int32)


@impl("tt.get_num_programs")
def get_num_programs(ctx: OpContext) -> Array:
    return np.array(ctx.builder.num_programs[ctx.attr("axis")], dtype=np.int32)


@impl("nvvm.read.ptx.sreg.globaltimer")
def globaltimer(ctx: OpContext) -> Array:
    """The host's clock in nanoseconds, as the GPU's %globaltimer counts."""
    return np.array(time.time_ns(), dtype=np.int64)


@impl("nvvm.read.ptx.sreg.smid")
def smid(ctx: OpContext) -> Array:
    """Every program runs on the one processor the interpreter has: 0."""
    return np.array(0, dtype=np.int32)


@impl("tt.make_range")
def make_range(ctx: OpContext) -> Array:
    return np.arange(ctx.attr("start"), ctx.attr("end"), dtype=np.int32)


@impl("tt.splat")
def splat(ctx: OpContext, src: Array) -> Array:
    shape = shape_of(ctx.result_type)
    if src.ndim:  # a scalar of a combine function, which runs on all lanes at once
        return np.broadcast_to(src[(...,) + (None,) * len(shape)], src.shape + shape).copy()
    return np.full(shape, src, dtype=src.dtype)


@impl("tt.broadcast")
def broadcast(ctx: OpContext, src: Array) -> Array:
    return np.broadcast_to(src, shape_of(ctx.result_type)).copy()


@impl("tt.expand_dims")
def expand_dims(ctx: OpContext, src: Array) -> Array:
    return np.expand_dims(src, ctx.attr("axis"))


@impl("tt.reshape")
def reshape(ctx: OpContext, src: Array) -> Array:
    return src.reshape(shape_of(ctx.result_type))  # row-major, even when reordering is allowed


@impl("tt.trans")
def trans(ctx: OpContext, src: Array) -> Array:
    return np.ascontiguousarray(np.transpose(src, tuple(ctx.attr("order"))))


@impl("tt.join")
def join(ctx: OpContext, lhs: Array, rhs: Array) -> Array:
    return np.stack([lhs, rhs], axis=-1)


@impl("tt.split")
def split(ctx: OpContext, src: Array) -> tuple[Array, Array]:
    return src[..., 0].copy(), src[..., 1].copy()


@impl("tt.cat")
def cat(ctx: OpContext, lhs: Array, rhs: Array) -> Array:
    return np.concatenate([lhs, rhs], axis=0)


@impl("tt.gather")
def gather(ctx: OpContext, src: Array, indices: Array) -> Array:
    axis = ctx.attr("axis")
    idx = indices.astype(np.int64)
    n = src.shape[axis]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx[(idx < 0) | (idx >= n)].flat[0])
        raise InterpreterError(f"tt.gather: index {bad} out of range for axis {axis} of size {n}")
    return np.take_along_axis(src, idx, axis=axis)
