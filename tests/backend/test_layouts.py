"""Layout algebra against the fragment tables of the PTX manual: which thread and which
register hold each element, for the mma accumulator, the dot A operand and slices."""

import itertools

import pytest

from tritonc.passes.ttgir.layouts import (
    BlockedLayout,
    DotOperandLayout,
    MmaLayout,
    SliceLayout,
    parse_layout,
)


def placements(layout, shape, num_warps):
    """{(warp, lane, register): coordinate}, with coordinate = (base(lane, warp) + offset(r))
    mod shape, the rule the lowering uses."""
    out = {}
    for warp, lane in itertools.product(range(num_warps), range(32)):
        base = [0] * len(shape)
        for ident, strides in ((lane, layout.lane_strides()), (warp, layout.warp_strides(shape))):
            for bit, (d, stride) in enumerate(strides):
                if ident >> bit & 1:
                    base[d] += stride
        for r, offset in enumerate(layout.register_offsets(shape)):
            out[warp, lane, r] = tuple((b + o) % s for b, o, s in zip(base, offset, shape))
    return out


def test_mma_accumulator_follows_the_m16n8_fragment_table():
    layout, shape = MmaLayout((8, 1)), (128, 64)
    got = placements(layout, shape, 8)
    for (warp, lane, r), (row, col) in got.items():
        group, t = lane // 4, lane % 4
        tile, c = divmod(r, 4)  # registers c0..c3 of n8 tile `tile`
        assert row == 16 * warp + group + 8 * (c // 2)
        assert col == 8 * tile + 2 * t + c % 2
    assert len(set(got.values())) == 128 * 64


def test_dot_operand_follows_the_m16n8k16_a_fragment_table():
    layout, shape = DotOperandLayout(0, MmaLayout((4, 1))), (64, 32)
    got = placements(layout, shape, 4)
    for (warp, lane, r), (row, col) in got.items():
        group, t = lane // 4, lane % 4
        step, i = divmod(r, 8)  # halves a0..a7 of 16-deep step `step`
        assert row == 16 * warp + group + 8 * ((i // 2) % 2)
        assert col == 16 * step + 2 * t + i % 2 + 8 * (i // 4)
    assert len(set(got.values())) == 64 * 32


def test_dot_operand_copies_over_warps_along_n():
    got = placements(DotOperandLayout(0, MmaLayout((2, 2))), (64, 32), 4)
    held = {}
    for (warp, _, _), coord in got.items():
        held.setdefault(coord, set()).add(warp)
    assert all(len(w) == 2 for w in held.values()) and len(held) == 64 * 32


@pytest.mark.parametrize("parent, shape, warps", [
    (MmaLayout((8, 1)), (128, 64), 8), (MmaLayout((2, 2)), (64, 64), 4),
    (BlockedLayout.default((128, 64), 8), (128, 64), 8)])
def test_slice_holds_the_rows_of_its_parent(parent, shape, warps):
    sliced = SliceLayout(1, parent)
    rows = placements(sliced, shape[:1], warps)
    full = placements(parent, shape, warps)
    for warp, lane in itertools.product(range(warps), range(32)):
        mine = {c for (w, l, _), c in rows.items() if (w, l) == (warp, lane)}
        parent_rows = {(c[0],) for (w, l, _), c in full.items() if (w, l) == (warp, lane)}
        assert mine == parent_rows
    assert len(rows) == warps * 32 * sliced.num_registers(shape[:1])


def test_mma_column_of_one_keeps_each_row_once():
    layout = MmaLayout((8, 1))
    assert layout.register_offsets((128, 1)) == [(0, 0), (8, 0)]
    got = placements(layout, (128, 1), 8)
    assert {c for c in got.values()} == {(r, 0) for r in range(128)}


@pytest.mark.parametrize("layout", [
    SliceLayout(1, MmaLayout((8, 1))), DotOperandLayout(0, MmaLayout((4, 1))),
    SliceLayout(0, BlockedLayout((1, 8), (4, 8), (8, 1), (1, 0))),
    BlockedLayout.default((64, 64), 8, 8, order=(0, 1))])
def test_attribute_text_round_trips(layout):
    assert parse_layout(layout.attr_text()) == layout


def test_blocked_layout_in_column_order_runs_along_dimension_0():
    layout = BlockedLayout.default((64, 64), 8, 8, order=(0, 1))
    assert layout.order == (0, 1) and layout.size_per_thread == (8, 1)
    got = placements(layout, (64, 64), 8)
    assert [got[0, 0, r] for r in range(4)] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert len(set(got.values())) == 64 * 64
