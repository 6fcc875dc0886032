"""Every operand order of a matmul on the tensor-core paths, checked without a GPU: the
kernels of benchmarks/matmul_kernels.py in the interpreter against numpy in float64, the
layouts operand-order gives (TTGIR), and the PTX (wgmma with cp.async rings on sm_90a),
with no spills and no serialized wgmma in the ptxas report."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from test_cuda_filecheck import filecheck

import tritonc
import tritonc.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import matmul_kernels as mk  # noqa: E402

ORDERS = [(a, b, t) for a in (False, True) for b in (False, True) for t in (0, 1, 2)
          if t == 0 or b]


def _operands(rng, m, n, k, a_col, b_col):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    if a_col:
        a = np.asfortranarray(a)
    if b_col:
        b = np.asfortranarray(b)
    return a, b


def _strides(x) -> tuple[int, int]:
    return x.strides[0] // x.itemsize, x.strides[1] // x.itemsize


@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
def test_interpreter_pointer_tiles(a_col, b_col, b_trans, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(7)
    m, n, k = 40, 36, 50
    a, b = _operands(rng, m, n, k, a_col, b_col)
    c = np.full((m, n), np.nan, dtype=np.float32)
    mk.matmul_ptr[(2 * 3,)](a, b, c, m, n, k, *_strides(a), *_strides(b), *_strides(c),
                            BLOCK_M=32, BLOCK_N=16, BLOCK_K=16, GROUP_M=2, B_TRANS=b_trans,
                            PRECISION="ieee")
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("a_col, b_col", [(False, False), (True, True), (False, True)])
def test_interpreter_block_pointers(a_col, b_col, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(8)
    m, n, k = 40, 36, 50
    a, b = _operands(rng, m, n, k, a_col, b_col)
    c = np.full((m, n), np.nan, dtype=np.float32)
    mk.matmul_block_ptr[(2 * 3,)](a, b, c, m, n, k, *_strides(a), *_strides(b), *_strides(c),
                                  BLOCK_M=32, BLOCK_N=16, BLOCK_K=16, GROUP_M=2,
                                  A_ORDER=(0, 1) if a_col else (1, 0),
                                  B_ORDER=(0, 1) if b_col else (1, 0), PRECISION="ieee")
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


def _assert_no_spills_nor_serialized_wgmma(kernel) -> None:
    report = kernel.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert not report["warnings"], report["warnings"]  # ptxas warns of serialized wgmma


def _wgmma_group(instr: str) -> str:
    """FileCheck lines: an sm_90a kernel whose wgmma group issues `instr`."""
    return f"""
CHECK: .target sm_90a
CHECK: wgmma.fence.sync.aligned
CHECK: wgmma.mma_async.sync.aligned.{instr}
CHECK: wgmma.commit_group.sync.aligned
"""


def _compile(a_col: bool, b_col: bool, b_trans: int, arch: int, dtype: str = "bf16",
             tile=(128, 256, 64), warps: int = 8, precision: str = "ieee"):
    sig = {n: f"*{dtype}" for n in ("a_ptr", "b_ptr")}
    sig["c_ptr"] = "*fp32"
    sig.update({n: "i32" for n in ("M", "N", "K", "stride_cm")})
    const = dict(BLOCK_M=tile[0], BLOCK_N=tile[1], BLOCK_K=tile[2], GROUP_M=8,
                 B_TRANS=b_trans, PRECISION=precision, stride_cn=1)
    unit, strided = ("stride_am", "stride_ak") if a_col else ("stride_ak", "stride_am")
    const[unit], sig[strided] = 1, "i32"
    unit, strided = ("stride_bk", "stride_bn") if b_col else ("stride_bn", "stride_bk")
    const[unit], sig[strided] = 1, "i32"
    return tritonc.compile(mk.matmul_ptr, sig, const, target=f"cuda:{arch}",
                           divisible_by_16=set(sig), num_warps=warps, num_stages=3)


def test_column_major_b_loads_along_k(tmp_path):
    """The 64 x 256 B tile of a column-major B: eight elements along K per thread, the
    pointers the loop carries in the same layout, no conversion before the dot."""
    k = _compile(False, True, 0, 90)
    filecheck(k.asm["ttgir"], """
