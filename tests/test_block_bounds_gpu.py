"""Block-pointer and tensor-descriptor tiles that hang over every edge of their tensor:
offsets below zero and past the shape, along both dimensions, fp32 and fp16. What lies
outside reads as zero; each program copies its tile out whole, checked against numpy."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

pytestmark = pytest.mark.gpu

SHIFT_M, SHIFT_N = 3, 5  # each tile starts this far before its program's block


@triton.jit
def block_window(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (pm * BM - 3, pn * BN - 5),
                            (BM, BN), (1, 0))
    tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    rows = pm * BM + tl.arange(0, BM)
    cols = pn * BN + tl.arange(0, BN)
    tl.store(out_ptr + rows[:, None] * (tl.num_programs(1) * BN) + cols[None, :], tile)


@triton.jit
def descriptor_window(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_m, 1],
                                     block_shape=[BM, BN])
    tile = desc.load([pm * BM - 3, pn * BN - 5])
    rows = pm * BM + tl.arange(0, BM)
    cols = pn * BN + tl.arange(0, BN)
    tl.store(out_ptr + rows[:, None] * (tl.num_programs(1) * BN) + cols[None, :], tile)


def expected(x: np.ndarray, grid: tuple[int, int], bm: int, bn: int) -> np.ndarray:
    m, n = x.shape
    out = np.zeros((grid[0] * bm, grid[1] * bn), x.dtype)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            r = (i // bm) * bm - SHIFT_M + i % bm
            c = (j // bn) * bn - SHIFT_N + j % bn
            if 0 <= r < m and 0 <= c < n:
                out[i, j] = x[r, c]
    return out


@pytest.mark.parametrize("kernel", [block_window, descriptor_window], ids=["block", "desc"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("bm, bn, num_warps", [(16, 32, 1), (32, 64, 4), (64, 128, 8)])
def test_tiles_over_every_edge_read_zero_outside(kernel, dtype, bm, bn, num_warps):
    import torch

    torch.manual_seed(bm + bn)
    m, n = 2 * bm + 7, 3 * bn - 9
    stride = n + 8  # rows 16-byte aligned for descriptors, padded
    x = torch.randn(m, stride, device="cuda").to(getattr(torch, dtype))[:, :n]
    grid = (triton.cdiv(m, bm) + 1, triton.cdiv(n, bn) + 1)
    out = torch.full((grid[0] * bm, grid[1] * bn), float("nan"), device="cuda",
                     dtype=x.dtype)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))
    kernel[grid](x, out, m, n, x.stride(0), BM=bm, BN=bn, num_warps=num_warps)
    want = expected(x.cpu().numpy(), grid, bm, bn)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
