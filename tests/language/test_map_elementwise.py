"""`tl.map_elementwise(fn, *args, pack=p)`: a @jit scalar function applied to each element
(p elements of each argument per call), branching per element. Values are checked in the
interpreter against numpy on random inputs (sizes not multiples of the block, a pack
that does not divide the block, a scalar argument broadcast, 2-D tensors); the compiled
kernels are checked on the CPU through PTX and ptxas for sm_90, and on the GPU by
GPU-marked tests."""

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl
from tritonc.compiler.errors import CompilationError


@triton.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def selu(X, Y, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, tl.map_elementwise(selu_scalar, x, alpha), mask=offs < n)


@triton.jit
def sign_of_difference(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def compare_rows(X, Y, Z, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    x = tl.load(X + rm * N + rn, mask=mask, other=0)
    y = tl.load(Y + rn, mask=rn < N, other=0)  # a row broadcast against x
    tl.store(Z + rm * N + rn, tl.map_elementwise(sign_of_difference, x, y), mask=mask)


@triton.jit
def divmod_packed(a0, a1, a2, b0, b1, b2):
    return a0 // b0, a1 // b1, a2 // b2, a0 % b0, a1 % b1, a2 % b2


@triton.jit
def divmod_pairs(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def divmod_one(a, b):
    return a // b, a % b


@triton.jit
def divmod_kernel(A, B, C, D, n, BLOCK: tl.constexpr, PACK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(A + offs, mask=offs < n, other=0)
    b = tl.load(B + offs, mask=offs < n, other=1)
    if PACK == 1:
        c, d = tl.map_elementwise(divmod_one, a, b)
    elif PACK == 2:
        c, d = tl.map_elementwise(divmod_pairs, a, b, pack=2)
    else:
        c, d = tl.map_elementwise(divmod_packed, a, b, pack=3)
    tl.store(C + offs, c, mask=offs < n)
    tl.store(D + offs, d, mask=offs < n)


@triton.jit
def three_of_four(a0, a1, b0, b1):
    return a0, a1, b0


@triton.jit
def bad_pack(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), tl.map_elementwise(three_of_four, x, x, pack=2))


def _selu(x: np.ndarray, alpha: float) -> np.ndarray:
    x64 = x.astype(np.float64)
    return np.where(x64 > 0, x64, alpha * np.expm1(np.minimum(x64, 0)))


def test_interpreter_branches_per_element(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    n, alpha = 300, 1.6732
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32) * 3
    y = np.full(n, np.nan, np.float32)
    selu[(triton.cdiv(n, 128),)](x, y, n, alpha, BLOCK=128)
    np.testing.assert_allclose(y, _selu(x, alpha), rtol=1e-6, atol=1e-6)


def test_interpreter_broadcasts_the_arguments(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    m, n = 19, 13
    g = np.random.default_rng(1)
    x = g.integers(-3, 4, (m, n)).astype(np.int32)
    y = g.integers(-3, 4, n).astype(np.int32)
    z = np.full((m, n), 7, np.int32)
    compare_rows[(triton.cdiv(m, 8),)](x, y, z, m, n, BM=8, BN=16)
    np.testing.assert_array_equal(z, np.sign(x.astype(np.int64) - y))


@pytest.mark.parametrize("pack", [1, 2, 3])
def test_interpreter_multiple_outputs_and_packs(pack, monkeypatch):
    """pack = 3 does not divide the block: the last group is partly filled."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    n = 100
    g = np.random.default_rng(pack)
    a = g.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = g.integers(1, 2**16, n).astype(np.uint32)
    c, d = np.zeros_like(a), np.zeros_like(a)
    divmod_kernel[(triton.cdiv(n, 64),)](a, b, c, d, n, BLOCK=64, PACK=pack)
    np.testing.assert_array_equal(c, a // b)
    np.testing.assert_array_equal(d, a % b)


def test_a_wrong_number_of_results_is_an_error():
    with pytest.raises(CompilationError, match="must return scalars, 2 for each result"):
        tritonc.compile(bad_pack, {"X": "*fp32", "Y": "*fp32"}, dict(BLOCK=64),
                        target="cuda:90")


def test_compiled_branches_stay_branches():
    k = tritonc.compile(selu, {"X": "*fp32", "Y": "*fp32", "n": "i32", "alpha": "fp32"},
                        dict(BLOCK=512), target="cuda:90", num_warps=4)
    assert '"tt.map_elementwise"' in k.asm["ttir"]
    assert "scf.if" in k.asm["ttir"]
    ptx = k.asm["ptx"]
    assert "ex2.approx" in ptx
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.parametrize("pack", [1, 2, 3])
def test_compiled_packs(pack):
    sig = {"A": "*u32", "B": "*u32", "C": "*u32", "D": "*u32", "n": "i32"}
    k = tritonc.compile(divmod_kernel, sig, dict(BLOCK=512, PACK=pack), target="cuda:90",
                        num_warps=4)
    ttir = k.asm["ttir"]
    assert f"pack = {pack} : i32" in ttir
    assert ttir.count("arith.divui") == pack
    # 512 elements on 128 threads: four quotients a thread, whatever the pack
    assert k.asm["ptx"].count("div.u32") == 4
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
def test_gpu_selu_and_divmod():
    import torch
    n, alpha = 3000, 1.6732
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32) * 3
    xt, yt = torch.from_numpy(x).cuda(), torch.full((n,), float("nan"), device="cuda")
    selu[(triton.cdiv(n, 512),)](xt, yt, n, alpha, BLOCK=512)
    np.testing.assert_allclose(yt.cpu().numpy(), _selu(x, alpha), rtol=1e-5, atol=1e-6)
    g = np.random.default_rng(6)
    a = g.integers(0, 2**31, n).astype(np.int32)
    b = g.integers(1, 2**16, n).astype(np.int32)
    for pack in (1, 2, 3):
        at, bt = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        ct, dt = torch.zeros_like(at), torch.zeros_like(at)
        divmod_kernel[(triton.cdiv(n, 512),)](at, bt, ct, dt, n, BLOCK=512, PACK=pack)
        np.testing.assert_array_equal(ct.cpu().numpy(), a // b)
        np.testing.assert_array_equal(dt.cpu().numpy(), a % b)
