"""flip on any axis, sort of one-element rows, topk, and dot on blocks below 16;
references from numpy."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit(interpret=True)
def flip3(X, Z, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr):
    offs = (tl.arange(0, A)[:, None, None] * B * C + tl.arange(0, B)[None, :, None] * C
            + tl.arange(0, C)[None, None, :])
    tl.store(Z + offs, tl.flip(tl.load(X + offs), DIM))


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3, None])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float16])
def test_flip_any_axis(dim, dtype):
    x = (np.random.default_rng(1).standard_normal((4, 8, 2)) * 50).astype(dtype)
    z = np.full_like(x, 7)
    flip3[(1,)](x, z, 4, 8, 2, dim)
    np.testing.assert_array_equal(z, np.flip(x, axis=-1 if dim is None else dim))


def test_flip_of_bools_and_unit_axis():
    x = np.random.default_rng(2).integers(0, 2, (4, 1, 2)).astype(bool)
    z = np.zeros_like(x)
    flip3[(1,)](x, z, 4, 1, 2, 1)
    np.testing.assert_array_equal(z, x)
    flip3[(1,)](x, z, 4, 1, 2, 0)
    np.testing.assert_array_equal(z, x[::-1])


@triton.jit(interpret=True)
def sort_or_topk(X, Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if K == 0:
        tl.store(Z + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :],
                 tl.sort(x, descending=DESC))
    else:
        tl.store(Z + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@pytest.mark.parametrize("m,n", [(1, 1), (8, 1), (1, 16)])
@pytest.mark.parametrize("desc", [False, True])
def test_sort_small_rows(m, n, desc):
    x = np.random.default_rng(3).standard_normal((m, n)).astype(np.float32)
    z = np.full_like(x, np.nan)
    sort_or_topk[(1,)](x, z, m, n, 0, desc)
    ref = np.sort(x, axis=1)
    np.testing.assert_array_equal(z, ref[:, ::-1] if desc else ref)


@pytest.mark.parametrize("m,n,k", [(4, 64, 8), (2, 16, 16), (8, 8, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_topk(m, n, k, dtype):
    rng = np.random.default_rng(4)
    x = (rng.permutation(m * n).reshape(m, n) - m * n // 2).astype(dtype)
    z = np.full((m, k), 99, dtype)
    sort_or_topk[(1,)](x, z, m, n, k, False)
    np.testing.assert_array_equal(z, -np.sort(-x, axis=1)[:, :k])


def test_topk_rejects_a_bad_k():
    x = np.zeros((2, 16), np.float32)
    with pytest.raises(triton.CompilationError, match="power of 2"):
        sort_or_topk[(1,)](x, np.zeros((2, 32), np.float32), 2, 16, 32, False)


@triton.jit(interpret=True)
def small_dot(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(A + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(B + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :],
             tl.dot(a, b, input_precision="ieee"))


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (2, 8, 4), (16, 1, 32)])
def test_dot_below_16_in_the_interpreter(m, n, k):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    small_dot[(1,)](a, b, c, m, n, k)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("arch", [80, 90])
def test_dot_below_16_compiles_to_multiply_adds(arch):
    kernel = triton.compile(small_dot, {"A": "*fp32", "B": "*fp32", "C": "*fp32"},
                            {"M": 2, "N": 8, "K": 4}, target=f"cuda:{arch}")
    assert "fma.rn.f32" in kernel.asm["ptx"] and kernel.asm["cubin"]


@triton.jit(interpret=True)
def running_sum_bf16(X, Z, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, offs < N, other=0.0)
    r = tl.cumsum(x, 0)
    tl.static_assert(r.dtype == tl.float32)
    tl.store(Z + offs, r, offs < N)


def test_cumsum_of_bf16_runs_in_fp32():
    """One rounding at the end, not one per step: a 1000-long running sum of bf16 values
    stays within fp32 accuracy of the float64 sum."""
    import torch

    x = torch.randn(1000, dtype=torch.float64).to(torch.bfloat16)
    z = torch.full((1000,), float("nan"), dtype=torch.float32)
    running_sum_bf16[(1,)](x, z, 1000, BLOCK=1024)
    want = torch.cumsum(x.double(), 0)
    assert torch.allclose(z.double(), want, rtol=0, atol=1e-4 * float(want.abs().max()))


@triton.jit(interpret=True)
def extremum_types(X8, X16, XB):
    offs = tl.arange(0, 16)
    a, b, c = tl.load(X8 + offs), tl.load(X16 + offs), tl.load(XB + offs)
    tl.static_assert(tl.max(a, 0).dtype == tl.int32)
    tl.static_assert(tl.min(b, 0).dtype == tl.float32)
    tl.static_assert(tl.max(c, 0).dtype == tl.float32)
    tl.static_assert(tl.max(b, 0, return_indices=True)[0].dtype == tl.float16)
    tl.static_assert(tl.cumsum(b, 0).dtype == tl.float16)


def test_max_and_min_widen_narrow_types_as_triton_does():
    import torch

    extremum_types[(1,)](torch.zeros(16, dtype=torch.int8), torch.zeros(16, dtype=torch.float16),
                         torch.zeros(16, dtype=torch.bfloat16))
