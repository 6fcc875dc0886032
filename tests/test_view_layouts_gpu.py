"""Dot accumulators through view ops before their stores, on the GPU: halves split from
the accumulator (reshape, permute, split: registers only on sm_90) and two products
interleaved by `tl.join`, against torch in float64 at ragged sizes, outputs poisoned
first, compiled for sm_90 and for sm_80 (whose mma layout splits N across warps, so
the halves move through shared memory); and loaded tiles through view ops (pairs rotated,
summed, nibbles unpacked) at ragged row counts."""

import pytest
from view_kernels import (
    BLOCKED_VIEWS,
    TILE,
    flattened_scores,
    folded_halves,
    run_blocked_view,
    store_halves,
    store_interleaved,
    transposed_probabilities,
    transposed_scores,
)

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


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("m,n,k", SIZES)
def test_halves_summed_by_a_loop(m, n, k, arch):
    import torch

    a, b, ref = _operands(m, n, k)
    tiles, bn = _grid(m, n)[1], TILE["BLOCK_N"]
    c = torch.full((m, tiles * bn // 2), float("nan"), device="cuda", dtype=torch.float32)
    folded_halves[_grid(m, n)](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0),
                               **TILE, num_warps=4, num_stages=3, arch=arch)
    padded = torch.zeros(m, tiles * bn, dtype=torch.float64, device="cuda")
    padded[:, :n] = ref
    want = padded.reshape(m, tiles, 2, bn // 2).sum(2).reshape(m, -1)
    torch.testing.assert_close(c.double(), want, rtol=1e-4, atol=1e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("warps", [4, 8])
def test_scores_through_trans_and_reshape(arch, warps):
    """A dot's result transposed into another dot's A operand, flattened to 1-D, and
    transposed into a row reduction."""
    import torch

    bm, bn, d = 64, 128, 64
    q = torch.randn(bm, d, device="cuda", dtype=torch.float16)
    k = torch.randn(bn, d, device="cuda", dtype=torch.float16)
    v = torch.randn(bm, d, device="cuda", dtype=torch.float16)
    s = q.double() @ k.double().T
    meta = dict(BM=bm, BN=bn, D=d, num_warps=warps, arch=arch)

    o = torch.full((bn, d), float("nan"), device="cuda")
    transposed_probabilities[(1,)](q, k, v, o, **meta)
    p = torch.exp(s * 0.125).to(torch.float16).double()
    torch.testing.assert_close(o.double(), p.T @ v.double(), rtol=2e-3, atol=2e-2)

    flat = torch.full((bm * bn,), float("nan"), device="cuda")
    flattened_scores[(1,)](q, k, flat, **meta)
    torch.testing.assert_close(flat.double(), (2 * s).reshape(-1), rtol=1e-4, atol=1e-3)

    t = torch.full((bn, bm), float("nan"), device="cuda")
    transposed_scores[(1,)](q, k, t, **meta)
    want = s.T + s.T.sum(1, keepdim=True)
    torch.testing.assert_close(t.double(), want, rtol=1e-4, atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("n_rows", [37, 1000])
@pytest.mark.parametrize("name", sorted(BLOCKED_VIEWS))
def test_loaded_tiles_through_views(name, n_rows, arch):
    import torch

    torch.manual_seed(n_rows + arch)
    got, want = run_blocked_view(name, n_rows, "cuda", arch=arch)
    torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)
