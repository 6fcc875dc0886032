"""2-D tiles and shape ops: broadcasting, `[:, None]`, reshape, trans, permute, join, split,
interleave, cat, expand_dims, broadcast_to, gather, histogram."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel

M, N = 16, 32


@triton.jit
def tile_2d(x_ptr, bias_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr,
            BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride_m + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0)
    y = x * 2.0 + bias[None, :] + rows[:, None].to(tl.float32)
    tl.store(out_ptr + offs, y, mask=mask)


def _tile_case(rng):
    x = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return Case({"x_ptr": x, "bias_ptr": b, "out_ptr": np.zeros((M, N), np.float32), "M": M - 3,
                 "N": N - 5, "stride_m": N}, (2,), ("out_ptr",))


def _tile_ref(args):
    m, n = args["M"], args["N"]
    out = args["out_ptr"].copy()
    rows = np.arange(M)[:, None].astype(np.float32)
    y = args["x_ptr"] * 2 + args["bias_ptr"][None, :] + rows
    out[:m, :n] = y[:m, :n]
    return {"out_ptr": out}


TILE_2D = kernel(
    tile_2d, {"x_ptr": "*fp32", "bias_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32",
              "stride_m": "i32"},
    {"BLOCK_M": 8, "BLOCK_N": 32},
    """
    CHECK: "tt.expand_dims"({{.*}}) {axis = 1 : i32} : (tensor<8xi32>) -> tensor<8x1xi32>
    CHECK: "tt.expand_dims"({{.*}}) {axis = 0 : i32} : (tensor<32xi32>) -> tensor<1x32xi32>
    CHECK: "tt.broadcast"({{.*}}) {{.*}}: (tensor<8x1xi1>) -> tensor<8x32xi1>
    CHECK: "tt.addptr"({{.*}}) {{.*}}: (tensor<8x32x!tt.ptr<f32, 1 : i32>>, tensor<8x32xi32>)
    CHECK: "tt.load"
    CHECK: "tt.store"
    """,
    make_case=_tile_case, reference=_tile_ref,
)


@triton.jit
def reshape_trans(x_ptr, out_t_ptr, out_r_ptr, out_p_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    t = tl.trans(x)                                             # N x M
    t_offs = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    tl.store(out_t_ptr + t_offs, t)
    r = tl.reshape(x, (M * N // 4, 4))
    r = tl.reshape(r.T, [4 * (M * N // 4)])
    tl.store(out_r_ptr + tl.arange(0, M * N), r)
    x3 = tl.reshape(x, (M, 2, N // 2))
    p = tl.permute(x3, (2, 0, 1))                               # N//2 x M x 2
    p = p + x3.permute(1, 2, 0).trans(1, 2, 0)                 # the same permutation
    tl.store(out_p_ptr + tl.arange(0, M * N), tl.reshape(p, M * N))


def _reshape_case(rng):
    x = rng.standard_normal((M, N)).astype(np.float32)
    z = np.zeros(M * N, np.float32)
    return Case({"x_ptr": x, "out_t_ptr": z.copy(), "out_r_ptr": z.copy(), "out_p_ptr": z.copy()},
                (1,), ("out_t_ptr", "out_r_ptr", "out_p_ptr"))


def _reshape_ref(args):
    x = args["x_ptr"]
    p = x.reshape(M, 2, N // 2).transpose(2, 0, 1)
    return {"out_t_ptr": x.T.reshape(-1), "out_r_ptr": x.reshape(M * N // 4, 4).T.reshape(-1),
            "out_p_ptr": 2 * p.reshape(-1)}


RESHAPE_TRANS = kernel(
    reshape_trans, {"x_ptr": "*fp32", "out_t_ptr": "*fp32", "out_r_ptr": "*fp32",
                    "out_p_ptr": "*fp32"},
    {"M": M, "N": N},
    """
    CHECK: "tt.trans"({{.*}}) {order = array<i32: 1, 0>} : (tensor<16x32xf32>) -> tensor<32x16xf32>
    CHECK: "tt.reshape"({{.*}}) {allow_reorder = false} : (tensor<16x32xf32>) -> tensor<128x4xf32>
    CHECK: "tt.trans"({{.*}}) {order = array<i32: 1, 0>} : (tensor<128x4xf32>) -> tensor<4x128xf32>
    CHECK: "tt.reshape"({{.*}}) {{.*}}: (tensor<16x32xf32>) -> tensor<16x2x16xf32>
    CHECK: "tt.trans"({{.*}}) {order = array<i32: 2, 0, 1>} : (tensor<16x2x16xf32>) -> tensor<16x16x2xf32>
    CHECK: "tt.trans"({{.*}}) {order = array<i32: 1, 2, 0>}
    """,
    make_case=_reshape_case, reference=_reshape_ref,
)


@triton.jit
def join_split_interleave(a_ptr, b_ptr, out_j_ptr, out_s_ptr, out_i_ptr, out_c_ptr,
                          BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    j = tl.join(a, b)                                   # BLOCK x 2
    j_offs = offs[:, None] * 2 + tl.arange(0, 2)[None, :]
    tl.store(out_j_ptr + j_offs, j)
    lo, hi = tl.split(j)
    tl.store(out_s_ptr + offs, hi - lo)
    il = tl.interleave(a, b)                            # 2 * BLOCK
    tl.store(out_i_ptr + tl.arange(0, 2 * BLOCK), il)
    c = tl.cat(a, b, can_reorder=True)
    tl.store(out_c_ptr + tl.arange(0, 2 * BLOCK), tl.sum(c, axis=0) + tl.zeros_like(c))


def _join_case(rng):
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    z = np.zeros(128, np.float32)
    return Case({"a_ptr": a, "b_ptr": b, "out_j_ptr": z.copy(), "out_s_ptr": z[:64].copy(),
                 "out_i_ptr": z.copy(), "out_c_ptr": z.copy()}, (1,),
                ("out_j_ptr", "out_s_ptr", "out_i_ptr", "out_c_ptr"), rtol=1e-5, atol=1e-4)


def _join_ref(args):
    a, b = args["a_ptr"], args["b_ptr"]
    j = np.stack([a, b], -1).reshape(-1)
    return {"out_j_ptr": j, "out_s_ptr": b - a, "out_i_ptr": j,
            "out_c_ptr": np.full(128, a.sum() + b.sum(), np.float32)}


JOIN_SPLIT = kernel(
    join_split_interleave,
    {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_j_ptr": "*fp32", "out_s_ptr": "*fp32",
     "out_i_ptr": "*fp32", "out_c_ptr": "*fp32"},
    {"BLOCK": 64},
    """
    CHECK: "tt.join"({{.*}}) {{.*}}: (tensor<64xf32>, tensor<64xf32>) -> tensor<64x2xf32>
    CHECK: "tt.split"({{.*}}) {{.*}}: (tensor<64x2xf32>) -> (tensor<64xf32>, tensor<64xf32>)
    CHECK: "tt.join"
    CHECK: "tt.reshape"({{.*}}) {{.*}}: (tensor<64x2xf32>) -> tensor<128xf32>
    CHECK: "tt.cat"({{.*}}) {{.*}}: (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
    CHECK: "tt.reduce"
    """,
    make_case=_join_case, reference=_join_ref,
)


@triton.jit
def join_scalars(x_ptr, y_ptr, out_j_ptr, out_i_ptr, u, v):
    """Two loaded scalars joined and two scalar arguments interleaved: `tensor<2>`s whose
    halves lie in different lanes."""
    tl.store(out_j_ptr + tl.arange(0, 2), tl.join(tl.load(x_ptr), tl.load(y_ptr)))
    tl.store(out_i_ptr + tl.arange(0, 2), tl.interleave(u, v))


def _join_scalars_case(rng):
    x, y, u, v = (int(n) for n in rng.integers(-1000, 1000, 4))
    return Case({"x_ptr": np.array([x], np.int32), "y_ptr": np.array([y], np.int32),
                 "out_j_ptr": np.full(2, -7, np.int32), "out_i_ptr": np.full(2, -7, np.int32),
                 "u": u, "v": v}, (1,), ("out_j_ptr", "out_i_ptr"))


JOIN_SCALARS = kernel(
    join_scalars,
    {"x_ptr": "*i32", "y_ptr": "*i32", "out_j_ptr": "*i32", "out_i_ptr": "*i32", "u": "i32",
     "v": "i32"},
    {},
    """
    CHECK: "tt.join"({{.*}}) {{.*}}: (tensor<1xi32>, tensor<1xi32>) -> tensor<1x2xi32>
    """,
    make_case=_join_scalars_case,
    reference=lambda args: {"out_j_ptr": np.array([args["x_ptr"][0], args["y_ptr"][0]],
                                                  np.int32),
                            "out_i_ptr": np.array([args["u"], args["v"]], np.int32)},
)


@triton.jit
def interleave_2d(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    c = tl.interleave(a, b)                             # M x 2N
    out_offs = tl.arange(0, M)[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :]
    tl.store(out_ptr + out_offs, c)


def _interleave_case(rng):
    a = rng.standard_normal((4, 8)).astype(np.float32)
    b = rng.standard_normal((4, 8)).astype(np.float32)
    return Case({"a_ptr": a, "b_ptr": b, "out_ptr": np.zeros((4, 16), np.float32)}, (1,),
                ("out_ptr",))


def _interleave_ref(args):
    return {"out_ptr": np.stack([args["a_ptr"], args["b_ptr"]], -1).reshape(4, 16)}


INTERLEAVE_2D = kernel(
    interleave_2d, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32"}, {"M": 4, "N": 8},
    """
    CHECK: "tt.join"({{.*}}) {{.*}}: (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8x2xf32>
    CHECK: "tt.reshape"({{.*}}) {{.*}}: (tensor<4x8x2xf32>) -> tensor<4x16xf32>
    """,
    make_case=_interleave_case, reference=_interleave_ref,
)


@triton.jit
def expand_broadcast(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    col = tl.expand_dims(x, 1)                          # BLOCK x 1
    row = x.expand_dims(0)                              # 1 x BLOCK
    outer = tl.broadcast_to(col, (BLOCK, BLOCK)) * tl.broadcast_to(row, BLOCK, BLOCK)
    a, b = tl.broadcast(col, row)
    x3 = tl.expand_dims(outer + a - b, (0, 3))           # 1 x BLOCK x BLOCK x 1
    flat = tl.reshape(x3, (BLOCK * BLOCK,))
    tl.store(out_ptr + tl.arange(0, BLOCK * BLOCK), flat)


def _expand_case(rng):
    x = rng.standard_normal(16).astype(np.float32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(256, np.float32)}, (1,), ("out_ptr",))


def _expand_ref(args):
    x = args["x_ptr"]
    return {"out_ptr": (np.outer(x, x) + x[:, None] - x[None, :]).reshape(-1)}


EXPAND = kernel(
    expand_broadcast, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"BLOCK": 16},
    """
    CHECK: "tt.expand_dims"({{.*}}) {axis = 1 : i32}
    CHECK: "tt.expand_dims"({{.*}}) {axis = 0 : i32}
    CHECK: "tt.broadcast"({{.*}}) {{.*}}: (tensor<16x1xf32>) -> tensor<16x16xf32>
    CHECK: "tt.broadcast"({{.*}}) {{.*}}: (tensor<1x16xf32>) -> tensor<16x16xf32>
    CHECK: "tt.expand_dims"({{.*}}) {axis = 0 : i32} : (tensor<16x16xf32>) -> tensor<1x16x16xf32>
    CHECK: "tt.expand_dims"({{.*}}) {axis = 3 : i32} : (tensor<1x16x16xf32>) -> tensor<1x16x16x1xf32>
    """,
    make_case=_expand_case, reference=_expand_ref,
)


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    out = tl.gather(src, idx, axis=1)
    tl.store(out_ptr + offs, out)


def _gather_case(rng):
    src = rng.standard_normal((8, 16)).astype(np.float32)
    idx = rng.integers(0, 16, (8, 16)).astype(np.int32)
    return Case({"src_ptr": src, "idx_ptr": idx, "out_ptr": np.zeros((8, 16), np.float32)}, (1,),
                ("out_ptr",))


def _gather_ref(args):
    return {"out_ptr": np.take_along_axis(args["src_ptr"], args["idx_ptr"], axis=1)}


GATHER = kernel(
    gather_rows, {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32"}, {"M": 8, "N": 16},
    """
    CHECK: "tt.gather"({{.*}}) {axis = 1 : i32} : (tensor<8x16xf32>, tensor<8x16xi32>) -> tensor<8x16xf32>
    """,
    make_case=_gather_case, reference=_gather_ref,
)


@triton.jit
def histogram_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(x, BINS, mask=offs < n)
    tl.atomic_add(out_ptr + tl.arange(0, BINS), h)


def _hist_case(rng):
    x = rng.integers(0, 16, 256).astype(np.int32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(16, np.int32), "n": 200}, (1,), ("out_ptr",))


def _hist_ref(args):
    counts = np.bincount(args["x_ptr"][:args["n"]], minlength=16).astype(np.int32)
    return {"out_ptr": args["out_ptr"] + counts}


HISTOGRAM = kernel(
    histogram_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}, {"BLOCK": 256, "BINS": 16},
    """
    CHECK: "tt.histogram"({{.*}}) {{.*}}: (tensor<256xi32>, tensor<256xi1>) -> tensor<16xi32>
    CHECK: "tt.atomic_rmw"{{.*}}kind = "add"
    """,
    make_case=_hist_case, reference=_hist_ref,
)

KERNELS = [TILE_2D, RESHAPE_TRANS, JOIN_SPLIT, JOIN_SCALARS, INTERLEAVE_2D, EXPAND, GATHER, HISTOGRAM]
