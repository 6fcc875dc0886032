"""Layout conversion plans, simulated thread by thread in numpy: after the plan runs, every
register of every thread holds the element the destination layout puts there."""

import itertools
import random

import numpy as np
import pytest

from tritonc.passes.ttgir import linear_encodings as enc
from tritonc.passes.ttgir.layout_conversion import (
    SharedMemoryExchange,
    candidate_plans,
    plan_conversion,
    read_sources,
    to_linear,
)
from tritonc.passes.ttgir.layouts import (
    BlockedLayout,
    DotOperandLayout,
    MmaLayout,
    SliceLayout,
)

POISON = -1


def powers_summing(rng, total_log2, rank):
    """Random exponents over `rank` dimensions adding up to `total_log2`."""
    out = [0] * rank
    for _ in range(total_log2):
        out[rng.randrange(rank)] += 1
    return out


def random_blocked(rng, shape, num_warps):
    rank = len(shape)
    spt = [1 << rng.randrange(0, 3) for _ in range(rank)]
    tpw = [1 << e for e in powers_summing(rng, 5, rank)]
    wpc = [1 << e for e in powers_summing(rng, num_warps.bit_length() - 1, rank)]
    order = list(range(rank))
    rng.shuffle(order)
    return BlockedLayout(tuple(spt), tuple(tpw), tuple(wpc), tuple(order))


def random_layout(rng, shape, num_warps):
    """A random encoding of a 2-D `shape`: blocked, transposed blocked, mma, dot operand,
    or (when the shape has a 1) ... always of `num_warps` warps."""
    kind = rng.choice(["blocked", "blocked", "transposed", "mma", "dot_a", "dot_b", "v3"])
    m, n = shape
    if kind == "mma" and m >= 16 and n >= 8:
        wm = 1 << rng.randrange(0, num_warps.bit_length())
        wn = num_warps // wm
        if m % (16 * wm) == 0 and n % (8 * wn) == 0:
            return MmaLayout((wm, wn)).to_linear(shape)
    if kind == "dot_a" and m % (16 * num_warps) == 0 and n % 16 == 0:
        return DotOperandLayout(0, MmaLayout((num_warps, 1))).to_linear(shape)
    if kind == "dot_b" and m % 16 == 0 and n % (8 * num_warps) == 0:
        return enc.dot_operand_v2(shape, 1, (1, num_warps))
    if kind == "v3" and num_warps == 4 and m % 64 == 0 and n % 16 == 0:
        return enc.mma_v3(shape, (4, 1), min(n, 64))
    if kind == "transposed":
        return random_blocked(rng, shape[::-1], num_warps).to_linear(shape[::-1]) \
            .transpose_outs((1, 0))
    return random_blocked(rng, shape, num_warps).to_linear(shape)


def registers_of(ll, values):
    """regs[warp, lane, register] = the element the layout places there."""
    table = ll.table()[0]  # block 0: [warp, lane, register, coord]
    return values[tuple(np.moveaxis(table, -1, 0))]


def run_plan(plan, src, dst, values):
    """Carry out the plan on per-thread register arrays; the destination registers."""
    regs = registers_of(src, values)
    warps, lanes = regs.shape[:2]
    out = np.full((warps, lanes, dst.in_size("register")), POISON, dtype=values.dtype)
    if plan.kind == "identity":
        out[...] = regs
    elif plan.kind == "permutation":
        out[...] = regs[:, :, list(plan.sources_of_registers)]
    elif plan.kind == "shuffle":
        for rnd in plan.rounds:
            # every lane puts one register in the shuffle
            sent = np.stack([regs[:, lane, rnd.sent_register(lane)] for lane in range(lanes)],
                            axis=1)
            for lane in range(lanes):
                if rnd.keeps(lane):
                    out[:, lane, rnd.dst_register_of(lane)] = sent[:, rnd.src_lane(lane)]
    else:
        smem = np.full(values.size, POISON, dtype=values.dtype)
        store_table = plan.store_map.table()[0][..., 0]  # [warp, lane, register] -> offset
        load_table = plan.load_map.table()[0][..., 0]
        check_side(store_table, plan.store)
        check_side(load_table, plan.load)
        smem[store_table.reshape(-1)] = regs.reshape(-1)
        out[...] = smem[load_table]
    return out