CHECK: scf.for {{.*}} tensor<64x256x!tt.ptr<bf16, 1 : i32>, #ttg.blocked<[8, 1], [8, 4],
CHECK-SAME: [1, 8], [0, 1]>>
CHECK: "tt.load"{{.*}} -> tensor<64x256xbf16, #ttg.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>>
CHECK-NOT: convert_layout
CHECK: "tt.dot"
""", tmp_path)


@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
def test_every_order_takes_wgmma_and_the_cp_async_ring(a_col, b_col, b_trans, tmp_path):
    """Each K step: one m64n256k16 per warpgroup from two smem descriptors, with the
    transpose immediates of the stored orders (A M-major: trans-a 1; B N-major: trans-b
    1); every tile arrives by 16-byte cp.async."""
    k = _compile(a_col, b_col, b_trans, 90)
    trans_a, trans_b = int(a_col), int(not b_col)
    step = ("CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
            f"{{{{.*}}}}, 1, 1, 1, {trans_a}, {trans_b};\n")
    filecheck(k.asm["ptx"], """
CHECK: .target sm_90a
CHECK-NOT: ld.global
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
CHECK: cp.async.wait_group 1
CHECK: wgmma.fence.sync.aligned
""" + step * 4 + """CHECK: wgmma.commit_group.sync.aligned
""", tmp_path)
    _assert_no_spills_nor_serialized_wgmma(k)
    assert k.metadata["shared"] == 4 * (128 * 64 + 64 * 256) * 2  # + the dot in flight


@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
@pytest.mark.parametrize("tile, warps", [((128, 128, 64), 4), ((256, 128, 64), 8)])
def test_two_wgmmas_per_warpgroup_cover_taller_tiles(a_col, b_col, b_trans, tile, warps,
                                                     tmp_path):
    """An accumulator of 32 rows per warp is two m64n128k16 per warpgroup and K step, one
    per 64-row slab of A's ring (each warp's tiles 16 x warps rows apart), each on its
    half of the accumulator registers; no spills."""
    k = _compile(a_col, b_col, b_trans, 90, tile=tile, warps=warps)
    trans_a, trans_b = int(a_col), int(not b_col)
    step = ("CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
            f"{{{{.*}}}}, 1, 1, 1, {trans_a}, {trans_b};\n")
    filecheck(k.asm["ptx"], """
