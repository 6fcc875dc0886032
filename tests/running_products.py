"""Loops that store what a later iteration of them loads: a running product, each step
read back from where the step before stored it, beside the same loop storing elsewhere."""

import tritonc as triton
import tritonc.language as tl


@triton.jit
def running_products(x_ptr, w_ptr, out_ptr, steps, BLOCK_M: tl.constexpr,
                     BLOCK_K: tl.constexpr, IN_PLACE: tl.constexpr):
    """x holds steps + 1 blocks of BLOCK_M x BLOCK_K fp16. Step i multiplies block i by w
    (BLOCK_K x BLOCK_K) and stores the product in fp16 as block i + 1: into x itself
    (IN_PLACE, so step i + 1 reads what step i stored), else into out, with x read as it
    was."""
    offs_m = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    tile = offs_m[:, None] * BLOCK_K + offs_k[None, :]
    w = tl.load(w_ptr + offs_k[:, None] * BLOCK_K + offs_k[None, :])
    for i in range(steps):
        x = tl.load(x_ptr + i * BLOCK_M * BLOCK_K + tile)
        y = tl.dot(x, w).to(tl.float16)
        if IN_PLACE:
            tl.store(x_ptr + (i + 1) * BLOCK_M * BLOCK_K + tile, y)
        else:
            tl.store(out_ptr + (i + 1) * BLOCK_M * BLOCK_K + tile, y)
