"""FileCheck of what the CUDA backend emits: the layouts chosen (TTGIR) and the PTX."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tritonc
import tritonc.language as tl
from tritonc.compiler import mlir_loader

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "examples"))

import kernels  # noqa: E402  (benchmarks/kernels.py: matmul, row sum, cumsum)
from layer_norm import layer_norm_fwd  # noqa: E402
from softmax import softmax_kernel  # noqa: E402
from vector_add import add_kernel  # noqa: E402

ADD = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}
SOFTMAX = {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
           "output_row_stride": "i32", "n_cols": "i32"}


def filecheck(text: str, checks: str, tmp_path: Path) -> None:
    check_file = tmp_path / "checks.txt"
    check_file.write_text(checks)
    done = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(check_file)], input=text,
                          text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("arch", [80, 90])
def test_vector_add_layouts_and_128_bit_accesses(arch, tmp_path):
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target=f"cuda:{arch}",
                        divisible_by_16=set(ADD))
    filecheck(k.asm["ttgir"], """
CHECK: "tt.make_range"(){{.*}} -> tensor<1024xi32, #ttg.blocked<[4], [32], [4], [0]>>
CHECK: "tt.load"{{.*}} -> tensor<1024xf32, #ttg.blocked<[4], [32], [4], [0]>>
""", tmp_path)
    filecheck(k.asm["ptx"], f"""
CHECK: .target sm_{arch}
CHECK: .visible .entry add_kernel(
CHECK-COUNT-4: ld.global.v4.b32
CHECK: add{{{{.*}}}}.f32
CHECK-COUNT-2: st.global.v4.b32
CHECK-NOT: .local
""", tmp_path)
    assert k.metadata["ptxas"]["stack_frame"] == 0
    assert k.metadata["ptxas"]["spill_stores"] == 0


def test_unaligned_size_falls_back_to_scalar_accesses(tmp_path):
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        divisible_by_16={"x_ptr", "y_ptr", "output_ptr"})
    filecheck(k.asm["ptx"], """
CHECK-NOT: ld.global.v4
CHECK: ld.global.b32
""", tmp_path)


@tritonc.jit
def _odd_row_stride_copy(x_ptr, y_ptr):
    rows = tl.arange(0, 64)[:, None]
    cols = tl.arange(0, 16)[None, :]
    tl.store(y_ptr + rows * 16 + cols, tl.load(x_ptr + rows * 17 + cols))


def test_rows_at_an_odd_stride_are_not_read_as_vectors(tmp_path):
    """Row r starts at 17 * r elements: only every other row is 16-byte aligned, so the
    loads stay scalar; the output rows (16 elements apart) are stored as vectors."""
    k = tritonc.compile(_odd_row_stride_copy, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {},
                        target="cuda:90", divisible_by_16={"x_ptr", "y_ptr"}, num_warps=1)
    filecheck(k.asm["ptx"], """
CHECK-NOT: ld.global.v
CHECK: st.global.v4.b32
""", tmp_path)


@tritonc.jit
def _gather_scale(x_ptr, scale_ptr, y_ptr, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    scale = tl.load(scale_ptr + offs // GROUP, mask, eviction_policy="evict_last")
    x = tl.load(x_ptr + offs, mask, eviction_policy="evict_first")
    tl.store(y_ptr + offs, x * scale, mask, eviction_policy="evict_first")


@pytest.mark.parametrize("arch", [80, 90])
def test_eviction_policy_reaches_l1_and_l2(arch, tmp_path):
    """An eviction policy names the L1 priority and an L2 cache policy made once per
    kernel (`createpolicy`), passed to every access with that policy."""
    sig = {"x_ptr": "*fp32", "scale_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32"}
    k = tritonc.compile(_gather_scale, sig, {"GROUP": 3, "BLOCK": 512},
                        target=f"cuda:{arch}", divisible_by_16=set(sig))
    ptx = k.asm["ptx"]
    assert ptx.count("createpolicy.fractional.L2::evict_last.b64") == 1
    assert ptx.count("createpolicy.fractional.L2::evict_first.b64") == 1
    filecheck(ptx, """
CHECK-DAG: createpolicy.fractional.L2::evict_last.b64 [[LAST:%rd[0-9]+]], 1.0;
CHECK-DAG: createpolicy.fractional.L2::evict_first.b64 [[FIRST:%rd[0-9]+]], 1.0;
CHECK-DAG: ld.global.L1::evict_last.L2::cache_hint.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], [[LAST]];
CHECK-DAG: ld.global.L1::evict_first.L2::cache_hint.v4.b32 {{.*}}, [[FIRST]];
CHECK-DAG: st.global.L1::evict_first.L2::cache_hint.v4.b32 {{.*}}, [[FIRST]];
""", tmp_path)


@tritonc.jit
def _column_sums(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=1.5)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < N)


def test_masked_load_fills_its_registers_before_loading(tmp_path):
    """A masked load's `other` is moved into the destination inside the load's asm, so no
    select after it keeps the predicate alive: each predicate dies at its load."""
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride_m": "i32"}
    k = tritonc.compile(_column_sums, sig, {"BLOCK_M": 64, "BLOCK_N": 64}, target="cuda:90",
                        divisible_by_16={"x_ptr", "out_ptr", "M", "N"}, num_warps=8)
    filecheck(k.asm["ptx"], """
