"""The benchmark zoo: memory-bound and layout-heavy kernels in the styles users write them.

Some read like Triton's tutorials (one row per program, `BLOCK_SIZE`), some like PyTorch
Inductor's generated code (`xindex`/`r0_index` tiles, loop-carried `[XBLOCK, R0_BLOCK]`
accumulators masked with `tl.where`, flat indices split with `//` and `%`), some like
hand-written library code (tiles, `tl.trans`, `tl.permute`, `tl.gather`). The file is
imported twice by `benchmarks/zoo.py`: as written (tritonc) and with its two import lines
pointing at Triton, so both compilers see the same source.
"""

import tritonc as triton
import tritonc.language as tl

# -- softmax and log-softmax ----------------------------------------------------------------


@triton.jit
def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def log_softmax_rows(x_ptr, y_ptr, stride_x, stride_y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * stride_x + offs, mask=offs < N, other=float("-inf"))
    m = tl.max(x, 0)
    lse = tl.log(tl.sum(tl.exp(x - m), 0)) + m
    tl.store(y_ptr + pid * stride_y + offs, x - lse, mask=offs < N)


@triton.jit
def softmax_persistent_inductor(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK: tl.constexpr,
                                R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel * x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = tl.max(tmp3, 1)[:, None]
    tmp5 = tmp0 - tmp4
    tmp6 = tl.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None]
    tmp11 = tmp6 / tmp10
    tl.store(out_ptr2 + (r0_1 + r0_numel * x0), tmp11, r0_mask & xmask)


@triton.jit
def softmax_looped_inductor(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK: tl.constexpr,
                            R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask,
                       eviction_policy="evict_last", other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = tl.maximum(_tmp2, tmp1)
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.max(_tmp2, 1)[:, None]
    _tmp8 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp4 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask,
                       eviction_policy="evict_last", other=0.0)
        tmp6 = tl.exp(tmp4 - tmp2)
        tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
        tmp9 = _tmp8 + tmp7
        _tmp8 = tl.where(r0_mask & xmask, tmp9, _tmp8)
    tmp8 = tl.sum(_tmp8, 1)[:, None]
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp10 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask,
                        eviction_policy="evict_first", other=0.0)
        tmp12 = tl.exp(tmp10 - tmp2)
        tl.store(out_ptr2 + (r0_index + r0_numel * x0), tmp12 / tmp8, r0_mask & xmask)


@triton.jit
def logsumexp_looped_inductor(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                              R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    _max = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _sum = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), r0_mask & xmask,
                       eviction_policy="evict_first", other=float("-inf"))
        new_max = tl.maximum(_max, tmp0)
        safe = tl.where(new_max == float("-inf"), 0.0, new_max)
        _sum = _sum * tl.exp(_max - safe) + tl.exp(tmp0 - safe)
        _max = new_max
    row_max = tl.max(_max, 1)[:, None]
    row_sum = tl.sum(_sum * tl.exp(_max - row_max), 1)[:, None]
    tl.store(out_ptr0 + xindex, tl.log(row_sum) + row_max, xmask)


@triton.jit
def softmax_backward_rows(dx_ptr, y_ptr, dy_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    y = tl.load(y_ptr + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0)
    dot = tl.sum(y * dy, axis=0)
    tl.store(dx_ptr + row * stride + cols, y * (dy - dot), mask=mask)


# -- normalisation ----------------------------------------------------------------------------


@triton.jit
def layer_norm_rows(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * stride + cols, xc * rstd * w + b, mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@triton.jit
def rms_norm_rows_fp16(x_ptr, w_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, eps,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(x_ptr + row * x_row_stride + offs, mask=m, other=0.0).to(tl.float32)
    inv = tl.math.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * y_row_stride + offs, (x * inv * w).to(tl.float16), mask=m)


@triton.jit
def layer_norm_persistent_inductor(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, out_ptr2, xnumel,
                                   r0_numel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel * x0), r0_mask & xmask, other=0.0)
    tmp24 = tl.load(in_ptr1 + (r0_1), r0_mask, eviction_policy="evict_last", other=0.0)
    tmp26 = tl.load(in_ptr2 + (r0_1), r0_mask, eviction_policy="evict_last", other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(r0_mask & xmask, tmp1, 0)
    tmp6 = tl.sum(tmp3, 1)[:, None]
    tmp9 = tmp6 / r0_numel
    tmp10 = tmp1 - tmp9
    tmp11 = tmp10 * tmp10
    tmp12 = tl.broadcast_to(tmp11, [XBLOCK, R0_BLOCK])
    tmp14 = tl.where(r0_mask & xmask, tmp12, 0)
    tmp15 = tl.sum(tmp14, 1)[:, None]
    tmp18 = tmp15 / r0_numel
    tmp20 = tmp18 + 1e-05
    tmp21 = tl.math.rsqrt(tmp20)
    tmp22 = tmp10 * tmp21
    tmp27 = tmp22 * tmp24 + tmp26
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp21, xmask)
    tl.store(out_ptr2 + (r0_1 + r0_numel * x0), tmp27, r0_mask & xmask)


@triton.jit
def rms_norm_persistent_inductor(in_ptr0, in_ptr1, out_ptr1, xnumel, r0_numel,
                                 XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), r0_mask & xmask,
                   other=0.0).to(tl.float32)
    tmp8 = tl.load(in_ptr1 + (r0_index), r0_mask, eviction_policy="evict_last",
                   other=0.0).to(tl.float32)
    tmp1 = tmp0 * tmp0
    tmp4 = tl.where(r0_mask & xmask, tmp1, 0)
    tmp5 = tl.sum(tmp4, 1)[:, None]
    tmp7 = tl.math.rsqrt(tmp5 / r0_numel + 1e-06)
    tl.store(out_ptr1 + (r0_index + r0_numel * xindex), (tmp0 * tmp7 * tmp8).to(tl.float16),
             r0_mask & xmask)


