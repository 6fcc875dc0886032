"""tl.dot on the GPU for every operand order and source, against torch in float64: A and
B row- or column-major through their strides, B loaded N x K and transposed (`.T`,
`tl.trans`), block pointers of either order, tensor descriptors made in the kernel and
on the host (TMA copies on sm_90, see tests/backend/test_tma_lowering.py); fp16 and bf16, and tf32
and fp8 e4m3 (on wgmma where both tiles run along K, else on mma.sync); tiles on wgmma
(sm_90) and on mma.sync; sizes that are not multiples of the tiles."""

import sys
from pathlib import Path

import pytest

import tritonc as triton

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import matmul_kernels as mk  # noqa: E402

# (A column-major, B column-major, how B is read: 0 a K x N tile, 1 `.T`, 2 `tl.trans`)
ORDERS = [(a, b, t) for a in (False, True) for b in (False, True) for t in (0, 1, 2)
          if t == 0 or b]
# (BM, BN, BK, warps): two warpgroups along M with N = 256 and 128, one warpgroup, two
# warpgroups splitting N (64 rows on 8 warps), two 64-row tiles per warpgroup (warps that
# split M and N on mma.sync), and four warpgroups, two along M and two along N
TILES = [(128, 256, 64, 8), (128, 128, 64, 8), (64, 128, 64, 4), (64, 128, 64, 8),
         (128, 128, 64, 4), (128, 256, 64, 16)]
SIZES = [(304, 272, 336), (300, 257, 129)]  # rows 16-byte aligned or not


# dtype, input_precision, BLOCK_K divided by: tf32 tiles take half the K (shared memory)
DTYPES = [("float16", "ieee", 1), ("bfloat16", "ieee", 1), ("float32", "tf32", 2),
          ("float8_e4m3fn", "ieee", 1)]
_TOLERANCE = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 5e-3, "float8_e4m3fn": 1e-3}


def _operands(m: int, n: int, k: int, dtype: str, a_col: bool, b_col: bool):
    import torch

    kind = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda").to(kind)
    b = torch.randn(k, n, device="cuda").to(kind)
    if a_col:
        a = a.t().contiguous().t()
    if b_col:
        b = b.t().contiguous().t()
    return a, b


def _check(c, a, b, dtype: str) -> None:
    want = a.float().double() @ b.float().double()  # the operands as stored
    err = ((c.double() - want).norm() / want.norm()).item()
    assert err <= _TOLERANCE[dtype], err


def _grid(m: int, n: int, bm: int, bn: int) -> tuple:
    return (triton.cdiv(m, bm) * triton.cdiv(n, bn),)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, precision, k_div", DTYPES)
