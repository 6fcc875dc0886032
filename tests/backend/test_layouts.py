"""Layout algebra against the fragment tables of the PTX manual: which thread and which
register hold each element, for the mma accumulator, the dot A operand and slices."""

import itertools

import pytest

from tritonc.passes.ttgir.layouts import (
    BlockedLayout,
    DotOperandLayout,
    MmaLayout,
    NvmmaSharedLayout,
    SliceLayout,
    SwizzledSharedLayout,
    parse_layout,
    parse_shared_layout,
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


@pytest.mark.parametrize("m, n, warps, split", [
    (16, 16, 4, (4, 1)), (32, 32, 16, (8, 2)), (16, 64, 8, (2, 4)), (64, 64, 4, (2, 2)),
    (128, 128, 8, (2, 4))])
def test_dot_with_more_warps_than_blocks_gives_the_extra_warps_copies(m, n, warps, split):
    """A dot accumulator smaller than one 16 x 16 block per warp still takes the mma
    layout: the extra warps hold copies of whole blocks (each element held by
    warps * 256 / (m * n) threads at the same register), and a shape with a block per
    warp keeps the split without copies."""
    layout = MmaLayout.for_dot(m, n, warps)
    assert layout == MmaLayout(split)
    got = placements(layout, (m, n), warps)
    holders = {}
    for (_, _, r), coord in got.items():
        holders.setdefault(coord, set()).add(r)
    assert len(holders) == m * n
    copies = max(1, warps * 256 // (m * n))
    assert all(len(regs) == 1 for regs in holders.values())
    assert sum(1 for _ in got) == m * n * copies


def test_dot_operand_copies_over_warps_along_n():
    got = placements(DotOperandLayout(0, MmaLayout((2, 2))), (64, 32), 4)
    held = {}
    for (warp, _, _), coord in got.items():
        held.setdefault(coord, set()).add(warp)
    assert all(len(w) == 2 for w in held.values()) and len(held) == 64 * 32


@pytest.mark.parametrize("op_idx, shape", [(1, (1, 64)), (0, (64, 1))])
def test_dot_operand_broadcast_of_one_step_holds_each_thread_its_full_tile_elements(op_idx,
                                                                                  shape):
    """A row of B (K of 1: scales broadcast down K) or a column of A: every thread holds
    the elements of the full operand tile it holds, each one at least once."""
    layout, full = DotOperandLayout(op_idx, MmaLayout((1, 4) if op_idx else (4, 1))), \
        (16, 64) if op_idx else (64, 16)
    small, big = placements(layout, shape, 4), placements(layout, full, 4)
    for warp, lane in itertools.product(range(4), range(32)):
        mine = {c for (w, l, _), c in small.items() if (w, l) == (warp, lane)}
        want = {tuple(x % s for x, s in zip(c, shape))
                for (w, l, _), c in big.items() if (w, l) == (warp, lane)}
        assert mine == want and mine
    assert {c for c in small.values()} == set(itertools.product(*map(range, shape)))


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


# -- every encoding as a linear layout ---------------------------------------------------

from tritonc.passes.ttgir import linear_encodings as enc  # noqa: E402


def linear_placements(ll, num_warps):
    """{(warp, lane, register): coordinate} of a linear layout."""
    return {(w, lane, r): ll.apply(r, lane, w) for w, lane, r in itertools.product(
        range(num_warps), range(32), range(ll.in_size("register")))}


@pytest.mark.parametrize("layout, shape, warps", [
    (MmaLayout((8, 1)), (128, 64), 8), (MmaLayout((2, 2)), (64, 64), 4),
    (MmaLayout((8, 1)), (128, 1), 8), (MmaLayout((1, 4)), (32, 128), 4),
    (MmaLayout((4, 1)), (16, 16), 4), (MmaLayout((8, 2)), (32, 32), 16),
    (DotOperandLayout(0, MmaLayout((4, 1))), (16, 16), 4),
    (SliceLayout(1, MmaLayout((8, 2))), (32,), 16),
    (DotOperandLayout(0, MmaLayout((4, 1))), (64, 32), 4),
    (DotOperandLayout(0, MmaLayout((2, 2))), (64, 32), 4),
    (MmaLayout((4, 1)), (128, 64), 4), (MmaLayout((2, 2)), (128, 32), 4),
    (DotOperandLayout(0, MmaLayout((4, 1))), (128, 32), 4),
    (BlockedLayout.default((128, 64), 8), (128, 64), 8),
    (BlockedLayout.default((64, 64), 8, 8, order=(0, 1)), (64, 64), 8),
    (BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0)), (16, 8), 4),  # tile larger: copies
    (BlockedLayout((2, 2, 1), (2, 4, 4), (1, 2, 2), (2, 0, 1)), (4, 16, 32), 4),
    (BlockedLayout.default((1024,), 4), (1024,), 4), (BlockedLayout.default((64,), 4), (64,), 4),
    (SliceLayout(1, MmaLayout((8, 1))), (128,), 8), (SliceLayout(0, MmaLayout((2, 2))), (64,), 4),
    (SliceLayout(0, BlockedLayout((1, 8), (4, 8), (8, 1), (1, 0))), (64,), 8),
    (SliceLayout(1, BlockedLayout.default((128, 64), 8)), (128,), 8)])
