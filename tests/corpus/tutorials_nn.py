"""Triton's layer norm (forward and backward) and fused attention (forward) tutorials."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel

# -- 05 layer norm -------------------------------------------------------------------------------


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # compute the mean
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # compute the variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # normalize and apply the linear transformation
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


M, N = 6, 200


def _ln_case(rng):
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return Case({"X": x, "Y": np.zeros((M, N), np.float32), "W": w, "B": b,
                 "Mean": np.zeros(M, np.float32), "Rstd": np.zeros(M, np.float32), "stride": N,
                 "N": N, "eps": 1e-5}, (M,), ("Y", "Mean", "Rstd"), rtol=1e-4, atol=1e-4)


def _ln_ref(args):
    x = args["X"].astype(np.float64)
    mean = x.mean(1)
    rstd = 1 / np.sqrt(x.var(1) + args["eps"])
    y = (x - mean[:, None]) * rstd[:, None] * args["W"] + args["B"]
    f = np.float32
    return {"Y": y.astype(f), "Mean": mean.astype(f), "Rstd": rstd.astype(f)}


LAYER_NORM_FWD = kernel(
    _layer_norm_fwd_fused,
    {"X": "*fp32", "Y": "*fp32", "W": "*fp32", "B": "*fp32", "Mean": "*fp32", "Rstd": "*fp32",
     "stride": "i32", "N": "i32", "eps": "fp32"},
    {"BLOCK_SIZE": 64},
    """
    CHECK: "tt.addptr"
    CHECK: scf.for {{.*}} -> (tensor<64xf32>) : i32
    CHECK: "tt.reduce"
    CHECK: arith.sitofp {{.*}} : i32 to f32
    CHECK: arith.divf {{.*}} : f32
    CHECK: scf.for
    CHECK: math.sqrt {{.*}} : f32
    CHECK: "tt.store"({{.*}}) {{.*}}: (!tt.ptr<f32, 1 : i32>, f32) -> ()
    CHECK: scf.for
    CHECK: "tt.store"
    """,
    make_case=_ln_case, reference=_ln_ref,
)


@triton.jit
def _layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    # partial dw/db of this row go to one of GROUP_SIZE_M buffers, guarded by a lock
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


def _ln_bwd_case(rng):
    group = 2
    x = rng.standard_normal((M, N)).astype(np.float32)
    dy = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.standard_normal(N).astype(np.float32)
    mean = x.mean(1).astype(np.float32)
    rstd = (1 / np.sqrt(x.var(1) + 1e-5)).astype(np.float32)
    return Case({"DX": np.zeros((M, N), np.float32), "DY": dy,
                 "DW": np.zeros((group, N), np.float32), "DB": np.zeros((group, N), np.float32),
                 "X": x, "W": w, "Mean": mean, "Rstd": rstd, "Lock": np.zeros(2 * group, np.int32),
                 "stride": N, "N": N}, (M,), ("DX", "DW", "DB"), rtol=1e-4, atol=1e-4)


def _ln_bwd_ref(args):
    x, dy, w = args["X"].astype(np.float64), args["DY"].astype(np.float64), args["W"]
    xhat = (x - args["Mean"][:, None]) * args["Rstd"][:, None]
    wdy = w * dy
    c1 = (xhat * wdy).sum(1, keepdims=True) / N
    c2 = wdy.sum(1, keepdims=True) / N
    dx = (wdy - (xhat * c1 + c2)) * args["Rstd"][:, None]
    group = args["DW"].shape[0]
    dw = np.stack([(dy * xhat)[g::group].sum(0) for g in range(group)])
    db = np.stack([dy[g::group].sum(0) for g in range(group)])
    f = np.float32
    return {"DX": dx.astype(f), "DW": dw.astype(f), "DB": db.astype(f)}


LAYER_NORM_BWD = kernel(
    _layer_norm_bwd_dx_fused,
    {"DX": "*fp32", "DY": "*fp32", "DW": "*fp32", "DB": "*fp32", "X": "*fp32", "W": "*fp32",
     "Mean": "*fp32", "Rstd": "*fp32", "Lock": "*i32", "stride": "i32", "N": "i32"},
    {"GROUP_SIZE_M": 2, "BLOCK_SIZE_N": 256},
    """
    CHECK: arith.remsi
    CHECK: "tt.reduce"
    CHECK: "tt.reduce"
    CHECK: "tt.store"
    CHECK: scf.while
    CHECK: "tt.atomic_cas"
    CHECK: scf.if {{.*}} -> (tensor<256xf32>, tensor<256xf32>)
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "xchg"
    CHECK: } else {
    CHECK: "tt.load"
    CHECK: "tt.barrier"
    """,
    make_case=_ln_bwd_case, reference=_ln_bwd_ref,
)


# -- 06 fused attention (forward) ----------------------------------------------------------------


# the kernel lives in examples/fused_attention.py (the demo and the benchmarks run it too)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from fused_attention import STRIDES as _STRIDES  # noqa: E402
from fused_attention import _attn_fwd  # noqa: E402

Z, H, N_CTX, HEAD_DIM = 1, 2, 64, 32


def _attn_case(rng):
    shape = (Z, H, N_CTX, HEAD_DIM)
    q, k, v = (rng.standard_normal(shape).astype(np.float16) * np.float16(0.5) for _ in range(3))
    # every tensor is contiguous (Z, H, N_CTX, HEAD_DIM)
    contiguous = (H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM, 1)
    strides = {name: contiguous[i % 4] for i, name in enumerate(_STRIDES)}
    return Case({"Q": q, "K": k, "V": v, "sm_scale": 0.5, "M": np.zeros((Z * H, N_CTX), np.float32),
                 "Out": np.zeros(shape, np.float16), **strides, "Z": Z, "H": H},
                (N_CTX // 32, Z * H), ("Out",), rtol=2e-2, atol=2e-2)


def _attn_ref(args):
    q, k, v = (args[n].astype(np.float32) for n in ("Q", "K", "V"))
    s = q @ k.transpose(0, 1, 3, 2) * args["sm_scale"]
    causal = np.tril(np.ones((N_CTX, N_CTX), bool))
    s = np.where(causal, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return {"Out": (p @ v).astype(np.float16)}


ATTENTION = kernel(
    _attn_fwd,
    {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32", "Out": "*fp16",
     **{s: "i32" for s in _STRIDES}, "Z": "i32", "H": "i32"},
    {"N_CTX": N_CTX, "HEAD_DIM": HEAD_DIM, "BLOCK_M": 32, "BLOCK_N": 32, "STAGE": 3},
    """
    CHECK: arith.extsi {{.*}} : i32 to i64
    CHECK: "tt.make_block_ptr"
    CHECK: "tt.load"({{.*}}) {{.*}}: (!tt.ptr<tensor<32x32xf16>, 1 : i32>) -> tensor<32x32xf16>
    CHECK: scf.for
    CHECK: "tt.dot"({{.*}}) {{.*}}: (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
    CHECK: math.exp2
    CHECK: "tt.dot"
    CHECK: "tt.advance"
    CHECK: scf.yield
    CHECK: scf.for
    CHECK: arith.cmpi sge
    CHECK: "tt.dot"
    CHECK: math.log2
    CHECK: "tt.store"({{.*}}) {boundary_check = array<i32>
    """,
    uses_dot=True, make_case=_attn_case, reference=_attn_ref,
)

KERNELS = [LAYER_NORM_FWD, LAYER_NORM_BWD, ATTENTION]
