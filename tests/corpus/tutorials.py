"""Triton's public tutorials, written in their style: vector add, fused softmax, matmul with
grouped ordering, low-memory dropout (layer norm and attention are in `tutorials_nn.py`)."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel, philox, uniform

# -- 01 vector add -----------------------------------------------------------------------------


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def _add_case(rng):
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    return Case({"x_ptr": x, "y_ptr": y, "output_ptr": np.zeros(n, np.float32), "n_elements": n},
                (triton_cdiv(n, 256),), ("output_ptr",))


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


ADD = kernel(
    add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"},
    {"BLOCK_SIZE": 256},
    """
    CHECK: %x_ptr: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}
    CHECK: "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    CHECK: "tt.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32>
    CHECK: arith.cmpi slt
    CHECK: "tt.load"
    CHECK: "tt.load"
    CHECK: arith.addf {{.*}} : tensor<256xf32>
    CHECK: "tt.store"
    """,
    divisible_by_16=frozenset({"x_ptr", "y_ptr", "output_ptr"}),
    make_case=_add_case, reference=lambda args: {"output_ptr": args["x_ptr"] + args["y_ptr"]},
)


# -- 02 fused softmax --------------------------------------------------------------------------


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=NUM_STAGES):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def _softmax_case(rng):
    x = rng.standard_normal((10, 100)).astype(np.float32)
    return Case({"output_ptr": np.zeros((10, 100), np.float32), "input_ptr": x,
                 "input_row_stride": 100, "output_row_stride": 100, "n_rows": 10, "n_cols": 100},
                (4,), ("output_ptr",), rtol=1e-5, atol=1e-6)


def _softmax_ref(args):
    x = args["input_ptr"].astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return {"output_ptr": (e / e.sum(1, keepdims=True)).astype(np.float32)}


SOFTMAX = kernel(
    softmax_kernel,
    {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32",
     "output_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"},
    {"BLOCK_SIZE": 128, "NUM_STAGES": 3},
    """
    CHECK: "tt.get_num_programs"
    CHECK: scf.for
    CHECK: arith.constant dense<0xFF800000> : tensor<128xf32>
    CHECK: "tt.reduce"({{.*}}) {axis = 0 : i32{{.*}} : (tensor<128xf32>) -> f32
    CHECK: math.exp
    CHECK: "tt.reduce"
    CHECK: arith.divf
    CHECK: "tt.store"
    """,
    make_case=_softmax_case, reference=_softmax_ref,
)


@triton.jit
def softmax_builtin(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.softmax(x, dim=1))


def _softmax_builtin_case(rng):
    x = rng.standard_normal((8, 32)).astype(np.float32)
    return Case({"x_ptr": x, "out_ptr": np.zeros((8, 32), np.float32)}, (1,), ("out_ptr",))


def _softmax_builtin_ref(args):
    x = args["x_ptr"].astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return {"out_ptr": (e / e.sum(1, keepdims=True)).astype(np.float32)}


SOFTMAX_BUILTIN = kernel(
    softmax_builtin, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"M": 8, "N": 32},
    """
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32
    CHECK: "tt.expand_dims"({{.*}}) {axis = 1 : i32}
    CHECK: math.exp
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32
    CHECK: arith.divf {{.*}} : tensor<8x32xf32>
    """,
    make_case=_softmax_builtin_case, reference=_softmax_builtin_ref,
)


# -- 03 matrix multiplication --------------------------------------------------------------------


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                  ACTIVATION: tl.constexpr):
    """C = A x B, with program ids grouped GROUP_SIZE_M rows at a time for L2 reuse."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def _matmul_case(rng):
    m, n, k = 96, 80, 72
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    grid = (triton_cdiv(m, 32) * triton_cdiv(n, 32),)
    return Case({"a_ptr": a, "b_ptr": b, "c_ptr": np.zeros((m, n), np.float16), "M": m, "N": n,
                 "K": k, "stride_am": k, "stride_ak": 1, "stride_bk": n, "stride_bn": 1,
                 "stride_cm": n, "stride_cn": 1}, grid, ("c_ptr",), rtol=1e-2, atol=2e-2)


def _matmul_ref(args):
    c = args["a_ptr"].astype(np.float32) @ args["b_ptr"].astype(np.float32)
    return {"c_ptr": np.where(c >= 0, c, 0.01 * c).astype(np.float16)}


MATMUL = kernel(
    matmul_kernel,
    {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
     "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
     "stride_cm": "i32", "stride_cn": "i32"},
    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8,
     "ACTIVATION": "leaky_relu"},
    """
    CHECK: arith.divsi
    CHECK: arith.minsi
    CHECK: llvm.intr.assume
    CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<32x32xf32>, tensor<32x32x!tt.ptr<f16, 1 : i32>>, tensor<32x32x!tt.ptr<f16, 1 : i32>>)
    CHECK: "tt.load"{{.*}} -> tensor<32x32xf16>
    CHECK: "tt.dot"({{.*}}) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
    CHECK: "tt.addptr"
    CHECK: scf.yield
    CHECK: arith.cmpf oge
    CHECK: arith.truncf {{.*}} : tensor<32x32xf32> to tensor<32x32xf16>
    CHECK: "tt.store"
    """,
    uses_dot=True, make_case=_matmul_case, reference=_matmul_ref,
)


# -- 04 low-memory dropout -----------------------------------------------------------------------


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def _dropout_case(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    return Case({"x_ptr": x, "output_ptr": np.zeros(1000, np.float32), "n_elements": 1000,
                 "p": 0.5, "seed": 123}, (triton_cdiv(1000, 1024),), ("output_ptr",))


def _dropout_ref(args):
    keep = uniform(philox(args["seed"], np.arange(1000))[0]) > np.float32(args["p"])
    return {"output_ptr": np.where(keep, args["x_ptr"] / np.float32(0.5), 0).astype(np.float32)}


DROPOUT = kernel(
    _seeded_dropout,
    {"x_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32", "p": "fp32", "seed": "i32"},
    {"BLOCK_SIZE": 1024},
    """
    CHECK: "tt.mulhiu"
    CHECK: arith.cmpf ogt
    CHECK: arith.divf
    CHECK: arith.select
    CHECK: "tt.store"
    """,
    make_case=_dropout_case, reference=_dropout_ref,
)

KERNELS = [ADD, SOFTMAX, SOFTMAX_BUILTIN, MATMUL, DROPOUT]
