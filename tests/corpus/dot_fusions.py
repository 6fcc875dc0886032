"""Dots with work fused around them: a row softmax and a column sum on the accumulator, a
dot whose A is another dot's result, and block-pointer matmuls with a transposed B."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel


@triton.jit
def dot_row_softmax(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    s = tl.dot(a, b)
    e = tl.exp(s - tl.max(s, axis=1)[:, None])
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], e / tl.sum(e, axis=1)[:, None])


def _row_softmax_case(rng):
    a = (rng.standard_normal((64, 32)) * 0.5).astype(np.float16)
    b = (rng.standard_normal((32, 64)) * 0.5).astype(np.float16)
    return Case({"a_ptr": a, "b_ptr": b, "out_ptr": np.zeros((64, 64), np.float32)}, (1,),
                ("out_ptr",), rtol=1e-3, atol=1e-5)


def _row_softmax_ref(args):
    s = args["a_ptr"].astype(np.float64) @ args["b_ptr"].astype(np.float64)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return {"out_ptr": e / e.sum(axis=1, keepdims=True)}


DOT_ROW_SOFTMAX = kernel(
    dot_row_softmax, {"a_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp32"},
    {"M": 64, "N": 64, "K": 32},
    """
    CHECK: "tt.dot"
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32
    """,
    uses_dot=True, divisible_by_16=frozenset({"a_ptr", "b_ptr", "out_ptr"}),
    make_case=_row_softmax_case, reference=_row_softmax_ref,
)


@triton.jit
def dot_bias_relu_colsum(a_ptr, b_ptr, bias_ptr, out_ptr, colsum_ptr, M: tl.constexpr,
                         N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.maximum(tl.dot(a, b) + tl.load(bias_ptr + rn)[None, :], 0.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], c)
    tl.store(colsum_ptr + rn, tl.sum(c, axis=0))


def _bias_case(rng):
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 32)).astype(np.float16)
    bias = rng.standard_normal(32).astype(np.float32)
    return Case({"a_ptr": a, "b_ptr": b, "bias_ptr": bias,
                 "out_ptr": np.zeros((64, 32), np.float32),
                 "colsum_ptr": np.zeros(32, np.float32)}, (1,), ("out_ptr", "colsum_ptr"),
                rtol=1e-3, atol=1e-3)


def _bias_ref(args):
    c = args["a_ptr"].astype(np.float64) @ args["b_ptr"].astype(np.float64)
    c = np.maximum(c + args["bias_ptr"][None, :], 0.0)
    return {"out_ptr": c, "colsum_ptr": c.sum(axis=0)}


DOT_BIAS_RELU_COLSUM = kernel(
    dot_bias_relu_colsum,
    {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp32", "out_ptr": "*fp32",
     "colsum_ptr": "*fp32"},
    {"M": 64, "N": 32, "K": 64},
    """
    CHECK: "tt.dot"
    CHECK: arith.maxnumf
    CHECK: "tt.reduce"({{.*}}) {axis = 0 : i32
    """,
    uses_dot=True, make_case=_bias_case, reference=_bias_ref,
)


@triton.jit
def dot_chain(q_ptr, k_ptr, v_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((M, D), tl.float32)
    for start in range(0, 2 * N, N):
        kt = tl.load(k_ptr + rd[:, None] + (start + rn)[None, :] * D)  # K^T: column-major
        p = tl.dot(q, kt) * 0.125
        v = tl.load(v_ptr + (start + rn)[:, None] * D + rd[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
    tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc)


def _chain_case(rng):
    q = rng.standard_normal((64, 32)).astype(np.float16)
    k = rng.standard_normal((64, 32)).astype(np.float16)
    v = rng.standard_normal((64, 32)).astype(np.float16)
    return Case({"q_ptr": q, "k_ptr": k, "v_ptr": v, "out_ptr": np.zeros((64, 32), np.float32)},
                (1,), ("out_ptr",), rtol=2e-2, atol=2e-2)


def _chain_ref(args):
    q, k, v = (args[n].astype(np.float64) for n in ("q_ptr", "k_ptr", "v_ptr"))
    p = ((q @ k.T) * 0.125).astype(np.float16).astype(np.float64)
    return {"out_ptr": p @ v}


DOT_CHAIN = kernel(
    dot_chain, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "out_ptr": "*fp32"},
    {"M": 64, "N": 32, "D": 32},
    """
    CHECK: scf.for
    CHECK: "tt.dot"
    CHECK: arith.truncf
    CHECK: "tt.dot"
    """,
    uses_dot=True, divisible_by_16=frozenset({"q_ptr", "k_ptr", "v_ptr", "out_ptr"}),
    make_case=_chain_case, reference=_chain_ref,
)


@triton.jit
def block_ptr_matmul_bt(a_ptr, bt_ptr, c_ptr, M, N, K, stride_am, stride_bn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        CHECK_K: tl.constexpr):
    """C = A @ B with B given transposed (N x K, row-major): its tiles are K x N views in
    the block pointer's order (0, 1)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BLOCK_M, 0),
                                (BLOCK_M, BLOCK_K), (1, 0))
    b_block = tl.make_block_ptr(bt_ptr, (K, N), (1, stride_bn), (0, pid_n * BLOCK_N),
                                (BLOCK_K, BLOCK_N), (0, 1))
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        if CHECK_K:
            a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
            b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        else:
            a = tl.load(a_block, boundary_check=(0,), padding_option="zero")
            b = tl.load(b_block, boundary_check=(1,), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                                (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_block, acc, boundary_check=(0, 1))


def _bt_case(k_size):
    def make(rng):
        m, n = 100, 72
        a = rng.standard_normal((m, k_size)).astype(np.float16)
        bt = rng.standard_normal((n, k_size)).astype(np.float16)
        return Case({"a_ptr": a, "bt_ptr": bt, "c_ptr": np.zeros((m, n), np.float32),
                     "M": m, "N": n, "K": k_size, "stride_am": k_size, "stride_bn": k_size},
                    (2, 2), ("c_ptr",), rtol=2e-3, atol=2e-3)

    return make


def _bt_ref(args):
    return {"c_ptr": args["a_ptr"].astype(np.float64) @ args["bt_ptr"].astype(np.float64).T}


_BT_SIGNATURE = {"a_ptr": "*fp16", "bt_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32",
                 "N": "i32", "K": "i32", "stride_am": "i32", "stride_bn": "i32"}

# K a multiple of the tile, its dimension unchecked: both tiles go through the cp.async ring
BLOCK_PTR_MATMUL_BT = kernel(
    block_ptr_matmul_bt, _BT_SIGNATURE,
    {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "CHECK_K": False},
    """
    CHECK: "tt.make_block_ptr"({{.*}}) {{{.*}}order = array<i32: 0, 1>}
    CHECK: scf.for
    CHECK: "tt.dot"
    CHECK: "tt.advance"
    """,
    uses_dot=True,
    divisible_by_16=frozenset({"a_ptr", "bt_ptr", "c_ptr", "K", "stride_am", "stride_bn"}),
    make_case=_bt_case(96), reference=_bt_ref,
)


@triton.jit
def block_ptr_matmul_bt_ragged(a_ptr, bt_ptr, c_ptr, M, N, K, stride_am, stride_bn,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                               BLOCK_K: tl.constexpr):
    block_ptr_matmul_bt(a_ptr, bt_ptr, c_ptr, M, N, K, stride_am, stride_bn, BLOCK_M,
                        BLOCK_N, BLOCK_K, True)


# K ragged and checked: the tiles load element by element, one iteration ahead
BLOCK_PTR_MATMUL_BT_RAGGED = kernel(
    block_ptr_matmul_bt_ragged, _BT_SIGNATURE,
    {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
    """
    CHECK: scf.for
    CHECK: "tt.dot"
    """,
    uses_dot=True, make_case=_bt_case(83), reference=_bt_ref,
)

@triton.jit
def dequant_nibbles_dot(a_ptr, w_ptr, scales_ptr, zeros_ptr, c_ptr, M, N, K,
                        GROUP: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    """C = A @ W, W's 4-bit values packed eight down K into each int32 (K/8 x N words),
    unpacked in the loop with each column's scale and zero point of the group: the
    scales and zero points are rows of fewer elements than the CTA has threads."""
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    w_ptrs = w_ptr + (offs_k[:, None] // 8) * N + offs_n[None, :]
    shift = (offs_k % 8) * 4
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        g = k * BLOCK_K // GROUP
        scale = tl.load(scales_ptr + g * N + offs_n, mask=offs_n < N, other=0.0)
        zero = tl.load(zeros_ptr + g * N + offs_n, mask=offs_n < N, other=0.0)
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        w = tl.load(w_ptrs, mask=offs_n[None, :] < N, other=0)
        w = (w >> shift[:, None]) & 0xF
        acc += tl.dot(a, (w.to(tl.float16) - zero[None, :]) * scale[None, :])
        a_ptrs += BLOCK_K
        w_ptrs += (BLOCK_K // 8) * N
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


_NIB_M, _NIB_N, _NIB_K, _NIB_GROUP = 13, 70, 128, 32


def _nibbles_case(rng):
    nibbles = rng.integers(0, 16, (_NIB_K, _NIB_N))
    words = (nibbles.reshape(_NIB_K // 8, 8, _NIB_N) << (4 * np.arange(8))[None, :, None]).sum(1)
    groups = _NIB_K // _NIB_GROUP
    return Case({"a_ptr": rng.standard_normal((_NIB_M, _NIB_K)).astype(np.float16),
                 "w_ptr": words.astype(np.uint32).view(np.int32),
                 "scales_ptr": (rng.random((groups, _NIB_N)) * 0.05 + 0.01).astype(np.float16),
                 "zeros_ptr": rng.integers(6, 10, (groups, _NIB_N)).astype(np.float16),
                 "c_ptr": np.full((_NIB_M, _NIB_N), np.nan, np.float32),
                 "M": _NIB_M, "N": _NIB_N, "K": _NIB_K},
                (-(-_NIB_N // 32), 1), ("c_ptr",), rtol=1e-2, atol=1e-2)


def _nibbles_ref(args):
    words = args["w_ptr"].view(np.uint32).astype(np.int64)
    nibbles = (words[:, None, :] >> (4 * np.arange(8))[None, :, None]) & 0xF
    rows = np.arange(_NIB_K) // _NIB_GROUP
    w = (nibbles.reshape(_NIB_K, _NIB_N) - args["zeros_ptr"].astype(np.float64)[rows]) * \
        args["scales_ptr"].astype(np.float64)[rows]
    return {"c_ptr": args["a_ptr"].astype(np.float64) @ w}


DEQUANT_NIBBLES_DOT = kernel(
    dequant_nibbles_dot,
    {"a_ptr": "*fp16", "w_ptr": "*i32", "scales_ptr": "*fp16", "zeros_ptr": "*fp16",
     "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
    {"GROUP": _NIB_GROUP, "BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32},
    """
    CHECK: scf.for
    CHECK: arith.shrsi
    CHECK: "tt.dot"
    """,
    uses_dot=True, divisible_by_16=frozenset({"a_ptr", "w_ptr", "scales_ptr", "zeros_ptr",
                                              "c_ptr", "K"}),
    make_case=_nibbles_case, reference=_nibbles_ref,
)


@triton.jit
def dot_minus_key_stats(q_ptr, k_ptr, stat_ptr, out_ptr, M, N, D: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out[m] = sum over keys n of exp2(q_m . k_n - stat[n]), a block of keys an iteration
    (attention backward's scores less each key's log-sum-exp): each iteration's statistics
    are a row of fewer elements than the CTA has threads, met by the dot's result."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < M,
                other=0.0)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kt = tl.load(k_ptr + offs_n[None, :] * D + offs_d[:, None], mask=offs_n[None, :] < N,
                     other=0.0)
        stat = tl.load(stat_ptr + offs_n, mask=offs_n < N, other=float("inf"))
        acc += tl.math.exp2(tl.dot(q, kt) - stat[None, :])
    tl.store(out_ptr + offs_m, tl.sum(acc, axis=1), mask=offs_m < M)


_STAT_M, _STAT_N, _STAT_D = 50, 83, 32


def _stats_case(rng):
    return Case({"q_ptr": (rng.standard_normal((_STAT_M, _STAT_D)) * 0.3).astype(np.float16),
                 "k_ptr": (rng.standard_normal((_STAT_N, _STAT_D)) * 0.3).astype(np.float16),
                 "stat_ptr": rng.standard_normal(_STAT_N).astype(np.float32),
                 "out_ptr": np.full(_STAT_M, np.nan, np.float32),
                 "M": _STAT_M, "N": _STAT_N}, (-(-_STAT_M // 32),), ("out_ptr",),
                rtol=1e-2, atol=1e-3)


def _stats_ref(args):
    s = args["q_ptr"].astype(np.float64) @ args["k_ptr"].astype(np.float64).T
    return {"out_ptr": np.exp2(s - args["stat_ptr"].astype(np.float64)[None, :]).sum(1)}


DOT_MINUS_KEY_STATS = kernel(
    dot_minus_key_stats,
    {"q_ptr": "*fp16", "k_ptr": "*fp16", "stat_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32",
     "N": "i32"},
    {"D": _STAT_D, "BLOCK_M": 32, "BLOCK_N": 16},
    """
    CHECK: scf.for
    CHECK: "tt.dot"
    CHECK: math.exp2
    """,
    uses_dot=True, divisible_by_16=frozenset({"q_ptr", "k_ptr", "stat_ptr", "out_ptr"}),
    make_case=_stats_case, reference=_stats_ref,
)

@triton.jit
def dot_minus_carried_stats(q_ptr, k_ptr, stat_ptr, out_ptr, N, D: tl.constexpr,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """dot_minus_key_stats with N a multiple of BLOCK_N and the statistics' pointers carried
    by the loop (`stat_ptrs += BLOCK_N`): they take the layout of the rows they load."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    stat_ptrs = stat_ptr + tl.arange(0, BLOCK_N)
    kt_ptrs = k_ptr + tl.arange(0, BLOCK_N)[None, :] * D + offs_d[:, None]
    for _ in range(0, N, BLOCK_N):
        acc += tl.math.exp2(tl.dot(q, tl.load(kt_ptrs)) - tl.load(stat_ptrs)[None, :])
        stat_ptrs += BLOCK_N
        kt_ptrs += BLOCK_N * D
    tl.store(out_ptr + offs_m, tl.sum(acc, axis=1))


def _carried_stats_case(rng):
    m, n = 64, 80
    return Case({"q_ptr": (rng.standard_normal((m, _STAT_D)) * 0.3).astype(np.float16),
                 "k_ptr": (rng.standard_normal((n, _STAT_D)) * 0.3).astype(np.float16),
                 "stat_ptr": rng.standard_normal(n).astype(np.float32),
                 "out_ptr": np.full(m, np.nan, np.float32), "N": n}, (m // 32,), ("out_ptr",),
                rtol=1e-2, atol=1e-3)


DOT_MINUS_CARRIED_STATS = kernel(
    dot_minus_carried_stats,
    {"q_ptr": "*fp16", "k_ptr": "*fp16", "stat_ptr": "*fp32", "out_ptr": "*fp32", "N": "i32"},
    {"D": _STAT_D, "BLOCK_M": 32, "BLOCK_N": 16},
    """
    CHECK: scf.for
    CHECK: "tt.addptr"
    CHECK: scf.yield
    """,
    uses_dot=True, divisible_by_16=frozenset({"q_ptr", "k_ptr", "stat_ptr", "out_ptr", "N"}),
    make_case=_carried_stats_case, reference=_stats_ref,
)



@triton.jit
def broadcast_product_sum(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """A matmul written without tl.dot: each block of K summed from the broadcast product
    `a[:, :, None] * b[None, :, :]` into the accumulator; M, N and K ragged."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        offs_k = start + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :],
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.sum(a[:, :, None] * b[None, :, :], axis=1) + acc
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


_BPS_M, _BPS_N, _BPS_K = 70, 45, 50


def _bps_case(rng):
    return Case({"a_ptr": rng.standard_normal((_BPS_M, _BPS_K)).astype(np.float32),
                 "b_ptr": rng.standard_normal((_BPS_K, _BPS_N)).astype(np.float32),
                 "c_ptr": np.full((_BPS_M, _BPS_N), np.nan, np.float32),
                 "M": _BPS_M, "N": _BPS_N, "K": _BPS_K},
                (-(-_BPS_M // 32), -(-_BPS_N // 32)), ("c_ptr",), rtol=1e-4, atol=1e-4)


BROADCAST_PRODUCT_SUM = kernel(
    broadcast_product_sum,
    {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
    {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16},
    """
    CHECK: scf.for
    CHECK: arith.mulf {{.*}} : tensor<32x16x32xf32>
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32
    """,
    make_case=_bps_case,
    reference=lambda args: {"c_ptr": args["a_ptr"].astype(np.float64)
                            @ args["b_ptr"].astype(np.float64)},
)

KERNELS = [DOT_ROW_SOFTMAX, DOT_BIAS_RELU_COLSUM, DOT_CHAIN, BLOCK_PTR_MATMUL_BT,
           BLOCK_PTR_MATMUL_BT_RAGGED, DEQUANT_NIBBLES_DOT, DOT_MINUS_KEY_STATS,
           DOT_MINUS_CARRIED_STATS, BROADCAST_PRODUCT_SUM]