def test_to_linear_agrees_with_the_class_placement(layout, shape, warps):
    ll = layout.to_linear(shape)
    assert ll.in_size("register") == layout.num_registers(shape)
    assert ll.in_size("lane") == 32 and ll.in_size("warp") == warps
    assert linear_placements(ll, warps) == placements(layout, shape, warps)


@pytest.mark.parametrize("shape, warps, instr_n", [
    ((64, 64), (4, 1), 64), ((64, 256), (4, 1), 128), ((128, 128), (4, 1), 128),
    ((128, 64), (8, 1), 64), ((64, 128), (4, 2), 64)])
def test_mma_v3_follows_the_wgmma_accumulator_table(shape, warps, instr_n):
    """PTX wgmma m64nNk16 D fragment: warp w of a warpgroup, lane = 4 group + t, register
    i holds row 16 w + group + 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2."""
    ll = enc.mma_v3(shape, warps, instr_n)
    wm, wn = warps
    per_instr = instr_n // 2
    tiles_n = shape[1] // (instr_n * wn)
    seen = set()
    for (warp, lane, r), coord in linear_placements(ll, wm * wn).items():
        group, t = divmod(lane, 4)
        i, rep = r % per_instr, r // per_instr
        rep_n, rep_m = rep % tiles_n, rep // tiles_n
        wg_m, wg_n = (warp // 4) % (wm // 4), (warp // 4) // (wm // 4)
        row = 16 * (warp % 4) + group + 8 * ((i // 2) % 2) + 64 * (wg_m + rep_m * (wm // 4))
        col = 8 * (i // 4) + 2 * t + i % 2 + instr_n * (wg_n + rep_n * wn)
        assert coord == (row, col)
        seen.add(coord)
    assert len(seen) == shape[0] * shape[1]


@pytest.mark.parametrize("k_width, k", [(1, 8), (2, 16), (4, 32)])
def test_dot_operand_a_follows_the_mma_sync_fragment_tables(k_width, k):
    """mma.sync m16n8k{8,16,32} A fragments (tf32, f16, s8): a thread holds rows group and
    group + 8, K columns t * k_width + j and that + 4 k_width, as registers a0.. in
    the PTX manual's order."""
    ll = enc.dot_operand_v2((16, k), 0, (1, 1), k_width)
    per_row_half = k_width  # elements per packed register
    for (_, lane, r), (row, col) in linear_placements(ll, 1).items():
        group, t = divmod(lane, 4)
        j, reg = r % per_row_half, r // per_row_half  # element j of fragment register `reg`
        assert row == group + 8 * (reg % 2)
        assert col == k_width * t + j + 4 * k_width * (reg // 2)


@pytest.mark.parametrize("k_width, k", [(1, 8), (2, 16), (4, 32)])
def test_dot_operand_b_follows_the_mma_sync_fragment_tables(k_width, k):
    """mma.sync B fragments (K x 8): column group, K rows t * k_width + j and + 4 k_width."""
    ll = enc.dot_operand_v2((k, 8), 1, (1, 1), k_width)
    for (_, lane, r), (row, col) in linear_placements(ll, 1).items():
        group, t = divmod(lane, 4)
        j, reg = r % k_width, r // k_width
        assert col == group
        assert row == k_width * t + j + 4 * k_width * reg


def test_dot_operand_b_copies_over_warps_along_m():
    ll = enc.dot_operand_v2((32, 64), 1, (2, 2))
    held = {}
    for (warp, _, _), coord in linear_placements(ll, 4).items():
        held.setdefault(coord, set()).add(warp)
    assert len(held) == 32 * 64 and all(len(w) == 2 for w in held.values())
    # warp bit 0 (along M) is a broadcast bit, warp bit 1 steps N by half the columns
    assert ll.broadcast_bits("warp") == 0b01 and ll.bases("warp")[1] == (0, 32)


def test_wgmma_a_registers_match_the_accumulator_rows():
    """wgmma A from registers: the mma.sync A fragment per warp, on the rows the
    accumulator's warp owns (so a product's result converts to the next A in place)."""
    shape = (128, 64)
    a = enc.dot_operand_v3_a(shape, (4, 1))
    acc = enc.mma_v3(shape, (4, 1), 64)
    rows_a, rows_acc = {}, {}
    for (w, lane, _), (row, _) in linear_placements(a, 4).items():
        rows_a.setdefault((w, lane), set()).add(row)
    for (w, lane, _), (row, _) in linear_placements(acc, 4).items():
        rows_acc.setdefault((w, lane), set()).add(row)
    assert rows_a == rows_acc
    got = linear_placements(a, 4)
    for (warp, lane, r), (row, col) in got.items():
        group, t = divmod(lane, 4)
        j, reg, step, rep = r % 2, (r // 2) % 4, (r // 8) % 4, r // 32
        assert row == 16 * warp + group + 8 * (reg % 2) + 64 * rep
        assert col == 16 * step + 2 * t + j + 8 * (reg // 2)
    assert len(set(got.values())) == 128 * 64


@pytest.mark.parametrize("shape, vec, per_phase, max_phase, order", [
    ((32, 64), 4, 1, 8, (1, 0)), ((64, 32), 8, 2, 4, (0, 1)), ((16, 16), 1, 1, 1, (1, 0)),
    ((8, 128), 8, 1, 16, (1, 0))])
def test_swizzled_shared_offsets_follow_the_xor_formula(shape, vec, per_phase, max_phase,
                                                        order):
    ll = enc.swizzled_shared(shape, vec, per_phase, max_phase, order)
    col, row = order
    seen = set()
    for offset in range(shape[0] * shape[1]):
        r, c_stored = divmod(offset, shape[col])
        phase = (r // per_phase) % max_phase
        c = ((c_stored // vec) ^ phase) * vec % shape[col] + c_stored % vec
        want = [0, 0]
        want[row], want[col] = r, c
        assert ll.apply(offset=offset) == tuple(want)
        seen.add(tuple(want))
    assert len(seen) == shape[0] * shape[1]


@pytest.mark.parametrize("swizzle, elem_bits", [(128, 16), (64, 16), (32, 16), (128, 32),
                                                 (128, 8)])
def test_nvmma_shared_follows_the_tma_swizzle_modes(swizzle, elem_bits):
    """CU_TENSOR_MAP_SWIZZLE_{32,64,128}B on rows of `swizzle` bytes: address bits 4..
    (the 16-byte chunk, log2(swizzle / 16) of them) are XOR-ed with address bits 7..;
    the columns beyond one row's width go to the next atom column, after every row."""
    ebytes = elem_bits // 8
    width = swizzle // ebytes  # elements per row of an atom
    shape = (64, 2 * width)
    ll = enc.nvmma_shared(shape, elem_bits, swizzle)
    inv = ll.invert()
    for row, col in itertools.product(range(shape[0]), range(shape[1])):
        atom, c = divmod(col, width)
        byte = row * swizzle + c * ebytes  # unswizzled address inside the atom column
        chunk = (byte // 16) % (swizzle // 16)
        phase = (byte // 128) % (swizzle // 16)
        swizzled = byte - chunk * 16 + ((chunk ^ phase) * 16)
        want = atom * shape[0] * width + swizzled // ebytes
        assert inv.apply(dim0=row, dim1=col)[0] == want


def test_nvmma_transposed_swaps_the_contiguous_dimension():
    a = enc.nvmma_shared((64, 32), 16, 64, transposed=True)
    b = enc.nvmma_shared((32, 64), 16, 64)
    assert a == b.transpose_outs((1, 0))


@pytest.mark.parametrize("layout", [SwizzledSharedLayout(4, 1, 8, (1, 0)),
                                    NvmmaSharedLayout(128, 16), NvmmaSharedLayout(64, 16, True)])
def test_shared_attribute_text_round_trips(layout):
    assert parse_shared_layout(layout.attr_text()) == layout


def test_shared_classes_give_their_linear_layouts():
    assert SwizzledSharedLayout(4, 1, 8, (1, 0)).to_linear((32, 64)) == \
        enc.swizzled_shared((32, 64), 4, 1, 8, (1, 0))
    assert NvmmaSharedLayout(128, 16).to_linear((64, 64)) == enc.nvmma_shared((64, 64), 16, 128)


def test_linear_encoding_text_round_trips_and_parses_in_mlir():
    from tritonc.compiler import mlir_loader
    from tritonc.passes.ttgir.layouts import LinearEncoding

    ll = enc.mma_v3((128, 64), (4, 1), 64)
    text = LinearEncoding(ll).attr_text()
    assert LinearEncoding.parse(text, (128, 64)).layout == ll
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(f"func.func @f(%a: tensor<128x64xf32, {text}>) {{ return }}")
        assert module.operation.verify()
        assert text in str(module)


def test_the_warpgroup_accumulator_is_the_mma_layout_with_warps_along_m():
    """With the warps along M the wgmma accumulator places every element where
    `MmaLayout((num_warps, 1))` does, registers in the same order, with one 16-row tile
    per warp (M = 16 x warps) or several (each warp's tiles 16 x warps rows apart), so the
    lowering's wgmma and mma.sync paths share one layout."""
    for n in (16, 64, 128, 256):
        for m, warps in ((64, 4), (128, 8), (128, 4), (256, 4), (256, 8)):
            assert MmaLayout((warps, 1)).to_linear((m, n)) == \
                enc.mma_v3((m, n), (warps, 1), n)