@triton.jit
def welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = tl.where(new_weight == 0.0, 0.0, weight_2 / new_weight)
    return (mean_1 + delta * w2_over_w, m2_1 + m2_2 + delta * delta * w2_over_w * weight_1,
            new_weight)


@triton.jit
def var_mean_looped_inductor(in_ptr0, out_ptr0, out_ptr1, xnumel, r0_numel,
                             XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    tmp2_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp2_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    tmp2_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask,
                       eviction_policy="evict_first", other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        delta = tmp1 - tmp2_mean
        new_weight = tmp2_weight + 1
        new_mean = tmp2_mean + delta / new_weight
        new_m2 = tmp2_m2 + delta * (tmp1 - new_mean)
        tmp2_mean = tl.where(r0_mask & xmask, new_mean, tmp2_mean)
        tmp2_m2 = tl.where(r0_mask & xmask, new_m2, tmp2_m2)
        tmp2_weight = tl.where(r0_mask & xmask, new_weight, tmp2_weight)
    tmp2_tmp, tmp3_tmp, tmp4_tmp = tl.reduce((tmp2_mean, tmp2_m2, tmp2_weight), 1,
                                             welford_combine)
    tmp2 = tmp2_tmp[:, None]
    tmp3 = tmp3_tmp[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)
    tl.store(out_ptr1 + (x0), tmp3 / r0_numel, xmask)


@triton.jit
def group_norm_stats_looped_inductor(in_ptr0, out_ptr0, out_ptr1, xnumel, r0_numel,
                                     XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    _sum = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    _sq = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * x0), r0_mask & xmask,
                       eviction_policy="evict_first", other=0.0).to(tl.float32)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        _sum = tl.where(r0_mask & xmask, _sum + tmp1, _sum)
        _sq = tl.where(r0_mask & xmask, _sq + tmp1 * tmp1, _sq)
    tmp2 = tl.sum(_sum, 1)[:, None]
    tmp3 = tl.sum(_sq, 1)[:, None]
    mean = tmp2 / r0_numel
    var = tmp3 / r0_numel - mean * mean
    tl.store(out_ptr0 + (x0), mean, xmask)
    tl.store(out_ptr1 + (x0), tl.math.rsqrt(var + 1e-05), xmask)


