"""Matmul kernels written the ways a user writes them: pointer tiles whose strides say
the operand order, a B tile loaded as N x K and transposed (`.T` or `tl.trans`), block
pointers and tensor descriptors, and a persistent kernel over descriptors. The file is
imported twice by the benchmarks (as it is, and with its two import lines pointing at
Triton), so both compilers see this source.

Every kernel computes C (M x N) = A (M x K) @ B (K x N) with fp32 accumulation, masks
the ragged edges, and walks the tiles in Triton's grouped order."""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def _tile_ids(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    return _grouped(tl.program_id(axis=0), M, N, BLOCK_M, BLOCK_N, GROUP_M)


@triton.jit
def _grouped(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def _store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
               stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, B_TRANS: tl.constexpr,
               PRECISION: tl.constexpr):
    """Pointer tiles; the strides give each operand's order. B_TRANS 1 loads B as an
    N x K tile and takes `.T`, 2 the same with `tl.trans`, 0 loads the K x N tile."""
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    if B_TRANS:
        b_ptrs = b_ptr + offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk
    else:
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        if B_TRANS == 1:
            b = tl.load(b_ptrs, mask=(offs_n[:, None] < N) & (offs_k[None, :] < k_left),
                        other=0.0).T
        elif B_TRANS == 2:
            b = tl.trans(tl.load(b_ptrs, mask=(offs_n[:, None] < N) & (offs_k[None, :] < k_left),
                                 other=0.0))
        else:
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N),
                        other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    _store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BLOCK_M, BLOCK_N)


@triton.jit
def matmul_block_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                     stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                     A_ORDER: tl.constexpr, B_ORDER: tl.constexpr, PRECISION: tl.constexpr):
    """Block pointers; A_ORDER / B_ORDER are (1, 0) for row-major, (0, 1) column-major."""
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K),
                                order=A_ORDER)
    b_block = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N),
                                order=B_ORDER)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    _store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BLOCK_M, BLOCK_N)


@triton.jit
def matmul_descriptor(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                      stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    """Tensor descriptors made in the kernel (row-major A and B)."""
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    _store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BLOCK_M, BLOCK_N)


@triton.jit
def _b_tile(b_desc, off_n, off_k, B_TRANS: tl.constexpr):
    """B's K x N tile at (off_k, off_n): a K x N block, or (B_TRANS) an N x K block `.T`."""
    if B_TRANS:
        b = b_desc.load([off_n, off_k]).T
    else:
        b = b_desc.load([off_k, off_n])
    return b


@triton.jit
def _descriptor_product(a_desc, b_desc, pid_m, pid_n, K, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, B_TRANS: tl.constexpr,
                        PRECISION: tl.constexpr):
    """Tile (pid_m, pid_n) of A @ B in fp32, over K in BLOCK_K steps (`_b_tile`)."""
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = _b_tile(b_desc, pid_n * BLOCK_N, k * BLOCK_K, B_TRANS)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    return acc


@triton.jit
def matmul_host_descriptor(a_desc, b_desc, c_ptr, M, N, K, stride_cm, stride_cn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           GROUP_M: tl.constexpr, B_TRANS: tl.constexpr,
                           PRECISION: tl.constexpr):
    """Tensor descriptors made on the host (`TensorDescriptor`): A in M x K blocks, B in
    K x N blocks, or with B_TRANS in N x K blocks of a column-major B, taken `.T`."""
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    acc = _descriptor_product(a_desc, b_desc, pid_m, pid_n, K, BLOCK_M, BLOCK_N, BLOCK_K,
                              B_TRANS, PRECISION)
    _store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BLOCK_M, BLOCK_N)


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr, B_TRANS: tl.constexpr,
                      PRECISION: tl.constexpr):
    """Tutorial 09's persistent form: NUM_SMS programs walk the tiles in the grouped
    order, the tile loop warp-specialized; A (row-major) and B through descriptors made
    here, B in K x N blocks, or with B_TRANS in N x K blocks of a column-major B (row
    stride `stride_b` either way), taken `.T`."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    if B_TRANS:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_b, 1],
                                           block_shape=[BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_b, 1],
                                           block_shape=[BLOCK_K, BLOCK_N])
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, warp_specialize=True):
        pid_m, pid_n = _grouped(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        acc = _descriptor_product(a_desc, b_desc, pid_m, pid_n, K, BLOCK_M, BLOCK_N, BLOCK_K,
                                  B_TRANS, PRECISION)
        _store_c(c_ptr, acc, pid_m, pid_n, M, N, stride_cm, stride_cn, BLOCK_M, BLOCK_N)
