"""Flash attention through the CUDA backend: the softmax stays in the accumulator's layout
(no conversion inside the loop), the probabilities feed the second dot from registers,
the block-pointer tiles are copied ahead by cp.async, and on sm_90 both dots run on wgmma
(keys K-major: trans-b 0; values N-major: trans-b 1), the queries read from shared
memory, where they are stored once before the loop (on sm_80 from registers)."""

import sys
from pathlib import Path

import pytest
from test_cuda_filecheck import filecheck

import tritonc
import tritonc.language as tl

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import kernels  # noqa: E402  (benchmarks/kernels.py)
from fused_attention import _attn_fwd  # noqa: E402

STRIDES = [f"stride_{t}{d}" for t, dims in (("q", "zhmk"), ("k", "zhnk"), ("v", "zhkn"),
                                              ("o", "zhmn")) for d in dims]
INNER = {"stride_qk", "stride_kk", "stride_vn", "stride_on"}  # 1: specialised away
SIGNATURE = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32",
             "Out": "*fp16", **{s: "i32" for s in STRIDES if s not in INNER},
             "Z": "i32", "H": "i32"}
DIVISIBLE = {"Q", "K", "V", "M", "Out"} | {s for s in STRIDES if s not in INNER}


def compile_attention(arch: int, head_dim: int, num_warps: int, block_m: int):
    constexprs = dict(N_CTX=1024, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=64, STAGE=1,
                      **{s: 1 for s in INNER})
    return tritonc.compile(_attn_fwd, SIGNATURE, constexprs, target=f"cuda:{arch}",
                           divisible_by_16=DIVISIBLE, num_warps=num_warps, num_stages=3)


def loop_body(ttgir: str) -> str:
    start = ttgir.index("scf.for")
    return ttgir[start:ttgir.index("scf.yield", start)]


@pytest.mark.parametrize("arch", [80, 90])
def test_softmax_stays_in_the_mma_layout(arch, tmp_path):
    k = compile_attention(arch, 64, 8 if arch == 90 else 4, 128)
    body = loop_body(k.asm["ttgir"])
    # between the dots, only the probabilities move: into the A-operand registers
    between = body.split('"tt.dot"')[1].rsplit('"tt.dot"', 1)[0]
    converts = [line for line in between.splitlines() if "ttg.convert_layout" in line]
    assert len(converts) == 1 and ") -> tensor<128x64xf16, #ttg.dot_op<0" in converts[0]
    mma = "#ttg.mma<[8, 1]>" if arch == 90 else "#ttg.mma<["
    queries = "#ttg.blocked" if arch == 90 else "#ttg.dot_op<0 : i64"
    filecheck(body, f"""
CHECK: scf.for {{{{.*}}}} -> (tensor<128xf32, #ttg.slice<1 : i64, {mma}
CHECK: "tt.load"{{{{.*}}}} -> tensor<64x64xf16, #ttg.blocked<[8, 1], {{{{.*}}}}, [0, 1]>>
CHECK: "tt.dot"{{{{.*}}}} : (tensor<128x64xf16, {queries}
CHECK: "tt.reduce"{{{{.*}}}} -> tensor<128xf32, #ttg.slice<1 : i64, {mma}
CHECK: "tt.expand_dims"{{{{.*}}}} -> tensor<128x1xf32, {mma}
CHECK: "tt.broadcast"{{{{.*}}}} -> tensor<128x64xf32, {mma}
""", tmp_path)


def test_hopper_attention_runs_both_dots_on_wgmma(tmp_path):
    k = compile_attention(90, 64, 8, 128)
    assert k.metadata["ptx_arch"] == "90a"
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert not report["warnings"], report["warnings"]  # no serialized wgmma
    filecheck(k.asm["ptx"], """
CHECK: ld.global.v4.b32
CHECK: st.shared.v4.b32
CHECK: fence.proxy.async.shared::cta
CHECK: bar.sync
CHECK: cp.async.commit_group
CHECK: wgmma.fence.sync.aligned
CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
CHECK-SAME: }, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 1, 1, 1, 0, 0;
CHECK: wgmma.wait_group.sync.aligned 0
CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
CHECK-SAME: {%r{{.*}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
CHECK: wgmma.wait_group.sync.aligned 0
""", tmp_path)


