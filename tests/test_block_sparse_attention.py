"""Attention over a block-sparse list of key blocks, written as PyTorch's flex attention
template writes it: the loop body in a called function, and the next key block's offset
read from an index table inside the loop. The software pipeliner copies the key and value
tiles of later iterations ahead, evaluating the index loads of those iterations (only
for iterations that run); on sm_90, 128 query rows on 4 warps are two wgmmas per
warpgroup. Checked against a float64 torch reference: in the interpreter on CI, compiled
for sm_80/sm_90 on CI, and on the GPU."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit
def _next_offset(it, indices, count, SPARSE: tl.constexpr, MULT: tl.constexpr,
                 BLOCK_N: tl.constexpr):
    here = it // MULT
    block = tl.load(indices + here, eviction_policy="evict_last")
    following = tl.load(indices + here + 1, mask=here + 1 < count, eviction_policy="evict_last")
    jump = (it + 1) % MULT == 0
    return (following - block) * SPARSE * jump + (1 - jump) * BLOCK_N - \
        jump * (MULT - 1) * BLOCK_N


@triton.jit
def _attend(q, k_base, v_base, acc, l_i, m_i, offs_m, offs_n, start, stride,
            BLOCK_N: tl.constexpr, D: tl.constexpr):
    rows = start + tl.arange(0, BLOCK_N)
    cols = tl.arange(0, D)
    k = tl.load(k_base + rows[:, None] * stride + cols[None, :])
    scores = tl.dot(q, tl.trans(k)) * 0.125
    scores = tl.where(offs_m[:, None] >= offs_n[None, :], scores, float("-inf")) * 1.44269504
    m_new = tl.maximum(m_i, tl.max(scores, 1))
    alpha = tl.math.exp2(m_i - m_new)
    p = tl.math.exp2(scores - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, 1)
    v = tl.load(v_base + rows[:, None] * stride + cols[None, :])
    acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
    return acc, l_i, m_new


@triton.jit
def block_sparse_attention(Q, K, V, Out, kv_count, kv_index, stride, n_ctx,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr,
                           SPARSE: tl.constexpr):
    qb = tl.program_id(0)
    offs_m = qb * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * stride + cols[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    indices = kv_index + qb * (n_ctx // SPARSE)
    count = tl.load(kv_count + qb)
    first = tl.load(indices) * SPARSE
    MULT: tl.constexpr = SPARSE // BLOCK_N
    offs_n = first + tl.arange(0, BLOCK_N)
    start = first
    for it in range(0, count * MULT):
        acc, l_i, m_i = _attend(q, K, V, acc, l_i, m_i, offs_m, offs_n, start, stride,
                                BLOCK_N, D)
        offset = _next_offset(it, indices, count, SPARSE, MULT, BLOCK_N)
        offs_n += offset
        start += offset
    tl.store(Out + offs_m[:, None] * stride + cols[None, :], (acc / l_i[:, None]).to(tl.float16))


def _problem(n_ctx: int, d: int, sparse: int, seed: int):
    """Queries, keys, values and each query block's increasing list of key blocks (a
    random subset of the blocks at or before it, always with its own)."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n_ctx, d)).astype(np.float16) for _ in range(3))
    blocks = n_ctx // sparse
    index = np.full((blocks, blocks), -7, dtype=np.int32)  # padding never read
    count = np.zeros(blocks, dtype=np.int32)
    for b in range(blocks):
        chosen = sorted({*rng.choice(b + 1, size=rng.integers(1, b + 2), replace=False), b})
        index[b, :len(chosen)] = chosen
        count[b] = len(chosen)
    return q, k, v, count, index


def _reference(q, k, v, count, index, sparse: int):
    import torch

    n = q.shape[0]
    keep = torch.zeros(n, n, dtype=torch.bool)
    for b in range(len(count)):
        for kb in index[b, :count[b]]:
            keep[b * sparse:(b + 1) * sparse, kb * sparse:(kb + 1) * sparse] = True
    keep &= torch.tril(torch.ones(n, n, dtype=torch.bool))
    scores = torch.from_numpy(q).double() @ torch.from_numpy(k).double().T * 0.125
    probs = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
    return (probs @ torch.from_numpy(v).double()).numpy()


def test_interpreter_matches_the_reference(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    n_ctx, d, sparse = 192, 32, 64
    q, k, v, count, index = _problem(n_ctx, d, sparse, seed=3)
    out = np.full_like(q, np.nan)
    block_sparse_attention[(n_ctx // sparse,)](q, k, v, out, count, index, d, n_ctx,
                                               BLOCK_M=sparse, BLOCK_N=32, D=d, SPARSE=sparse)
    np.testing.assert_allclose(out, _reference(q, k, v, count, index, sparse), atol=2e-2)


SIGNATURE = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "kv_count": "*i32",
             "kv_index": "*i32", "stride": "i32", "n_ctx": "i32"}


@pytest.mark.parametrize("arch", [80, 90])
def test_key_and_value_tiles_join_the_cp_async_ring(arch):
    """The key and value tiles come by 16-byte cp.async (the ring's prologue and the
    loop), none through registers (only the index table and the queries are loaded), and
    on sm_90 each dot is wgmma."""
    k = triton.compile(block_sparse_attention, SIGNATURE,
                       dict(BLOCK_M=128, BLOCK_N=64, D=64, SPARSE=128), target=f"cuda:{arch}",
                       num_warps=4, num_stages=3, divisible_by_16=set(SIGNATURE))
    ptx = k.asm["ptx"]
    # 4 copies of 16 bytes per thread and tile, K and V, two iterations ahead and the loop
    assert ptx.count("cp.async.cg.shared.global") == 4 * 2 * 3
    loop = ptx[ptx.index("cp.async.wait_group"):]
    assert "ld.global.v4" not in loop
    assert ("wgmma.mma_async" in ptx) == (arch == 90)


@pytest.mark.gpu
@pytest.mark.parametrize("block_n", [64, 128])
def test_gpu_matches_the_reference(block_n):
    import torch

    n_ctx, d, sparse = 1024, 64, 128
    q, k, v, count, index = _problem(n_ctx, d, sparse, seed=5)
    dev = [torch.from_numpy(x).cuda() for x in (q, k, v, count, index)]
    out = torch.full((n_ctx, d), float("nan"), device="cuda", dtype=torch.float16)
    block_sparse_attention[(n_ctx // sparse,)](dev[0], dev[1], dev[2], out, dev[3], dev[4],
                                               d, n_ctx, BLOCK_M=128, BLOCK_N=block_n, D=d,
                                               SPARSE=sparse, num_warps=4, num_stages=3)
    np.testing.assert_allclose(out.cpu().numpy(), _reference(q, k, v, count, index, sparse),
                               atol=2e-2)
