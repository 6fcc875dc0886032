"""`tl.dot(..., input_precision="tf32x3")` on fp32 operands: the language layer splits each
operand into hi (the fp32 with its low 13 mantissa bits cleared, a tf32 value) and
lo = x - hi, and sums the tf32 dots lo @ hi + hi @ lo + hi @ hi in fp32. In the interpreter
the results are checked against float64 numpy (within tf32x3's error bound, far below
tf32's) and against the same split done independently in numpy; the compiled kernels use
the tf32 tensor cores, three dots per tile step, on sm_80 and sm_90."""

import numpy as np
import pytest
import torch
from test_dot_bf16_pieces import matmul  # the same masked K-loop matmul

import tritonc
import tritonc as triton

U = 2.0**-24  # fp32's unit roundoff
# |x @ y - dot| <= BOUND * (|x| @ |y|): |lo| < 2^-10 |x|, so lo @ lo (dropped) is below
# 2^-20 |x||y| and rounding lo to tf32 (11 significant bits) costs 2^-21 |x||y| in each
# cross product; the fp32 sums of the three dots add a few units of U
BOUND = 2.0**-20 + 2 * 2.0**-21 + 8 * U
TF32_MASK = np.uint32(0xFFFFE000)


def _operands(seed: int, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Normal values scaled over several binades, so the pieces differ in size."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, k)) * 2.0 ** rng.integers(-6, 6, (m, k))
    y = rng.standard_normal((k, n)) * 2.0 ** rng.integers(-6, 6, (k, n))
    return x.astype(np.float32), y.astype(np.float32)


def _run(x: np.ndarray, y: np.ndarray, precision: str) -> np.ndarray:
    (m, k), n = x.shape, y.shape[1]
    z = np.full((m, n), np.nan, dtype=np.float32)
    matmul[(triton.cdiv(m, 32), triton.cdiv(n, 32))](x, y, z, m, n, k, BM=32, BN=32, BK=16,
                                                     P=precision)
    return z


def _relative_error(got: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    exact = x.astype(np.float64) @ y.astype(np.float64)
    scale = np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64)
    return np.abs(got - exact) / scale


def test_interpreter_within_the_precision_bound(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x, y = _operands(1, 50, 40, 70)
    x3 = _relative_error(_run(x, y, "tf32x3"), x, y).max()
    tf32 = _relative_error(_run(x, y, "tf32"), x, y).max()
    assert x3 <= BOUND
    assert tf32 > 100 * x3


def _tf32_round(x: np.ndarray) -> np.ndarray:
    """float32 to 11 significant bits, to nearest (ties to even), through frexp."""
    m, e = np.frexp(x.astype(np.float64))
    return np.ldexp(np.rint(np.ldexp(m, 11)), e - 11)


def test_interpreter_matches_the_split(monkeypatch):
    """lo @ hi + hi @ lo + hi @ hi from a numpy split (a bit mask, then the exact
    remainder, rounded to tf32 as the tensor cores take it), in float64: the interpreter
    differs only by the fp32 rounding of each dot."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x, y = _operands(2, 45, 37, 29)
    got = _run(x, y, "tf32x3")
    hx, hy = ((v.view(np.uint32) & TF32_MASK).view(np.float32) for v in (x, y))
    lx, ly = _tf32_round(x - hx), _tf32_round(y - hy)
    hx, hy = hx.astype(np.float64), hy.astype(np.float64)
    want = lx @ hy + hx @ ly + hx @ hy
    scale = np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64)
    assert (np.abs(got - want) / scale).max() <= 4 * U


def test_infinities_and_nans(monkeypatch):
    """inf - hi(inf) is NaN in the remainders: the small products are dropped there, and
    the infinity stays; a NaN input still makes its row NaN."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x, y = _operands(3, 20, 18, 33)
    y = np.abs(y)
    x[3, 5], x[7, 1], x[11, 30] = np.inf, -np.inf, np.nan
    got = _run(x, y, "tf32x3")
    assert got[3].tolist() == [np.inf] * 18 and got[7].tolist() == [-np.inf] * 18
    assert np.isnan(got[11]).all()
    rows = [r for r in range(20) if r not in (3, 7, 11)]
    assert _relative_error(got[rows], x[rows], y).max() <= BOUND


def test_fp16_operands_ignore_the_split():
    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "z_ptr": "*fp32", "M": "i32", "N": "i32",
           "K": "i32"}
    kernel = tritonc.compile(matmul, sig, dict(BM=64, BN=64, BK=32, P="tf32x3"),
                             target="cuda:90", num_warps=4)
    assert kernel.asm["ttir"].count('"tt.dot"') == 1


@pytest.mark.parametrize("arch", [80, 90])
def test_compiled_dots_take_the_tf32_tensor_cores(arch):
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "M": "i32", "N": "i32",
           "K": "i32"}
    kernel = tritonc.compile(matmul, sig, dict(BM=64, BN=64, BK=32, P="tf32x3"),
                             target=f"cuda:{arch}", num_warps=4)
    assert kernel.asm["ttir"].count('"tt.dot"') == 3
    ptx = kernel.asm["ptx"]
    if arch == 80:  # a 64 x 64 x 32 step on 4 warps: each warp's 16 x 64 rows in 16 x 8 x 8
        # tiles, and three dots each
        assert ptx.count("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 ") == 3 * 32
    else:  # one warpgroup: four m64n64k8 per dot
        assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 3 * 4
    assert "fma.rn.f32" not in ptx
    assert "and.b32" in ptx  # the mask that makes hi
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
def test_gpu_within_the_precision_bound():
    x, y = _operands(5, 100, 90, 75)
    xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    zt = torch.full((100, 90), float("nan"), device="cuda")
    matmul[(2, 2)](xt, yt, zt, 100, 90, 75, BM=64, BN=64, BK=32, P="tf32x3", num_warps=4)
    assert _relative_error(zt.cpu().numpy(), x, y).max() <= BOUND
