"""The shared-memory tile index, evaluated on Python integers: a bijection that spreads
the rows of each column over the bank groups, and the per-register offsets
`register_deltas` proves constant (or refuses)."""

import itertools

import pytest

from tritonc.passes.to_llvm.tile_index import Ints, register_deltas, swizzled_index
from tritonc.passes.ttgir.layouts import BlockedLayout


@pytest.mark.parametrize("rows, row_len, blocks, elem", [
    (64, 64, True, 2), (64, 128, True, 2), (128, 32, False, 2), (16, 16, False, 2),
    (32, 256, True, 2),
    # fp8 (rows of 64 and 128 bytes, and 256 in two column blocks) and fp32 / tf32
    (128, 64, True, 1), (64, 128, True, 1), (32, 256, True, 1), (128, 32, True, 4),
    (64, 64, True, 4), (32, 16, True, 4)])
def test_swizzled_index_is_a_bijection_without_bank_conflicts(rows, row_len, blocks, elem):
    ints = Ints()
    index = {(r, c): swizzled_index(ints, r, c, rows, row_len, blocks, elem)
             for r, c in itertools.product(range(rows), range(row_len))}
    assert sorted(index.values()) == list(range(rows * row_len))
    per_chunk = 16 // elem
    # a 16-byte chunk stays whole: its elements keep their order and neighbours
    for (r, c), i in index.items():
        if c % per_chunk:
            assert i == index[r, c - 1] + 1
    # the 16-byte chunk of 8 consecutive rows at one column: 8 different bank groups
    # (chunk slots of a 128-byte line) once a row holds 128 bytes
    if min(row_len * elem, 128 if blocks else row_len * elem) >= 128:
        for r0, c in itertools.product(range(0, rows, 8), range(0, row_len, per_chunk)):
            slots = {index[r0 + i, c] * elem // 16 % 8 for i in range(8)}
            assert len(slots) == 8


def _deltas_by_thread(layout, shape, warps, index):
    """{thread: [index(register r) - index(register 0)]}: every thread's coordinates
    taken from the lane and warp strides, independently of `register_deltas`."""
    ints, out = Ints(), {}
    offsets = layout.register_offsets(shape)
    for warp, lane in itertools.product(range(warps), range(32)):
        base = [0, 0]
        for ident, strides in ((lane, layout.lane_strides()), (warp, layout.warp_strides(shape))):
            for bit, (d, stride) in enumerate(strides):
                base[d] += stride if ident >> bit & 1 else 0
        coords = [[(b + o) % s for b, o, s in zip(base, off, shape)] for off in offsets]
        first = index(ints, coords[0])
        out[warp, lane] = [index(ints, c) - first for c in coords]
    return out


@pytest.mark.parametrize("layout, shape, warps, constant", [
    # B of a 64 x 128 fp16 tile, 8 elements per thread along N, rows 8 apart
    (BlockedLayout((1, 8), (2, 16), (4, 1), (1, 0)), (64, 128), 4, True),
    (BlockedLayout((1, 8), (4, 8), (8, 1), (1, 0)), (64, 256), 8, True),
    # rows 1 apart inside a thread: the swizzle phase changes from register to register
    (BlockedLayout((2, 8), (2, 16), (2, 1), (1, 0)), (64, 128), 2, False),
])
def test_register_deltas_agree_with_every_thread(layout, shape, warps, constant):
    rows, row_len = shape

    def index(arith, coord):
        return swizzled_index(arith, coord[0], coord[1], rows, row_len, True)

    registers = range(0, len(layout.register_offsets(shape)), 8)
    deltas = register_deltas(layout, shape, warps, index, registers)
    by_thread = _deltas_by_thread(layout, shape, warps, index)
    picked = {t: [d[r] for r in registers] for t, d in by_thread.items()}
    same = len({tuple(v) for v in picked.values()}) == 1
    assert same == constant
    if constant:
        assert deltas == next(iter(picked.values()))
        assert len(set(deltas)) == len(deltas)  # distinct chunks
    else:
        assert deltas is None
