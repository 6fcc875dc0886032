"""Layout conversions on the GPU against torch: transposes and permutes of 2-D and 3-D
tiles (fp32, fp16, int8; 16 to 128), reductions broadcast back onto their rows and
columns, dot results moved to blocked layouts and transposed, tiles loaded through
transposed block pointers, and expand_dims / broadcast chains. Inputs are random,
outputs poisoned, and the tensors are not multiples of the tiles (masked edges).

`TRITONC_PLANNED_CONVERSIONS=0` (with a fresh `TRITONC_CACHE_DIR`) runs the same tests
on the shared-memory path the planned conversions replace."""

import pytest

import tritonc as triton
import tritonc.language as tl

pytestmark = pytest.mark.gpu

DTYPES = ["float32", "float16", "int8"]
DEVICE = "cuda"


def random_tensor(shape, dtype: str):
    import torch

    if dtype == "int8":
        return torch.randint(-128, 128, shape, device=DEVICE, dtype=torch.int8)
    return torch.randn(shape, device=DEVICE).to(getattr(torch, dtype))


def poisoned(shape, dtype: str):
    import torch

    kind = getattr(torch, dtype)
    value = 77 if dtype in ("int8", "int32") else float("nan")
    return torch.full(shape, value, device=DEVICE, dtype=kind)


@triton.jit
def transpose_2d(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn,
                 BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    xt = tl.trans(x)  # BN x BM
    tl.store(y_ptr + rn[:, None] * sym + rm[None, :] * syn, xt,
             mask=(rn[:, None] < N) & (rm[None, :] < M))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bm, bn", [(16, 16), (32, 32), (64, 64), (128, 128), (16, 128),
                                    (128, 16), (32, 64), (64, 128)])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_trans_2d(dtype, bm, bn, num_warps):
    import torch

    torch.manual_seed(bm * 7 + bn)
    m, n = 3 * bm - 5, 2 * bn + 3
    x = random_tensor((m, n), dtype)
    y = poisoned((n, m), dtype)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    transpose_2d[grid](x, y, m, n, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                       BM=bm, BN=bn, num_warps=num_warps)
    assert torch.equal(y, x.t())


@triton.jit
def permute_3d(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
               P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * (B * C) + b * C + c)
    y = tl.permute(x, (P0, P1, P2))
    # y's dimension i is x's dimension P<i>; store it contiguously in that shape
    sizes = (A, B, C)
    d0 = tl.arange(0, sizes[P0])[:, None, None]
    d1 = tl.arange(0, sizes[P1])[None, :, None]
    d2 = tl.arange(0, sizes[P2])[None, None, :]
    tl.store(y_ptr + d0 * (sizes[P1] * sizes[P2]) + d1 * sizes[P2] + d2, y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 16, 32), (8, 32, 16), (2, 64, 64), (16, 8, 8)])
@pytest.mark.parametrize("perm", [(0, 2, 1), (2, 0, 1), (1, 2, 0), (2, 1, 0), (1, 0, 2)])
def test_permute_3d(dtype, shape, perm):
    import torch

    torch.manual_seed(sum(shape) + perm[0])
    x = random_tensor(shape, dtype)
    want = x.permute(*perm).contiguous()
    y = poisoned(want.shape, dtype)
    permute_3d[(1,)](x, y, *shape, *perm, num_warps=4)
    assert torch.equal(y, want)


@triton.jit
def centre_rows_and_columns(x_ptr, rows_ptr, cols_ptr, M, N, stride,
                            BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.0)
    row_max = tl.max(tl.where(mask, x, -float("inf")), axis=1)
    col_sum = tl.sum(x, axis=0)
    tl.store(rows_ptr + rm[:, None] * stride + rn[None, :], x - row_max[:, None], mask=mask)
    tl.store(cols_ptr + rm[:, None] * stride + rn[None, :], x * col_sum[None, :], mask=mask)


@pytest.mark.parametrize("bm, bn, num_warps", [(16, 64, 4), (32, 128, 4), (64, 32, 8),
                                               (128, 16, 4), (8, 256, 8)])