CHECK: .target sm_90a
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
CHECK: wgmma.fence.sync.aligned
""" + step * 8 + """CHECK-NOT: wgmma.mma_async
CHECK: wgmma.commit_group.sync.aligned
""", tmp_path)
    _assert_no_spills_nor_serialized_wgmma(k)


@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
@pytest.mark.parametrize("dtype, precision, tile, warps, instr", [
    ("bf16", "ieee", (64, 128, 64), 8, "m64n64k16.f32.bf16.bf16"),
    ("bf16", "ieee", (128, 256, 64), 16, "m64n128k16.f32.bf16.bf16"),
    ("fp32", "tf32", (64, 256, 32), 8, "m64n128k8.f32.tf32.tf32"),
    ("fp8e4nv", "ieee", (64, 64, 64), 8, "m64n32k32.f32.e4m3.e4m3")])
def test_warpgroups_split_n_beyond_the_row_tiles(a_col, b_col, b_trans, dtype, precision,
                                                 tile, warps, instr, tmp_path):
    """More warpgroups than 64-row tiles of M (64 rows on 8 warps, 128 on 16): the
    warpgroups split N (`#ttg.mma<[wm, 2]>`), each issuing one m64n(N/2) wgmma per K step
    from its column block of B; no mma.sync, no spills, no serialized wgmma."""
    k = _compile(a_col, b_col, b_trans, 90, dtype, tile, warps, precision)
    wm = warps // 2
    assert f"#ttg.mma<[{wm}, 2]>" in k.asm["ttgir"]
    ptx = k.asm["ptx"]
    filecheck(ptx, _wgmma_group(instr) + "CHECK-NOT: mma.sync\n", tmp_path)
    k_step = 32 // {"bf16": 2, "fp32": 4, "fp8e4nv": 1}[dtype]
    assert ptx.count("wgmma.mma_async") == tile[2] // k_step
    _assert_no_spills_nor_serialized_wgmma(k)


@pytest.mark.parametrize("source, a_col, b_col", [
    ("block pointers", False, False), ("block pointers", True, True),
    ("descriptors", False, False)])
def test_bounds_checked_tiles_join_the_ring(source, a_col, b_col, tmp_path):
    """Block-pointer tiles checked on both dimensions and descriptor tiles (always
    checked) arrive by 16-byte cp.async when the sizes keep each vector wholly inside or
    outside: no register staging, no spills. (Descriptors made from the kernel's
    arguments copy by TMA on sm_90 unless `launch_tensormaps` is off:
    tests/test_launch_tensormaps.py.)"""
    sig = {n: "*bf16" for n in ("a_ptr", "b_ptr", "c_ptr")}
    sig.update({n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")})
    const = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, PRECISION="ieee",
                 stride_cn=1)
    if source == "descriptors":
        fn = mk.matmul_descriptor
    else:
        fn = mk.matmul_block_ptr
        del sig["stride_am"], sig["stride_bk"]
        sig["stride_ak" if a_col else "stride_am"] = "i32"
        sig["stride_bn" if b_col else "stride_bk"] = "i32"
        const.update({"stride_am" if a_col else "stride_ak": 1,
                      "stride_bk" if b_col else "stride_bn": 1,
                      "A_ORDER": (0, 1) if a_col else (1, 0),
                      "B_ORDER": (0, 1) if b_col else (1, 0)})
    k = tritonc.compile(fn, sig, const, target="cuda:90", divisible_by_16=set(sig),
                        num_warps=8, num_stages=3, options={"launch_tensormaps": False})
    filecheck(k.asm["ptx"], f"""
CHECK: .target sm_90a
CHECK-NOT: ld.global
CHECK: cp.async.cg.shared.global [{{{{.*}}}}], [{{{{.*}}}}], 16
CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
CHECK-SAME: 1, 1, 1, {int(a_col)}, {int(not b_col)};
""", tmp_path)
    _assert_no_spills_nor_serialized_wgmma(k)
    assert k.metadata["shared"] == 4 * (128 * 64 + 64 * 256) * 2  # + the dot in flight


@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
@pytest.mark.parametrize("dtype, precision, instr, k_tile", [
    ("fp32", "tf32", "m64n256k8.f32.tf32.tf32 {{.*}}, 1, 1, 1;", 32),
    ("fp8e4nv", "ieee", "m64n256k32.f32.e4m3.e4m3 {{.*}}, 1, 1, 1;", 64)])
def test_tf32_and_fp8_take_wgmma_in_every_order(a_col, b_col, b_trans, dtype, precision,
                                                instr, k_tile, tmp_path):
    """wgmma reads 8- and 32-bit tiles only K-major, one wgmma per 32 bytes of K and no
    transpose immediates: a tile that runs along K in memory (A row-major, B column-major
    or loaded N x K and transposed) copies into the ring by 16-byte cp.async, any other is
    loaded and stored K-major into the scratch area each iteration, each thread holding
    runs of 4 along K (`operand_order.K_RUN`): tf32 goes out in 16-byte stores, fp8 in
    words that `prmt` transposes from the loaded ones, never a byte at a time. No order
    spills."""
    k = _compile(a_col, b_col, b_trans, 90, dtype, (128, 256, k_tile), 8, precision)
    ptx = k.asm["ptx"]
    filecheck(ptx, _wgmma_group(instr), tmp_path)
    assert ptx.count("wgmma.mma_async") == k_tile * (4 if dtype == "fp32" else 1) // 32
    a_ring, b_ring = not a_col, bool(b_col or b_trans)
    tile_bytes = {"fp32": 4, "fp8e4nv": 1}[dtype]
    copies = (a_ring * 128 + b_ring * 256) * k_tile * tile_bytes // (16 * 256)
    assert ptx.count("cp.async.cg.shared.global") == 3 * copies  # prologue (2) and loop
    assert ("ld.global" in ptx) == (not (a_ring and b_ring))
    assert not re.search(r"st\.shared\.b8", ptx)
    if dtype == "fp32":
        assert not re.search(r"st\.shared\.b32", ptx)
    elif not (a_ring and b_ring):
        assert "prmt.b32" in ptx
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0


@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
def test_every_order_takes_mma_sync_on_ampere(a_col, b_col, b_trans, tmp_path):
    """The ring holds each tile as it lies in memory; ldmatrix reads a row-major A and a
    K-major B as they are, an M-major A and a row-major B transposed (`.trans`)."""
    k = _compile(a_col, b_col, b_trans, 80, "fp16", (128, 128, 64), 8)
    filecheck(k.asm["ptx"], """
