"""Layout conversions lowered from a plan (passes/to_llvm/convert.py).

The emission runs on a numpy model of a thread block (every thread at once: shuffles
read other lanes, the scratch buffer is an array that flags racing writes, unaligned
vectors and reads of unwritten elements), with element ids as data, against the
destination layout's own placement. Then the IR: FileCheck of the PTX of small kernels
(shuffles for an in-warp conversion, ld.shared.v4 for a transpose) and ptxas."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_cuda_filecheck import filecheck

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_convert_gpu import scale_rows  # noqa: E402  (rows of halves: tests/test_convert_gpu.py)

import tritonc
import tritonc.language as tl
from tritonc.passes.to_llvm.convert import choose_plan, emit_plan, lowering_cost
from tritonc.passes.ttgir.layout_conversion import access_wavefronts, candidate_plans
from tritonc.passes.ttgir.layouts import BlockedLayout, DotOperandLayout, MmaLayout, SliceLayout

UNSET = -1


class BlockModel:
    """The `Emitter` interface over numpy arrays holding one value per thread."""

    def __init__(self, num_warps: int, buffer_elems: int, elem_bytes: int) -> None:
        self.threads = 32 * num_warps
        tid = np.arange(self.threads)
        self.lane, self.warp = tid % 32, tid // 32
        self.mem = np.full(buffer_elems, UNSET, dtype=np.int64)
        self.elem_bytes = elem_bytes
        self.barriers = self.shuffles = 0
        self.wavefronts: list[tuple[int, int]] = []  # (taken, fewest possible) per warp access

    def thread_xor(self, lane_cols, warp_cols):
        out = np.zeros(self.threads, dtype=np.int64)
        for ident, cols in ((self.lane, lane_cols), (self.warp, warp_cols)):
            for k, c in enumerate(cols):
                out ^= ((ident >> k) & 1) * c
        return out

    def xor(self, value, constant):
        return value ^ constant

    def equals(self, value, constant):
        return value == constant

    def lane_bit(self, k):
        return (self.lane >> k) & 1 == 1

    def select(self, cond, if_true, if_false):
        return np.where(cond, if_true, if_false)

    def shuffle(self, value, src_lane):
        assert ((0 <= src_lane) & (src_lane < 32)).all()
        self.shuffles += 1
        return value[self.warp * 32 + src_lane]

    def _check(self, offset, count):
        assert (offset % count == 0).all(), "vector access not aligned to its size"
        assert ((0 <= offset) & (offset + count <= len(self.mem))).all()
        for w in range(self.threads // 32):
            addresses = [int(a) * self.elem_bytes for a in offset[w * 32:(w + 1) * 32]]
            taken = access_wavefronts(addresses, count * self.elem_bytes)
            fewest = max(1, -(-len(set(addresses)) * count * self.elem_bytes // 128))
            self.wavefronts.append((taken, fewest))

    def store(self, base, constant, values):
        assert not (base & constant).any(), "the constant overlaps the base"
        offset = base + constant
        self._check(offset, len(values))
        for i, v in enumerate(values):
            at = offset + i
            old = self.mem[at]
            assert ((old == UNSET) | (old == v)).all(), "two threads write one element"
            # threads writing the same element in one instruction must agree
            order = np.argsort(at, kind="stable")
            same = at[order][1:] == at[order][:-1]
            assert (v[order][1:][same] == v[order][:-1][same]).all()
            self.mem[at] = v

    def load(self, base, constant, count):
        assert not (base & constant).any(), "the constant overlaps the base"
        offset = base + constant
        self._check(offset, count)
        out = [self.mem[offset + i] for i in range(count)]
        assert all((o != UNSET).all() for o in out), "read of an element nobody wrote"
        return out

    def ldmatrix(self, base, constant, count):
        """Lane 8 m + r gives the row of matrix m; lane l receives, of every matrix, the
        two elements of word l % 4 of row l // 4."""
        assert self.elem_bytes == 2 and not (base & constant).any()
        rows = base + constant
        assert (rows % 8 == 0).all(), "ldmatrix rows are 16-byte aligned"
        out = []
        for m in range(count):
            for w in range(self.threads // 32):
                addresses = [int(rows[w * 32 + 8 * m + r]) * 2 for r in range(8)]
                self.wavefronts.append((access_wavefronts(addresses, 16), 1))
            src = self.warp * 32 + 8 * m + self.lane // 4
            at = rows[src] + 2 * (self.lane % 4)
            for half in range(2):
                value = self.mem[at + half]
                assert (value != UNSET).all(), "read of an element nobody wrote"
                out.append(value)
        return out

    def stmatrix(self, base, constant, values):
        """Lane 8 m + r gives the row of matrix m; lane l stores, of every matrix, its two
        elements as word l % 4 of row l // 4."""
        assert self.elem_bytes == 2 and not (base & constant).any()
        rows = base + constant
        assert (rows % 8 == 0).all(), "stmatrix rows are 16-byte aligned"
        for m in range(len(values) // 2):
            for w in range(self.threads // 32):
                addresses = [int(rows[w * 32 + 8 * m + r]) * 2 for r in range(8)]
                self.wavefronts.append((access_wavefronts(addresses, 16), 1))
            at = rows[self.warp * 32 + 8 * m + self.lane // 4] + 2 * (self.lane % 4)
            for half in range(2):
                old, v = self.mem[at + half], values[2 * m + half]
                assert ((old == UNSET) | (old == v)).all(), "two threads write one element"
                self.mem[at + half] = v

    def barrier(self):
        self.barriers += 1

    def guard_barrier(self):
        self.barrier()


def element_ids(ll, num_warps: int) -> list[np.ndarray]:
    """For each register of the layout, the row-major index each thread holds there."""
    shape = ll.out_shape
    strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
    regs = []
    for r in range(ll.in_size("register")):
        ids = np.zeros(32 * num_warps, dtype=np.int64)
        for t in range(32 * num_warps):
            warp = (t // 32) % ll.in_size("warp")
            coord = ll.apply(register=r, lane=t % 32, warp=warp)
            ids[t] = sum(c * s for c, s in zip(coord, strides))
        regs.append(ids)
    return regs


def run_conversion(src_ll, dst_ll, elem_bits: int, num_warps: int,
                   matrix_stores: bool = False):
    """Lower the chosen plan on the model; assert every thread ends with dst's elements."""
    plan, cost = choose_plan(src_ll, dst_ll, src_ll.out_shape, elem_bits, matrix_stores)
    model = BlockModel(num_warps, int(np.prod(src_ll.out_shape)), max(1, elem_bits // 8))
    src_regs = element_ids(src_ll, num_warps)
    got = emit_plan(model, plan, src_regs)
    want = element_ids(dst_ll, num_warps)
    assert len(got) == len(want)
    for r, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, w, err_msg=f"register {r} ({plan.kind} plan)")
    return plan, model


def random_blocked(rng: random.Random, shape, num_warps: int) -> BlockedLayout:
    """A blocked layout of `shape` with random per-thread chunks, lane and warp splits."""
    rank = len(shape)

    def split(total: int) -> list[int]:
        out = [1] * rank
        for _ in range(total.bit_length() - 1):
            out[rng.randrange(rank)] *= 2
        return out

    spt = [1 << rng.randrange(3) for _ in range(rank)]
    order = list(range(rank))
    rng.shuffle(order)
    return BlockedLayout(tuple(spt), tuple(split(32)), tuple(split(num_warps)), tuple(order))


SHAPES = [((128,), 4), ((32, 32), 4), ((16, 64), 4), ((64, 16), 2), ((8, 4, 32), 4),
          ((64, 64), 8), ((16, 16), 1)]


@pytest.mark.parametrize("elem_bits, matrix_stores", [(8, False), (16, False), (16, True),
                                                     (32, False), (64, False)])
@pytest.mark.parametrize("shape, num_warps", SHAPES)
def test_random_blocked_conversions_deliver_every_element(shape, num_warps, elem_bits,
                                                          matrix_stores):
    rng = random.Random(hash((shape, num_warps, elem_bits)) & 0xFFFF)
    kinds = set()
    for _ in range(12):
        src = random_blocked(rng, shape, num_warps)
        dst = random_blocked(rng, shape, num_warps)
        plan, model = run_conversion(src.to_linear(shape), dst.to_linear(shape), elem_bits,
                                     num_warps, matrix_stores)
        kinds.add(plan.kind)
        if plan.kind == "shared":
            assert model.barriers == 2
    assert kinds - {"identity"}


def test_in_warp_conversion_is_shuffles():
    # each warp keeps its four rows; its lanes go along the rows first
    shape = (16, 32)
    src = BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0)).to_linear(shape)
    dst = BlockedLayout((1, 4), (4, 8), (4, 1), (0, 1)).to_linear(shape)
    plan, model = run_conversion(src, dst, 32, 4)
    assert plan.kind == "shuffle" and model.shuffles == plan.num_shuffles > 0
    assert model.barriers == 0


def test_transposing_shuffle_rounds_select_registers_by_lane():
    # a 32 x 32 tile, row r in lane r, to column c in lane c: the shuffle plan's rounds
    # send and keep lane-dependent registers; their selects make shared memory cheaper
    shape = (32, 32)
    src = BlockedLayout((1, 32), (32, 1), (1, 1), (1, 0)).to_linear(shape)
    dst = BlockedLayout((32, 1), (1, 32), (1, 1), (0, 1)).to_linear(shape)
    shuffle = next(p for p in candidate_plans(src, dst, shape, 32) if p.kind == "shuffle")
    assert any(r.lane_dependent for r in shuffle.rounds)
    model = BlockModel(1, 32 * 32, 4)
    got = emit_plan(model, shuffle, element_ids(src, 1))
    for g, w in zip(got, element_ids(dst, 1)):
        np.testing.assert_array_equal(g, w)
    plan, _ = choose_plan(src, dst, shape, 32)
    assert plan.kind == "shared" and lowering_cost(shuffle) > lowering_cost(plan)


@pytest.mark.parametrize("elem_bits", [16, 32])
@pytest.mark.parametrize("warps, shape", [((2, 2), (64, 64)), ((4, 1), (64, 32)),
                                          ((4, 2), (128, 128)), ((1, 4), (16, 128)),
                                          ((8, 1), (128, 64))])
@pytest.mark.parametrize("matrix_stores", [False, True])
def test_mma_to_and_from_blocked(warps, shape, elem_bits, matrix_stores):
    num_warps = warps[0] * warps[1]
    mma = MmaLayout(warps).to_linear(shape)
    for blocked in (BlockedLayout.default(shape, num_warps),
                    BlockedLayout.default(shape, num_warps, order=(0, 1)),
                    BlockedLayout((1, 1), (32, 1), (num_warps, 1), (0, 1))):
        run_conversion(mma, blocked.to_linear(shape), elem_bits, num_warps, matrix_stores)
        run_conversion(blocked.to_linear(shape), mma, elem_bits, num_warps, matrix_stores)
    # tl.trans of the accumulator: the transposed blocked tile as a layout of the source
    blocked_t = BlockedLayout.default(shape[::-1], num_warps).to_linear(shape[::-1])
    run_conversion(mma, blocked_t.transpose_outs([1, 0]), elem_bits, num_warps, matrix_stores)


@pytest.mark.parametrize("warps, shape", [((4, 1), (128, 128)), ((4, 2), (128, 256)),
                                          ((2, 2), (64, 64)), ((8, 1), (128, 64))])
def test_accumulator_halves_leave_by_stmatrix(warps, shape):
    """An accumulator of halves to the row-major tile a store takes. Without `stmatrix`
    the stores are 32-bit words where the store's rows span fewer than 128 columns (16
    threads along 4 halves each): there, one `stmatrix` per eight registers (rows of 16
    bytes, no bank conflict) costs less. Where the rows span 128, 16-byte stores into a
    buffer laid out for them cost as much, and the plan stays as it was."""
    num_warps = warps[0] * warps[1]
    mma = MmaLayout(warps).to_linear(shape)
    blocked = BlockedLayout.default(shape, num_warps).to_linear(shape)
    plain, _ = run_conversion(mma, blocked, 16, num_warps)
    plan, model = run_conversion(mma, blocked, 16, num_warps, matrix_stores=True)
    assert not plain.store.matrices
    if plain.store.vector == 8:
        assert plan == plain
        return
    assert plan.store.matrices and plan.store.vector == 8 and plan.cost < plain.cost
    assert all(taken == fewest for taken, fewest in model.wavefronts)


@pytest.mark.parametrize("warps, shape", [((2, 2), (64, 32)), ((4, 1), (64, 64)),
                                          ((4, 2), (128, 32))])
def test_blocked_to_dot_operand(warps, shape):
    num_warps = warps[0] * warps[1]
    dst = DotOperandLayout(0, MmaLayout(warps)).to_linear(shape)
    for src in (BlockedLayout.default(shape, num_warps),
                BlockedLayout.default(shape, num_warps, max_vector=8, order=(0, 1))):
        run_conversion(src.to_linear(shape), dst, 16, num_warps)
    run_conversion(MmaLayout(warps).to_linear(shape), dst, 16, num_warps)


def test_slices_of_different_parents():
    shape, num_warps = (64, 32), 4
    a = BlockedLayout((1, 4), (4, 8), (4, 1), (1, 0))
    b = BlockedLayout((4, 1), (8, 4), (1, 4), (0, 1))
    for dim in (0, 1):
        sliced = (shape[1 - dim],)
        for src, dst in itertools.permutations([SliceLayout(dim, a), SliceLayout(dim, b),
                                                SliceLayout(dim, MmaLayout((2, 2)))], 2):
            run_conversion(src.to_linear(sliced), dst.to_linear(sliced), 32, num_warps)


@pytest.mark.parametrize("elem_bits", [8, 16, 32])
@pytest.mark.parametrize("shape, order", [((64, 64), (1, 0)), ((32, 128), (1, 0)),
                                          ((16, 16), (1, 0)), ((4, 16, 32), (2, 0, 1)),
                                          ((8, 4, 32), (1, 2, 0))])
def test_transposes_are_conflict_free_and_vectorised(shape, order, elem_bits):
    num_warps = 4
    out_shape = tuple(shape[o] for o in order)
    src = BlockedLayout.default(shape, num_warps).to_linear(shape)
    dst_on_result = BlockedLayout.default(out_shape, num_warps).to_linear(out_shape)
    inverse = [order.index(d) for d in range(len(order))]
    plan, model = run_conversion(src, dst_on_result.transpose_outs(inverse), elem_bits,
                                 num_warps)
    assert plan.kind == "shared"
    assert all(taken == fewest for taken, fewest in model.wavefronts)
    assert max(plan.store.vector, plan.load.vector) > 1


# -- the IR --------------------------------------------------------------------------------
@tritonc.jit
def transpose_tile(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(x))


@tritonc.jit
def copy_tile(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def compile_tile(kernel, dtype: str, m: int, n: int, arch: int, num_warps: int = 4):
    return tritonc.compile(kernel, {"x_ptr": f"*{dtype}", "y_ptr": f"*{dtype}"},
                           {"M": m, "N": n}, target=f"cuda:{arch}",
                           divisible_by_16={"x_ptr", "y_ptr"}, num_warps=num_warps)


@pytest.mark.parametrize("arch", [80, 90])
def test_transpose_reads_shared_memory_in_v4_vectors(arch, tmp_path):
    k = compile_tile(transpose_tile, "fp32", 32, 32, arch)
    filecheck(k.asm["ptx"], """
CHECK: ld.global.v4.b32
CHECK-NOT: bar.sync
CHECK-COUNT-8: st.shared.b32
CHECK: bar.sync
CHECK-NOT: ld.shared.b32
CHECK-COUNT-2: ld.shared.v4.b32
CHECK-NOT: ld.shared
CHECK: st.global
""", tmp_path)
    assert k.metadata["ptxas"]["spill_stores"] == 0


def test_fp16_transpose_stores_shared_memory_in_v4_vectors(tmp_path):
    k = compile_tile(transpose_tile, "fp16", 32, 128, 90)
    filecheck(k.asm["ptx"], """
CHECK-NOT: bar.sync
CHECK: st.shared.v4.b32
CHECK-NOT: st.shared.b16
CHECK: bar.sync
CHECK: ld.shared.b16
""", tmp_path)


@pytest.mark.parametrize("arch", [80, 90])
def test_fp16_rows_reach_scalar_stores_through_ldmatrix(arch, tmp_path):
    """Eight halves per thread move to one per thread (the store's layout, its rows not
    known to be aligned): two 16-byte stores per thread, then one `ldmatrix.x4` per eight
    results, each register two halves, in place of sixteen 2-byte loads."""
    k = tritonc.compile(scale_rows, {"x_ptr": "*fp16", "y_ptr": "*fp16",
                                     "x_stride": "i32", "y_stride": "i32", "n": "i32"},
                        {"BLOCK": 4096}, target=f"cuda:{arch}",
                        divisible_by_16={"x_ptr", "y_ptr", "x_stride"}, num_warps=8)
    filecheck(k.asm["ptx"], """
CHECK: bar.sync
CHECK-COUNT-2: st.shared.v4.b32
CHECK: bar.sync
CHECK-NOT: ld.shared.b16
CHECK-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK-NOT: ld.shared
CHECK: st.global.b16
""", tmp_path)
    assert k.metadata["ptxas"]["spill_stores"] == 0


@pytest.mark.parametrize("arch", [80, 90])
def test_fp16_accumulator_reaches_its_store_through_stmatrix_on_sm90(arch, tmp_path):
    """A matmul's fp16 C, 64 x 64 on 4 warps: the accumulator goes to shared memory by one
    `stmatrix.x4` per eight registers on sm_90 (ldmatrix's mirror, sm_80 has none), then
    16-byte loads feed 16-byte global stores."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import matmul_kernels as mk

    sig = {n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")}
    sig.update({n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")})
    const = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, GROUP_M=8, B_TRANS=0,
                 PRECISION="ieee", stride_ak=1, stride_bn=1, stride_cn=1)
    k = tritonc.compile(mk.matmul_ptr, sig, const, target=f"cuda:{arch}",
                        divisible_by_16=set(sig), num_warps=4, num_stages=3)
    if arch == 80:
        assert "stmatrix" not in k.asm["ptx"]
        return
    filecheck(k.asm["ptx"], """
CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK-NOT: st.shared
CHECK: bar.sync
CHECK-COUNT-4: ld.shared.v4.b32
CHECK: st.global.v4.b32
""", tmp_path)
    assert k.metadata["ptxas"]["spill_stores"] == 0


@tritonc.jit
def permute_021(x_ptr, y_ptr, A, B, C, BB: tl.constexpr, BC: tl.constexpr):
    a, pb, pc = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    ib = pb * BB + tl.arange(0, BB)
    ic = pc * BC + tl.arange(0, BC)
    ia = a + tl.arange(0, 1)
    src = x_ptr + (ia[:, None, None] * B + ib[None, :, None]) * C + ic[None, None, :]
    tile = tl.load(src, mask=(ib[None, :, None] < B) & (ic[None, None, :] < C))
    dst = y_ptr + (ia[:, None, None] * C + ic[None, :, None]) * B + ib[None, None, :]
    tl.store(dst, tl.permute(tile, (0, 2, 1)),
             mask=(ic[None, :, None] < C) & (ib[None, None, :] < B))


@pytest.mark.parametrize("arch", [80, 90])
def test_deep_index_arithmetic_is_recomputed_not_moved(arch, tmp_path):
    """The store's pointers and mask, eight ops deep, are recomputed in the store's layout:
    only the values cross shared memory (one exchange, 32-bit words; the permute itself
    keeps every element in its thread, blocked-views)."""
    k = tritonc.compile(permute_021, {"x_ptr": "*fp32", "y_ptr": "*fp32", "A": "i32",
                                      "B": "i32", "C": "i32"}, {"BB": 64, "BC": 64},
                        target=f"cuda:{arch}", divisible_by_16={"x_ptr", "y_ptr", "C"})
    ptx = k.asm["ptx"]
    assert "st.shared.b64" not in ptx and "ld.shared.b64" not in ptx
    assert ptx.count("bar.sync") == 1
    filecheck(ptx, """
CHECK: ld.global.v4.b32
CHECK: st.shared.v{{[24]}}.b32
CHECK: bar.sync
CHECK: ld.shared.v{{[24]}}.b32
CHECK: st.global
""", tmp_path)


def with_conversion(ttgir: str, layout: str) -> str:
    """The TTGIR of `copy_tile` with the loaded tile (and the store's pointers) converted
    to `layout` before the store."""
    lines = ttgir.splitlines()
    at = next(i for i, line in enumerate(lines) if '"tt.store"' in line)
    store = lines[at]
    ptr, value = (s.strip() for s in store.split('"tt.store"(')[1].split(")")[0].split(","))
    types = store.rsplit(": (", 1)[1].split(") -> ")[0]
    ptr_ty, value_ty = (t.strip() for t in types.split(">>, "))
    ptr_ty, value_ty = ptr_ty + ">>", value_ty
    old = value_ty[value_ty.index("#ttg"):-1]
    new_ptr_ty, new_value_ty = ptr_ty.replace(old, layout), value_ty.replace(old, layout)
    indent = store[:len(store) - len(store.lstrip())]
    lines[at:at] = [
        f'{indent}%cvt_p = "ttg.convert_layout"({ptr}) : ({ptr_ty}) -> {new_ptr_ty}',
        f'{indent}%cvt_v = "ttg.convert_layout"({value}) : ({value_ty}) -> {new_value_ty}']
    lines[at + 2] = store.replace(f"({ptr}, {value})", "(%cvt_p, %cvt_v)").replace(
        ptr_ty, new_ptr_ty).replace(value_ty, new_value_ty)
    return "\n".join(lines)


def lower_ttgir(text: str, num_warps: int, arch: int) -> str:
    from tritonc.backends.cuda.llvm_to_ptx import llvm_module_to_ptx
    from tritonc.backends.cuda.ptxas import compile_ptx
    from tritonc.compiler import mlir_loader
    from tritonc.passes.to_llvm.lowering import lower_module

    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(text)
        assert module.operation.verify()
        lowered = lower_module(module, num_warps, 1, arch)
        _, ptx = llvm_module_to_ptx(lowered.module, lowered.name, str(arch))
    compile_ptx(ptx, str(arch), lowered.name, None)  # ptxas accepts it
    return ptx


@pytest.mark.parametrize("arch", [80, 90])
def test_in_warp_conversion_uses_shuffles_not_shared_memory(arch, tmp_path):
    k = compile_tile(copy_tile, "fp32", 16, 32, arch)
    assert "#ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>" in k.asm["ttgir"]
    # the same rows per warp, lanes along the rows first
    layout = "#ttg.blocked<[1, 4], [4, 8], [4, 1], [0, 1]>"
    ptx = lower_ttgir(with_conversion(k.asm["ttgir"], layout),
                      4, arch)
    filecheck(ptx, """
CHECK: ld.global.v4.b32
CHECK-COUNT-4: shfl.sync.idx.b32
CHECK-NOT: shfl.sync
CHECK: st.global
""", tmp_path)
    assert "bar.sync" not in ptx and ".shared" not in ptx.split(".entry")[1]


def test_cross_warp_conversion_goes_through_a_swizzled_buffer(tmp_path):
    k = compile_tile(copy_tile, "fp32", 64, 64, 90)
    layout = "#ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>"
    ptx = lower_ttgir(with_conversion(k.asm["ttgir"], layout),
                      4, 90)
    filecheck(ptx, """
CHECK: ld.global.v4.b32
CHECK-NOT: bar.sync
CHECK: st.shared.v4.b32
CHECK: bar.sync
CHECK: ld.shared
CHECK: st.global
""", tmp_path)


def test_the_switch_turns_the_planned_path_off():
    code = ("import sys; sys.path.insert(0, 'tests/backend'); "
            "from test_convert_lowering import compile_tile, transpose_tile; "
            "print(compile_tile(transpose_tile, 'fp32', 32, 32, 90).asm['ptx'])")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "TRITONC_PLANNED_CONVERSIONS": "0"}
    off = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, text=True,
                         capture_output=True, check=True).stdout
    on = compile_tile(transpose_tile, "fp32", 32, 32, 90).asm["ptx"]
    assert "ld.shared.v4.b32" in on and "ld.shared.v4.b32" not in off
    assert "ld.shared.b32" in off