def check_side(offsets, side):
    """The offsets of each access: a vector of consecutive ones, or the rows of an
    `ldmatrix` (lanes 4 q .. 4 q + 3 read the words of one 16-byte row in turn)."""
    order = [sum(1 << side.registers[k] for k in range(len(side.registers)) if i >> k & 1)
             for i in range(offsets.shape[-1])]
    offsets = offsets[..., order]
    if not side.matrices:
        check_vectors(offsets, side.vector)
        return
    check_vectors(offsets, 2)
    lane = np.arange(offsets.shape[1])[None, :, None]
    rows = offsets[..., ::2] - 2 * (lane % 4)
    assert (rows % 8 == 0).all()
    assert (rows == rows[:, lane[0, :, 0] & ~3]).all()


def check_vectors(offsets, vec):
    """Each access of `vec` registers covers consecutive offsets from a multiple of vec."""
    groups = offsets.reshape(*offsets.shape[:2], -1, vec)
    assert (groups[..., 0] % vec == 0).all()
    assert (np.diff(groups, axis=-1) == 1).all()


def expected(dst, values):
    return registers_of(dst, values)


def check_all_plans(src, dst, shape, elem_bits, rng):
    values = np.array(rng.sample(range(1, 10 * int(np.prod(shape))), int(np.prod(shape))),
                      dtype=np.int64).reshape(shape)
    plans = candidate_plans(src, dst, shape, elem_bits)
    s, d = to_linear(src, shape), to_linear(dst, shape)
    for plan in plans:
        got = run_plan(plan, s, d, values)
        assert (got == expected(d, values)).all(), plan.kind
    best = plan_conversion(src, dst, shape, elem_bits)
    assert best.cost == min(p.cost for p in plans)
    return plans


@pytest.mark.parametrize("seed", range(40))
def test_random_pairs_end_with_the_right_elements(seed):
    rng = random.Random(seed)
    shape = rng.choice([(64, 64), (32, 128), (128, 32), (16, 64), (64, 16), (128, 64), (8, 8)])
    num_warps = rng.choice([1, 2, 4, 8])
    src = random_layout(rng, shape, num_warps)
    dst = random_layout(rng, shape, num_warps)
    check_all_plans(src, dst, shape, rng.choice([8, 16, 32, 64]), rng)


@pytest.mark.parametrize("seed", range(12))
def test_random_slices_end_with_the_right_elements(seed):
    rng = random.Random(100 + seed)
    num_warps = rng.choice([2, 4, 8])
    parent_shape = rng.choice([(64, 64), (128, 32), (32, 128)])
    dim = rng.randrange(2)
    shape = (parent_shape[1 - dim],)
    parents = [random_blocked(rng, parent_shape, num_warps), MmaLayout((num_warps, 1)),
               random_blocked(rng, parent_shape, num_warps)]
    src = SliceLayout(dim, rng.choice(parents))
    dst = rng.choice([SliceLayout(dim, rng.choice(parents)),
                      random_blocked(rng, shape, num_warps)])
    check_all_plans(src, dst, shape, 32, rng)


def test_layouts_of_different_tensors_or_warp_counts_are_refused():
    with pytest.raises(ValueError, match="different tensors"):
        plan_conversion(BlockedLayout.default((64, 64), 4).to_linear((64, 64)),
                        BlockedLayout.default((64, 32), 4).to_linear((64, 32)), (64, 64), 32)
    with pytest.raises(ValueError, match="warp counts differ"):
        plan_conversion(BlockedLayout.default((64, 64), 4), BlockedLayout.default((64, 64), 8),
                        (64, 64), 32)


def test_a_source_missing_elements_is_refused():
    """A layout whose threads hold only half the tensor (every lane bit a copy) cannot
    feed one that needs it all."""
    full = BlockedLayout.default((64,), 1).to_linear((64,))
    half = full.with_bases("lane", [(0,)] * 5)
    with pytest.raises(ValueError, match="holds no copy"):
        plan_conversion(half, full, (64,), 32)