def test_four_warps_run_128_query_rows_on_wgmma(tmp_path):
    """128 query rows on 4 warps: each dot is two m64n64k16 per K step, one per 64-row
    slab; the queries come from shared memory, the probabilities' fragments from
    registers, those of each warp's 16-row tile r feeding wgmma r; no spills."""
    k = compile_attention(90, 64, 4, 128)
    assert k.metadata["ptx_arch"] == "90a"
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert not report["warnings"], report["warnings"]  # no serialized wgmma
    step = "CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16\n"
    filecheck(k.asm["ptx"], "CHECK: wgmma.fence.sync.aligned\n" + step * 8
              + "CHECK-NOT: wgmma.mma_async\nCHECK: wgmma.wait_group.sync.aligned 0\n"
              + "CHECK: wgmma.fence.sync.aligned\n" + step * 8
              + "CHECK-NOT: wgmma.mma_async\nCHECK: wgmma.wait_group.sync.aligned 0\n",
              tmp_path)


def test_keys_and_values_are_copied_ahead_into_the_ring(tmp_path):
    """The block-pointer tiles of iteration i + 2 are copied by cp.async (16 bytes each)
    while iteration i computes; the keys land transposed (one key per row: K-major), and
    no global load is left between the two dots. The product with the values stays in
    flight into the next iteration, whose wait for Q @ K^T settles it. The accumulators
    allow one block per SM whatever the ring, so it takes a spare buffer: the copies go
    right after Q @ K^T is issued, into the buffer iteration i - 2 read, with one barrier
    an iteration (at its top)."""
    k = compile_attention(90, 64, 8, 128)
    ptx = k.asm["ptx"]
    assert "ttg.ring_buffers = 4" in k.asm["ttgir"]
    first_dot = ptx.index("wgmma.fence")
    assert "ld.global" not in ptx[first_dot:ptx.index("wgmma.fence", first_dot + 1)]
    filecheck(ptx, """
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
CHECK: cp.async.commit_group
CHECK: $L__BB0_1:
CHECK: cp.async.wait_group 1
CHECK: fence.proxy.async.shared::cta
CHECK: bar.sync
CHECK-NOT: bar.sync
CHECK: wgmma.mma_async{{.*}}, 1, 1, 1, 0, 0;
CHECK: wgmma.commit_group.sync.aligned
CHECK-NOT: bar.sync
CHECK-COUNT-4: cp.async.cg.shared.global
CHECK: cp.async.commit_group
CHECK-NOT: bar.sync
CHECK: wgmma.wait_group.sync.aligned 0
CHECK-NOT: bar.sync
CHECK: wgmma.mma_async{{.*}}, 1, 1, 1, 1;
CHECK: wgmma.commit_group.sync.aligned
CHECK-NOT: wgmma.wait_group
CHECK-NOT: bar.sync
CHECK: bra
CHECK: wgmma.wait_group.sync.aligned 0
""", tmp_path)


@pytest.mark.parametrize("stage", [1, 3])
def test_pointer_attention_copies_keys_and_values_ahead(stage):
    """The attention written with pointer arithmetic (benchmarks/attention_kernels.py):
    the value pointers run through a layout conversion of the head-dimension offsets,
    which keeps their alignment, so both tiles of every loop (two when causal) join the
    cp.async ring and only the queries are loaded into registers."""
    from attention_kernels import attn_fwd_ptr

    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "Out": "*fp16",
           "H": "i32"}
    k = tritonc.compile(attn_fwd_ptr, sig, dict(N_CTX=4096, HEAD_DIM=64, BLOCK_M=128,
                                                BLOCK_N=64, STAGE=stage),
                        target="cuda:90", divisible_by_16={"Q", "K", "V", "Out", "H"},
                        num_warps=8, num_stages=3)
    ptx = k.asm["ptx"]
    loops = 2 if stage == 3 else 1
    # per loop: 2 tiles x (2 prologue stages + the loop) x 2 copies of 16 bytes per thread
    assert ptx.count("cp.async.cg.shared.global") == 12 * loops
    assert ptx.count("ld.global") == 4  # the queries: 128 x 64 fp16 over 256 threads
    assert "ex2.approx.ftz.f32" in ptx and "ex2.approx.f32" not in ptx


def test_tiles_cp_async_cannot_copy_are_prefetched_into_registers():
    """With unknown inner strides the matmul's tiles load element by element, so no
    cp.async: each is loaded one iteration ahead instead, once before the loop and once
    in it (twice the loads of the same loop without stages)."""
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
           **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk",
                                 "stride_bn", "stride_cm", "stride_cn")}}
    constexprs = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8)

    def loads(stages: int) -> int:
        ptx = tritonc.compile(kernels.matmul_kernel, sig, constexprs, target="cuda:80",
                              num_warps=4, num_stages=stages).asm["ptx"]
        assert "cp.async" not in ptx
        return ptx.count("ld.global")

    assert loads(3) == 2 * loads(1) > 0


