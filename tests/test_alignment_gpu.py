"""Accesses whose alignment the axis analysis must not overstate, compiled and run on the
GPU against torch: rows at odd strides (a vector load there would fault or read the
wrong elements) and stores through unaligned row strides in their own layout."""

import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit
def strided_rows(x_ptr, y_ptr, M, N, STRIDE: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * STRIDE + cols, mask=mask)
    tl.store(y_ptr + rows * N + cols, x + 1, mask=mask)


@pytest.mark.gpu
@pytest.mark.parametrize("stride", [17, 33, 20])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rows_at_a_constant_odd_stride(stride, dtype):
    import torch

    dt = getattr(torch, dtype)
    m, n = 77, 16
    x = torch.randn(m, stride, device="cuda").to(dt)
    y = torch.full((m, n), float("nan"), device="cuda", dtype=dt)
    strided_rows[(triton.cdiv(m, 32),)](x, y, m, n, STRIDE=stride, BLOCK_M=32, BLOCK_N=16)
    torch.testing.assert_close(y.double(), x[:, :n].double() + 1, rtol=1e-3, atol=1e-3)


@triton.jit
def bias_tanh(x_ptr, b_ptr, y_ptr, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=mask).to(tl.float32)
    b = tl.load(b_ptr + rn, mask=rn < N).to(tl.float32)
    h = x + b[None, :]
    y = 2 * tl.sigmoid(2 * h) - 1
    tl.store(y_ptr + rm[:, None] * stride_y + rn[None, :], y.to(y_ptr.dtype.element_ty),
             mask=mask)


@pytest.mark.gpu
@pytest.mark.parametrize("n,pad_x,pad_y", [(1000, 8, 0), (999, 0, 3), (4096, 8, 1)])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_store_through_an_unaligned_row_stride(n, pad_x, pad_y, dtype):
    import torch

    dt = getattr(torch, dtype)
    m = 45
    x = torch.randn(m, n + pad_x, device="cuda").to(dt)[:, :n]
    b = torch.randn(n, device="cuda").to(dt)
    y = torch.full((m, n + pad_y), float("nan"), device="cuda", dtype=dt)[:, :n]
    grid = (triton.cdiv(m, 16), triton.cdiv(n, 256))
    bias_tanh[grid](x, b, y, m, n, x.stride(0), y.stride(0), BLOCK_M=16, BLOCK_N=256)
    ref = torch.tanh(x.double() + b.double())
    torch.testing.assert_close(y.double(), ref, rtol=2e-3, atol=2e-3)