@pytest.mark.parametrize("a_col, b_col, b_trans", ORDERS)
@pytest.mark.parametrize("bm, bn, bk, warps", TILES)
@pytest.mark.parametrize("size", SIZES)
def test_pointer_tiles_every_order(dtype, precision, k_div, a_col, b_col, b_trans, bm, bn,
                                   bk, warps, size):
    import torch

    torch.manual_seed(3)
    m, n, k = size
    a, b = _operands(m, n, k, dtype, a_col, b_col)
    c = torch.full((m, n), float("nan"), device="cuda")
    mk.matmul_ptr[_grid(m, n, bm, bn)](
        a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
        c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk // k_div, GROUP_M=8, B_TRANS=b_trans,
        PRECISION=precision, num_warps=warps, num_stages=3)
    _check(c, a, b, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, precision, k_div", DTYPES)
@pytest.mark.parametrize("a_col, b_col", [(False, False), (False, True), (True, False),
                                          (True, True)])
@pytest.mark.parametrize("bm, bn, bk, warps", TILES[:4])
def test_block_pointers_every_order(dtype, precision, k_div, a_col, b_col, bm, bn, bk, warps):
    import torch

    torch.manual_seed(4)
    m, n, k = SIZES[0]
    a, b = _operands(m, n, k, dtype, a_col, b_col)
    c = torch.full((m, n), float("nan"), device="cuda")
    mk.matmul_block_ptr[_grid(m, n, bm, bn)](
        a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
        c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk // k_div, GROUP_M=8,
        A_ORDER=(0, 1) if a_col else (1, 0), B_ORDER=(0, 1) if b_col else (1, 0),
        PRECISION=precision, num_warps=warps, num_stages=3)
    _check(c, a, b, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_tensor_descriptors(dtype):
    import torch

    torch.manual_seed(5)
    m, n, k = SIZES[0]
    a, b = _operands(m, n, k, dtype, False, False)
    c = torch.full((m, n), float("nan"), device="cuda")
    mk.matmul_descriptor[_grid(m, n, 128, 128)](
        a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0), c.stride(1), BLOCK_M=128,
        BLOCK_N=128, BLOCK_K=64, GROUP_M=8, PRECISION="ieee", num_warps=8, num_stages=3)
    _check(c, a, b, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, precision, k_div", DTYPES)
@pytest.mark.parametrize("b_trans", [0, 1])
@pytest.mark.parametrize("bm, bn, bk, warps", TILES[:4])
@pytest.mark.parametrize("size, stages", [((304, 272, 336), 3), ((300, 257, 144), 2),
                                          ((129, 48, 528), 4), ((64, 64, 0), 3)])
def test_host_tensor_descriptors(dtype, precision, k_div, b_trans, bm, bn, bk, warps, size,
                                 stages):
    """Row-major A; B row-major in K x N blocks or column-major in N x K blocks taken
    `.T`; with a ragged M, N and K (rows a multiple of 16 elements apart, so aligned
    descriptors and TMA on sm_90, except B's 257-element rows), and no K at all."""
    import torch

    from tritonc.tools.tensor_descriptor import TensorDescriptor

    torch.manual_seed(7)
    m, n, k = size
    bk //= k_div
    a, b = _operands(m, n, k, dtype, False, bool(b_trans))
    if k == 0:  # empty operands whose rows are 64 elements apart
        a = torch.empty(m, 64, device="cuda", dtype=a.dtype)[:, :0]
        b = torch.empty(n, 64, device="cuda", dtype=a.dtype)[:, :0].t() if b_trans else \
            torch.empty(0, n, device="cuda", dtype=a.dtype)
    c = torch.full((m, n), float("nan"), device="cuda")
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b.t(), [bn, bk]) if b_trans else \
        TensorDescriptor.from_tensor(b, [bk, bn])
    mk.matmul_host_descriptor[_grid(m, n, bm, bn)](
        a_desc, b_desc, c, m, n, k, c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=8, B_TRANS=b_trans, PRECISION=precision, num_warps=warps,
        num_stages=stages)
    if k == 0:
        assert (c == 0).all()
    else:
        _check(c, a, b, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, precision, k_div", DTYPES)
@pytest.mark.parametrize("b_trans", [0, 1])
@pytest.mark.parametrize("bm, bn, bk, warps", [(128, 128, 64, 4), (128, 256, 64, 8)])
@pytest.mark.parametrize("size, programs", [((304, 272, 336), 3), ((1000, 528, 208), 5)])
def test_persistent_descriptors(dtype, precision, k_div, b_trans, bm, bn, bk, warps, size,
                                programs):
    """The zoo's persistent kernel (its tile loop warp-specialized: a producer warpgroup
    fills the ring where it fits): row-major A, B either way, ragged M, N and K, a few
    programs each walking several tiles."""
    import torch

    torch.manual_seed(11)
    m, n, k = size
    a, b = _operands(m, n, k, dtype, False, bool(b_trans))
    c = torch.full((m, n), float("nan"), device="cuda")
    mk.matmul_persistent[(programs,)](
        a, b, c, m, n, k, a.stride(0), b.stride(1) if b_trans else b.stride(0), c.stride(0),
        c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk // k_div, GROUP_M=8,
        NUM_SMS=programs, B_TRANS=b_trans, PRECISION=precision, num_warps=warps,
        num_stages=3)
    _check(c, a, b, dtype)


@pytest.mark.gpu
def test_host_descriptors_of_unaligned_rows():
    """Rows 300 elements apart: the descriptors are not aligned, no CUtensorMap is made
    and the tiles are loaded without TMA."""
    import torch

    from tritonc.runtime import descriptors
    from tritonc.tools.tensor_descriptor import TensorDescriptor

    torch.manual_seed(8)
    m, n, k = 200, 136, 300
    a = torch.randn(m, k, device="cuda").half()
    b = torch.randn(k, n + 4, device="cuda").half()[:, :n]
    c = torch.full((m, n), float("nan"), device="cuda")
    a_desc, b_desc = TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor(
        b, list(b.shape), list(b.stride()), [64, 128])
    assert not descriptors.is_aligned(a_desc) and not descriptors.is_aligned(b_desc)
    mk.matmul_host_descriptor[_grid(m, n, 128, 128)](
        a_desc, b_desc, c, m, n, k, c.stride(0), c.stride(1), BLOCK_M=128, BLOCK_N=128,
        BLOCK_K=64, GROUP_M=8, B_TRANS=0, PRECISION="ieee", num_warps=8, num_stages=3)
    _check(c, a, b, "float16")


def _check_attention(out, q, k, v, causal: bool, dtype: str) -> None:
    """`out` against softmax(Q K^T / 2) V in float64, masked above the diagonal if
    `causal`."""
    import torch

    n_ctx = q.shape[2]
    scores = (q.double() @ k.double().transpose(-1, -2)) * 0.5
    if causal:
        keep = torch.tril(torch.ones(n_ctx, n_ctx, device="cuda", dtype=torch.bool))
        scores = scores.masked_fill(~keep, float("-inf"))
    want = torch.softmax(scores, dim=-1) @ v.double()
    err = ((out.double() - want).norm() / want.norm()).item()
    assert err < (1e-2 if dtype == "bfloat16" else 5e-3), err


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["attn_fwd_ptr", "attn_fwd_desc"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("block_m", [128, 64])
def test_attention_with_pointers_and_descriptors(kernel, dtype, head_dim, causal, block_m):
    """128 queries a program on 8 warps (the warpgroups along M), and 64 (the warpgroups
    split the columns of P V: A from registers, on wgmma at head_dim 128)."""
    import attention_kernels as ak
    import torch

    torch.manual_seed(6)
    z, h, n_ctx = 2, 3, 512
    q, k, v = (torch.randn(z, h, n_ctx, head_dim, device="cuda").to(getattr(torch, dtype))
               for _ in range(3))
    out = torch.full_like(q, float("nan"))
    getattr(ak, kernel)[(n_ctx // block_m, z * h)](
        q, k, v, 0.5, out, h, N_CTX=n_ctx, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=64,
        STAGE=3 if causal else 1, num_warps=8, num_stages=3)
    _check_attention(out, q, k, v, causal, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_with_host_descriptors(dtype, head_dim, causal):
    """Triton's tutorial 06 on Hopper: Q, K, V and Out as host descriptors over their
    rows (TMA copies of the keys and values on sm_90)."""
    import attention_kernels as ak
    import torch

    from tritonc.tools.tensor_descriptor import TensorDescriptor

    torch.manual_seed(9)
    z, h, n_ctx = 2, 3, 384
    q, k, v = (torch.randn(z, h, n_ctx, head_dim, device="cuda").to(getattr(torch, dtype))
               for _ in range(3))
    out = torch.full_like(q, float("nan"))
    blocks = ([128, head_dim], [64, head_dim], [64, head_dim], [128, head_dim])
    descs = [TensorDescriptor.from_tensor(t.reshape(-1, head_dim), b)
             for t, b in zip((q, k, v, out), blocks)]
    ak.attn_fwd_host_desc[(n_ctx // 128, z * h)](
        *descs, 0.5, N_CTX=n_ctx, HEAD_DIM=head_dim, BLOCK_M=128, BLOCK_N=64,
        STAGE=3 if causal else 1, num_warps=8, num_stages=3)
    _check_attention(out, q, k, v, causal, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [None, 80])
@pytest.mark.parametrize("k_rows", [True, False])
@pytest.mark.parametrize("block_n, warps", [(64, 8), (32, 4)])
def test_a_tile_two_dots_read_both_ways(arch, k_rows, block_n, warps):
    """dq = sum_j fp16(q @ k_j^T) @ k_j, each key block loaded once and read by both dots
    (directly and through tl.trans) from one ring buffer, against torch on the same
    roundings: keys stored one per row and one per column; compiled for the device (wgmma
    on sm_90) and for sm_80 (mma.sync reading the buffer through ldmatrix)."""
    import torch
    from two_reader_kernels import two_readers

    torch.manual_seed(block_n + k_rows)
    m, n, head = 256, 320, 64
    q = torch.randn(m, head, device="cuda").half()
    keys = torch.randn(n, head, device="cuda").half()
    k_arg = keys if k_rows else keys.t().contiguous()
    dq = torch.full((m, head), float("nan"), device="cuda")
    two_readers[(m // 128,)](q, k_arg, dq, n, k_arg.stride(0), BLOCK_M=128, BLOCK_N=block_n,
                             HEAD=head, K_ROWS=k_rows, num_warps=warps, num_stages=3,
                             arch=arch)
    want = torch.zeros(m, head, device="cuda", dtype=torch.float64)
    for j in range(0, n, block_n):
        block = keys[j:j + block_n].double()
        p = (q.double() @ block.t()).half().double()
        want += p @ block
    err = ((dq.double() - want).norm() / want.norm()).item()
    assert err <= 2e-3, err


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [None, 80])
@pytest.mark.parametrize("a_col, b_trans", [(False, 0), (False, 1), (True, 0)])
@pytest.mark.parametrize("bn, warps", [(128, 4), (256, 8)])
def test_extents_not_multiples_of_16_in_padded_rows(arch, a_col, b_trans, bn, warps):
    """M, N, K = 300, 257, 129 in rows padded to multiples of 16 elements: the masks along
    the contiguous dimensions (K for A and for B read N x K, M for a column-major A) end
    inside 16-byte copies, which read the masked prefix (src-size) and zero-fill the
    rest; on wgmma (the device) and mma.sync (sm_80), against float64."""
    import torch

    torch.manual_seed(bn + warps + 2 * a_col + b_trans)
    m, n, k = 300, 257, 129
    if a_col:
        a = torch.randn(k, 304, device="cuda").half()[:, :m].t()
    else:
        a = torch.randn(m, 144, device="cuda").half()[:, :k]
    if b_trans:
        b = torch.randn(n, 144, device="cuda").half()[:, :k].t()
    else:
        b = torch.randn(k, 272, device="cuda").half()[:, :n]
    c = torch.full((m, n), float("nan"), device="cuda")
    mk.matmul_ptr[_grid(m, n, 128, bn)](
        a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=128, BLOCK_N=bn,
        BLOCK_K=64, GROUP_M=8, B_TRANS=b_trans, PRECISION="ieee", num_warps=warps,
        num_stages=3, arch=arch)
    _check(c, a, b, "float16")
