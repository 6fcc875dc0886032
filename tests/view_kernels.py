"""Kernels whose dot results go through view ops: C stored as two halves split from the
accumulator (as tutorial 09's subtiled epilogue), two products interleaved column by
column through `tl.join`, halves of each step's product summed by a loop, C stored whole
for comparison; attention-like scores transposed into another dot's A operand,
flattened to 1-D, and transposed into a row reduction; and loaded tiles taken apart and
put back by view ops (pairs rotated, pairs summed, nibbles unpacked)."""

from __future__ import annotations

import tritonc
import tritonc as triton
import tritonc.language as tl


@triton.jit
def _product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """A (M x K) @ B (K x N) over this program's BLOCK_M x BLOCK_N tile, fp32."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :],
                    mask=(offs_m[:, None] < M) & (k + offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :],
                    mask=(k + offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    return acc


@triton.jit
def store_halves(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B in fp16, each tile's left and right halves split from the accumulator."""
    acc = _product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BLOCK_M, BLOCK_N, BLOCK_K)
    left, right = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N // 2)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], left.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))
    cols += BLOCK_N // 2
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], right.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def store_interleaved(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, scale,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C (M x 2N, fp32) with C[:, 2j] = (A @ B)[:, j] and C[:, 2j + 1] = scale * (A @ B)[:, j]."""
    acc = _product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BLOCK_M, BLOCK_N, BLOCK_K)
    pairs = tl.reshape(tl.join(acc, acc * scale), (BLOCK_M, 2 * BLOCK_N))
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * 2 * BLOCK_N + tl.arange(0, 2 * BLOCK_N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], pairs,
             mask=(rows[:, None] < M) & (cols[None, :] < 2 * N))


@triton.jit
def store_whole(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B in fp16, each tile stored whole."""
    acc = _product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, BLOCK_M, BLOCK_N, BLOCK_K)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def folded_halves(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Per tile, the sum over K blocks of each block's product folded in half (left half
    plus right half), carried by the loop: C is M x (tiles * BLOCK_N / 2), fp32."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    total = tl.zeros((BLOCK_M, BLOCK_N // 2), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :],
                    mask=(offs_m[:, None] < M) & (k + offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :],
                    mask=(k + offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        part = tl.dot(a, b)
        left, right = tl.split(tl.permute(tl.reshape(part, (BLOCK_M, 2, BLOCK_N // 2)),
                                          (0, 2, 1)))
        total += left + right
    cols = tl.program_id(1) * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + cols[None, :], total,
             mask=offs_m[:, None] < M)


@triton.jit
def _scores(q_ptr, k_ptr, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    """Q (BM x D) @ K^T, K given as BN x D rows."""
    m, n, d = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, D)
    q = tl.load(q_ptr + m[:, None] * D + d[None, :])
    kt = tl.load(k_ptr + n[None, :] * D + d[:, None])
    return tl.dot(q, kt)


@triton.jit
def transposed_probabilities(q_ptr, k_ptr, v_ptr, o_ptr, BM: tl.constexpr, BN: tl.constexpr,
                             D: tl.constexpr):
    """O (BN x D) = exp(Q K^T / 8)^T @ V: the transposed scores as a dot's A operand."""
    p = tl.exp(_scores(q_ptr, k_ptr, BM, BN, D) * 0.125)
    m, n, d = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, D)
    v = tl.load(v_ptr + m[:, None] * D + d[None, :])
    o = tl.dot(tl.trans(p).to(tl.float16), v)
    tl.store(o_ptr + n[:, None] * D + d[None, :], o)


@triton.jit
def flattened_scores(q_ptr, k_ptr, o_ptr, BM: tl.constexpr, BN: tl.constexpr,
                     D: tl.constexpr):
    """2 Q K^T stored through a 1-D reshape."""
    flat = tl.reshape(_scores(q_ptr, k_ptr, BM, BN, D) * 2.0, (BM * BN,))
    tl.store(o_ptr + tl.arange(0, BM * BN), flat)


@triton.jit
def transposed_scores(q_ptr, k_ptr, o_ptr, BM: tl.constexpr, BN: tl.constexpr,
                      D: tl.constexpr):
    """O (BN x BM) = S^T + the row sums of S^T, S = Q K^T."""
    s = tl.trans(_scores(q_ptr, k_ptr, BM, BN, D))
    m, n = tl.arange(0, BM), tl.arange(0, BN)
    tl.store(o_ptr + n[:, None] * BM + m[None, :], s + tl.sum(s, axis=1)[:, None])


@triton.jit
def rotate_pairs(x_ptr, cos_ptr, sin_ptr, y_ptr, n_rows, D: tl.constexpr,
                 BLOCK_R: tl.constexpr):
    """Each pair (x[2i], x[2i+1]) of a row rotated by angle i: the loaded tile reshaped and
    split, the rotated halves joined and reshaped back."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    offs = rows[:, None] * D + tl.arange(0, D)[None, :]
    mask = rows[:, None] < n_rows
    a, b = tl.split(tl.reshape(tl.load(x_ptr + offs, mask=mask, other=0.0), (BLOCK_R, D // 2, 2)))
    c = tl.load(cos_ptr + tl.arange(0, D // 2))[None, :]
    s = tl.load(sin_ptr + tl.arange(0, D // 2))[None, :]
    y = tl.reshape(tl.join(a * c - b * s, a * s + b * c), (BLOCK_R, D))
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def pair_sums(x_ptr, y_ptr, n_rows, D: tl.constexpr, BLOCK_R: tl.constexpr):
    """y[r, i] = x[r, 2i] + x[r, 2i + 1]: a reduction over the last dim of a reshape."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mask = rows[:, None] < n_rows
    x = tl.load(x_ptr + rows[:, None] * D + tl.arange(0, D)[None, :], mask=mask, other=0.0)
    y = tl.sum(tl.reshape(x, (BLOCK_R, D // 2, 2)), 2)
    tl.store(y_ptr + rows[:, None] * (D // 2) + tl.arange(0, D // 2)[None, :], y, mask=mask)


@triton.jit
def unpack_nibbles(x_ptr, y_ptr, n_rows, D: tl.constexpr, BLOCK_R: tl.constexpr):
    """Each byte of x as two signed 4-bit values (low nibble first) minus 8, in fp16."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mask = rows[:, None] < n_rows
    packed = tl.load(x_ptr + rows[:, None] * D + tl.arange(0, D)[None, :], mask=mask, other=0)
    low = (packed & 15).to(tl.int32) - 8
    high = (packed >> 4).to(tl.int32) - 8
    y = tl.reshape(tl.join(low, high), (BLOCK_R, 2 * D)).to(tl.float16)
    tl.store(y_ptr + rows[:, None] * (2 * D) + tl.arange(0, 2 * D)[None, :], y, mask=mask)


BLOCKED_VIEWS = {"rotate_pairs": {"x_ptr": "*fp32", "cos_ptr": "*fp32", "sin_ptr": "*fp32",
                                  "y_ptr": "*fp32", "n_rows": "i32"},
                 "pair_sums": {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_rows": "i32"},
                 "unpack_nibbles": {"x_ptr": "*u8", "y_ptr": "*fp16", "n_rows": "i32"}}


def run_blocked_view(name: str, n_rows: int, device: str, **options):
    """Launch kernel `name` of `BLOCKED_VIEWS` on fresh random inputs of `n_rows` rows
    (D = 128, 16 rows a program), its output poisoned first; returns (output, its value
    in float64 computed by torch)."""
    import torch

    d, block_r = 128, 16
    grid = ((n_rows + block_r - 1) // block_r,)
    meta = dict(D=d, BLOCK_R=block_r, **options)
    if name == "unpack_nibbles":
        x = torch.randint(0, 256, (n_rows, d), dtype=torch.uint8, device=device)
        y = torch.full((n_rows, 2 * d), float("nan"), dtype=torch.float16, device=device)
        unpack_nibbles[grid](x, y, n_rows, **meta)
        nibbles = torch.stack([x & 15, x >> 4], -1).reshape(n_rows, 2 * d)
        return y, nibbles.double() - 8
    x = torch.randn(n_rows, d, device=device)
    if name == "pair_sums":
        y = torch.full((n_rows, d // 2), float("nan"), device=device)
        pair_sums[grid](x, y, n_rows, **meta)
        return y, x.double().reshape(n_rows, d // 2, 2).sum(-1)
    angle = torch.rand(d // 2, device=device) * 6.3
    cos, sin = angle.cos(), angle.sin()
    y = torch.full((n_rows, d), float("nan"), device=device)
    rotate_pairs[grid](x, cos, sin, y, n_rows, **meta)
    a, b = x.double()[:, 0::2], x.double()[:, 1::2]
    c, s = cos.double(), sin.double()
    return y, torch.stack([a * c - b * s, a * s + b * c], -1).reshape(n_rows, d)


def compile_blocked_view(name: str, arch: int):
    """Kernel `name` of `BLOCKED_VIEWS` compiled for sm_`arch` (D = 128, 16 rows, 4 warps)."""
    sig = BLOCKED_VIEWS[name]
    return tritonc.compile(KERNELS[name], sig, {"D": 128, "BLOCK_R": 16},
                           target=f"cuda:{arch}", divisible_by_16=set(sig) - {"n_rows"},
                           num_warps=4)


KERNELS = {"rotate_pairs": rotate_pairs, "pair_sums": pair_sums,
           "unpack_nibbles": unpack_nibbles, "store_halves": store_halves,
           "store_interleaved": store_interleaved,
           "store_whole": store_whole, "folded_halves": folded_halves,
           "transposed_probabilities": transposed_probabilities,
           "flattened_scores": flattened_scores, "transposed_scores": transposed_scores}
TILE = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)


def compile_ptx(name: str, arch: int) -> tuple[str, str]:
    """The TTGIR and PTX of kernel `name` for sm_`arch` (fp16 operands, 4 warps)."""
    fn = KERNELS[name]
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16",
           "c_ptr": "*fp32" if name in ("store_interleaved", "folded_halves") else "*fp16",
           **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
    if name == "store_interleaved":
        sig["scale"] = "fp32"
    k = tritonc.compile(fn, sig, TILE, target=f"cuda:{arch}",
                        divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "stride_am", "stride_bk",
                                         "stride_cm"}, num_warps=4, num_stages=3)
    return k.asm["ttgir"], k.asm["ptx"]
