"""Kernels whose dot accumulators go through view ops before their stores: C stored as
two halves split from the accumulator (as tutorial 09's subtiled epilogue), two products
interleaved column by column through `tl.join`, and C stored whole for comparison."""

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


KERNELS = {"store_halves": store_halves, "store_interleaved": store_interleaved,
           "store_whole": store_whole}
TILE = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)


def compile_ptx(name: str, arch: int) -> tuple[str, str]:
    """The TTGIR and PTX of kernel `name` for sm_`arch` (fp16 operands, 4 warps)."""
    fn = KERNELS[name]
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16",
           "c_ptr": "*fp32" if name == "store_interleaved" else "*fp16",
           **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")}}
    if name == "store_interleaved":
        sig["scale"] = "fp32"
    k = tritonc.compile(fn, sig, TILE, target=f"cuda:{arch}",
                        divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "stride_am", "stride_bk",
                                         "stride_cm"}, num_warps=4, num_stages=3)
    return k.asm["ttgir"], k.asm["ptx"]
