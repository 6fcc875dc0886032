"""Kernels written in the styles users copy from Triton's tutorials and from libraries
built on it, beyond the plain tiles of the other zoos: persistent matmuls (pointer tiles
and tensor descriptors made in the kernel), a grouped GEMM over a table of pointers,
split-K with atomics, batched, skinny (decode) and int8 matmuls, a matmul with a fused
bias + activation epilogue, a matmul whose K loop is a while loop, layer norm backward
with a lock-protected partial reduction, flash-attention backward, seeded dropout and a
one-pass (online) softmax.

The file is imported twice by benchmarks/styles.py (as it is, and with its two import
lines pointing at Triton), so both compilers see the same source. Every kernel masks its
ragged edges unless its comment says the launch keeps the sizes multiples of the block.
"""

import tritonc as triton
import tritonc.language as tl

# -- persistent matmul, pointer tiles (tutorial 09) --------------------------------------------


@triton.jit
def _grouped_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M: tl.constexpr):
    """The (row, column) tile of `tile_id` in the grouped order: GROUP_M rows of tiles
    walked column by column, so a wave of programs shares A rows and B columns in L2."""
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    rows_in_group = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (tile_id % rows_in_group)
    pid_n = (tile_id % num_pid_in_group) // rows_in_group
    return pid_m, pid_n


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    """One program per SM walks the output tiles NUM_SMS apart; fp16 in, fp16 out. The
    K offsets are recomputed from `ki` every step, the M/N offsets clamped with `tl.where`
    (the store masks the clamped rows and columns)."""
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    k_lanes = tl.arange(0, BLOCK_K)
    # the epilogue keeps its own tile counter, as the tutorial does
    tile_id_c = start_pid - NUM_SMS
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _grouped_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
        offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=k_lanes[None, :] < K - ki * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=k_lanes[:, None] < K - ki * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _grouped_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_M)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, acc.to(tl.float16), mask=c_mask)


# -- persistent matmul, tensor descriptors made in the kernel (tutorial 09) ---------------------


@triton.jit
def matmul_persistent_descriptor(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                 GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
                                 EPILOGUE_SUBTILE: tl.constexpr,
                                 WARP_SPECIALIZE: tl.constexpr = False):
    """A (M x K), B given as N x K (a weight matrix) and used as `b.T`, C (M x N), all
    row-major fp16, through descriptors made here; the descriptors clip the ragged
    edges. EPILOGUE_SUBTILE stores C as two halves split from the accumulator;
    WARP_SPECIALIZE asks for the tile loop to be warp-specialized."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    if EPILOGUE_SUBTILE:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                           block_shape=[BLOCK_M, BLOCK_N // 2])
    else:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                           block_shape=[BLOCK_M, BLOCK_N])
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _grouped_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            off_k = ki * BLOCK_K
            a = a_desc.load([off_m, off_k])
            b = b_desc.load([off_n, off_k])
            acc = tl.dot(a, b.T, acc)
        if EPILOGUE_SUBTILE:
            halves = tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([off_m, off_n], left.to(tl.float16))
            c_desc.store([off_m, off_n + BLOCK_N // 2], right.to(tl.float16))
        else:
            c_desc.store([off_m, off_n], acc.to(tl.float16))


# -- grouped GEMM over a table of problems (tutorial 08) -----------------------------------------


@triton.jit
def grouped_matmul(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_sizes, group_lds,
                   group_count, NUM_SM: tl.constexpr, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Problem g: C_g (m x n) = A_g (m x k) @ B_g (k x n), fp16, row-major with leading
    dimensions lda, ldb, ldc; `group_sizes` holds (m, n, k) and `group_lds` (lda, ldb,
    ldc) per problem, the `group_*_ptrs` tables their addresses (int64). NUM_SM programs
    walk all the problems' tiles in turn."""
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_count):
        gm = tl.load(group_sizes + g * 3)
        gn = tl.load(group_sizes + g * 3 + 1)
        gk = tl.load(group_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_N)
        num_tiles = num_m_tiles * num_n_tiles
        while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            lda = tl.load(group_lds + g * 3)
            ldb = tl.load(group_lds + g * 3 + 1)
            ldc = tl.load(group_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_in_problem = tile_idx - last_problem_end
            tile_m = tile_in_problem // num_n_tiles
            tile_n = tile_in_problem % num_n_tiles
            offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
            offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
            offs_k = tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + offs_m[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_n[None, :]
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BLOCK_K)):
                k_left = gk - kk * BLOCK_K
                a = tl.load(a_ptrs, mask=(offs_m[:, None] < gm) & (offs_k[None, :] < k_left),
                            other=0.0)
                b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < gn),
                            other=0.0)
                acc += tl.dot(a, b)
                a_ptrs += BLOCK_K
                b_ptrs += BLOCK_K * ldb
            c_ptrs = c_ptr + offs_m[:, None] * ldc + offs_n[None, :]
            tl.store(c_ptrs, acc.to(tl.float16),
                     mask=(offs_m[:, None] < gm) & (offs_n[None, :] < gn))
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