def test_reductions_broadcast_back(bm, bn, num_warps):
    import torch

    torch.manual_seed(bm + bn)
    m, n = 3 * bm + 1, bn - 3
    x = torch.randn(m, bn, device=DEVICE)
    rows, cols = poisoned((m, bn), "float32"), poisoned((m, bn), "float32")
    centre_rows_and_columns[(triton.cdiv(m, bm),)](x, rows, cols, m, n, x.stride(0),
                                                   BM=bm, BN=bn, num_warps=num_warps)
    xs = x[:, :n].double()
    want_rows = xs - xs.max(dim=1, keepdim=True).values
    blocks = [xs[i:i + bm] for i in range(0, m, bm)]
    want_cols = torch.cat([b * b.sum(dim=0, keepdim=True) for b in blocks])
    torch.testing.assert_close(rows[:, :n].double(), want_rows, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(cols[:, :n].double(), want_cols, rtol=1e-5, atol=1e-4)


@triton.jit
def dot_epilogue(a_ptr, b_ptr, c_ptr, ct_ptr, rs_ptr, M, N, K,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        ks = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)
    tl.store(ct_ptr + rn[:, None] * M + rm[None, :], tl.trans(acc),
             mask=(rn[:, None] < N) & (rm[None, :] < M))
    tl.store(rs_ptr + tl.program_id(1) * M + rm, tl.sum(acc, axis=1), mask=rm < M)


@pytest.mark.parametrize("bm, bn, bk, num_warps", [(64, 64, 32, 4), (128, 64, 32, 8),
                                                   (64, 128, 64, 4), (32, 32, 16, 4),
                                                   (128, 128, 32, 8)])
def test_dot_results_converted(bm, bn, bk, num_warps):
    import torch

    torch.manual_seed(bm + 2 * bn + bk)
    m, n, k = 2 * bm + 7, bn + 5, 3 * bk + 1
    a = torch.randn(m, k, device=DEVICE).half()
    b = torch.randn(k, n, device=DEVICE).half()
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    c, ct = poisoned((m, n), "float32"), poisoned((n, m), "float32")
    rs = poisoned((grid[1], m), "float32")
    dot_epilogue[grid](a, b, c, ct, rs, m, n, k, BM=bm, BN=bn, BK=bk, num_warps=num_warps)
    want = a.double() @ b.double()
    torch.testing.assert_close(c.double(), want, rtol=1e-3, atol=1e-2)
    torch.testing.assert_close(ct.double(), want.t(), rtol=1e-3, atol=1e-2)
    # program (i, j) sums the columns of its tile
    partial = torch.stack([want[:, j:j + bn].sum(dim=1) for j in range(0, n, bn)])
    torch.testing.assert_close(rs.double(), partial, rtol=1e-3, atol=5e-2)


@triton.jit
def block_pointer_transpose(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # x is N x M row-major, read as its M x N transpose: the tile's fast dimension is 0
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(1, M), offsets=(pm * BM, pn * BN),
                            block_shape=(BM, BN), order=(0, 1))
    tile = tl.load(src, boundary_check=(0, 1))
    dst = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pm * BM, pn * BN),
                            block_shape=(BM, BN), order=(1, 0))
    tl.store(dst, tile * 2 + 1, boundary_check=(0, 1))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("bm, bn", [(32, 32), (64, 64), (128, 32), (32, 128)])
def test_transposed_block_pointer_tiles(dtype, bm, bn):
    import torch

    torch.manual_seed(bm * bn)
    m, n = 2 * bm + 3, bn + 9
    x = random_tensor((n, m), dtype)
    y = poisoned((m, n), dtype)
    block_pointer_transpose[(triton.cdiv(m, bm), triton.cdiv(n, bn))](x, y, m, n, BM=bm, BN=bn,
                                                                      num_warps=4)
    torch.testing.assert_close(y.double(), x.t().double() * 2 + 1, rtol=1e-3, atol=1e-3)


