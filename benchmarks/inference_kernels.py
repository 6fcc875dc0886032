"""Kernels written the ways LLM-inference libraries write them: a weight-only int8 matmul
(dequantized in the loop), a GPTQ-style 4-bit weight matmul (nibbles unpacked by shifts),
fp8 matmul with row-wise scales, a SwiGLU matmul (two accumulators in one loop), a
mixture-of-experts matmul over sorted token ids (gathered A
rows, B an expert's N x K weight), rotary embeddings (halves by pointer arithmetic, and
interleaved pairs through reshape/split/join), split-KV decode attention for grouped
query heads (tl.dot with 16 rows) and its reduction, and a 3x3 convolution as an
implicit GEMM over NHWC.

The file is imported twice by benchmarks/inference.py (as it is, and with its two import
lines pointing at Triton), so both compilers see the same source. Every kernel masks its
ragged edges unless its comment says the launch keeps the sizes multiples of the block.
"""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def _tile_of(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """The (row, column) tile of program `pid` in the grouped order."""
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


# -- weight-only int8: fp16 activations, int8 weights K x N (or N x K, as nn.Linear holds them,
# through the strides), a scale per output column ------------------------------------------


@triton.jit
def matmul_w8a16(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_bn,
                 stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr):
    pid_m, pid_n = _tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0)
        acc = tl.dot(a, b.to(tl.float16), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    scale = tl.load(scale_ptr + offs_cn, mask=offs_cn < N, other=0.0)
    c = (acc * scale[None, :].to(tl.float32)).to(tl.float16)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], c,
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# -- 4-bit weights, GPTQ-style: eight nibbles along K packed in an int32, a scale and zero
# point per group of K rows and output column ----------------------------------------------