# -- split-K matmul accumulating with atomics ---------------------------------------------------


@triton.jit
def matmul_split_k(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                   stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, SPLIT_K: tl.constexpr,
                   EVEN_K: tl.constexpr):
    """The old `triton.ops.matmul` shape: program_id(1) takes every SPLIT_K-th block of
    K, and the partial products are added into an fp32 C (zeroed by the caller) with
    `tl.atomic_add`. EVEN_K: K is a multiple of BLOCK_K * SPLIT_K (no K mask)."""
    pid = tl.program_id(0)
    pid_z = tl.program_id(1)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = pid_z * BLOCK_K + tl.arange(0, BLOCK_K)
    A = a_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = b_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            k_remaining = K - k * (BLOCK_K * SPLIT_K)
            a = tl.load(A, mask=rk[None, :] < k_remaining, other=0.0)
            b = tl.load(B, mask=rk[:, None] < k_remaining, other=0.0)
        acc += tl.dot(a, b)
        A += BLOCK_K * SPLIT_K * stride_ak
        B += BLOCK_K * SPLIT_K * stride_bk
    C = c_ptr + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.atomic_add(C, acc, mask=mask)


# -- batched matmul: the batch in program_id(1) -----------------------------------------------


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, M, N, K, stride_az, stride_am, stride_ak, stride_bz, stride_bk,
        stride_bn, stride_cz, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C[z] = A[z] @ B[z] for z = program_id(1), fp16 out; any strides (B is often a
    transposed view, as K.transpose(-1, -2) is in attention). Tiles in `tl.swizzle2d`
    order."""
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // grid_n, pid % grid_n, grid_m, grid_n, GROUP_M)
    a_ptr += batch * stride_az
    b_ptr += batch * stride_bz
    c_ptr += batch * stride_cz
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# -- skinny (decode) matmul: y = x @ W^T with a few rows -----------------------------------------


@triton.jit
def linear_skinny(x_ptr, w_ptr, y_ptr, M, N, K, stride_xm, stride_wn, stride_ym,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """A linear layer on a handful of tokens: x (M x K), W (N x K) as nn.Linear keeps it,
    y (M x N); fp16. program_id(0) walks N, program_id(1) the (one or two) row blocks."""
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    y_ptrs = y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# -- int8 x int8 -> int32 -----------------------------------------------------------------------


@triton.jit
def matmul_int8(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """int8 operands (any strides; torch._int_mm takes B column-major), exact int32
    accumulation and output."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = _grouped_pid(pid, GROUP_M * num_pid_n, num_pid_m, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        acc += tl.dot(a, b, out_dtype=tl.int32)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# -- matmul with a fused bias + activation epilogue (tutorial 03) ---------------------------


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def gelu_tanh(x):
    # tanh(u) = 2 sigmoid(2u) - 1
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * u) - 1.0))


