"""tl.dot on fp16, fp32 (tf32 and ieee), int8 and fp8, batched 3-D, with and without acc."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
             PRECISION: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c)


def _dot_case(dtype, out_dtype, tol):
    def make(rng):
        if np.issubdtype(dtype, np.integer):
            a = rng.integers(-100, 100, (32, 64)).astype(dtype)
            b = rng.integers(-100, 100, (64, 16)).astype(dtype)
        else:
            a = rng.standard_normal((32, 64)).astype(dtype)
            b = rng.standard_normal((64, 16)).astype(dtype)
        return Case({"a_ptr": a, "b_ptr": b, "c_ptr": np.zeros((32, 16), out_dtype)}, (1,),
                    ("c_ptr",), rtol=tol, atol=tol)

    return make


def _dot_ref(args):
    a, b = args["a_ptr"], args["b_ptr"]
    if np.issubdtype(a.dtype, np.integer):
        return {"c_ptr": (a.astype(np.int32) @ b.astype(np.int32)).astype(np.int32)}
    return {"c_ptr": (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)}


DOT_FP32 = kernel(
    dot_tile, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
    {"M": 32, "N": 16, "K": 64, "PRECISION": "ieee"},
    """
    CHECK: arith.constant dense<0.000000e+00> : tensor<32x16xf32>
    CHECK: "tt.dot"({{.*}}) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<32x64xf32>, tensor<64x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
    """,
    uses_dot=True, make_case=_dot_case(np.float32, np.float32, 1e-3), reference=_dot_ref,
)


@triton.jit
def dot_int8(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    acc = tl.zeros((M, N), tl.int32)
    acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


DOT_INT8 = kernel(
    dot_int8, {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32"}, {"M": 32, "N": 16, "K": 64},
    """
    CHECK: "tt.dot"({{.*}}) {{.*}}: (tensor<32x64xi8>, tensor<64x16xi8>, tensor<32x16xi32>) -> tensor<32x16xi32>
    """,
    uses_dot=True, make_case=_dot_case(np.int8, np.int32, 0), reference=_dot_ref,
)


@triton.jit
def dot_fp16_variants(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    c16 = tl.dot(a, b, out_dtype=tl.float16)                     # fp16 accumulator
    c8 = tl.dot(a.to(tl.float8e5), b.to(tl.float8e5), max_num_imprecise_acc=32)
    a3 = tl.reshape(a, (1, M, K))
    b3 = tl.reshape(b, (1, K, N))
    c3 = tl.reshape(tl.dot(a3, b3), (M, N))                      # batched 3-D
    c = c16.to(tl.float32) + c3 + c8 * 0.0
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], c * 0.5)


def _fp16_ref(args):
    c = args["a_ptr"].astype(np.float32) @ args["b_ptr"].astype(np.float32)
    return {"c_ptr": c}


DOT_FP16 = kernel(
    dot_fp16_variants, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
    {"M": 32, "N": 16, "K": 64},
    """
    CHECK: "tt.dot"({{.*}}) {{.*}}: (tensor<32x64xf16>, tensor<64x16xf16>, tensor<32x16xf16>) -> tensor<32x16xf16>
    CHECK: "tt.fp_to_fp"
    CHECK: "tt.dot"({{.*}}) {{{.*}}max_num_imprecise_acc = 32 : i32} : (tensor<32x64xf8E5M2>, tensor<64x16xf8E5M2>, tensor<32x16xf32>) -> tensor<32x16xf32>
    CHECK: "tt.dot"({{.*}}) {{.*}}: (tensor<1x32x64xf16>, tensor<1x64x16xf16>, tensor<1x32x16xf32>) -> tensor<1x32x16xf32>
    """,
    uses_dot=True, make_case=_dot_case(np.float16, np.float32, 5e-2), reference=_fp16_ref,
)

KERNELS = [DOT_FP32, DOT_INT8, DOT_FP16]
