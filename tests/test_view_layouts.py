"""The layouts view ops take so that no data moves (passes/ttgir/view_layouts.py), checked
element by element against the op's own coordinate map, and the kernels they serve:
reshape / permute / split of a dot's accumulator, and join / reshape into interleaved
columns, compiled for sm_90 and sm_80 with no trip through shared memory between the dot
and the conversions before the stores; and view ops of loaded (blocked) tiles, which
blocked-views gives the layouts under which they move nothing (`as_blocked` reads those
back as blocked layouts). The numbers on the GPU: test_view_layouts_gpu.py."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from view_kernels import BLOCKED_VIEWS, compile_blocked_view, compile_ptx, run_blocked_view

from tritonc.passes.ttgir import linear_encodings, view_layouts
from tritonc.passes.ttgir.layouts import BlockedLayout, LinearEncoding, MmaLayout, parse_layout
from tritonc.passes.ttgir.linear_layout import LinearLayout

_MMA = [((64, 32), (4, 1)), ((128, 256), (8, 1)), ((128, 64), (2, 2)), ((16, 64), (1, 4))]


def _elements(ll: LinearLayout) -> dict[tuple[int, ...], tuple[int, ...]]:
    """(register, lane, warp) -> coordinates, over every input."""
    sizes = [ll.in_size(d) for d in ("register", "lane", "warp")]
    return {ins: ll.apply(*ins) for ins in itertools.product(*(range(s) for s in sizes))}


def _mma(shape, warps) -> LinearLayout:
    return MmaLayout(warps).to_linear(shape)


@pytest.mark.parametrize("shape,warps", _MMA)
def test_reshape_keeps_every_element_in_place(shape, warps):
    ll = _mma(shape, warps)
    m, n = shape
    for new in [(m, 2, n // 2), (m * n // 64, 64), (m // 2, 2, n)]:
        got = view_layouts.reshaped(ll, new)
        for ins, coord in _elements(ll).items():
            flat = coord[0] * n + coord[1]
            assert got.apply(*ins) == tuple(np.unravel_index(flat, new))


@pytest.mark.parametrize("shape,warps", _MMA)
def test_permute_then_split_takes_the_halves_from_registers(shape, warps):
    m, n = shape
    ll = view_layouts.reshaped(_mma(shape, warps), (m, 2, n // 2)).transpose_outs((0, 2, 1))
    half = view_layouts.split_last(ll)
    if warps[1] > 1:  # warps split N: the halves of a row are in different warps
        assert half is None
        return
    # every element of half h is where the permuted tensor holds (i, j, h) with the
    # register bit of the last dimension set to h
    step = ll.bases("register").index((0, 0, 1))
    for (reg, lane, warp), (i, j) in _elements(half).items():
        low = reg & ((1 << step) - 1)
        full = low | ((reg >> step) << (step + 1))
        for h in (0, 1):
            assert ll.apply(full | (h << step), lane, warp) == (i, j, h)


def test_split_of_halves_in_different_lanes_is_refused():
    # a blocked layout whose lanes step the last (size 2) dimension
    ll = BlockedLayout((1, 1, 1), (1, 16, 2), (4, 1, 1), (2, 1, 0)).to_linear((64, 16, 2))
    assert view_layouts.split_last(ll) is None


@pytest.mark.parametrize("shape,warps", _MMA)
def test_join_is_split_undone(shape, warps):
    ll = _mma(shape, warps)
    joined = view_layouts.joined(ll)
    assert joined.bases("register")[0] == (0, 0, 1)
    assert view_layouts.split_last(joined) == ll


@pytest.mark.parametrize("shape,warps", _MMA)
def test_encodings_print_parse_and_place_as_the_linear_layout(shape, warps):
    m, n = shape
    ll = view_layouts.reshaped(_mma(shape, warps), (m, 2, n // 2)).transpose_outs((0, 2, 1))
    enc = LinearEncoding(ll)
    again = parse_layout(enc.attr_text())
    assert again == enc and again.layout.out_shape == (m, n // 2, 2)
    # the lowering's description: per-register offsets plus per-bit lane / warp strides
    offsets = enc.register_offsets(ll.out_shape)
    for (reg, lane, warp), coord in _elements(ll).items():
        base = [0] * 3
        for bits, strides in ((lane, enc.lane_strides()), (warp, enc.warp_strides())):
            for b, (d, s) in enumerate(strides):
                base[d] += s * ((bits >> b) & 1)
        assert tuple(x + o for x, o in zip(base, offsets[reg])) == coord


def test_layouts_the_lowering_cannot_place_are_not_strided():
    mixed = LinearLayout({"register": [(1, 1)], "lane": [(0, 1)], "warp": [], "block": []},
                         [("dim0", 2), ("dim1", 2)])
    assert not LinearEncoding.strided(mixed)
    ll = linear_encodings.blocked((8, 4), (1, 2), (4, 2), (2, 1), (1, 0))
    assert LinearEncoding.strided(ll)


def test_subtiled_accumulator_reaches_the_stores_without_shared_memory():
    """On sm_90 a warpgroup's wgmma accumulator holds whole rows of N, so both halves of
    every row sit in one thread: the two halves' conversions for their stores move as
    much through shared memory as the whole tile's one (on sm_80, 4 warps split N and the
    halves must move)."""
    halves_ttgir, halves = compile_ptx("store_halves", 90)
    _, whole = compile_ptx("store_whole", 90)
    assert "#ttg.linear" in halves_ttgir
    split = next(line for line in halves_ttgir.splitlines() if '"tt.split"' in line)
    assert "#ttg.blocked" not in split
    for op in ("st.shared", "ld.shared"):
        assert halves.rpartition("wgmma")[2].count(op) == whole.rpartition("wgmma")[2].count(op)


@pytest.mark.parametrize("arch", [90, 80])
def test_joined_accumulators_need_no_exchange(arch):
    ttgir, _ = compile_ptx("store_interleaved", arch)
    assert '"tt.join"' in ttgir
    join = next(line for line in ttgir.splitlines() if '"tt.join"' in line)
    assert "#ttg.mma" in join and "#ttg.linear" in join


@pytest.mark.parametrize("arch", [90, 80])
def test_halves_carried_by_a_loop_compile(arch):
    ttgir, ptx = compile_ptx("folded_halves", arch)
    loop = ttgir[ttgir.index("scf.for"):]
    assert '"tt.split"' in loop and f".target sm_{arch}" in ptx
    if arch == 90:  # the sum the loop carries stays in the halves' linear layout
        assert "scf.for" in ttgir and "-> (tensor<64x32xf32, #ttg.linear" in ttgir


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("name", ["transposed_probabilities", "flattened_scores",
                                  "transposed_scores"])
def test_views_of_scores_compile(name, arch):
    """Views of a dot's result that reach a dot operand, a 1-D store and a reduction: the
    view takes the linear layout, and each of those users converts from it."""
    from view_kernels import KERNELS

    import tritonc

    sig = {"q_ptr": "*fp16", "k_ptr": "*fp16", "o_ptr": "*fp32"}
    if name == "transposed_probabilities":
        sig = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp32"}
    k = tritonc.compile(KERNELS[name], sig, {"BM": 64, "BN": 128, "D": 64},
                        target=f"cuda:{arch}", divisible_by_16=set(sig), num_warps=4)
    assert "#ttg.linear" in k.asm["ttgir"]
    assert k.metadata["ptxas"]["spill_stores"] == 0


@pytest.mark.parametrize("shape", [(16, 128), (16, 64, 2), (64, 64), (128,), (4, 8),
                                   (2, 64, 2), (1, 256), (8,), (32, 4, 8), (1, 1, 64),
                                   (2, 4, 8, 16), (8, 2, 16, 2), (2, 4, 2, 4, 8)])
@pytest.mark.parametrize("warps,vector", [(1, 1), (4, 4), (4, 8), (8, 2)])
def test_as_blocked_reads_back_every_default_layout(shape, warps, vector):
    """In every order of the dimensions (the rank-5 shape: every order of its last four)."""
    for order in itertools.permutations(range(len(shape))):
        if len(shape) == 5 and order[0] != 0:
            continue
        layout = BlockedLayout.default(shape, warps, vector, order=order)
        ll = linear_encodings.blocked(shape, layout.size_per_thread, layout.threads_per_warp,
                                      layout.warps_per_cta, layout.order)
        found = view_layouts.as_blocked(ll)
        assert found is not None, (layout, order)
        assert linear_encodings.blocked(shape, found.size_per_thread, found.threads_per_warp,
                                        found.warps_per_cta, found.order) == ll


@pytest.mark.parametrize("shape,warps", _MMA)
def test_as_blocked_refuses_an_mma_accumulator(shape, warps):
    assert view_layouts.as_blocked(_mma(shape, warps)) is None


@pytest.mark.parametrize("name", sorted(BLOCKED_VIEWS))
def test_blocked_views_in_the_interpreter(name, monkeypatch):
    import torch

    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(len(name))
    got, want = run_blocked_view(name, 37, "cpu")
    torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("name", sorted(BLOCKED_VIEWS))
def test_views_of_loaded_tiles_move_nothing(name, arch):
    """Every view op of the compiled kernel keeps each element where its operand held it;
    the rotation needs no shared memory at all."""
    from tritonc.compiler import mlir_loader
    from tritonc.passes.ttgir.blocked_views import _free
    from tritonc.passes.ttgir.propagate_mma import _ops

    kernel = compile_blocked_view(name, arch)
    ir = mlir_loader.load()
    context = mlir_loader.new_context()
    module = ir.Module.parse(kernel.asm["ttgir"], context=context)
    with context:
        views = [op for op in _ops(ir, module) if op.name in view_layouts.VIEW_OPS]
        assert views and all(_free(ir, op) for op in views)
    assert kernel.metadata["ptxas"]["spill_stores"] == 0
    if name == "rotate_pairs":
        assert "st.shared" not in kernel.asm["ptx"]