CHECK: mov.b32 [[FILL:%r[0-9]+]], 1069547520;
CHECK-COUNT-16: mov.b32 [[DST:%r[0-9]+]], [[FILL]];
CHECK-NEXT: @%p{{[0-9]+}} ld.global.b32 [[DST]], [{{%rd[0-9]+}}];
""", tmp_path)
    assert "selp.f32" not in k.asm["ptx"]


@tritonc.jit
def _dot_of_column_major_tiles(X, sxm, sxk, Y, syk, syn, Z, M: tl.constexpr, N: tl.constexpr,
                               K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(X + rm[:, None] * sxm + rk[None, :] * sxk)
    y = tl.load(Y + rk[:, None] * syk + rn[None, :] * syn)
    tl.store(Z + rm[:, None] * N + rn[None, :], tl.dot(x, y))


@pytest.mark.parametrize("arch", [80, 90])
def test_column_major_dot_tiles_load_as_vectors(arch, tmp_path):
    """Tiles contiguous along their first dimension (A and B column-major, unit strides
    specialised) take layouts fastest along it and load 16 bytes per access."""
    sig = {"X": "*fp16", "sxm": "i32", "sxk": "i32", "Y": "*fp16", "syk": "i32", "syn": "i32",
           "Z": "*fp32"}
    k = tritonc.compile(_dot_of_column_major_tiles, sig,
                        {"M": 64, "N": 128, "K": 64, "sxm": 1, "syk": 1}, target=f"cuda:{arch}",
                        divisible_by_16={"X", "Y", "Z", "sxk", "syn"})
    filecheck(k.asm["ttgir"], """
CHECK: "tt.load"{{.*}} -> tensor<64x64xf16, #ttg.blocked<[8, 1], {{.*}}, [0, 1]>>
CHECK: "tt.load"{{.*}} -> tensor<64x128xf16, #ttg.blocked<[8, 1], {{.*}}, [0, 1]>>
""", tmp_path)
    ptx = k.asm["ptx"]
    assert "ld.global.v4.b32" in ptx and "ld.global.b16" not in ptx


@tritonc.jit
def _row_softmax_tile(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    e = tl.exp(x - tl.max(x, 1)[:, None])
    tl.store(y_ptr + offs, e / tl.sum(e, 1)[:, None])


def test_warp_partials_of_many_rows_combine_across_lanes(tmp_path):
    """8 rows split over 8 warps: each warp's lanes load one row partial each (two
    chunks of 32 of the 64) and combine them with butterfly shuffles; each thread then
    takes its rows' totals with `shfl.sync.idx`, not by loading all 64 partials."""
    k = tritonc.compile(_row_softmax_tile, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
                        {"R": 8, "C": 1024}, target="cuda:90",
                        divisible_by_16={"x_ptr", "y_ptr"}, num_warps=8)
    ptx = k.asm["ptx"]
    assert ptx.count("shfl.sync.idx.b32") == 2 * 2 * 8  # 2 reductions x 2 chunks x 8 rows
    assert ptx.count("ld.shared") == 2 * 2  # 2 reductions x 2 chunks
    assert k.metadata["ptxas"]["spill_stores"] == 0