@triton.jit
def matmul_bias_act(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                    stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                    ACTIVATION: tl.constexpr):
    """fp16 C = act(A @ B + bias) with fp32 accumulation; A/B rows wrap with `% M`,
    `% N` as in the tutorial, the store is masked; ACTIVATION "leaky_relu" or "gelu"."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    bias = tl.load(bias_ptr + offs_cn, mask=offs_cn < N, other=0.0)
    x = accumulator + bias.to(tl.float32)[None, :]
    if ACTIVATION == "leaky_relu":
        x = leaky_relu(x)
    elif ACTIVATION == "gelu":
        x = gelu_tanh(x)
    c = x.to(tl.float16)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# -- a matmul whose K loop is a while loop ---------------------------------------------------------


@triton.jit
def matmul_while(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """fp16 C = A @ B (row-major, fp32 accumulation), the K loop written `while k < K`
    with the offsets recomputed from k each iteration."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k = 0
    while k < K:
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :],
                    mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :],
                    mask=((k + offs_k)[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        k += BLOCK_K
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# -- layer norm backward (tutorial 05) ----------------------------------------------------------


@triton.jit
def layer_norm_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                      GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    """dx of one row, and the row's dw/db added into partial sums shared by the rows
    with the same `row % GROUP_SIZE_M`, under a spin lock: `Lock[g]` is the lock,
    `Lock[GROUP_SIZE_M + g]` says whether the partial sums hold anything yet (both zeroed
    by the caller)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    group = row % GROUP_SIZE_M
    Lock += group
    Count = Lock + GROUP_SIZE_M
    DW = DW + group * N + cols
    DB = DB + group * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.0)
    wdy = tl.where(mask, wdy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:  # the first row of the group stores, the others add
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()  # every thread's stores before the release
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr,
                        BLOCK_SIZE_N: tl.constexpr):
    """The column sums of the M x N partial dw and db."""
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)


# -- flash-attention backward (tutorial 06, not causal) -----------------------------------------


@triton.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Delta = rowsum(O * dO) for one block of queries of one (batch, head)."""
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_d = tl.arange(0, HEAD_DIM)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    o = tl.load(O + base + off_m[:, None] * HEAD_DIM + off_d[None, :])
    do = tl.load(DO + base + off_m[:, None] * HEAD_DIM + off_d[None, :]).to(tl.float32)
    delta = tl.sum(o * do, axis=1)
    tl.store(Delta + off_hz * N_CTX + off_m, delta)


@triton.jit
def _attn_bwd_dkdv(dk, dv, Q, k, v, DO, LSE, Delta, stride_tok, stride_d, qk_scale, start_m,
                   num_steps, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
                   HEAD_DIM: tl.constexpr):
    """dK and dV of one block of keys, over `num_steps` blocks of queries from start_m;
    works on the transposed scores (keys x queries)."""
    offs_m = start_m + tl.arange(0, BLOCK_M1)
    offs_d = tl.arange(0, HEAD_DIM)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_d[:, None] * stride_d
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d
    curr_m = start_m
    for _ in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        lse = tl.load(LSE + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT * qk_scale - lse[None, :])
        do = tl.load(do_ptrs)
        dv += tl.dot(pT.to(tl.float16), do)
        di = tl.load(Delta + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - di[None, :])
        dk += tl.dot(dsT.to(tl.float16), tl.trans(qT))
        curr_m += BLOCK_M1
        qT_ptrs += BLOCK_M1 * stride_tok
        do_ptrs += BLOCK_M1 * stride_tok
    return dk, dv


@triton.jit
def _attn_bwd_dq(dq, q, K, V, do, lse, di, stride_tok, stride_d, qk_scale, start_n, num_steps,
                 BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr, HEAD_DIM: tl.constexpr):
    """dQ of one block of queries, over `num_steps` blocks of keys from start_n."""
    offs_n = start_n + tl.arange(0, BLOCK_N2)
    offs_d = tl.arange(0, HEAD_DIM)
    kT_ptrs = K + offs_n[None, :] * stride_tok + offs_d[:, None] * stride_d
    vT_ptrs = V + offs_n[None, :] * stride_tok + offs_d[:, None] * stride_d
    for _ in range(num_steps):
        kT = tl.load(kT_ptrs)
        vT = tl.load(vT_ptrs)
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk * qk_scale - lse)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - di)
        dq += tl.dot(ds.to(tl.float16), tl.trans(kT))
        kT_ptrs += BLOCK_N2 * stride_tok
        vT_ptrs += BLOCK_N2 * stride_tok
    return dq


