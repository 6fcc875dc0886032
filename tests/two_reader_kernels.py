"""A tile two dots read, one directly and one through `tl.trans` (the loops of attention's
backward): dq = sum_j fp16(q @ k_j^T) @ k_j over blocks k_j of BLOCK_N keys, each block
loaded once as kT (HEAD x BLOCK_N) and read as B of q @ kT and, transposed, as B of
p @ kT^T. `K_ROWS`: the keys are stored one per row (kT is a transposed view, running
along its first dimension), else one per column (kT runs along its rows)."""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def two_readers(q_ptr, k_ptr, dq_ptr, n_keys, stride_k, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, HEAD: tl.constexpr, K_ROWS: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(q_ptr + offs_m[:, None] * HEAD + offs_d[None, :])
    if K_ROWS:
        kt_ptrs = k_ptr + offs_n[None, :] * stride_k + offs_d[:, None]
        step = BLOCK_N * stride_k
    else:
        kt_ptrs = k_ptr + offs_d[:, None] * stride_k + offs_n[None, :]
        step = BLOCK_N
    dq = tl.zeros((BLOCK_M, HEAD), dtype=tl.float32)
    for _ in range(0, n_keys, BLOCK_N):
        kt = tl.load(kt_ptrs)
        p = tl.dot(q, kt).to(tl.float16)
        dq += tl.dot(p, tl.trans(kt))
        kt_ptrs += step
    tl.store(dq_ptr + offs_m[:, None] * HEAD + offs_d[None, :], dq)