@tritonc.jit
def _per_group_scale(x_ptr, scale_ptr, y_ptr, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    group = (offs // GROUP) % 7
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * tl.load(scale_ptr + group))


def test_values_equal_over_a_run_are_computed_once_per_run(tmp_path):
    """`offs // 3136` is constant over aligned runs of 3136 elements, so over each
    thread's 4 consecutive registers: the quotient, the remainder and the address are
    computed once per 4 registers (2 of each for 8 registers), not for each."""
    sig = {"x_ptr": "*fp32", "scale_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32"}
    k = tritonc.compile(_per_group_scale, sig, {"GROUP": 3136, "BLOCK": 1024},
                        target="cuda:90", divisible_by_16=set(sig))
    assert k.asm["ptx"].count("mul.hi") == 2 * 2  # x // 3136 and (.) % 7, 2 runs each
    assert k.asm["ptx"].count("ld.global.v4.b32") == 2


@tritonc.jit
def _dot_fp32(X, Y, Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
              PRECISION: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(X + rm[:, None] * K + rk[None, :])
    y = tl.load(Y + rk[:, None] * N + rn[None, :])
    tl.store(Z + rm[:, None] * N + rn[None, :], tl.dot(x, y, input_precision=PRECISION))


@pytest.mark.parametrize("arch", [80, 90])
def test_tf32_dot_uses_tensor_cores(arch, tmp_path):
    """fp32 operands rounded to tf32 (the default precision) run on the tensor cores: on
    sm_80 m16n8k8 mma.sync, each operand rounded by cvt.rna; on sm_90 m64n64k8 wgmma from
    the operands stored K-major in shared memory (its tensor cores read the tf32 bits).
    "ieee" keeps full fp32 multiply-adds."""
    sig = {"X": "*fp32", "Y": "*fp32", "Z": "*fp32"}
    tf32 = tritonc.compile(_dot_fp32, sig, {"M": 64, "N": 64, "K": 32, "PRECISION": "tf32"},
                           target=f"cuda:{arch}", divisible_by_16=set(sig))
    ptx = tf32.asm["ptx"]
    if arch == 80:  # 4 warps, each 16 rows x 64 columns: 8 tiles x 4 steps of K
        assert ptx.count("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == 8 * 4
        assert "cvt.rna.tf32.f32" in ptx
    else:  # one warpgroup, 4 steps of K
        assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 4
    assert "fma.rn.f32" not in ptx
    assert tf32.metadata["ptxas"]["spill_stores"] == 0
    ieee = tritonc.compile(_dot_fp32, sig, {"M": 64, "N": 64, "K": 32, "PRECISION": "ieee"},
                           target=f"cuda:{arch}", divisible_by_16=set(sig))
    assert "mma.sync" not in ieee.asm["ptx"] and "fma.rn.f32" in ieee.asm["ptx"]


@tritonc.jit
def _dot_out(X, Y, Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(X + rm[:, None] * K + rk[None, :])
    y = tl.load(Y + rk[:, None] * N + rn[None, :])
    tl.store(Z + rm[:, None] * N + rn[None, :], tl.dot(x, y, out_dtype=OUT))


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("operand, out, mma, k_step", [
    ("fp16", "fp16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16),
    ("i8", "i32", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", 32)])
def test_fp16_and_int8_accumulators_use_tensor_cores(arch, operand, out, mma, k_step):
    """An fp16 accumulator (`out_dtype=tl.float16`) runs on mma.sync (on sm_90 too: wgmma
    takes fp32 and int32 accumulators only); int8 operands into int32 on mma.sync on
    sm_80 and on wgmma (`.s32.s8.s8`, one per 32 of K) on sm_90; never on multiply-adds."""
    sig = {"X": f"*{operand}", "Y": f"*{operand}", "Z": f"*{out}"}
    out_dtype = tl.float16 if out == "fp16" else tl.int32
    k = tritonc.compile(_dot_out, sig, {"M": 64, "N": 64, "K": 64, "OUT": out_dtype},
                        target=f"cuda:{arch}", divisible_by_16=set(sig))
    ptx = k.asm["ptx"]
    if arch == 90 and operand == "i8":
        assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8") == 64 // k_step
        assert "mma.sync" not in ptx and "fma.rn" not in ptx
        return
    # 4 warps, each 16 rows x 64 columns: 8 tiles per step of K
    assert ptx.count(mma) == 8 * (64 // k_step)
    assert "fma.rn" not in ptx and "wgmma" not in ptx
    assert k.metadata["ptxas"]["spill_stores"] == 0


@pytest.mark.parametrize("operand, kind", [("fp8e4nv", "e4m3"), ("fp8e5", "e5m2")])
def test_fp8_dots_use_tensor_cores_from_sm89(operand, kind):
    """fp8 operands into fp32: `mma.sync.m16n8k32` on e4m3 / e5m2 on sm_89 (PTX 8.4),
    m64n64k32 wgmma from the operands stored K-major on sm_90, fused multiply-adds on
    sm_80."""
    sig = {"X": f"*{operand}", "Y": f"*{operand}", "Z": "*fp32"}
    k = tritonc.compile(_dot_out, sig, {"M": 64, "N": 64, "K": 64, "OUT": tl.float32},
                        target="cuda:89", divisible_by_16=set(sig))
    ptx = k.asm["ptx"]
    assert ptx.count(f"mma.sync.aligned.m16n8k32.row.col.f32.{kind}.{kind}.f32") == 8 * 2
    assert "fma.rn" not in ptx and ".version 8.4" in ptx
    # every fragment register is one 32-bit load: A staged as M x K, B as N x K
    assert "ld.shared.b8" not in ptx and "ld.shared.u8" not in ptx
    hopper = tritonc.compile(_dot_out, sig, {"M": 64, "N": 64, "K": 64, "OUT": tl.float32},
                             target="cuda:90", divisible_by_16=set(sig)).asm["ptx"]
    assert hopper.count(f"wgmma.mma_async.sync.aligned.m64n64k32.f32.{kind}.{kind}") == 2
    assert "fma.rn" not in hopper and "mma.sync" not in hopper
    ampere = tritonc.compile(_dot_out, sig, {"M": 64, "N": 64, "K": 64, "OUT": tl.float32},
                             target="cuda:80", divisible_by_16=set(sig))
    assert "mma.sync" not in ampere.asm["ptx"]


@pytest.mark.parametrize("m, n, k, warps, per_warp", [(16, 16, 16, 4, 2), (32, 32, 128, 16, 16)])
def test_dots_smaller_than_a_block_per_warp_use_tensor_cores(m, n, k, warps, per_warp):
    """More warps than 16 x 16 blocks: every warp runs the mma.sync of one block (the
    extra warps compute copies) instead of falling back to multiply-adds."""
    sig = {"X": "*fp16", "Y": "*fp16", "Z": "*fp32"}
    kernel = tritonc.compile(_dot_out, sig, {"M": m, "N": n, "K": k, "OUT": tl.float32},
                             target="cuda:90", num_warps=warps, divisible_by_16=set(sig))
    ptx = kernel.asm["ptx"]
    assert ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == per_warp
    assert "fma.rn" not in ptx


@tritonc.jit
def _dot_stored_by_columns(X, Y, Z, stride_zn, M: tl.constexpr, N: tl.constexpr,
                           K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(X + rm[:, None] * K + rk[None, :])
    y = tl.load(Y + rk[:, None] * N + rn[None, :])
    tl.store(Z + rm[:, None] + rn[None, :] * stride_zn, tl.dot(x, y))


@pytest.mark.parametrize("operand", ["fp16", "fp32"])
def test_dot_result_stored_down_the_columns_goes_out_in_16_byte_vectors(operand):
    """A dot's result stored column-major (`Z + rm + rn * stride`, the stride divisible by
    16): the store takes a layout with the rows fastest, four fp32 per thread."""
    sig = {"X": f"*{operand}", "Y": f"*{operand}", "Z": "*fp32", "stride_zn": "i32"}
    k = tritonc.compile(_dot_stored_by_columns, sig, {"M": 64, "N": 64, "K": 32},
                        target="cuda:90", divisible_by_16=set(sig))
    assert "st.global.v4.b32" in k.asm["ptx"] and "st.global.b32" not in k.asm["ptx"]


@tritonc.jit(debug=True)
def _checked_gather(idx_ptr, x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    i = tl.load(idx_ptr + offs)
    tl.device_assert((0 <= i) & (i < 4096), "index out of bounds")
    tl.store(y_ptr + offs, tl.load(x_ptr + i))


def test_an_assert_over_a_tensor_is_one_check_per_thread():
    """The 8 elements a thread holds are checked together: one branch to one
    `__assertfail` call, with one copy of its strings."""
    sig = {"idx_ptr": "*i64", "x_ptr": "*fp32", "y_ptr": "*fp32"}
    ptx = tritonc.compile(_checked_gather, sig, {"BLOCK": 1024}, target="cuda:90",
                          divisible_by_16=set(sig)).asm["ptx"]
    assert ptx.count("call.uni") == 1 and ptx.count("\tcall.uni __assertfail") <= 1
    assert len(re.findall(r"\bbra\b", ptx)) == 1
    assert len(re.findall(r"\.global \.align 1 \.b8 str_", ptx)) == 3  # message, file, function


@tritonc.jit
def _alternate(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b = tl.load(a_ptr), tl.load(b_ptr)
    tl.store(out_ptr + offs, tl.where(offs % 2 == 0, a, b))
    tl.store(out_ptr + BLOCK + offs, tl.where(offs % 4 < 2, a, b))


def test_equality_is_not_constant_over_an_aligned_run():
    """`offs % 2 == 0` alternates between neighbours; only an ordering against an aligned
    bound (`offs % 4 < 2`) is constant over aligned runs (of 2 here). Each thread's two
    consecutive outputs of the first store are a and b, of the second a and a (or b and b)."""
    sig = {"a_ptr": "*i32", "b_ptr": "*i32", "out_ptr": "*i32"}
    ptx = tritonc.compile(_alternate, sig, {"BLOCK": 256}, target="cuda:90",
                          divisible_by_16=set(sig)).asm["ptx"]
    stores = re.findall(r"st\.global\.v2\.b32 \[[^]]+\], \{(%r\d+), (%r\d+)\}", ptx)
    assert len(stores) == 2
    (first_a, first_b), (second_a, second_b) = stores
    assert first_a != first_b and second_a == second_b


@tritonc.jit
def _scale_rows_fp16(x_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=mask)
    tl.store(y_ptr + rm[:, None] * stride_y + rn[None, :], x * 2, mask=mask)


def test_store_at_an_unaligned_row_stride_puts_lanes_on_consecutive_elements(tmp_path):
    """The input rows are 16-byte aligned (stride_x specialised), the output's are not:
    the load keeps eight fp16 per thread; the store, which can only be scalar, takes one
    element per thread so that a warp writes 32 consecutive fp16."""
    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32", "stride_x": "i32",
           "stride_y": "i32"}
    k = tritonc.compile(_scale_rows_fp16, sig, {"BLOCK_M": 16, "BLOCK_N": 256},
                        target="cuda:90", divisible_by_16={"x_ptr", "y_ptr", "stride_x"})
    filecheck(k.asm["ttgir"], """
CHECK: "tt.load"{{.*}} -> tensor<16x256xf16, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
CHECK: "ttg.convert_layout"{{.*}} -> tensor<16x256xf16,
CHECK-SAME: #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
CHECK: "tt.store"{{.*}} : (tensor<16x256x!tt.ptr<f16, 1 : i32>,
CHECK-SAME: #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
""", tmp_path)


def test_softmax_reduces_with_shuffles_and_approximate_exp(tmp_path):
    k = tritonc.compile(softmax_kernel, SOFTMAX, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        divisible_by_16=set(SOFTMAX))
    filecheck(k.asm["ptx"], """
CHECK: ld.global.v4.b32
CHECK: shfl.sync.bfly.b32
CHECK: bar.sync
CHECK: ex2.approx.f32
CHECK: shfl.sync.bfly.b32
CHECK: div.full.f32
CHECK: st.global.v4.b32
CHECK-NOT: .local
""", tmp_path)
    assert k.metadata["ptxas"]["spill_stores"] == 0


def test_layer_norm_loop_loads_are_vectorised(tmp_path):
    sig = {n: "*fp32" for n in ("X", "Y", "W", "B", "Mean", "Rstd")}
    sig.update(stride="i32", N="i32", eps="fp32")
    k = tritonc.compile(layer_norm_fwd, sig, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        divisible_by_16={n for n in sig if n != "eps"}, num_warps=8)
    filecheck(k.asm["ttgir"], "CHECK: scf.for\nCHECK: scf.for\nCHECK: scf.for\n", tmp_path)
    filecheck(k.asm["ptx"], "CHECK: ld.global.v4.b32\nCHECK: st.global.v4.b32\n", tmp_path)


def test_cumsum_scans_with_shuffle_up(tmp_path):
    k = tritonc.compile(kernels.cumsum_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                                "stride": "i32", "n_cols": "i32"},
                        {"BLOCK_SIZE": 256}, target="cuda:90")
    filecheck(k.asm["ptx"], "CHECK: shfl.sync.up.b32\nCHECK: bar.sync\n", tmp_path)


MATMUL = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
          **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
MATMUL_CONST = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, stride_ak=1, stride_bn=1,
                    stride_cn=1)


def test_matmul_uses_tensor_cores_ldmatrix_and_cp_async(tmp_path):
    k = tritonc.compile(kernels.matmul_kernel, MATMUL, MATMUL_CONST, target="cuda:80",
                        divisible_by_16=set(MATMUL), num_warps=4, num_stages=3)
    filecheck(k.asm["ttgir"], """
CHECK: arith.constant dense<0.000000e+00> : tensor<128x128xf32, #ttg.mma<[2, 2]>>
CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #ttg.mma<[2, 2]>>
CHECK: "tt.dot"{{.*}} -> tensor<128x128xf32, #ttg.mma<[2, 2]>>
CHECK: arith.truncf {{.*}} : tensor<128x128xf32, #ttg.mma<[2, 2]>> to
CHECK-SAME: tensor<128x128xf16, #ttg.mma<[2, 2]>>
CHECK: "ttg.convert_layout"{{.*}}#ttg.mma<[2, 2]>>) -> tensor<128x128xf16, #ttg.blocked
CHECK-NEXT: "tt.store"
""", tmp_path)
    filecheck(k.asm["ptx"], """
CHECK: cp.async.cg.shared.global
CHECK: cp.async.commit_group
CHECK: cp.async.wait_group 1
CHECK: bar.sync
CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
CHECK: cp.async.wait_group 0
""", tmp_path)
    # a 128 x 128 x 64 fp16 tile with 4 warps and 3 stages fits in registers; its ring
    # takes two buffers (64 KB: two blocks on an A100's 164 KB, where three take one)
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert k.metadata["shared"] == 2 * (128 * 64 + 64 * 128) * 2


def _hopper_matmul(num_warps: int, block_n: int = 128):
    return tritonc.compile(kernels.matmul_kernel, MATMUL, {**MATMUL_CONST, "BLOCK_N": block_n},
                           target="cuda:90", divisible_by_16=set(MATMUL), num_warps=num_warps,
                           num_stages=3)


def test_four_warps_on_hopper_issue_two_wgmmas_per_step(tmp_path):
    """4 warps over a 128-row tile: one warpgroup, 32 rows per warp, so two m64n128k16
    per 16-deep step, one per 64-row slab of the ring's A tile; no spills, no serialized
    wgmma. A spare ring buffer would leave one block per SM instead of two, so the ring
    has 3 and the next copies wait for the previous dot and a barrier."""
    k = _hopper_matmul(4)
    filecheck(k.asm["ttgir"], """
CHECK: "tt.dot"{{.*}} -> tensor<128x128xf32, #ttg.mma<[4, 1]>>
""", tmp_path)
    filecheck(k.asm["ptx"], """
CHECK: .target sm_90a
CHECK: wgmma.fence.sync.aligned
CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
CHECK-NOT: wgmma.mma_async
CHECK: wgmma.commit_group.sync.aligned
CHECK-NOT: cp.async.cg
CHECK: wgmma.wait_group.sync.aligned 1
CHECK-NOT: cp.async.cg
CHECK: bar.sync
CHECK: cp.async.cg.shared.global
CHECK: bra
CHECK: wgmma.wait_group.sync.aligned 0
""", tmp_path)
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert not report["warnings"], report["warnings"]
    assert k.metadata["shared"] == 3 * (128 * 64 + 64 * 128) * 2


def _loop_body(ptx: str) -> str:
    """The PTX of the first loop of `ptx`: from its label to the branch back to it."""
    label = re.search(r"^(\$L__BB\d+_\d+):\n(?:(?!\$L__BB).*\n)*?\s*@%p\d+ bra\s+\1;",
                      ptx, re.MULTILINE)
    assert label, "no loop"
    return label.group(0)


@pytest.mark.parametrize("num_warps, block_n", [(4, 128), (8, 256)])
def test_ring_copies_add_immediates_to_one_address_per_tile(num_warps, block_n):
    """Every 16-byte chunk a thread copies into a ring buffer lies a constant distance
    from its first (rows 8 apart keep the swizzle phase), so each tile's copies in the
    loop take one address register and immediate offsets, and the next ahead pointers
    are advanced after the copies, not hoisted to the top of the iteration beside the
    dot's registers. A is column-major here (the transposed wgmma operand)."""
    sig = {**{n: t for n, t in MATMUL.items() if n != "stride_am"}, "stride_ak": "i32"}
    const = {**{n: v for n, v in MATMUL_CONST.items() if n != "stride_ak"}, "stride_am": 1}
    k = tritonc.compile(kernels.matmul_kernel, sig, {**const, "BLOCK_N": block_n},
                        target="cuda:90", divisible_by_16=set(sig), num_warps=num_warps,
                        num_stages=3)
    body = _loop_body(k.asm["ptx"])
    copies = re.findall(r"cp\.async\.cg\.shared\.global \[(%r\d+)\+(\d+)\]", body)
    chunks = (128 * 64 + 64 * block_n) * 2 // 16 // (32 * num_warps)
    assert len(copies) == chunks, body
    assert len({reg for reg, _ in copies}) == 2  # one address per tile
    assert len({(reg, int(at)) for reg, at in copies}) == chunks
    ahead = body.index("cp.async.commit_group")
    assert not re.search(r"add\.s64", body[:body.index("wgmma.fence")]), body
    assert "add.s64" in body[ahead:]
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and not report["warnings"], report


@pytest.mark.parametrize("a_order", [(1, 0), (0, 1)])
def test_block_pointer_copies_add_one_moving_offset_to_fixed_ones(a_order):
    """A block pointer's address is base + sum(off_d stride_d) + sum(c_d stride_d): the
    first part moves with `tl.advance` and is computed once per tile and iteration, the
    second is each register's own and stays out of the loop; the bounds are compared as
    -off_d <= c_d < shape_d - off_d. So the loop multiplies once per operand, not once
    per 16-byte chunk. A chunk outside the tensor is zero-filled by cp.async's
    ignore-src predicate, with no size selected per chunk. (With `launch_tensormaps`, the
    default, these tiles copy by TMA on sm_90: tests/test_launch_tensormaps.py.)"""
    import matmul_kernels

    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
           **{n: "i32" for n in ("M", "N", "K", "stride_bk", "stride_cm")},
           "stride_am" if a_order == (1, 0) else "stride_ak": "i32"}
    const = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, A_ORDER=a_order,
                 B_ORDER=(1, 0), PRECISION="ieee", stride_bn=1, stride_cn=1,
                 **{"stride_ak" if a_order == (1, 0) else "stride_am": 1})
    k = tritonc.compile(matmul_kernels.matmul_block_ptr, sig, const, target="cuda:90",
                        divisible_by_16=set(sig), num_warps=8, num_stages=3,
                        options={"launch_tensormaps": False})
    body = _loop_body(k.asm["ptx"])
    assert body.count("cp.async.cg.shared.global") == (128 * 64 + 64 * 256) * 2 // 16 // 256
    assert len(re.findall(r"mul\.(?:lo\.s64|wide\.[su]32)", body)) <= 2, body
    assert "selp" not in body, body
    copies = re.findall(r"cp\.async\.cg\.shared\.global [^;]*;", body)
    assert all(re.fullmatch(r".*\], 16, %p\d+;", c) for c in copies), copies
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and not report["warnings"], report


def test_a_dot_staging_an_operand_each_iteration_waits_for_itself():
    """With A's rows not known to lie 16 bytes apart, no copy of more than one element
    is aligned, so cp.async cannot copy A: it is stored into the scratch area by every
    iteration. A dot left in flight would still be reading that area when the next
    iteration stores its A there, so the dot waits for itself (`wait_group 0`) and B
    alone rides the ring."""
    k = tritonc.compile(kernels.matmul_kernel, MATMUL, MATMUL_CONST, target="cuda:90",
                        divisible_by_16=set(MATMUL) - {"stride_am"}, num_warps=4,
                        num_stages=3)
    ptx = k.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.cg.shared.global" in ptx
    assert "wgmma.wait_group.sync.aligned 1" not in ptx


@pytest.mark.parametrize("arch", [80, 90])
def test_a_k_not_a_multiple_of_16_copies_each_rows_prefix(arch, tmp_path):
    """With K not known to be a multiple of 16, A's mask `offs_k < K - k * BLOCK_K` may
    end inside a 16-byte copy: each copy reads the prefix the mask allows (its src-size,
    the count of true elements times 2 bytes) and zero-fills the rest, so A still rides
    the cp.async ring and nothing spills (before: A staged through registers, 204 spill
    stores on sm_90, 432 on sm_80)."""
    k = tritonc.compile(kernels.matmul_kernel, MATMUL, MATMUL_CONST, target=f"cuda:{arch}",
                        divisible_by_16=set(MATMUL) - {"K"}, num_warps=4, num_stages=3)
    filecheck(_loop_body(k.asm["ptx"]), """
CHECK: selp.b32 [[ONE:%r[0-9]+]], 1, 0, %p
CHECK: add.s32
CHECK: shl.b32 [[BYTES:%r[0-9]+]], {{%r[0-9]+}}, 1;
CHECK: selp.b32 [[SIZE:%r[0-9]+]], [[BYTES]], 0, %p
CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, [[SIZE]];
""", tmp_path)
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0, report


def test_matmul_on_hopper_uses_wgmma(tmp_path):
    """8 warps over a 128 x 256 tile: two warpgroups, each one m64n256k16 wgmma per
    16-deep step, reading the cp.async ring buffers through smem descriptors. One block
    fits on an SM with 3 ring buffers or 4, so the ring takes a spare and the copies of a
    later iteration are issued right after the dot."""
    k = _hopper_matmul(8, 256)
    filecheck(k.asm["ttgir"], """
CHECK: "tt.dot"{{.*}} -> tensor<128x256xf32, #ttg.mma<[8, 1]>>
""", tmp_path)
    filecheck(k.asm["ptx"], """
CHECK: .target sm_90a
CHECK: cp.async.cg.shared.global
CHECK: cp.async.wait_group 1
CHECK-NEXT: // end inline asm
CHECK-NEXT: // begin inline asm
CHECK-NEXT: fence.proxy.async.shared::cta
CHECK: bar.sync
CHECK: wgmma.fence.sync.aligned
CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
CHECK-NOT: mma.sync
CHECK: wgmma.commit_group.sync.aligned
CHECK-NOT: bar.sync
CHECK: cp.async.cg.shared.global
CHECK: cp.async.commit_group
CHECK: wgmma.wait_group.sync.aligned 1
CHECK: bra
CHECK: wgmma.wait_group.sync.aligned 0
CHECK: cp.async.wait_group 0
""", tmp_path)
    report = k.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert not report["warnings"], report["warnings"]  # no wgmma serialization
    assert k.metadata["ptx_arch"] == "90a"
    # the dot of the previous iteration stays in flight: a fourth buffer in the ring
    assert k.metadata["shared"] == 4 * (128 * 64 + 64 * 256) * 2


_ASYNC_WGMMA = """
import json, sys
sys.path.insert(0, sys.argv[1])
import kernels, tritonc
sig = json.loads(sys.argv[2])
k = tritonc.compile(kernels.matmul_kernel, sig, json.loads(sys.argv[3]), target="cuda:90",
                    divisible_by_16=set(sig), num_warps=8, num_stages=3)
print(json.dumps({"ptx": k.asm["ptx"], "shared": k.metadata["shared"],
                  "ptxas": k.metadata["ptxas"]}))
"""


def test_wgmma_wait_all_switch(tmp_path):
    """TRITONC_ASYNC_WGMMA=0: every dot is waited for at once, in a ring of num_stages
    buffers."""
    import json
    import os

    env = {**os.environ, "TRITONC_ASYNC_WGMMA": "0",
           "TRITONC_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", _ASYNC_WGMMA, str(ROOT / "benchmarks"),
                           json.dumps(MATMUL), json.dumps(MATMUL_CONST)], env=env,
                          capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    filecheck(out["ptx"], """
CHECK: cp.async.wait_group 1
CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
CHECK: wgmma.commit_group.sync.aligned
CHECK-NOT: wgmma.wait_group.sync.aligned 1
CHECK: wgmma.wait_group.sync.aligned 0
CHECK: bra
""", tmp_path)
    assert out["shared"] == 3 * (128 * 64 + 64 * 128) * 2


@tritonc.jit
def exp_and_exp2(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.exp(x) + tl.math.exp2(x), mask=offs < n)


def test_exp_keeps_subnormals_and_exp2_flushes_them(tmp_path):
    """As in Triton: `exp` is `ex2.approx.f32` of x log2(e), `exp2` the `.ftz` form."""
    k = tritonc.compile(exp_and_exp2, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"},
                        {"BLOCK": 128}, target="cuda:90")
    filecheck(k.asm["ptx"], """
CHECK: mul.f32
CHECK: ex2.approx.f32
CHECK: ex2.approx.ftz.f32
""", tmp_path)