@triton.jit
def attn_bwd(Q, K, V, sm_scale, DO, DQ, DK, DV, LSE, Delta, stride_z, stride_h, stride_tok,
             stride_d, H, N_CTX, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
             BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Program (i, 0, bh): dK, dV of key block i and dQ of query block i of (batch, head)
    bh (BLOCK_N1 == BLOCK_M2; N_CTX a multiple of every block). LSE is the forward's
    log-sum-exp of each query row in base 2 (log2(sum exp(q.k * sm_scale)))."""
    LOG2E: tl.constexpr = 1.4426950408889634
    qk_scale = sm_scale * LOG2E
    bhid = tl.program_id(2)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    off_rows = (bhid * N_CTX).to(tl.int64)
    pid = tl.program_id(0)
    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    DK += adj
    DV += adj
    LSE += off_rows
    Delta += off_rows
    offs_d = tl.arange(0, HEAD_DIM)

    start_n = pid * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_d[None, :] * stride_d)
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_d[None, :] * stride_d)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, LSE, Delta, stride_tok, stride_d, qk_scale, 0,
                            N_CTX // BLOCK_M1, BLOCK_M1, BLOCK_N1, HEAD_DIM)
    tl.store(DV + offs_n[:, None] * stride_tok + offs_d[None, :] * stride_d, dv)
    dk *= sm_scale
    tl.store(DK + offs_n[:, None] * stride_tok + offs_d[None, :] * stride_d, dk)

    start_m = pid * BLOCK_M2
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d)
    do = tl.load(DO + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d)
    lse = tl.load(LSE + offs_m)[:, None]
    di = tl.load(Delta + offs_m)[:, None]
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    dq = _attn_bwd_dq(dq, q, K, V, do, lse, di, stride_tok, stride_d, qk_scale, 0,
                      N_CTX // BLOCK_N2, BLOCK_M2, BLOCK_N2, HEAD_DIM)
    dq *= sm_scale
    tl.store(DQ + offs_m[:, None] * stride_tok + offs_d[None, :] * stride_d, dq)


# -- low-memory dropout (tutorial 04) ------------------------------------------------------------


@triton.jit
def seeded_dropout(x_ptr, out_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    """Keep x / (1 - p) where tl.rand(seed, offset) > p: the mask is never stored, it is
    drawn again from (seed, offset) when needed."""
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def seeded_dropout_rows(x_ptr, out_ptr, seeds_ptr, n_cols, stride_x, stride_out, p,
                        BLOCK_SIZE: tl.constexpr):
    """The tutorial's exercise: a matrix, one seed per row (loaded from memory), the
    columns of a row in blocks; offsets are the column indices."""
    row = tl.program_id(0)
    seed = tl.load(seeds_ptr + row)
    x_row = x_ptr + row.to(tl.int64) * stride_x
    out_row = out_ptr + row.to(tl.int64) * stride_out
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        keep = tl.rand(seed, cols) > p
        tl.store(out_row + cols, tl.where(keep, x / (1 - p), 0.0), mask=mask)


# -- softmax with an online max / sum over column blocks ------------------------------------


@triton.jit
def softmax_online(x_ptr, y_ptr, n_rows, n_cols, stride_x, stride_y, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    """BLOCK_M rows per program. One pass over the columns keeps a running max and a
    running sum rescaled whenever the max grows; a second pass writes exp(x - max) / sum."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    x_rows = x_ptr + rows[:, None] * stride_x
    y_rows = y_ptr + rows[:, None] * stride_y
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_rows + cols[None, :], mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m_i, tl.max(x, axis=1))
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m_i = m_new
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_rows + cols[None, :], mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - m_i[:, None]) / l_i[:, None]
        tl.store(y_rows + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)
