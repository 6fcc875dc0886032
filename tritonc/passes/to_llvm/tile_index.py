"""Where the elements of a tile sit in shared memory, written once for the IR and for ints.

`swizzled_index` (16-byte chunks XOR-swizzled by row, optionally in column blocks of 64)
takes an `arith`: anything with `binop(name, a, b)` on the `arith` dialect's names and
`i32(c)`. The lowering context emits i32 ops with it; `Ints` evaluates it on integers
(or on numpy arrays of them, every thread at once).

`register_deltas` uses the second: for a layout it proves that each register's index
is the first register's plus a constant, the same for every thread. A copy or store of
a tile then computes one shared-memory address per thread and adds immediates to it
(`cp.async [%r + 1024]`), where one address per 16-byte chunk would each take a register
(16 for a 128 x 64 fp16 tile on 128 threads) and an add per chunk for every ring buffer.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

import numpy as np

from tritonc.passes.ttgir.layouts import Layout

_INT_OPS = {"arith.addi": operator.add, "arith.muli": operator.mul,
            "arith.shrui": operator.rshift, "arith.shli": operator.lshift,
            "arith.andi": operator.and_, "arith.ori": operator.or_,
            "arith.xori": operator.xor, "arith.divui": operator.floordiv,
            "arith.remui": operator.mod}


class Ints:
    """The `arith` of Python integers or numpy arrays of them (non-negative i32 values)."""

    @staticmethod
    def binop(name: str, a: int, b: int) -> int:
        return _INT_OPS[name](a, b)

    @staticmethod
    def i32(value: int) -> int:
        return value


def swizzled_index(arith, row, col, rows: int, row_len: int, column_blocks: bool = False,
                   elem_bytes: int = 2):
    """Element index of (row, col) in a row-major `rows` x `row_len` tile of `elem_bytes`
    elements whose 16-byte chunks are XOR-swizzled by row, so that the 8 rows an
    ldmatrix (or a warp's cp.async) touches at one column fall in 8 different bank
    groups. With `column_blocks` (the layout wgmma reads), a row longer than 128 bytes
    is cut into blocks of 128 bytes of columns stored one after the other, each then
    swizzled with the 128-byte period."""
    per_chunk, per_block = 16 // elem_bytes, 128 // elem_bytes
    if column_blocks and row_len > per_block and row_len % per_block == 0:
        shift = per_block.bit_length() - 1
        block = arith.binop("arith.muli", arith.binop("arith.shrui", col, arith.i32(shift)),
                            arith.i32(rows * per_block))
        inner = swizzled_index(arith, row,
                               arith.binop("arith.andi", col, arith.i32(per_block - 1)),
                               rows, per_block, elem_bytes=elem_bytes)
        return arith.binop("arith.addi", block, inner)
    chunks = row_len // per_chunk
    if chunks < 2:
        return arith.binop("arith.addi", arith.binop("arith.muli", row, arith.i32(row_len)),
                           col)
    shift = per_chunk.bit_length() - 1
    period = max(1, 8 // chunks)
    phase = arith.binop("arith.remui", arith.binop("arith.divui", row, arith.i32(period)),
                        arith.i32(min(8, chunks)))
    chunk = arith.binop("arith.xori", arith.binop("arith.shrui", col, arith.i32(shift)), phase)
    within = arith.binop("arith.andi", col, arith.i32(per_chunk - 1))
    return arith.binop("arith.addi", arith.binop("arith.muli", row, arith.i32(row_len)),
                       arith.binop("arith.addi",
                                   arith.binop("arith.shli", chunk, arith.i32(shift)), within))


def thread_bases(layout: Layout, shape: tuple[int, ...], num_warps: int) -> list[np.ndarray]:
    """Along each dimension, the coordinate of register 0 of every thread (before the
    register offsets), as `LoweringContext.bases` computes it from the lane and warp ids:
    one array over the threads per dimension."""
    threads = np.arange(32 * num_warps)
    coord = [np.zeros_like(threads) for _ in shape]
    for ident, strides in ((threads % 32, layout.lane_strides()),
                           (threads // 32, layout.warp_strides(shape))):
        for bit, (d, stride) in enumerate(strides):
            coord[d] = coord[d] + (ident >> bit & 1) * stride
    return coord


def register_deltas(layout: Layout, shape: tuple[int, ...], num_warps: int,
                    index: Callable[[Ints, Sequence], np.ndarray],
                    registers: Sequence[int]) -> list[int] | None:
    """For each register in `registers`, index(its coordinate) - index(coordinate of
    register 0) when that difference is the same in every thread; None when it is not
    for some register. `index(arith, coord)` is the index function written over an
    `arith` (see above); it is evaluated on arrays over all threads at once."""
    ints = Ints()
    offsets = layout.register_offsets(shape)
    wraps = [layout.tile(d) > shape[d] for d in range(len(shape))]
    bases = thread_bases(layout, shape, num_warps)

    def coordinate(reg: int) -> list[np.ndarray]:
        return [(b + o) & (s - 1) if w else b + o
                for b, o, s, w in zip(bases, offsets[reg], shape, wraps)]

    first = index(ints, coordinate(0))
    deltas = []
    for reg in registers:
        delta = index(ints, coordinate(reg)) - first
        if (delta != delta[0]).any():
            return None
        deltas.append(int(delta[0]))
    return deltas
