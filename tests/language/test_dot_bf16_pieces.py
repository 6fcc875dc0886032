"""`tl.dot(..., input_precision="bf16x3" / "bf16x6")` on fp32 operands: the language layer
splits each operand into bf16 pieces and sums bf16 dots in fp32. In the interpreter the
results are checked against float64 numpy (within each precision's error bound) and
against the same split done independently with torch's bf16 rounding; the compiled
kernels use the bf16 tensor-core instructions on sm_80 and sm_90."""

import re

import numpy as np
import pytest
import torch

import tritonc
import tritonc as triton
import tritonc.language as tl

U = 2.0**-24  # fp32's unit roundoff
# |x @ y - dot| <= BOUND * (|x| @ |y|): bf16x3 drops mid*mid and every product with the
# remainder past mid (each <= 2^-16 of |x||y|); bf16x6 drops the products of order 2^-24
BOUND = {"bf16x3": 4 * 2.0**-16, "bf16x6": 8 * U}
# the pieces' products (piece indices, 0 = hi), as the precision sums them
PRODUCTS = {"bf16x3": [(0, 0), (1, 0), (0, 1)],
            "bf16x6": [(0, 0), (1, 1), (2, 0), (0, 2), (1, 0), (0, 1)]}


@triton.jit
def matmul(x_ptr, y_ptr, z_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr, P: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        y = tl.load(y_ptr + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc, input_precision=P)
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def one_dot(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
            P: tl.constexpr):
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + m[:, None] * K + k[None, :])
    y = tl.load(y_ptr + k[:, None] * N + n[None, :])
    tl.store(z_ptr + m[:, None] * N + n[None, :], tl.dot(x, y, input_precision=P))