CHECK: .target sm_80
CHECK: cp.async.cg.shared.global
CHECK: ldmatrix.sync.aligned.m8n8.x4
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
CHECK-NOT: wgmma
""", tmp_path)
    ptx = k.asm["ptx"]
    assert ("ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx) == (not a_col or b_col)
    assert ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx) == (a_col or not b_col)
    assert "ld.global" not in ptx
    _assert_no_spills_nor_serialized_wgmma(k)


def test_eight_prmts_transpose_four_words_of_bytes():
    """`wgmma.transpose_bytes` with PTX's `prmt.b32` modelled (byte k of the result is byte
    (selector >> 4k) & 7 of b:a): byte j of word i is byte i of input word j."""
    from tritonc.passes.to_llvm.wgmma import transpose_bytes

    def prmt(a: int, b: int, selector: int) -> int:
        pool = a | b << 32
        return sum(((pool >> 8 * ((selector >> 4 * k) & 7)) & 0xFF) << 8 * k for k in range(4))

    rng = np.random.default_rng(7)
    for _ in range(20):
        words = [int(x) for x in rng.integers(0, 2**32, 4, dtype=np.uint64)]
        out = transpose_bytes(prmt, words)
        for i in range(4):
            for j in range(4):
                assert out[i] >> 8 * j & 0xFF == words[j] >> 8 * i & 0xFF


@tritonc.jit
def _int8_matmul(a_ptr, b_ptr, c_ptr, K, stride_bn, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr):
    """int8 A (M x K, row-major) times int8 B (K x N, column-major) into int32."""
    a_ptrs = a_ptr + tl.arange(0, BM)[:, None] * K + tl.arange(0, BK)[None, :]
    b_ptrs = b_ptr + tl.arange(0, BK)[:, None] + tl.arange(0, BN)[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK
    tl.store(c_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], acc)


@pytest.mark.parametrize("tile, warps", [((128, 128, 64), 4), ((128, 256, 128), 8)])
def test_int8_takes_wgmma_into_int32(tile, warps, tmp_path):
    """int8 operands K-major in memory copy into the ring and meet on wgmma `.s32.s8.s8`
    (k32, the accumulator's scale alone: integer wgmma has no operand scales), the int32
    accumulator tied to `=r` registers, without spilling."""
    sig = {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32", "K": "i32", "stride_bn": "i32"}
    k = tritonc.compile(_int8_matmul, sig, dict(zip(("BM", "BN", "BK"), tile)),
                        target="cuda:90", divisible_by_16=set(sig), num_warps=warps,
                        num_stages=3)
    ptx = k.asm["ptx"]
    filecheck(ptx, f"""
CHECK: .target sm_90a
CHECK: cp.async.cg.shared.global
CHECK: wgmma.mma_async.sync.aligned.m64n{tile[1]}k32.s32.s8.s8 {{{{.*}}}}, 1;
CHECK: wgmma.commit_group.sync.aligned
""", tmp_path)
    assert ptx.count("wgmma.mma_async") == tile[2] // 32 * (128 // (16 * warps))
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0


@pytest.mark.parametrize("k_rows", [True, False])
@pytest.mark.parametrize("arch", [80, 90])
def test_a_tile_two_dots_read_both_ways_joins_the_ring(k_rows, arch, tmp_path):
    """kT, read as B of q @ kT and through `tl.trans` as B of p @ kT^T, is copied into
    the ring once by 16-byte cp.async along its contiguous dimension (its rows, or its
    columns when the keys are stored one per row) and both dots read that buffer: on
    sm_90 the two wgmmas take the stored tile with opposite transpose immediates."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from two_reader_kernels import two_readers

    sig = {"q_ptr": "*fp16", "k_ptr": "*fp16", "dq_ptr": "*fp32", "n_keys": "i32",
           "stride_k": "i32"}
    k = tritonc.compile(two_readers, sig, {"BLOCK_M": 128, "BLOCK_N": 64, "HEAD": 64,
                                           "K_ROWS": k_rows},
                        target=f"cuda:{arch}", divisible_by_16=set(sig), num_warps=8,
                        num_stages=3)
    ttgir = k.asm["ttgir"]
    assert ttgir.count("ttg.pipelined") == 1 and "ttg.ring_buffers" in ttgir
    ptx = k.asm["ptx"]
    body = ptx[ptx.index("cp.async.commit_group"):]
    assert "cp.async.cg.shared.global" in ptx and "ld.global.v4" not in body
    if arch == 90:
        trans_b = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16"
                                 r" \{[^}]*\}, (?:\{[^}]*\}|%rd\d+), %rd\d+, 1, 1, 1"
                                 r"(?:, \d)?, (\d);", ptx))
        assert trans_b == {"0", "1"}, trans_b
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0