@triton.jit
def matmul_w4a16(a_ptr, b_ptr, scales_ptr, zeros_ptr, c_ptr, M, N, K, stride_am, stride_bk,
                 stride_cm, stride_g, group_size, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """K a multiple of BLOCK_K, and BLOCK_K of 8 and within one group."""
    pid_m, pid_n = _tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + (offs_k[:, None] // 8) * stride_bk + offs_bn[None, :]
    shifter = (offs_k % 8) * 4
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        g = k * BLOCK_K // group_size
        scales = tl.load(scales_ptr + g * stride_g + offs_bn)
        zeros = tl.load(zeros_ptr + g * stride_g + offs_bn)
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        b = (b >> shifter[:, None]) & 0xF
        b = (b.to(tl.float16) - zeros[None, :]) * scales[None, :]
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += (BLOCK_K // 8) * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc.to(tl.float16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# -- fp8 e4m3 A (M x K) times W^T (W: N x K), fp32 scales per row of A and per row of W ---------


@triton.jit
def matmul_fp8_rowwise(a_ptr, w_ptr, a_scale_ptr, w_scale_ptr, c_ptr, M, N, K, stride_am,
                       stride_wn, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = _tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_n[None, :] < N) & (offs_k[:, None] < k_left), other=0.0)
        acc = tl.dot(a, w, acc)
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    a_scale = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
    w_scale = tl.load(w_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
    c = acc * a_scale[:, None] * w_scale[None, :]
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], c.to(tl.bfloat16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# -- SwiGLU: silu(x @ W1) * (x @ W3), both products in one loop ---------------------------------


@triton.jit
def matmul_swiglu(x_ptr, w1_ptr, w3_ptr, out_ptr, M, N, K, stride_xm, stride_wk, stride_om,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid_m, pid_n = _tile_of(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_offs = offs_k[:, None] * stride_wk + offs_n[None, :]
    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k), other=0.0)
        w_mask = (offs_k[:, None] < K - k) & (offs_n[None, :] < N)
        w1 = tl.load(w1_ptr + w_offs, mask=w_mask, other=0.0)
        w3 = tl.load(w3_ptr + w_offs, mask=w_mask, other=0.0)
        gate = tl.dot(x, w1, gate)
        up = tl.dot(x, w3, up)
        x_ptrs += BLOCK_K
        w_offs += BLOCK_K * stride_wk
    h = gate * tl.sigmoid(gate) * up
    tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], h.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# -- mixture of experts: rows of A gathered by sorted token id, one expert's weight a block -----


@triton.jit
def moe_matmul(a_ptr, b_ptr, c_ptr, sorted_token_ids_ptr, expert_ids_ptr, num_tokens_padded,
               N, K, num_valid_tokens, stride_am, stride_be, stride_bn, stride_cm,
               TOP_K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C[slot] = A[slot // TOP_K] @ B[expert]^T for each routed (token, slot); the token
    ids are grouped by expert and padded to BLOCK_M with `num_valid_tokens`."""
    pid_m, pid_n = _tile_of(tl.program_id(0), num_tokens_padded, N, BLOCK_M, BLOCK_N, GROUP_M)
    if pid_m * BLOCK_M >= num_tokens_padded:
        return
    offs_token = tl.load(sorted_token_ids_ptr + pid_m * BLOCK_M + tl.arange(0, BLOCK_M))
    token_mask = offs_token < num_valid_tokens
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_token[:, None] // TOP_K) * stride_am + offs_k[None, :]
    expert = tl.load(expert_ids_ptr + pid_m)
    b_ptrs = b_ptr + expert * stride_be + offs_k[:, None] + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BLOCK_K),
                    other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_token[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=token_mask[:, None] & (offs_cn[None, :] < N))


# -- rotary embeddings on x: tokens x heads x HEAD_DIM, cos/sin: tokens x HEAD_DIM / 2 ----------


@triton.jit
def rotary_halves(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, stride_xt, stride_xh,
                  HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr):
    """NeoX style: the first half of each head rotates with the second."""
    t = tl.program_id(0)
    half: tl.constexpr = HEAD_DIM // 2
    offs_h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, half)
    mask = offs_h[:, None] < n_heads
    offs = t * stride_xt + offs_h[:, None] * stride_xh + offs_d[None, :]
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + offs + half, mask=mask, other=0.0).to(tl.float32)
    cos = tl.load(cos_ptr + t * half + offs_d)[None, :]
    sin = tl.load(sin_ptr + t * half + offs_d)[None, :]
    tl.store(out_ptr + offs, (x1 * cos - x2 * sin).to(tl.float16), mask=mask)
    tl.store(out_ptr + offs + half, (x2 * cos + x1 * sin).to(tl.float16), mask=mask)


@triton.jit
def rotary_interleaved(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, stride_xt, stride_xh,
                       HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr):
    """GPT-J style: pairs (2i, 2i+1) rotate together, taken apart by reshape and split and
    put back by join."""
    t = tl.program_id(0)
    half: tl.constexpr = HEAD_DIM // 2
    offs_h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    offs = t * stride_xt + offs_h[:, None] * stride_xh + tl.arange(0, HEAD_DIM)[None, :]
    mask = offs_h[:, None] < n_heads
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x1, x2 = tl.split(tl.reshape(x, (BLOCK_H, half, 2)))
    cos = tl.load(cos_ptr + t * half + tl.arange(0, half))[None, :]
    sin = tl.load(sin_ptr + t * half + tl.arange(0, half))[None, :]
    y = tl.join(x1 * cos - x2 * sin, x2 * cos + x1 * sin)
    tl.store(out_ptr + offs, tl.reshape(y, (BLOCK_H, HEAD_DIM)).to(tl.float16), mask=mask)


# -- split-KV decode attention, grouped query heads ---------------------------------------------


@triton.jit
def decode_attention_split(q_ptr, k_ptr, v_ptr, part_o_ptr, part_lse_ptr, seq_len, sm_scale,
                           stride_qb, stride_qh, stride_kb, stride_kt, stride_kh,
                           GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_G: tl.constexpr,
                           BLOCK_N: tl.constexpr, SPLITS: tl.constexpr):
    """One program per (batch, kv head, split): the GROUP query heads that share the kv
    head against the split's keys; writes the split's normalized output and log-sum-exp.
    q: B x H x D, k and v: B x T x H_kv x D (a cache), H = H_kv * GROUP."""
    b = tl.program_id(0)
    kv_head = tl.program_id(1)
    split = tl.program_id(2)
    offs_g = tl.arange(0, BLOCK_G)
    offs_d = tl.arange(0, HEAD_DIM)
    heads = kv_head * GROUP + offs_g
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + offs_d[None, :],
                mask=offs_g[:, None] < GROUP, other=0.0)
    per_split = tl.cdiv(tl.cdiv(seq_len, SPLITS), BLOCK_N) * BLOCK_N
    start = split * per_split
    end = tl.minimum(start + per_split, seq_len)
    m_i = tl.full((BLOCK_G,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_G,), tl.float32)
    acc = tl.zeros((BLOCK_G, HEAD_DIM), tl.float32)
    kv_base = b * stride_kb + kv_head * stride_kh
    qk_scale = sm_scale * 1.44269504
    for n in range(start, end, BLOCK_N):
        offs_n = n + tl.arange(0, BLOCK_N)
        kv_offs = kv_base + offs_n[:, None] * stride_kt + offs_d[None, :]
        k = tl.load(k_ptr + kv_offs, mask=offs_n[:, None] < end, other=0.0)
        v = tl.load(v_ptr + kv_offs, mask=offs_n[:, None] < end, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(offs_n[None, :] < end, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    row = (b * tl.num_programs(1) * GROUP + heads) * SPLITS + split
    tl.store(part_o_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None],
             mask=offs_g[:, None] < GROUP)
    tl.store(part_lse_ptr + row, m_i + tl.math.log2(l_i), mask=offs_g < GROUP)


@triton.jit
def decode_attention_reduce(part_o_ptr, part_lse_ptr, o_ptr, HEAD_DIM: tl.constexpr,
                            SPLITS: tl.constexpr):
    """One program per (batch, head): the splits' outputs weighted by their share of the
    log-sum-exp (base 2)."""
    row = tl.program_id(0)
    offs_s = tl.arange(0, SPLITS)
    lse = tl.load(part_lse_ptr + row * SPLITS + offs_s)
    w = tl.math.exp2(lse - tl.max(lse, 0))
    o = tl.load(part_o_ptr + (row * SPLITS + offs_s)[:, None] * HEAD_DIM
                + tl.arange(0, HEAD_DIM)[None, :])
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(o_ptr + row * HEAD_DIM + tl.arange(0, HEAD_DIM), out.to(tl.float16))


# -- 3x3 convolution, stride 1, padding 1, as an implicit GEMM over NHWC --------------------------


@triton.jit
def conv2d_nhwc(x_ptr, w_ptr, y_ptr, NB, H, W, C, K_OUT, R: tl.constexpr, S: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr):
    """y[n, p, q, k] = sum over (r, s, c) of x[n, p + r - 1, q + s - 1, c] w[r, s, c, k];
    one loop over R * S * C in BLOCK_K steps (the launch keeps C a multiple of BLOCK_K)."""
    M = NB * H * W
    pid_m, pid_n = _tile_of(tl.program_id(0), M, K_OUT, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    n = offs_m // (H * W)
    p = (offs_m // W) % H
    q = offs_m % W
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kk in range(0, R * S * C, BLOCK_K):
        rs = kk // C
        c = kk % C
        h = p + rs // S - 1
        w = q + rs % S - 1
        valid = (offs_m < M) & (h >= 0) & (h < H) & (w >= 0) & (w < W)
        x_rows = ((n * H + h) * W + w) * C + c
        a = tl.load(x_ptr + x_rows[:, None] + offs_k[None, :], mask=valid[:, None], other=0.0)
        b = tl.load(w_ptr + (kk + offs_k)[:, None] * K_OUT + offs_n[None, :],
                    mask=offs_n[None, :] < K_OUT, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(y_ptr + offs_m[:, None] * K_OUT + offs_n[None, :], acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < K_OUT))