def test_same_layout_is_the_identity():
    layout = BlockedLayout.default((64, 64), 4)
    assert plan_conversion(layout, layout, (64, 64), 32).kind == "identity"


def test_mma_accumulator_to_dot_operand_stays_in_registers():
    mma = MmaLayout((4, 1))
    plan = plan_conversion(mma, DotOperandLayout(0, mma), (64, 64), 16)
    assert plan.kind in ("identity", "permutation")


def test_slice_to_its_parent_rows_is_a_register_permutation():
    """A row statistic held by every thread of its rows, read by the row-major blocked
    layout whose threads own the same rows: no data moves between threads."""
    parent = BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0))
    rows = SliceLayout(1, parent)
    other = BlockedLayout((1,), (32,), (4,), (0,))
    rng = random.Random(5)
    plans = check_all_plans(rows, SliceLayout(1, parent), (64,), 32, rng)
    assert plans[0].kind == "identity"
    plan = plan_conversion(rows, other, (64,), 32)
    assert plan.kind != "identity"


def test_register_reorder_inside_a_thread_is_a_permutation():
    src = BlockedLayout((2, 2), (8, 4), (4, 1), (1, 0)).to_linear((64, 8))
    regs = src.bases("register")
    dst = src.with_bases("register", [regs[1], regs[0], *regs[2:]])
    rng = random.Random(9)
    check_all_plans(src, dst, (64, 8), 32, rng)
    plan = plan_conversion(src, dst, (64, 8), 32)
    assert plan.kind == "permutation" and plan.sources_of_registers[:4] == (0, 2, 1, 3)


def test_lanes_exchanged_within_a_warp_use_shuffles():
    """Register bits and lane bits swapped (a 32 x 32 transpose inside each warp): the
    warps keep their rows, so shuffles suffice: in round t lane l exchanges with lane
    l ^ t (round 0 is each lane's own register)."""
    shape = (128, 32)
    src = BlockedLayout((1, 1), (1, 32), (4, 1), (1, 0)).to_linear(shape)
    regs, lanes = src.bases("register"), src.bases("lane")
    dst = src.with_bases("register", lanes).with_bases("lane", regs)
    plans = check_all_plans(src, dst, shape, 32, random.Random(1))
    shuffle = next(p for p in plans if p.kind == "shuffle")
    assert shuffle.num_shuffles == 31 and len(shuffle.rounds) == 32
    assert all(r.lane_dependent for r in shuffle.rounds)
    assert plan_conversion(src, dst, shape, 32).kind == "shuffle"


def test_lane_dependent_source_registers_split_rounds():
    """Lane bit 0 also flips the register a thread needs: each round sends one register
    and only the lanes that need it keep it."""
    shape = (64, 32)
    src = BlockedLayout((2, 1), (1, 32), (4, 1), (1, 0)).to_linear(shape)
    regs, lanes = src.bases("register"), src.bases("lane")
    mixed = [tuple(a ^ b for a, b in zip(lanes[0], regs[0])), *lanes[1:]]
    dst = src.with_bases("lane", mixed)
    plans = check_all_plans(src, dst, shape, 32, random.Random(2))
    shuffle = next(p for p in plans if p.kind == "shuffle")
    assert len(shuffle.rounds) == dst.in_size("register")
    assert shuffle.rounds[0].src_register_bases[0] == 1  # the sender's lane bit 0 picks


def test_read_sources_names_the_holder_of_every_element():
    rng = random.Random(4)
    shape = (64, 64)
    src = random_blocked(rng, shape, 4)
    dst = MmaLayout((2, 2))
    plan = plan_conversion(src, dst, shape, 32)
    s, d = src.to_linear(shape), dst.to_linear(shape)
    for warp, lane in itertools.product(range(4), range(32)):
        for r, (sr, sl, sw) in enumerate(read_sources(plan, warp, lane)):
            assert s.apply(sr, sl, sw) == d.apply(r, lane, warp)


