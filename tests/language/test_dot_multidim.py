"""`tl.dot` over operands with any number of batch dimensions (the same leading dims on
both sides), and `tl.trans` without dims swapping the last two axes (a batched 2-D
transpose): against numpy in the interpreter, through ptxas for sm_90, and on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

import tritonc
import tritonc.language as tl


@tritonc.jit
def batched_dot(x_ptr, y_ptr, z_ptr, RANK: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                K: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr):
    batch: tl.constexpr = 1 << (RANK - 2)
    x = tl.load(x_ptr + tl.arange(0, batch * M * K)).reshape([2] * (RANK - 2) + [M, K])
    y = tl.load(y_ptr + tl.arange(0, batch * K * N)).reshape([2] * (RANK - 2) + [K, N])
    if TRANS_A:  # the loaded block holds A^T per batch
        x = tl.trans(x.reshape([2] * (RANK - 2) + [K, M]))
    if TRANS_B:
        y = tl.trans(y.reshape([2] * (RANK - 2) + [N, K]))
    z = tl.dot(x, y)
    tl.store(z_ptr + tl.arange(0, batch * M * N), z.reshape([batch * M * N]))


def _reference(x, y, rank, m, n, k, trans_a, trans_b):
    lead = (2,) * (rank - 2)
    a = x.reshape(lead + ((k, m) if trans_a else (m, k)))
    b = y.reshape(lead + ((n, k) if trans_b else (k, n)))
    a = np.swapaxes(a, -1, -2) if trans_a else a
    b = np.swapaxes(b, -1, -2) if trans_b else b
    return (a.astype(np.float64) @ b.astype(np.float64)).reshape(-1)


@pytest.mark.parametrize("rank", [2, 3, 4, 5])
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True)])
def test_batched_dots_in_the_interpreter(rank, trans_a, trans_b):
    rng = np.random.default_rng(rank)
    m, n, k = 16, 32, 16
    batch = 1 << (rank - 2)
    x = rng.integers(-4, 5, batch * m * k).astype(np.float32)
    y = rng.integers(-4, 5, batch * k * n).astype(np.float32)
    z = np.full(batch * m * n, np.nan, dtype=np.float32)
    kernel = tritonc.jit(interpret=True)(batched_dot.fn)
    kernel[(1,)](x, y, z, RANK=rank, M=m, N=n, K=k, TRANS_A=trans_a, TRANS_B=trans_b)
    np.testing.assert_array_equal(z, _reference(x, y, rank, m, n, k, trans_a, trans_b))


@pytest.mark.parametrize("rank", [4, 6])
def test_batched_dots_compile_through_ptxas(rank):
    sig = {"x_ptr": "*bf16", "y_ptr": "*bf16", "z_ptr": "*fp32"}
    kernel = tritonc.compile(batched_dot, sig, {"RANK": rank, "M": 32, "N": 32, "K": 32,
                                                "TRANS_A": True, "TRANS_B": True},
                             target="cuda:90", divisible_by_16=set(sig))
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


def test_mismatched_batch_dimensions_are_refused():
    @tritonc.jit
    def bad(x_ptr):
        a = tl.zeros([2, 16, 16], dtype=tl.float32)
        b = tl.zeros([4, 16, 16], dtype=tl.float32)
        tl.store(x_ptr + tl.arange(0, 16), tl.sum(tl.sum(tl.dot(a, b), 0), 0))

    with pytest.raises(tritonc.CompilationError, match="same leading dimensions"):
        tritonc.compile(bad, {"x_ptr": "*fp32"}, {}, target="ttir")


@pytest.mark.gpu
@pytest.mark.parametrize("rank", [2, 3, 4, 6])
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, True)])
def test_batched_dots_on_the_gpu(rank, trans_a, trans_b):
    import torch

    rng = np.random.default_rng(rank)
    m = n = k = 32
    batch = 1 << (rank - 2)
    x = rng.integers(-4, 5, batch * m * k).astype(np.float32)
    y = rng.integers(-4, 5, batch * k * n).astype(np.float32)
    z = torch.full((batch * m * n,), float("nan"), device="cuda")
    batched_dot[(1,)](torch.tensor(x, device="cuda").bfloat16(),
                      torch.tensor(y, device="cuda").bfloat16(), z, RANK=rank, M=m, N=n, K=k,
                      TRANS_A=trans_a, TRANS_B=trans_b)
    np.testing.assert_array_equal(z.cpu().numpy(), _reference(x, y, rank, m, n, k, trans_a,
                                                               trans_b))
