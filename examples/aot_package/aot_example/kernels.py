"""The kernels and their host-side wrappers. The wheel carries their cubins for sm_80 and
sm_90 (`__tritonc_aot__/` next to this file): a launch that matches a precompiled
specialization loads its cubin without importing MLIR or running ptxas."""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * alpha).to(tl.float16), mask=mask)


def add(x, y):
    """x + y for two fp32 CUDA tensors of the same shape."""
    out = x.new_empty(x.shape)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return out


def scale(x, alpha: float):
    """x * alpha for an fp16 CUDA tensor (blocks of 512 elements, 2048 for large ones)."""
    out = x.new_empty(x.shape)
    n = x.numel()
    block = 2048 if n >= 1 << 20 else 512
    scale_kernel[(triton.cdiv(n, block),)](x, out, n, alpha, BLOCK_SIZE=block)
    return out
