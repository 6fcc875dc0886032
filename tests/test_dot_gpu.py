"""tl.dot on the GPU against torch in float64: shapes with masks, every input type,
batched and transposed operands, and flash attention (causal or not, head_dim 64/128)."""

import pytest
from corpus.tutorials_nn import _attn_fwd

import tritonc as triton
import tritonc.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           PRECISION: tl.constexpr, OUT: tl.constexpr, IN_PLACE: tl.constexpr = False):
    """IN_PLACE: the dot accumulates in place, the form whose wgmma stays in flight."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=OUT)
    for k in range(0, tl.cdiv(K, BK)):
        ks = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * sam + ks[None, :] * sak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        b = tl.load(b_ptr + ks[:, None] * sbk + rn[None, :] * sbn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        if IN_PLACE:
            acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=OUT)
        else:
            acc += tl.dot(a, b, input_precision=PRECISION, out_dtype=OUT)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def while_matmul(a_ptr, b_ptr, c_ptr, M, N, K, step, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, COUNTED: tl.constexpr):
    """The K loop as a while loop, `while k < K`, the accumulator carried through it; k
    steps by BK (COUNTED: an scf.for to the compiler) or by the argument `step` (== BK)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k = 0
    while k < K:
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        if COUNTED:
            k += BK
        else:
            k += step
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def batched(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    z = tl.arange(0, 2)[:, None, None]
    m = tl.arange(0, M)[None, :, None]
    n = tl.arange(0, N)[None, None, :]
    k = tl.arange(0, K)
    a = tl.load(a_ptr + z * M * K + m * K + k[None, None, :])
    b = tl.load(b_ptr + z * K * N + k[None, :, None] * N + n)
    tl.store(c_ptr + z * M * N + m * N + n, tl.dot(a, b))


def relative_error(got, want) -> float:
    return ((got.double() - want).norm() / want.norm()).item()


CASES = [  # (dtype, input precision, tolerance, accumulator)
    ("float16", "ieee", 1e-3, "float32"), ("bfloat16", "ieee", 8e-3, "float32"),
    ("float32", "tf32", 2e-3, "float32"), ("float32", "ieee", 1e-6, "float32"),
    ("int8", "ieee", 0.0, "int32"), ("float16", "ieee", 1e-2, "float16"),
    # fp8 on sm_90 runs on wgmma, whose fp8 products accumulate with fewer bits than
    # fp32 (as Triton's and cuBLAS's fast accumulation do), into the accumulator in place
    # over the whole K (`acc += tl.dot(a, b)` is one dot): a relative error of 1.3e-4 at
    # K = 129; mma.sync's are exact
    ("float8_e4m3fn", "ieee", 3e-4, "float32"), ("float8_e5m2", "ieee", 3e-4, "float32")]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, precision, tol, acc", CASES)
@pytest.mark.parametrize("transposed", [False, True])
def test_matmul_with_masks(dtype, precision, tol, acc, transposed):
    import torch

    torch.manual_seed(0)
    m, n, k = 300, 257, 129
    kind = getattr(torch, dtype)
    if dtype == "int8":
        a = torch.randint(-8, 8, (m, k), device="cuda", dtype=kind)
        b = torch.randint(-8, 8, (k, n), device="cuda", dtype=kind)
        out_dtype, c = tl.int32, torch.full((m, n), -7, device="cuda", dtype=torch.int32)
    else:
        a = torch.randn(m, k, device="cuda").to(kind)
        b = torch.randn(k, n, device="cuda").to(kind)
        out_dtype = getattr(tl, acc)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=getattr(torch, acc))
    if transposed:  # operands read through transposed strides
        a = a.t().contiguous().t()
        b = b.t().contiguous().t()
    grid = (triton.cdiv(m, 64), triton.cdiv(n, 64))
    matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BM=64, BN=64, BK=32, PRECISION=precision,
                 OUT=out_dtype, num_warps=4)
    want = a.double() @ b.double()
    if dtype == "int8":
        assert torch.equal(c.cpu().long(), want.cpu().long())
    else:
        assert relative_error(c, want) <= tol


