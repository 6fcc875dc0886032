"""Reductions (sum/max/min/argmax/argmin/xor_sum, custom combine, tuples, keep_dims), scans
(cumsum/cumprod/associative_scan, reverse) and sort/flip."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel

M, N = 8, 32


def _tile_case(rng, dtype=np.float32, outs=("out_ptr",), out_shape=(M,), out_dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-20, 20, (M, N)).astype(dtype)
    else:
        x = rng.standard_normal((M, N)).astype(dtype)
    args = {"x_ptr": x}
    for name in outs:
        args[name] = np.zeros(out_shape, out_dtype)
    return Case(args, (1,), tuple(outs), rtol=1e-4, atol=1e-4)


@triton.jit
def reduce_builtins(x_ptr, sum_ptr, max_ptr, min_ptr, total_ptr, M: tl.constexpr,
                    N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    rows = tl.arange(0, M)
    tl.store(sum_ptr + rows, tl.sum(x, axis=1))
    tl.store(max_ptr + rows, tl.max(x, 1))
    tl.store(min_ptr + rows, x.min(axis=1))
    tl.store(total_ptr, tl.sum(x))


def _reduce_case(rng):
    case = _tile_case(rng, outs=("sum_ptr", "max_ptr", "min_ptr"))
    case.args["total_ptr"] = np.zeros(1, np.float32)
    case.outputs += ("total_ptr",)
    return case


def _reduce_ref(args):
    x = args["x_ptr"]
    return {"sum_ptr": x.sum(1), "max_ptr": x.max(1), "min_ptr": x.min(1),
            "total_ptr": np.array([x.sum()], np.float32)}


REDUCE = kernel(
    reduce_builtins,
    {"x_ptr": "*fp32", "sum_ptr": "*fp32", "max_ptr": "*fp32", "min_ptr": "*fp32",
     "total_ptr": "*fp32"},
    {"M": M, "N": N},
    """
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32, combine = @[[SUM:[a-z0-9_]+]]{{.*}} : (tensor<8x32xf32>) -> tensor<8xf32>
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32, combine = @[[MAX:[a-z0-9_]+]]{{.*}} : (tensor<8x32xf32>) -> tensor<8xf32>
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32
    CHECK: "tt.reshape"({{.*}}) {allow_reorder = true} : (tensor<8x32xf32>) -> tensor<256xf32>
    CHECK: "tt.reduce"({{.*}}) {axis = 0 : i32{{.*}} : (tensor<256xf32>) -> f32
    CHECK: func.func private @[[SUM]](%arg0: f32, %arg1: f32) -> f32
    CHECK-NEXT: arith.addf
    CHECK: func.func private @[[MAX]]
    CHECK-NEXT: arith.maxnumf
    """,
    make_case=_reduce_case, reference=_reduce_ref,
)


@triton.jit
def argmax_argmin(x_ptr, amax_ptr, amin_ptr, xor_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    rows = tl.arange(0, M)
    tl.store(amax_ptr + rows, tl.argmax(x, axis=1))
    tl.store(amin_ptr + rows, tl.argmin(x, axis=1))
    tl.store(xor_ptr + rows, tl.xor_sum(x, axis=1))


def _argmax_case(rng):
    x = rng.permuted(np.tile(np.arange(N, dtype=np.int32), (M, 1)), axis=1)
    z = np.zeros(M, np.int32)
    return Case({"x_ptr": x, "amax_ptr": z.copy(), "amin_ptr": z.copy(), "xor_ptr": z.copy()},
                (1,), ("amax_ptr", "amin_ptr", "xor_ptr"))


def _argmax_ref(args):
    x = args["x_ptr"]
    return {"amax_ptr": x.argmax(1).astype(np.int32), "amin_ptr": x.argmin(1).astype(np.int32),
            "xor_ptr": np.bitwise_xor.reduce(x, axis=1)}


ARGMAX = kernel(
    argmax_argmin, {"x_ptr": "*i32", "amax_ptr": "*i32", "amin_ptr": "*i32", "xor_ptr": "*i32"},
    {"M": M, "N": N},
    """
    CHECK: "tt.reduce"({{.*}}, {{.*}}) {axis = 1 : i32{{.*}} : (tensor<8x32xi32>, tensor<8x32xi32>) -> (tensor<8xi32>, tensor<8xi32>)
    CHECK: "tt.reduce"({{.*}}, {{.*}}) {axis = 1 : i32
    CHECK: "tt.reduce"
    CHECK: func.func private {{.*}}(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32) -> (i32, i32)
    CHECK: arith.cmpi sgt
    CHECK: arith.xori
    """,
    make_case=_argmax_case, reference=_argmax_ref,
)


@triton.jit
def _max_abs_combine(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def _sum_and_count(s1, c1, s2, c2):
    return s1 + s2, c1 + c2


@triton.jit
def custom_reduce(x_ptr, out_ptr, mean_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    m = tl.reduce(x, 1, _max_abs_combine, keep_dims=True)        # M x 1
    tl.store(out_ptr + tl.arange(0, M)[:, None], m)
    positive = x > 0
    s, c = tl.reduce((tl.where(positive, x, 0.0), positive.to(tl.int32)), 1, _sum_and_count)
    tl.store(mean_ptr + tl.arange(0, M), s / tl.maximum(c, 1))


def _custom_case(rng):
    return _tile_case(rng, outs=("out_ptr", "mean_ptr"))


def _custom_ref(args):
    x = args["x_ptr"]
    pos = x > 0
    return {"out_ptr": np.abs(x).max(1),
            "mean_ptr": (np.where(pos, x, 0).sum(1) / np.maximum(pos.sum(1), 1)).astype(np.float32)}


CUSTOM_REDUCE = kernel(
    custom_reduce, {"x_ptr": "*fp32", "out_ptr": "*fp32", "mean_ptr": "*fp32"}, {"M": M, "N": N},
    """
    CHECK: "tt.reduce"({{.*}}) {axis = 1 : i32{{.*}} : (tensor<8x32xf32>) -> tensor<8xf32>
    CHECK: "tt.expand_dims"({{.*}}) {axis = 1 : i32} : (tensor<8xf32>) -> tensor<8x1xf32>
    CHECK: "tt.reduce"({{.*}}, {{.*}}) {{.*}} : (tensor<8x32xf32>, tensor<8x32xi32>) -> (tensor<8xf32>, tensor<8xi32>)
    CHECK: func.func private {{.*}}(%arg0: f32, %arg1: f32) -> f32
    CHECK: math.absf
    CHECK: arith.maxnumf
    CHECK: func.func private {{.*}}(%arg0: f32, %arg1: i32, %arg2: f32, %arg3: i32) -> (f32, i32)
    """,
    make_case=_custom_case, reference=_custom_ref,
)


@triton.jit
def reduce_int8_keepdims(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)                             # int8: sums accumulate in int32
    s = tl.sum(x, axis=0, keep_dims=True)                 # 1 x N
    tl.store(out_ptr + tl.arange(0, N)[None, :], s)


def _int8_case(rng):
    return _tile_case(rng, np.int8, out_shape=(N,), out_dtype=np.int32)


INT8_SUM = kernel(
    reduce_int8_keepdims, {"x_ptr": "*i8", "out_ptr": "*i32"}, {"M": M, "N": N},
    """
    CHECK: arith.extsi {{.*}} : tensor<8x32xi8> to tensor<8x32xi32>
    CHECK: "tt.reduce"({{.*}}) {axis = 0 : i32{{.*}} : (tensor<8x32xi32>) -> tensor<32xi32>
    CHECK: "tt.expand_dims"({{.*}}) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    """,
    make_case=_int8_case,
    reference=lambda args: {"out_ptr": args["x_ptr"].astype(np.int32).sum(0).astype(np.int32)},
)


# -- scans -------------------------------------------------------------------------------------


@triton.jit
def _linear_recurrence(a1, b1, a2, b2):
    # (a, b) pairs compose as x -> a2 * (a1 * x + b1) + b2
    return a1 * a2, b1 * a2 + b2


@triton.jit
def scans(x_ptr, csum_ptr, cprod_ptr, rsum_ptr, rec_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(csum_ptr + offs, tl.cumsum(x, axis=1))
    tl.store(cprod_ptr + offs, tl.cumprod(x * 0.1 + 1.0, 1))
    tl.store(rsum_ptr + offs, tl.cumsum(x, axis=0, reverse=True))
    decay = tl.full((M, N), 0.5, tl.float32)
    _, h = tl.associative_scan((decay, x), 1, _linear_recurrence)
    tl.store(rec_ptr + offs, h)


def _scan_case(rng):
    case = _tile_case(rng, outs=("csum_ptr", "cprod_ptr", "rsum_ptr", "rec_ptr"),
                      out_shape=(M, N))
    return case


def _scan_ref(args):
    x = args["x_ptr"].astype(np.float64)
    rec = np.zeros_like(x)
    h = np.zeros(M)
    for j in range(N):
        h = 0.5 * h + x[:, j]
        rec[:, j] = h
    f = np.float32
    return {"csum_ptr": np.cumsum(x, 1).astype(f), "cprod_ptr": np.cumprod(x * 0.1 + 1, 1).astype(f),
            "rsum_ptr": np.cumsum(x[::-1], 0)[::-1].astype(f), "rec_ptr": rec.astype(f)}


SCANS = kernel(
    scans, {"x_ptr": "*fp32", "csum_ptr": "*fp32", "cprod_ptr": "*fp32", "rsum_ptr": "*fp32",
            "rec_ptr": "*fp32"},
    {"M": M, "N": N},
    """
    CHECK: "tt.scan"({{.*}}) {axis = 1 : i32, combine = @{{.*}}, reverse = false} : (tensor<8x32xf32>) -> tensor<8x32xf32>
    CHECK: "tt.scan"({{.*}}) {axis = 1 : i32
    CHECK: "tt.scan"({{.*}}) {axis = 0 : i32, combine = @{{.*}}, reverse = true}
    CHECK: "tt.scan"({{.*}}, {{.*}}) {axis = 1 : i32{{.*}} -> (tensor<8x32xf32>, tensor<8x32xf32>)
    CHECK: func.func private
    CHECK: arith.mulf
    """,
    make_case=_scan_case, reference=_scan_ref,
)


@triton.jit
def cumsum_int(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)                              # int16 -> int32 running sum
    tl.store(out_ptr + offs, tl.cumsum(x, 0))


CUMSUM_INT = kernel(
    cumsum_int, {"x_ptr": "*i16", "out_ptr": "*i32"}, {"BLOCK": 128},
    """
    CHECK: arith.extsi {{.*}} : tensor<128xi16> to tensor<128xi32>
    CHECK: "tt.scan"({{.*}}) {axis = 0 : i32{{.*}} : (tensor<128xi32>) -> tensor<128xi32>
    """,
    make_case=lambda rng: Case({"x_ptr": rng.integers(-9, 9, 128).astype(np.int16),
                                "out_ptr": np.zeros(128, np.int32)}, (1,), ("out_ptr",)),
    reference=lambda args: {"out_ptr": np.cumsum(args["x_ptr"].astype(np.int32)).astype(np.int32)},
)


# -- sort and flip -----------------------------------------------------------------------------


@triton.jit
def sort_rows(x_ptr, asc_ptr, desc_ptr, flip_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, tl.sort(x))
    tl.store(desc_ptr + offs, tl.sort(x, dim=1, descending=True))
    tl.store(flip_ptr + offs, tl.flip(x, 1))


def _sort_case(rng):
    return _tile_case(rng, outs=("asc_ptr", "desc_ptr", "flip_ptr"), out_shape=(M, N))


def _sort_ref(args):
    x = args["x_ptr"]
    return {"asc_ptr": np.sort(x, 1), "desc_ptr": -np.sort(-x, 1), "flip_ptr": x[:, ::-1]}


SORT = kernel(
    sort_rows, {"x_ptr": "*fp32", "asc_ptr": "*fp32", "desc_ptr": "*fp32", "flip_ptr": "*fp32"},
    {"M": M, "N": N},
    """
    CHECK: "tt.reshape"({{.*}}) {{.*}}: (tensor<8x32xf32>) -> tensor<{{.*}}x2x{{.*}}xf32>
    CHECK: "tt.reduce"
    CHECK: arith.select
    CHECK: "tt.store"
    CHECK: "tt.store"
    CHECK: "tt.store"
    """,
    make_case=_sort_case, reference=_sort_ref,
)


@triton.jit
def sort_int_1d(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sort(x, descending=True))


SORT_INT = kernel(
    sort_int_1d, {"x_ptr": "*i32", "out_ptr": "*i32"}, {"BLOCK": 64},
    """
    CHECK: "tt.reshape"
    CHECK: arith.xori
    CHECK: "tt.store"
    """,
    make_case=lambda rng: Case({"x_ptr": rng.integers(-1000, 1000, 64).astype(np.int32),
                                "out_ptr": np.zeros(64, np.int32)}, (1,), ("out_ptr",)),
    reference=lambda args: {"out_ptr": -np.sort(-args["x_ptr"])},
)

@triton.jit
def column_argmin_loop(x_ptr, val_ptr, idx_ptr, R, C, BLOCK_C: tl.constexpr,
                       BLOCK_R: tl.constexpr):
    """Inductor's outer reduction: a tile of columns walks down the rows, keeping the
    least value and its row per element of the tile, reduced across the tile at the end."""
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)[:, None]
    base = tl.arange(0, BLOCK_R)[None, :]
    best = tl.full([BLOCK_C, BLOCK_R], float("inf"), tl.float32)
    best_row = tl.full([BLOCK_C, BLOCK_R], 2147483647, tl.int32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + base
        m = (rows < R) & (cols < C)
        x = tl.load(x_ptr + cols + C * rows, m, other=float("inf"))
        take = m & ((x < best) | ((x == best) & (rows < best_row)))
        best = tl.where(take, x, best)
        best_row = tl.where(take, rows, best_row)
    least = tl.min(best, 1)
    row = tl.min(tl.where(best == least[:, None], best_row, 2147483647), 1)
    out = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    tl.store(val_ptr + out, least, out < C)
    tl.store(idx_ptr + out, row, out < C)


_COL_R, _COL_C = 37, 50


def _column_argmin_case(rng):
    x = rng.standard_normal((_COL_R, _COL_C)).astype(np.float32)
    return Case({"x_ptr": x, "val_ptr": np.full(_COL_C, np.nan, np.float32),
                 "idx_ptr": np.full(_COL_C, -7, np.int32), "R": _COL_R, "C": _COL_C},
                (4,), ("val_ptr", "idx_ptr"))


def _column_argmin_ref(args):
    x = args["x_ptr"].astype(np.float64)
    return {"val_ptr": x.min(0).astype(np.float32), "idx_ptr": x.argmin(0).astype(np.int32)}


COLUMN_ARGMIN = kernel(
    column_argmin_loop, {"x_ptr": "*fp32", "val_ptr": "*fp32", "idx_ptr": "*i32", "R": "i32",
                         "C": "i32"},
    {"BLOCK_C": 16, "BLOCK_R": 8},
    """
    CHECK: scf.for
    CHECK: "tt.load"
    CHECK: arith.select
    CHECK: scf.yield
    """,
    make_case=_column_argmin_case, reference=_column_argmin_ref,
)


@triton.jit
def column_sums_advanced(x_ptr, out_ptr, R, C, stride_c, BLOCK_R: tl.constexpr,
                         BLOCK_C: tl.constexpr):
    """Sums down the columns of a column-major matrix (rows contiguous), through pointers
    the loop advances: the load runs along dimension 0 and the loop carries its pointers
    in that layout."""
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    rows = tl.arange(0, BLOCK_R)
    ptrs = x_ptr + rows[:, None] + cols[None, :] * stride_c
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        acc += tl.load(ptrs, mask=(rows[:, None] < R - r0) & (cols[None, :] < C), other=0.0)
        ptrs += BLOCK_R
    tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < C)


def _column_sums_case(rng):
    x = rng.standard_normal((_COL_C, _COL_R)).astype(np.float32)  # column j is x[j]
    return Case({"x_ptr": x, "out_ptr": np.full(_COL_C, np.nan, np.float32), "R": _COL_R,
                 "C": _COL_C, "stride_c": _COL_R}, (4,), ("out_ptr",))


COLUMN_SUMS = kernel(
    column_sums_advanced, {"x_ptr": "*fp32", "out_ptr": "*fp32", "R": "i32", "C": "i32",
                           "stride_c": "i32"},
    {"BLOCK_R": 16, "BLOCK_C": 16},
    """
    CHECK: scf.for
    CHECK: "tt.load"
    CHECK: "tt.addptr"
    CHECK: scf.yield
    """,
    make_case=_column_sums_case,
    reference=lambda args: {"out_ptr": args["x_ptr"].astype(np.float64).sum(1).astype(
        np.float32)},
)

KERNELS = [REDUCE, ARGMAX, COLUMN_ARGMIN, COLUMN_SUMS, CUSTOM_REDUCE, INT8_SUM, SCANS, CUMSUM_INT, SORT, SORT_INT]
