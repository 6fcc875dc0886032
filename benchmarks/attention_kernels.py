"""Flash-attention forward written the other ways (the block-pointer one is
examples/fused_attention.py): with pointer arithmetic, and with tensor descriptors made
in the kernel or on the host. Same algorithm as Triton's tutorial 06: one block of
queries per program, online softmax over blocks of keys, causal (STAGE 3) or not
(STAGE 1). Q, K, V and Out
are contiguous (Z, H, N_CTX, HEAD_DIM); fp16 or bf16. Imported twice by the benchmarks
(tritonc, and Triton through the two import lines)."""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def _inner_ptr(acc, l_i, m_i, q, k_base, v_base, start_m, qk_scale, offs_m, offs_n, offs_d,
               BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
               STAGE: tl.constexpr, N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    # keys as HEAD_DIM x BLOCK_N (a transposed view), values as BLOCK_N x HEAD_DIM
    k_ptrs = k_base + offs_d[:, None] + (lo + offs_n[None, :]) * HEAD_DIM
    v_ptrs = v_base + (lo + offs_n[:, None]) * HEAD_DIM + offs_d[None, :]
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_ptrs)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * HEAD_DIM
        v_ptrs += BLOCK_N * HEAD_DIM
    return acc, l_i, m_i


@triton.jit
def attn_fwd_ptr(Q, K, V, sm_scale, Out, H, N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    if STAGE & 1:
        acc, l_i, m_i = _inner_ptr(acc, l_i, m_i, q, K + base, V + base, start_m, qk_scale,
                                   offs_m, offs_n, offs_d, BLOCK_M, HEAD_DIM, BLOCK_N,
                                   4 - STAGE, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _inner_ptr(acc, l_i, m_i, q, K + base, V + base, start_m, qk_scale,
                                   offs_m, offs_n, offs_d, BLOCK_M, HEAD_DIM, BLOCK_N, 2,
                                   N_CTX)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
             acc.to(Out.dtype.element_ty))


@triton.jit
def _inner_desc(acc, l_i, m_i, q, k_desc, v_desc, row0, start_m, qk_scale, offs_m, offs_n,
                BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                STAGE: tl.constexpr, N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = k_desc.load([row0 + start_n, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_desc(q_desc, k_desc, v_desc, o_desc, sm_scale, row0, N_CTX: tl.constexpr,
               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               STAGE: tl.constexpr):
    """The program's block of queries, through descriptors over the rows of Q, K, V and
    Out; its head's rows start at `row0`."""
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = q_desc.load([row0 + start_m * BLOCK_M, 0])
    if STAGE & 1:
        acc, l_i, m_i = _inner_desc(acc, l_i, m_i, q, k_desc, v_desc, row0, start_m, qk_scale,
                                    offs_m, offs_n, BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE,
                                    N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _inner_desc(acc, l_i, m_i, q, k_desc, v_desc, row0, start_m, qk_scale,
                                    offs_m, offs_n, BLOCK_M, HEAD_DIM, BLOCK_N, 2, N_CTX)
    acc = acc / l_i[:, None]
    o_desc.store([row0 + start_m * BLOCK_M, 0], acc.to(o_desc.dtype))


@triton.jit
def attn_fwd_desc(Q, K, V, sm_scale, Out, H, N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    rows = tl.num_programs(1) * N_CTX
    q_desc = tl.make_tensor_descriptor(Q, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(Out, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    _attn_desc(q_desc, k_desc, v_desc, o_desc, sm_scale, tl.program_id(1) * N_CTX, N_CTX,
               HEAD_DIM, BLOCK_M, BLOCK_N, STAGE)


@triton.jit
def attn_fwd_host_desc(q_desc, k_desc, v_desc, o_desc, sm_scale, N_CTX: tl.constexpr,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       STAGE: tl.constexpr):
    """Descriptors made on the host (`TensorDescriptor` over the (Z * H * N_CTX, HEAD_DIM)
    rows of Q, K, V and Out), as Triton's tutorial 06 passes them on Hopper."""
    _attn_desc(q_desc, k_desc, v_desc, o_desc, sm_scale, tl.program_id(1) * N_CTX, N_CTX,
               HEAD_DIM, BLOCK_M, BLOCK_N, STAGE)