# (BM, BN, BK, warps, wgmma on sm_90): tiles of one m64nNk16 per warpgroup with every
# swizzle width of A (rows of 2 BK bytes) and B (2 BN bytes), one and two warpgroups, N up
# to 256; tiles of two and four per warpgroup (32 and 64 rows per warp); and tiles that
# stay on mma.sync (more accumulator registers than wgmma takes, fewer than 4 warps)
TILES = [(128, 128, 64, 8, True), (64, 256, 64, 4, True), (128, 64, 32, 8, True),
         (64, 128, 128, 4, True), (64, 32, 16, 4, True), (128, 128, 64, 4, True),
         (256, 64, 32, 4, True), (256, 128, 64, 8, True), (128, 256, 64, 4, False),
         (64, 64, 32, 2, False)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("bm, bn, bk, warps, wgmma", TILES)
def test_matmul_tiles(dtype, bm, bn, bk, warps, wgmma):
    import torch

    torch.manual_seed(2)
    m, n, k = 300, 272, 336  # row strides divisible by 16 (cp.async-able), sizes not by the tiles
    kind = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda").to(kind)
    b = torch.randn(k, n, device="cuda").to(kind)
    c = torch.full((m, n), float("nan"), device="cuda")
    args = (a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1))
    meta = dict(BM=bm, BN=bn, BK=bk, PRECISION="ieee", OUT=tl.float32, num_warps=warps,
                num_stages=3)
    matmul[(triton.cdiv(m, bm), triton.cdiv(n, bn))](*args, **meta)
    tol = 8e-3 if dtype == "bfloat16" else 1e-3
    assert relative_error(c, a.double() @ b.double()) <= tol
    if torch.cuda.get_device_capability() == (9, 0):  # wgmma: compiled for sm_90a
        assert (matmul.warmup(*args, **meta).metadata["ptx_arch"] == "90a") == wgmma


@pytest.mark.gpu
@pytest.mark.parametrize("k", [0, 40, 64, 120, 128])
@pytest.mark.parametrize("bm, bn, bk, warps", [(128, 128, 64, 4), (128, 256, 64, 8)])
def test_matmul_with_fewer_iterations_than_stages(k, bm, bn, bk, warps):
    """A pipelined wgmma loop of no, one or two iterations (fewer than its 3 stages): the
    result is the product, zeros when K is 0. With K a multiple of 16 both tiles ride the
    ring and the dot stays in flight; with 40 or 120, A's mask varies along its rows and
    it is stored by every iteration, so the dot waits for itself."""
    import torch

    torch.manual_seed(3)
    m, n = 300, 272
    a = torch.randn(m, 128, device="cuda").half()[:, :k]  # rows 16-byte aligned
    b = torch.randn(max(k, 1), n, device="cuda").half()[:k]
    c = torch.full((m, n), float("nan"), device="cuda")
    matmul[(triton.cdiv(m, bm), triton.cdiv(n, bn))](
        a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
        c.stride(1), BM=bm, BN=bn, BK=bk, PRECISION="ieee", OUT=tl.float32, IN_PLACE=True,
        num_warps=warps, num_stages=3)
    want = a.double() @ b.double()
    if k == 0:
        assert torch.equal(c, torch.zeros_like(c))
    else:
        assert relative_error(c, want) <= 1e-3


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("dtype", ["fp16", "fp8e4nv"])
def test_batched_dot_compiles(arch, dtype):
    """Pointer tiles of rank 3 straight into the dot (no wgmma: it takes two dims)."""
    sig = {"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": "*fp32"}
    kernel = triton.compile(batched, sig, dict(M=32, N=32, K=32), target=f"cuda:{arch}",
                            divisible_by_16=set(sig))
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    assert "wgmma" not in kernel.asm["ptx"]


