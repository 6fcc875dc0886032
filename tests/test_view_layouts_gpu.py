"""Dot accumulators through view ops before their stores, on the GPU: halves split from
the accumulator (reshape, permute, split: registers only on sm_90) and two products
interleaved by `tl.join`, against torch in float64 at ragged sizes, outputs poisoned
first, compiled for sm_90 and for sm_80 (whose mma layout splits N across warps, so
the halves move through shared memory)."""

import pytest
from view_kernels import TILE, store_halves, store_interleaved

SIZES = [(100, 72, 90), (64, 128, 32), (257, 200, 129)]


def _operands(m, n, k):
    import torch

    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    return a, b, a.double() @ b.double()


def _grid(m, n):
    return ((m + TILE["BLOCK_M"] - 1) // TILE["BLOCK_M"],
            (n + TILE["BLOCK_N"] - 1) // TILE["BLOCK_N"])


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("m,n,k", SIZES)
def test_halves_split_from_the_accumulator(m, n, k, arch):
    import torch

    a, b, ref = _operands(m, n, k)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    store_halves[_grid(m, n)](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0),
                              **TILE, num_warps=4, num_stages=3, arch=arch)
    torch.testing.assert_close(c.double(), ref, rtol=2e-3, atol=2e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("m,n,k", SIZES)
def test_products_interleaved_by_join(m, n, k, arch):
    import torch

    a, b, ref = _operands(m, n, k)
    c = torch.full((m, 2 * n), float("nan"), device="cuda", dtype=torch.float32)
    store_interleaved[_grid(m, n)](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0),
                                   -0.5, **TILE, num_warps=4, num_stages=3, arch=arch)
    torch.testing.assert_close(c[:, 0::2].double(), ref, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(c[:, 1::2].double(), -0.5 * ref, rtol=1e-4, atol=1e-3)
