"""fp8 dots with `max_num_imprecise_acc` on Hopper (wgmma, or mma.sync for a tile wgmma
does not take): each P columns of K are summed by the tensor cores into zeroed registers
and added to the accumulator in fp32, so the PTX holds
(BLOCK_M x BLOCK_N / threads) x (BLOCK_K / P) `add.f32` (Triton's count); without it the
wgmmas accumulate in place. On the GPU the result matches a float64 reference of the fp8
values, for ragged M, N and K."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tritonc
import tritonc.language as tl


@tritonc.jit
def fp8_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, IMPRECISE: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :],
                    mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_n[None, :] * K + (k + offs_k)[:, None],
                    mask=(offs_n[None, :] < N) & ((k + offs_k)[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=IMPRECISE)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _cdiv(x: int, y: int) -> int:
    return -(-x // y)


SIGNATURE = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp32", "M": "i32",
             "N": "i32", "K": "i32"}


def _compile(tiles, imprecise, num_warps):
    bm, bn, bk = tiles
    return tritonc.compile(fp8_matmul, SIGNATURE, dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                                       IMPRECISE=imprecise),
                           target="cuda:90", divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "K"},
                           num_warps=num_warps, num_stages=3)


# wgmma tiles (64 x 64 on 8 warps: the warpgroups split N), and a 32 x 64 tile, which
# mma.sync (m16n8k32) multiplies; each with every max_num_imprecise_acc up to its K (above
# it the dot is refused)
PTX_CASES = [(tiles, warps, imprecise)
             for tiles, warps in [((128, 256, 128), 8), ((64, 64, 64), 4), ((64, 64, 64), 8),
                                  ((32, 64, 64), 4)]
             for imprecise in (0, 32, 64, 128) if imprecise <= tiles[2]]


@pytest.mark.parametrize("tiles,num_warps,imprecise", PTX_CASES)
def test_partial_sums_are_added_in_fp32(tiles, num_warps, imprecise):
    ptx = _compile(tiles, imprecise, num_warps).asm["ptx"]
    bm, bn, bk = tiles
    per_thread = bm * bn // (32 * num_warps)
    wgmma = "wgmma.mma_async" in ptx
    assert ".e4m3.e4m3" in ptx and wgmma == (bm >= 64)
    if imprecise == 0:
        assert "add.f32" not in ptx
        if wgmma:
            assert "wgmma.wait_group.sync.aligned 1;" in ptx  # accumulates in place, in flight
    else:
        assert ptx.count("add.f32") == per_thread * (bk // imprecise)
        if wgmma:
            assert ptx.count("wgmma.commit_group") == bk // imprecise


@pytest.mark.gpu
@pytest.mark.parametrize("tiles,num_warps", [((128, 256, 128), 8), ((64, 64, 64), 8),
                                             ((32, 64, 64), 4)])
@pytest.mark.parametrize("imprecise", [0, 32, 64])
def test_fp8_matmul_matches_float64(tiles, num_warps, imprecise):
    if torch.cuda.get_device_capability()[0] < 9:  # (the gpu mark skips without a GPU)
        pytest.skip("the imprecise fp8 accumulation is Hopper's (sm_90); this GPU is older")
    m, n, k = 200, 300, 520
    gen = torch.Generator().manual_seed(imprecise)
    a = (torch.randn(m, k, generator=gen) * 0.5).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, generator=gen) * 0.5).to(torch.float8_e4m3fn)
    c = torch.full((m, n), float("nan"), device="cuda")
    bm, bn, bk = tiles
    fp8_matmul[(_cdiv(m, bm), _cdiv(n, bn))](
        a.cuda(), b.cuda(), c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        IMPRECISE=imprecise, num_warps=num_warps, num_stages=3)
    want = a.double() @ b.double().T
    # in place the tensor cores round the running sum; added in fp32 every P columns less
    atol = 5e-2 if imprecise == 0 else 1e-2
    np.testing.assert_allclose(c.cpu().double().numpy(), want.numpy(), rtol=1e-3, atol=atol)