WHILE_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
             "K": "i32", "step": "i32"}


def _while_matmul(arch: int, counted: bool):
    return triton.compile(while_matmul, WHILE_SIG, dict(BM=128, BN=128, BK=64, COUNTED=counted),
                          target=f"cuda:{arch}", num_warps=4,
                          divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "N", "K"})


@pytest.mark.parametrize("arch", [80, 90])
def test_a_counted_while_loop_is_pipelined(arch):
    """`while k < K: ...; k += BK` is a for loop to the compiler: its tiles go through
    the ring as a for loop's do."""
    kernel = _while_matmul(arch, counted=True)
    assert "scf.while" not in kernel.asm["ttgir"]
    assert "ttg.pipelined" in kernel.asm["ttgir"]
    assert kernel.metadata["ptxas"]["spill_stores"] == 0


@pytest.mark.parametrize("arch", [80, 90])
def test_a_while_loop_carries_the_accumulator_in_the_mma_layout(arch):
    """A while loop of a step known only at run time stays one; its accumulator is not
    converted in the loop (a trip through shared memory an iteration)."""
    ttgir = _while_matmul(arch, counted=False).asm["ttgir"]
    body = ttgir[ttgir.index("scf.while"):ttgir.index("scf.yield")]
    assert "tt.dot" in body
    assert not any("ttg.convert_layout" in line and "128x128xf32" in line
                   for line in body.splitlines())


@pytest.mark.gpu
@pytest.mark.parametrize("m, n, k", [(200, 136, 328), (64, 64, 16)])
@pytest.mark.parametrize("counted", [True, False])
def test_while_matmul(m, n, k, counted):
    import torch

    torch.manual_seed(k)
    a = torch.randn(m, k, device="cuda").half()
    b = torch.randn(k, n, device="cuda").half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    while_matmul[(triton.cdiv(m, 128), triton.cdiv(n, 128))](
        a, b, c, m, n, k, 64, BM=128, BN=128, BK=64, COUNTED=counted, num_warps=4)
    assert relative_error(c, a.double() @ b.double()) < 2e-3


@pytest.mark.gpu
def test_batched_dot():
    import torch

    a = torch.randn(2, 32, 16, device="cuda", dtype=torch.float16)
    b = torch.randn(2, 16, 32, device="cuda", dtype=torch.float16)
    c = torch.full((2, 32, 32), float("nan"), device="cuda")
    batched[(1,)](a, b, c, M=32, N=32, K=16)
    assert relative_error(c, a.double() @ b.double()) < 1e-3


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
# on sm_90: one wgmma per warpgroup, two (32 query rows per warp), mma.sync
@pytest.mark.parametrize("block_m, warps", [(64, 4), (128, 4), (64, 2)])
def test_flash_attention_forward(causal, head_dim, block_m, warps):
    import torch

    torch.manual_seed(1)
    z, h, n_ctx = 2, 3, 256
    q, k, v = (torch.randn(z, h, n_ctx, head_dim, device="cuda", dtype=torch.float16)
               for _ in range(3))
    sm_scale = 0.5
    out = torch.full_like(q, float("nan"))
    m = torch.empty(z * h, n_ctx, device="cuda")
    block_n = 32
    _attn_fwd[(n_ctx // block_m, z * h)](
        q, k, v, sm_scale, m, out, *q.stride(), *k.stride(), *v.stride(), *out.stride(),
        z, h, N_CTX=n_ctx, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n,
        STAGE=3 if causal else 1, num_warps=warps)
    scores = (q.double() @ k.double().transpose(-1, -2)) * sm_scale
    if causal:
        keep = torch.tril(torch.ones(n_ctx, n_ctx, device="cuda", dtype=torch.bool))
        scores = scores.masked_fill(~keep, float("-inf"))
    want = torch.softmax(scores, dim=-1) @ v.double()
    assert relative_error(out, want) < 5e-3


@triton.jit
def chained(x_ptr, y_ptr, w_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
            OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :])
    y = tl.load(y_ptr + rk[:, None] * N + rn[None, :])
    w = tl.load(w_ptr + rn[:, None] * N + rn[None, :])
    z = tl.dot(x, y, out_dtype=OUT)
    z = tl.dot(z.to(w.dtype), w, out_dtype=OUT)
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], z)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, acc", [("float16", "float16"), ("int8", "int32")])
@pytest.mark.parametrize("m, n, k, warps", [(64, 64, 64, 4), (128, 32, 32, 4),
                                            (32, 128, 64, 2), (128, 256, 32, 8)])