PERSISTENT_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                  "K": "i32", "stride_am": "i32", "stride_b": "i32", "stride_cm": "i32",
                  "stride_cn": "i32"}


@pytest.mark.parametrize("b_col", [False, True])
def test_interpreter_persistent(b_col, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(9)
    m, n, k = 40, 48, 56
    a, b = _operands(rng, m, n, k, False, b_col)
    c = np.full((m, n), np.nan, dtype=np.float32)
    b_rows = b.strides[1] // b.itemsize if b_col else b.strides[0] // b.itemsize
    mk.matmul_persistent[(2,)](a, b, c, m, n, k, a.strides[0] // 2, b_rows, *_strides(c),
                               BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, GROUP_M=2, NUM_SMS=2,
                               B_TRANS=int(b_col), PRECISION="ieee")
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype, precision, bk", [("fp16", "ieee", 64), ("bf16", "ieee", 64),
                                                  ("fp8e4nv", "ieee", 64), ("fp32", "tf32", 32)])
@pytest.mark.parametrize("b_trans", [0, 1])
@pytest.mark.parametrize("bn, warps", [(128, 4), (256, 8)])
def test_persistent_kernels_get_their_producer(dtype, precision, bk, b_trans, bn, warps):
    """The zoo's persistent kernel: its tile loop's TMA ring is filled by a producer
    warpgroup, and ptxas spills nothing. A 128 x 256 fp32 C goes to memory through 128 KB
    of scratch; where the ring does not fit beside it (3 stages of 48 KB: 16-bit tiles,
    and tf32 ones read N x K), the kernel keeps the pipelined loop without a producer, in
    the shared memory a block has."""
    sig = dict(PERSISTENT_SIG, a_ptr=f"*{dtype}", b_ptr=f"*{dtype}")
    kernel = tritonc.compile(mk.matmul_persistent, sig,
                             dict(BLOCK_M=128, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, NUM_SMS=132,
                                  B_TRANS=b_trans, PRECISION=precision),
                             target="cuda:90", num_warps=warps, num_stages=3,
                             divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "M", "N", "K",
                                              "stride_am", "stride_b", "stride_cm"})
    assert kernel.metadata["ptxas"]["spill_stores"] == 0
    assert "wgmma.mma_async" in kernel.asm["ptx"]
    assert kernel.metadata["shared"] <= 227 * 1024
    beside = bn == 256 and (dtype in ("fp16", "bf16") or dtype == "fp32" and b_trans)
    assert kernel.metadata.get("producer_warps") == (None if beside else 4)