def _operands(seed: int, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Normal values scaled over several binades, so the pieces differ in size."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k)) * 2.0 ** rng.integers(-6, 6, (m, k))
    y = rng.standard_normal((k, n)) * 2.0 ** rng.integers(-6, 6, (k, n))
    return x.astype(np.float32), y.astype(np.float32)


def _run(x: np.ndarray, y: np.ndarray, precision: str, block=(32, 32, 16)) -> np.ndarray:
    (m, k), n = x.shape, y.shape[1]
    z = np.full((m, n), np.nan, dtype=np.float32)
    bm, bn, bk = block
    matmul[(triton.cdiv(m, bm), triton.cdiv(n, bn))](x, y, z, m, n, k, BM=bm, BN=bn, BK=bk,
                                                     P=precision)
    return z


def _split_with_torch(x: np.ndarray, count: int) -> list[np.ndarray]:
    """hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid), rounded by torch."""
    rest, pieces = torch.from_numpy(x), []
    for _ in range(count):
        piece = rest.to(torch.bfloat16).to(torch.float32)
        pieces.append(piece.double().numpy())
        rest = rest - piece
    return pieces


@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_interpreter_within_the_precision_bound(precision, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x, y = _operands(1, 50, 40, 70)
    got = _run(x, y, precision)
    exact = x.astype(np.float64) @ y.astype(np.float64)
    scale = np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64)
    err = np.abs(got - exact) / scale
    assert err.max() <= BOUND[precision]
    if precision == "bf16x3":
        # the bf16 rounding is really there: coarser than an fp32 dot
        assert err.max() > 16 * U


@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_interpreter_matches_the_bf16_split(precision, monkeypatch):
    """The sum of the pieces' products, computed in float64 from torch's bf16 rounding of
    the same split: the interpreter differs only by the fp32 rounding of each dot."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    m, n, k = 24, 20, 16
    x, y = _operands(2, m, n, k)
    padded = np.full((32, 32), np.nan, dtype=np.float32)
    one_dot[(1,)](np.pad(x, ((0, 8), (0, 0))), np.pad(y, ((0, 0), (0, 12))), padded,
                  M=32, N=32, K=k, P=precision)
    z = padded[:m, :n]
    count = 1 + max(max(p) for p in PRODUCTS[precision])
    xs, ys = _split_with_torch(x, count), _split_with_torch(y, count)
    want = sum(xs[i] @ ys[j] for i, j in PRODUCTS[precision])
    scale = np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64)
    assert (np.abs(z - want) / scale).max() <= 4 * U


@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_infinities_and_nans(precision, monkeypatch):
    """inf - bf16(inf) is NaN in the remainders: the small products are dropped there, and
    the infinity stays; a NaN input still makes its row NaN."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x, y = _operands(3, 20, 18, 33)
    y = np.abs(y)
    x[3, 5], x[7, 1], x[11, 30] = np.inf, -np.inf, np.nan
    got = _run(x, y, precision)
    with np.errstate(invalid="ignore"):
        exact = x.astype(np.float64) @ y.astype(np.float64)
    assert got[3].tolist() == [np.inf] * 18 and got[7].tolist() == [-np.inf] * 18
    assert np.isnan(got[11]).all()
    rows = [r for r in range(20) if r not in (3, 7, 11)]
    scale = np.abs(x[rows]).astype(np.float64) @ y.astype(np.float64)
    assert (np.abs(got[rows] - exact[rows]) / scale).max() <= BOUND[precision]


def test_other_operand_types_ignore_the_split(monkeypatch):
    """fp64 dots multiply in fp64 (rounded once, to the fp32 result); fp16 dots are plain
    fp16 dots."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((16, 16)), rng.standard_normal((16, 16))
    z = np.zeros((16, 16), np.float32)
    one_dot[(1,)](x, y, z, M=16, N=16, K=16, P="bf16x3")
    np.testing.assert_allclose(z, x @ y, rtol=U, atol=0)
    kernel = tritonc.compile(one_dot, {"x_ptr": "*fp16", "y_ptr": "*fp16", "z_ptr": "*fp32"},
                             dict(M=16, N=16, K=16, P="bf16x6"), target="cuda:80")
    assert kernel.asm["ttir"].count('"tt.dot"') == 1
    assert "bf16" not in kernel.asm["ttir"]


def _compile(precision: str, arch: int):
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "M": "i32", "N": "i32",
           "K": "i32"}
    return tritonc.compile(matmul, sig, dict(BM=64, BN=64, BK=32, P=precision),
                           target=f"cuda:{arch}", num_warps=4)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_compiled_dots_take_the_bf16_tensor_cores(precision, arch):
    kernel = _compile(precision, arch)
    assert kernel.asm["ttir"].count('"tt.dot"') == len(PRODUCTS[precision])
    ptx = kernel.asm["ptx"]
    if arch == 80:
        mma = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        # a 64 x 64 x 32 step on 4 warps: each warp's 16 x 64 rows in 16 x 8 x 16 tiles
        assert ptx.count(mma + " ") == 16 * len(PRODUCTS[precision])
    else:
        mma = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
        assert ptx.count(mma + " ") == 2 * len(PRODUCTS[precision])  # K = 32: two k16
    assert re.search(r"(mma|wgmma.mma_async).sync.aligned.m\d+n\d+k16(.row.col)?.f32.bf16.bf16",
                     ptx)
    assert "tf32" not in ptx
    assert "cvt.rn.bf16x2.f32" in ptx or "cvt.rn.bf16.f32" in ptx
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["bf16x3", "bf16x6"])
def test_gpu_within_the_precision_bound(precision):
    x, y = _operands(5, 100, 90, 75)
    xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    zt = torch.full((100, 90), float("nan"), device="cuda")
    matmul[(2, 2)](xt, yt, zt, 100, 90, 75, BM=64, BN=64, BK=32, P=precision, num_warps=4)
    exact = x.astype(np.float64) @ y.astype(np.float64)
    scale = np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64)
    assert (np.abs(zt.cpu().numpy() - exact) / scale).max() <= BOUND[precision]