def test_chained_dots_with_tensor_core_accumulators(dtype, acc, m, n, k, warps):
    """fp16 accumulators and int8 operands (mma.sync into fp16 / int32): a dot whose
    result, cast back, is the A operand of a second dot."""
    import torch

    torch.manual_seed(3)
    if dtype == "int8":
        x, y = (torch.randint(-3, 4, s, device="cuda", dtype=torch.int8) for s in ((m, k), (k, n)))
        w = torch.randint(-1, 2, (n, n), device="cuda", dtype=torch.int8)
        z = torch.full((m, n), -7, device="cuda", dtype=torch.int32)
    else:
        x, y, w = (torch.randn(s, device="cuda").to(torch.float16) * 0.3
                   for s in ((m, k), (k, n), (n, n)))
        z = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    chained[(1,)](x, y, w, z, M=m, N=n, K=k, OUT=getattr(tl, acc), num_warps=warps)
    first = x.double() @ y.double()
    if dtype == "int8":  # the int32 products cast to int8 wrap
        want = first.long().to(torch.int8).double() @ w.double()
        assert torch.equal(z.long().cpu(), want.long().cpu())
    else:
        want = first.half().double() @ w.double()
        assert relative_error(z, want) < 1e-2


@triton.jit
def dot_softmax(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                OUT: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :])
    y = tl.load(y_ptr + rk[:, None] * N + rn[None, :])
    z = tl.dot(x, y, out_dtype=OUT).to(tl.float32)
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], z)
    p = tl.exp(z - tl.max(z, 1)[:, None])
    tl.store(z_ptr + M * N + rm[:, None] * N + rn[None, :], p / tl.sum(p, 1)[:, None])


@pytest.mark.gpu
@pytest.mark.parametrize("m, n, k, warps", [(16, 16, 16, 4), (32, 32, 128, 16),
                                            (16, 64, 32, 8), (32, 16, 64, 8)])
@pytest.mark.parametrize("dtype, acc", [("float16", "float32"), ("float16", "float16"),
                                        ("int8", "int32")])
def test_small_dots_with_more_warps_than_blocks(m, n, k, warps, dtype, acc):
    """Warps beyond the dot's 16 x 16 blocks hold copies of the accumulator: the product
    and a row softmax of it (reductions must not count the copies) against torch."""
    import torch

    torch.manual_seed(4)
    if dtype == "int8":
        x, y = (torch.randint(-4, 5, s, device="cuda", dtype=torch.int8) for s in ((m, k), (k, n)))
    else:
        x, y = (torch.randn(s, device="cuda").to(torch.float16) for s in ((m, k), (k, n)))
    z = torch.full((2, m, n), float("nan"), device="cuda")
    dot_softmax[(1,)](x, y, z, M=m, N=n, K=k, OUT=getattr(tl, acc), num_warps=warps)
    want = x.double() @ y.double()
    if dtype == "int8":
        assert torch.equal(z[0].double(), want)
    else:
        assert relative_error(z[0], want) < (1e-2 if acc == "float16" else 1e-3)
    soft = torch.softmax(z[0].double(), dim=1)  # of the kernel's own product
    assert (z[1].double() - soft).abs().max().item() < 1e-5
