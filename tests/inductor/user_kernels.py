"""A Triton kernel as a user writes one to call from a function torch.compile compiles:
`import triton`, a helper `@triton.jit` function and a `@triton.constexpr_function`.
Imported by the tests once `triton` is the alias (tritonc.inductor.install())."""

import triton
import triton.language as tl


@triton.constexpr_function
def halves(block):
    return block // 2


@triton.jit
def _scaled(x, scale):
    return x * scale


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * (2 * halves(BLOCK)) + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _scaled(x, alpha) + y, mask=mask)