@triton.jit
def outer_chain(u_ptr, v_ptr, w_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    u = tl.load(u_ptr + rm, mask=rm < M, other=0.0)
    v = tl.load(v_ptr + rn, mask=rn < N, other=0.0)
    w = tl.load(w_ptr + rn, mask=rn < N, other=0.0)
    outer = u[:, None] * v[None, :] + tl.trans(w[:, None] * tl.sum(u, axis=0))
    rows = tl.max(outer, axis=1)[:, None] - tl.min(outer, axis=0)[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], outer + rows,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("bm, bn", [(16, 32), (64, 64), (128, 16), (32, 128)])
def test_expand_dims_broadcast_chains(bm, bn):
    import torch

    torch.manual_seed(bm - bn)
    m, n = 2 * bm - 1, bn - 1
    u, v, w = (torch.randn(s, device=DEVICE) for s in (m, n, n))
    out = poisoned((m, n), "float32")
    outer_chain[(triton.cdiv(m, bm),)](u, v, w, out, m, n, BM=bm, BN=bn, num_warps=4)
    want = torch.empty(m, n, dtype=torch.float64, device=DEVICE)
    vv, ww = (torch.zeros(bn, dtype=torch.float64, device=DEVICE) for _ in range(2))
    vv[:n], ww[:n] = v.double(), w.double()
    for i in range(0, m, bm):
        uu = torch.zeros(bm, dtype=torch.float64, device=DEVICE)
        rows = min(bm, m - i)
        uu[:rows] = u[i:i + rows].double()
        o = uu[:, None] * vv[None, :] + (ww[:, None] * uu.sum()).t()
        o = o + o.max(dim=1, keepdim=True).values - o.min(dim=0, keepdim=True).values
        want[i:i + rows] = o[:rows, :n]
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-4)


@triton.jit
def scale_rows(x_ptr, y_ptr, x_stride, y_stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_stride + offs, mask=offs < n, other=0.0).to(tl.float32)
    y = x * tl.math.rsqrt(tl.sum(x * x, axis=0) / n)
    tl.store(y_ptr + row * y_stride + offs, y.to(y_ptr.dtype.element_ty), mask=offs < n)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n, block, num_warps", [(3000, 4096, 8), (781, 1024, 4),
                                                 (100, 128, 1), (1500, 2048, 16)])
def test_16_bit_rows_to_unaligned_stores(dtype, n, block, num_warps):
    """Rows of halves loaded eight per thread, stored one per thread to rows whose start
    is not known to be aligned: the exchange's loads are `ldmatrix` on sm_80 and up."""
    import torch

    torch.manual_seed(n)
    rows = 37
    x = random_tensor((rows, n + 9), dtype)[:, :n]
    y = poisoned((rows, n + 3), dtype)
    scale_rows[(rows,)](x, y, x.stride(0), y.stride(0), n, BLOCK=block, num_warps=num_warps)
    ref = x.double() * torch.rsqrt((x.double() ** 2).mean(1, keepdim=True))
    torch.testing.assert_close(y[:, :n].double(), ref, rtol=2e-2, atol=2e-2)
    assert torch.isnan(y[:, n:].float()).all()


@triton.jit
def row_stats_in_a_loop(x_ptr, y_ptr, rows_per_program, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, rows_per_program):
        row = tl.program_id(0) * rows_per_program + i
        x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + 2 * row, tl.sum(x, axis=0))
        tl.store(y_ptr + 2 * row + 1, tl.max(tl.where(offs < n, x, -float("inf")), axis=0))


@pytest.mark.parametrize("num_warps", [2, 8, 16])
def test_reductions_across_warps_back_to_back_in_a_loop(num_warps):
    """Each iteration reuses the reduction's shared memory twice: a write racing a slow
    warp's read of the previous use would give a wrong sum or maximum."""
    import torch

    torch.manual_seed(num_warps)
    programs, per, n = 53, 7, 3001
    x = torch.randn(programs * per, n, device=DEVICE)
    y = poisoned((programs * per, 2), "float32")
    row_stats_in_a_loop[(programs,)](x, y, per, n, BLOCK=4096, num_warps=num_warps)
    ref = torch.stack([x.double().sum(1), x.double().amax(1)], 1)
    torch.testing.assert_close(y.double(), ref, rtol=1e-4, atol=1e-3)