@triton.jit
def group_norm_apply_inductor(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, out_ptr0, xnumel,
                              HW: tl.constexpr, C: tl.constexpr, G: tl.constexpr,
                              XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    x3 = xindex
    x1 = (xindex // HW) % C
    x4 = xindex // (HW * (C // G))
    tmp0 = tl.load(in_ptr0 + (x3), xmask).to(tl.float32)
    tmp1 = tl.load(in_ptr1 + (x4), xmask, eviction_policy="evict_last")
    tmp3 = tl.load(in_ptr2 + (x4), xmask, eviction_policy="evict_last")
    tmp5 = tl.load(in_ptr3 + (x1), xmask, eviction_policy="evict_last")
    tmp7 = tl.load(in_ptr4 + (x1), xmask, eviction_policy="evict_last")
    tmp8 = ((tmp0 - tmp1) * tmp3) * tmp5 + tmp7
    tl.store(out_ptr0 + (x3), tmp8.to(tl.float16), xmask)


# -- reductions -------------------------------------------------------------------------------


@triton.jit
def sum_looped_inductor(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                        R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], 0, tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r0_1 = r0_index
        tmp0 = tl.load(in_ptr0 + (r0_1 + r0_numel * x0), r0_mask & xmask,
                       eviction_policy="evict_first", other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)


@triton.jit
def amax_looped_inductor_fp16(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                              R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), r0_mask & xmask,
                       eviction_policy="evict_first", other=0.0).to(tl.float32)
        tmp3 = tl.maximum(_tmp2, tl.abs(tmp0))
        _tmp2 = tl.where(r0_mask & xmask, tmp3, _tmp2)
    tmp2 = tl.max(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + xindex, tmp2, xmask)


@triton.jit
def argmax_combine(value1, index1, value2, index2):
    gt = (value1 > value2) | ((value1 == value2) & (index1 < index2))
    return tl.where(gt, value1, value2), tl.where(gt, index1, index2)


@triton.jit
def argmax_looped_inductor(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                           R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    _tmp2 = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp2_index = tl.full([XBLOCK, R0_BLOCK], 2147483647, tl.int32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), r0_mask & xmask,
                       eviction_policy="evict_first", other=float("-inf"))
        take = tmp0 > _tmp2
        _tmp2 = tl.where(r0_mask & xmask & take, tmp0, _tmp2)
        _tmp2_index = tl.where(r0_mask & xmask & take, r0_index, _tmp2_index)
    _, tmp2_tmp = tl.reduce((_tmp2, _tmp2_index), 1, argmax_combine)
    tl.store(out_ptr0 + xindex, tmp2_tmp[:, None], xmask)


@triton.jit
def col_sum_looped_inductor(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                            R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[:, None]
    x0 = xindex
    _tmp2 = tl.full([R0_BLOCK, XBLOCK], 0, tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        tmp0 = tl.load(in_ptr0 + (x0 + xnumel * r0_index), r0_mask & xmask,
                       eviction_policy="evict_first", other=0.0)
        _tmp2 = tl.where(r0_mask & xmask, _tmp2 + tmp0, _tmp2)
    tmp2 = tl.sum(_tmp2, 0)[None, :]
    tl.store(out_ptr0 + (x0), tmp2, xmask)


@triton.jit
def sum_persistent_inductor_fp16(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK: tl.constexpr,
                                 R0_BLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    tmp0 = tl.load(in_ptr0 + (r0_index + r0_numel * xindex), r0_mask & xmask,
                   other=0.0).to(tl.float32)
    tmp3 = tl.where(r0_mask & xmask, tmp0, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None]
    tl.store(out_ptr0 + (xindex), tmp4.to(tl.float16), xmask)


@triton.jit
def tile_reduce_2d(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   AXIS: tl.constexpr, USE_MAX: tl.constexpr):
    """Sum or max of [BLOCK_M, BLOCK_N] tiles along AXIS; the other axis spans the grid."""
    pid = tl.program_id(0)
    if AXIS == 1:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        if USE_MAX:
            acc = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = (rows[:, None] < M) & (cols[None, :] < N)
            if USE_MAX:
                x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask,
                            other=float("-inf"))
                acc = tl.maximum(acc, x)
            else:
                acc += tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask,
                               other=0.0)
        if USE_MAX:
            tl.store(out_ptr + rows, tl.max(acc, axis=1), mask=rows < M)
        else:
            tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < M)
    else:
        cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        if USE_MAX:
            acc = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float32)
        for start in range(0, M, BLOCK_M):
            rows = start + tl.arange(0, BLOCK_M)
            mask = (rows[:, None] < M) & (cols[None, :] < N)
            if USE_MAX:
                x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask,
                            other=float("-inf"))
                acc = tl.maximum(acc, x)
            else:
                acc += tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask,
                               other=0.0)
        if USE_MAX:
            tl.store(out_ptr + cols, tl.max(acc, axis=0), mask=cols < N)
        else:
            tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < N)


@triton.jit
def argmax_tile_2d(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   AXIS: tl.constexpr):
    """argmax of a whole-extent tile along AXIS (the reduced extent fits one block)."""
    pid = tl.program_id(0)
    if AXIS == 1:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
    else:
        rows = tl.arange(0, BLOCK_M)
        cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=float("-inf"))
    idx = tl.argmax(x, axis=AXIS)
    if AXIS == 1:
        tl.store(out_ptr + rows, idx, mask=rows < M)
    else:
        tl.store(out_ptr + cols, idx, mask=cols < N)