# -- bank conflicts ----------------------------------------------------------------------
def count_wavefronts(byte_addresses, access_bytes):
    """The 32-bank model, independently: per phase of lanes (128 bytes of requests),
    the most distinct 4-byte words any one bank must serve."""
    lanes_per_phase = 32 if access_bytes <= 4 else 128 // access_bytes
    total = 0
    for phase in range(0, 32, lanes_per_phase):
        banks = {}
        for a in byte_addresses[phase:phase + lanes_per_phase]:
            for word in range(a // 4, (a + access_bytes - 1) // 4 + 1):
                banks.setdefault(word % 32, set()).add(word)
        total += max(len(w) for w in banks.values())
    return total


def measured_wavefronts(access_map, vec, elem_bytes):
    """Total wavefronts of every warp instruction of one side, from the offsets."""
    offsets = access_map.table()[0][..., 0]  # [warp, lane, register]
    total = 0
    for warp in range(offsets.shape[0]):
        for first in range(0, offsets.shape[2], vec):
            total += count_wavefronts([int(o) * elem_bytes for o in offsets[warp, :, first]],
                                      vec * elem_bytes)
    return total


CONFLICT_CASES = [
    (BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0)), MmaLayout((2, 2)), (64, 64), 16),
    (MmaLayout((4, 1)), BlockedLayout.default((64, 64), 4), (64, 64), 16),
    (BlockedLayout.default((64, 64), 4), BlockedLayout.default((64, 64), 4, order=(0, 1)),
     (64, 64), 16),
    (BlockedLayout((1, 1), (1, 32), (4, 1), (1, 0)), BlockedLayout((1, 1), (32, 1), (1, 4),
                                                                    (0, 1)), (32, 32), 32),
    (BlockedLayout((1, 8), (8, 4), (4, 1), (1, 0)), BlockedLayout((8, 1), (4, 8), (1, 4),
                                                                  (0, 1)), (64, 64), 16),
]


@pytest.mark.parametrize("src, dst, shape, bits", CONFLICT_CASES)
def test_shared_plan_reports_the_bank_conflicts_it_has(src, dst, shape, bits):
    plans = candidate_plans(src, dst, shape, bits)
    smem = next(p for p in plans if isinstance(p, SharedMemoryExchange))
    s, d = src.to_linear(shape), dst.to_linear(shape)
    warps = s.in_size("warp")
    eb = bits // 8
    for side, access in ((smem.store, smem.store_map), (smem.load, smem.load_map)):
        assert measured_wavefronts(access, side.vector, eb) == \
            side.wavefronts * side.instructions * warps
    values = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)
    assert (run_plan(smem, s, d, values) == expected(d, values)).all()


@pytest.mark.parametrize("src, dst, shape, bits", CONFLICT_CASES)
def test_the_chosen_swizzle_is_conflict_free_and_beats_none(src, dst, shape, bits):
    """Both sides conflict-free under the independent counter; no unswizzled buffer (any
    order, any vector width) is cheaper, and for the transposes none is conflict-free."""
    from tritonc.passes.ttgir.layout_conversion import _shared_plan, conversion_map

    s, d = src.to_linear(shape), dst.to_linear(shape)
    c = conversion_map(s, d)
    smem = _shared_plan(c, s, d, shape, bits)
    eb = bits // 8
    for side, access in ((smem.store, smem.store_map), (smem.load, smem.load_map)):
        ideal = side.ideal_wavefronts * side.instructions * s.in_size("warp")
        assert measured_wavefronts(access, side.vector, eb) == ideal
    plain = [_shared_plan(c, s, d, shape, bits, swizzle=(vec, 1, 1, order))
             for order in ((1, 0), (0, 1)) for vec in (1, 2, 4, 8) if vec * eb <= 16]
    assert smem.cost <= min(p.cost for p in plain)
    transposing = s.num_contiguous("dim1") > 1 and d.num_contiguous("dim0") > 1
    if transposing:
        assert not any(p.store.conflict_free and p.load.conflict_free for p in plain)


def test_module_examples_hold():
    import doctest

    from tritonc.passes.ttgir import layout_conversion, linear_layout

    for module in (layout_conversion, linear_layout):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0
