"""tl.dot with blocks below 16 in a dimension, compiled: the multiply-add path, on the GPU,
against torch in float64 (the interpreter's side is in tests/language/test_standard_ops.py)."""

import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    k = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b, input_precision="ieee"))


@pytest.mark.gpu
@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (2, 8, 4), (16, 32, 1), (4, 16, 32), (32, 2, 8)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_small_dot(M, N, K, dtype):
    import torch

    dt = getattr(torch, dtype)
    a = torch.randn(M, K, device="cuda").to(dt)
    b = torch.randn(K, N, device="cuda").to(dt)
    c = torch.full((M, N), float("nan"), device="cuda")
    small_dot[(1,)](a, b, c, M=M, N=N, K=K)
    ref = a.double() @ b.double()
    torch.testing.assert_close(c.double(), ref, rtol=1e-3 if dtype == "float16" else 1e-5,
                               atol=1e-3 if dtype == "float16" else 1e-5)