@triton.jit
def reduce_3d(x_ptr, out_ptr, A, B, C, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr,
              AXIS: tl.constexpr):
    """Sum over one axis of a contiguous [A, B, C] tensor, one [BA, BB, BC] tile per program;
    the tile spans the reduced axis whole."""
    pid = tl.program_id(0)
    nb = tl.cdiv(B, BB)
    nc = tl.cdiv(C, BC)
    if AXIS == 0:
        ia = tl.arange(0, BA)
        ib = (pid // nc) * BB + tl.arange(0, BB)
        ic = (pid % nc) * BC + tl.arange(0, BC)
    elif AXIS == 1:
        ia = (pid // nc) * BA + tl.arange(0, BA)
        ib = tl.arange(0, BB)
        ic = (pid % nc) * BC + tl.arange(0, BC)
    else:
        ia = (pid // nb) * BA + tl.arange(0, BA)
        ib = (pid % nb) * BB + tl.arange(0, BB)
        ic = tl.arange(0, BC)
    a3 = ia[:, None, None]
    b3 = ib[None, :, None]
    c3 = ic[None, None, :]
    mask = (a3 < A) & (b3 < B) & (c3 < C)
    x = tl.load(x_ptr + (a3 * B + b3) * C + c3, mask=mask, other=0.0)
    s = tl.sum(x, axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + ib[:, None] * C + ic[None, :], s,
                 mask=(ib[:, None] < B) & (ic[None, :] < C))
    elif AXIS == 1:
        tl.store(out_ptr + ia[:, None] * C + ic[None, :], s,
                 mask=(ia[:, None] < A) & (ic[None, :] < C))
    else:
        tl.store(out_ptr + ia[:, None] * B + ib[None, :], s,
                 mask=(ia[:, None] < A) & (ib[None, :] < B))


# -- transposes and permutes ------------------------------------------------------------------


@triton.jit
def transpose_trans(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :],
                   mask=(rm[:, None] < M) & (rn[None, :] < N))
    t = tl.trans(tile)
    tl.store(y_ptr + rn[:, None] * stride_ym + rm[None, :], t,
             mask=(rn[:, None] < N) & (rm[None, :] < M))


@triton.jit
def transpose_strides(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    """y = x.T through the index arithmetic alone: the tile is read along rows of x and
    written along columns of y."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)[:, None]
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)[None, :]
    mask = (rm < M) & (rn < N)
    tl.store(y_ptr + rn * M + rm, tl.load(x_ptr + rm * N + rn, mask=mask), mask=mask)


@triton.jit
def clone_transpose_inductor(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK: tl.constexpr,
                             XBLOCK: tl.constexpr):
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[None, :]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    x1 = xindex
    y0 = yindex
    tmp0 = tl.load(in_ptr0 + (y0 + ynumel * x1), xmask & ymask, eviction_policy="evict_last")
    tl.store(out_ptr0 + (x1 + xnumel * y0), tmp0, xmask & ymask)


@triton.jit
def permute_3d(x_ptr, y_ptr, A, B, C, BB: tl.constexpr, BC: tl.constexpr):
    """y[a, c, b] = x[a, b, c] for contiguous x [A, B, C] and y [A, C, B] via tl.permute."""
    a = tl.program_id(0)
    pb = tl.program_id(1)
    pc = tl.program_id(2)
    ib = pb * BB + tl.arange(0, BB)
    ic = pc * BC + tl.arange(0, BC)
    ia = a + tl.arange(0, 1)
    src = x_ptr + (ia[:, None, None] * B + ib[None, :, None]) * C + ic[None, None, :]
    mask = (ib[None, :, None] < B) & (ic[None, None, :] < C)
    tile = tl.load(src, mask=mask)
    moved = tl.permute(tile, (0, 2, 1))
    dst = y_ptr + (ia[:, None, None] * C + ic[None, :, None]) * B + ib[None, None, :]
    tl.store(dst, moved, mask=(ic[None, :, None] < C) & (ib[None, None, :] < B))


@triton.jit
def permute_021_inductor(in_ptr0, out_ptr0, xnumel, ks0, ks1, XBLOCK: tl.constexpr):
    """out[a, c, b] = in[a, b, c] written along the output with a flat index, as Inductor's
    pointwise clone of a permuted view (ks0 = B, ks1 = C)."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    x0 = xindex % ks0
    x1 = (xindex // ks0) % ks1
    x2 = xindex // (ks0 * ks1)
    tmp0 = tl.load(in_ptr0 + (x1 + ks1 * x0 + ks0 * ks1 * x2), xmask)
    tl.store(out_ptr0 + (xindex), tmp0, xmask)


# -- scans ------------------------------------------------------------------------------------


@triton.jit
def cumsum_2d(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              AXIS: tl.constexpr):
    """Inclusive prefix sums of a contiguous [M, N] tensor along AXIS; the tile spans the
    scanned axis whole."""
    pid = tl.program_id(0)
    if AXIS == 1:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
    else:
        rows = tl.arange(0, BLOCK_M)
        cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.cumsum(x, axis=AXIS), mask=mask)


# -- gathers and scatters ---------------------------------------------------------------------


@triton.jit
def embedding_gather(idx_ptr, table_ptr, out_ptr, D, BLOCK_T: tl.constexpr,
                     BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    tokens = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    rows = tl.load(idx_ptr + tokens).to(tl.int64)
    cols = tl.arange(0, BLOCK_D)
    mask = cols[None, :] < D
    vals = tl.load(table_ptr + rows[:, None] * D + cols[None, :], mask=mask)
    tl.store(out_ptr + tokens[:, None].to(tl.int64) * D + cols[None, :], vals, mask=mask)


@triton.jit
def index_select_inductor(in_ptr0, in_ptr1, out_ptr0, xnumel, D: tl.constexpr,
                          XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    x0 = xindex % D
    x1 = xindex // D
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy="evict_last")
    tmp1 = tl.load(in_ptr1 + (x0 + D * tmp0), xmask)
    tl.store(out_ptr0 + (xindex), tmp1, xmask)


@triton.jit
def scatter_rows(src_ptr, idx_ptr, out_ptr, n_rows, D, BLOCK_R: tl.constexpr,
                 BLOCK_D: tl.constexpr):
    """out[idx[r], :] = src[r, :] (idx a permutation)."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    rmask = rows < n_rows
    dest = tl.load(idx_ptr + rows, mask=rmask, other=0)
    mask = rmask[:, None] & (cols[None, :] < D)
    vals = tl.load(src_ptr + rows[:, None] * D + cols[None, :], mask=mask)
    tl.store(out_ptr + dest[:, None] * D + cols[None, :], vals, mask=mask)


@triton.jit
def gather_in_tile(x_ptr, idx_ptr, out_ptr, M, N: tl.constexpr, BLOCK_M: tl.constexpr):
    """out[i, j] = x[i, idx[i, j]] with the row of x held in registers (tl.gather)."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, N)
    mask = rows[:, None] < M
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, tl.gather(x, idx, axis=1), mask=mask)


# -- broadcasting elementwise chains ----------------------------------------------------------


@triton.jit
def bias_gelu_fp16(x_ptr, b_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask).to(tl.float32)
    b = tl.load(b_ptr + rn, mask=rn < N).to(tl.float32)
    h = x + b[None, :]
    inner = 0.7978845608028654 * (h + 0.044715 * h * h * h)
    t = 2 * tl.sigmoid(2 * inner) - 1
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], (0.5 * h * (1 + t)).to(tl.float16),
             mask=mask)


@triton.jit
def broadcast_mixed(a_ptr, c_ptr, r_ptr, out_ptr, M, N, stride_am, stride_an, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr):
    """out = a * c[:, None] + r[None, :] in fp16, a read through arbitrary strides (a
    transposed view), c fp32 per row, r fp16 per column."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    a = tl.load(a_ptr + rm[:, None] * stride_am + rn[None, :] * stride_an, mask=mask)
    c = tl.load(c_ptr + rm, mask=rm < M)
    r = tl.load(r_ptr + rn, mask=rn < N)
    out = a * c[:, None] + r[None, :].to(tl.float32)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], out.to(tl.float16), mask=mask)


@triton.jit
def pointwise_inductor(in_ptr0, in_ptr1, in_ptr2, out_ptr0, xnumel, ks0, XBLOCK: tl.constexpr):
    """sigmoid(in0 * in1[col] + in2[row]) * in0, with flat indices split by // and %."""
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % ks0
    x1 = xindex // ks0
    tmp0 = tl.load(in_ptr0 + (x2), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask, eviction_policy="evict_last")
    tmp3 = tl.load(in_ptr2 + (x1), xmask, eviction_policy="evict_last")
    tmp4 = tmp0 * tmp1 + tmp3
    tmp5 = tl.sigmoid(tmp4)
    tl.store(out_ptr0 + (x2), tmp5 * tmp0, xmask)


@triton.jit
def add_transposed_int(x_ptr, y_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    """out[i, j] = float(x[i, j]) + y[j, i] for int32 x and fp32 y: one operand read
    along rows, the other along columns."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    y = tl.load(y_ptr + rn[None, :] * M + rm[:, None], mask=mask)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], x.to(tl.float32) + y, mask=mask)
