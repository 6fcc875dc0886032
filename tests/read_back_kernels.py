"""Dots whose operand tiles are converted on their way from memory: int8 weights
dequantized into fp16 (B row-major K x N, or column-major), and fp32 activations rounded
to fp16 for A. software-pipeline copies such tiles into the ring like any other and reads
them back into registers where they are loaded (`ttg.read_back`); for an mma.sync dot
whose conversions take only constants besides the tile, straight into the registers of
the dot's operand (read-back-operands).
"""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def dequant_matmul(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                   stride_bn, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, SCALE_IN_LOOP: tl.constexpr,
                   WRAP: tl.constexpr = False):
    """C = (A in fp16) @ (B int8 in fp16 * scale per column); A fp16 or fp32. The weights
    are scaled in the loop (in fp16, before the dot) or the product after it. With WRAP
    the tiles' rows and columns are taken `% M` and `% N`, as the matmul tutorial writes
    its offsets."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rows = offs_m % M if WRAP else offs_m
    cols = offs_n % N if WRAP else offs_n
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn
    scale = tl.load(scale_ptr + offs_n, mask=offs_n < N, other=0.0)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        if SCALE_IN_LOOP:
            acc = tl.dot(a.to(tl.float16), b.to(tl.float16) * scale[None, :], acc)
        else:
            acc = tl.dot(a.to(tl.float16), b.to(tl.float16), acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if not SCALE_IN_LOOP:
        acc = acc * scale[None, :].to(tl.float32)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def nibble_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  PER_WORD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    """C = A @ (B's 4-bit values - 8), B packed PER_WORD nibbles along K into each word
    (int32 words eight, int8 words two), K a multiple of BLOCK_K: the word tile's rows
    repeat in runs of PER_WORD (`offs_k // PER_WORD`), its columns are masked."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + (offs_k[:, None] // PER_WORD) * stride_bk + offs_n[None, :]
    shift = (offs_k % PER_WORD) * 4
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K // BLOCK_K):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        words = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0)
        b = ((words >> shift[:, None]) & 0xF) - 8
        acc = tl.dot(a, b.to(tl.float16), acc)
        a_ptrs += BLOCK_K
        b_ptrs += (BLOCK_K // PER_WORD) * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