def test_ampere_attention_takes_probabilities_from_registers(tmp_path):
    """With A in registers the warps split M only ([4, 1]), so the probabilities become
    the second dot's A fragments without leaving their threads."""
    k = compile_attention(80, 64, 4, 64)
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert not report["warnings"], report["warnings"]  # no serialized wgmma
    filecheck(loop_body(k.asm["ttgir"]), """
CHECK: "tt.dot"{{.*}} -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
CHECK: "ttg.convert_layout"{{.*}}#ttg.mma<[4, 1]>>)
CHECK-SAME: -> tensor<64x64xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>
""", tmp_path)
    ptx = k.asm["ptx"]
    assert ".target sm_80" in ptx
    loop = ptx[ptx.index("mma.sync"):ptx.rindex("mma.sync")]
    assert "ld.shared.b16" not in loop and "ld.shared.u16" not in loop


@tritonc.jit
def _queries_in_two_loops(Q, K, Out, n_blocks, first, D: tl.constexpr):
    rows = tl.arange(0, 64)
    cols = tl.arange(0, D)
    q = tl.load(Q + rows[:, None] * D + cols[None, :])
    acc = tl.zeros([64, 64], dtype=tl.float32)
    if first > 0:
        for j in range(0, first):
            k = tl.load(K + j * 64 * D + cols[:, None] + rows[None, :] * D)
            acc = tl.dot(q, k, acc)
    for j in range(0, n_blocks):
        k = tl.load(K + j * 64 * D + cols[:, None] + rows[None, :] * D)
        acc = tl.dot(q, k, acc)
    tl.store(Out + rows[:, None] * 64 + rows[None, :], acc)


def test_queries_are_stored_again_for_a_loop_the_first_store_does_not_reach():
    """The queries of a loop inside an `if` are stored before that loop; the loop after
    the `if` cannot read that store (it may not have run) and stores them again."""
    sig = {"Q": "*fp16", "K": "*fp16", "Out": "*fp32", "n_blocks": "i32", "first": "i32"}
    k = tritonc.compile(_queries_in_two_loops, sig, {"D": 64}, target="cuda:90",
                        divisible_by_16={"Q", "K", "Out"}, num_warps=4, num_stages=3)
    ptx = k.asm["ptx"]
    dots = [at for at in range(len(ptx)) if ptx.startswith("wgmma.mma_async", at)]
    assert len(dots) == 8  # two loops, 4 K steps each
    # the queries, 16-byte stores, before the first loop and again before the second
    assert "st.shared.v4.b32" in ptx[:dots[0]]
    assert "st.shared.v4.b32" in ptx[dots[3]:dots[4]]
    assert k.metadata["shared"] >= 2 * 64 * 64 * 2


@tritonc.jit
def _accumulator_scaled_in_a_branch(Q, K, V, Out, n_blocks, halve, D: tl.constexpr):
    rows = tl.arange(0, 64)
    cols = tl.arange(0, D)
    q = tl.load(Q + rows[:, None] * D + cols[None, :])
    acc = tl.zeros([64, D], dtype=tl.float32)
    for j in range(0, n_blocks):
        if halve > 0:  # before any wait of the iteration; a store keeps it a branch
            acc = acc * 0.5
            tl.store(Out + rows[:, None] * D + cols[None, :], acc)
        k = tl.load(K + j * 64 * D + cols[:, None] + rows[None, :] * D)
        v = tl.load(V + j * 64 * D + rows[:, None] * D + cols[None, :])
        p = tl.dot(q, k).to(tl.float16)
        acc = tl.dot(p, v, acc)
    tl.store(Out + rows[:, None] * D + cols[None, :], acc)


def test_a_product_read_inside_a_branch_is_not_left_in_flight():
    """The accumulator of the loop's last dot is read inside an `if` at the top of the
    next iteration, before any wait: a wait placed inside the `if` would not cover the
    code after it, so that dot waits for itself, and the loop compiles."""
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp32", "n_blocks": "i32",
           "halve": "i32"}
    k = tritonc.compile(_accumulator_scaled_in_a_branch, sig, {"D": 64}, target="cuda:90",
                        divisible_by_16={"Q", "K", "V", "Out"}, num_warps=4, num_stages=3)
    assert "scf.if" in k.asm["ttgir"][k.asm["ttgir"].index("scf.for"):]
    assert k.asm["ptx"].count("wgmma.mma_async") == 8
    assert not k.metadata["ptxas"]["warnings"]
