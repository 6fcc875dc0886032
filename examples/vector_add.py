"""Vector addition: the first kernel of Triton's tutorials."""

import torch

import tritonc as triton
import tritonc.language as tl

SIGNATURE = "*fp32:16,*fp32:16,*fp32:16,i32"
CONSTEXPRS = "BLOCK_SIZE=1024"


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def check(device: str) -> float:
    """Run on `device` and return the largest error against torch."""
    n = 98_432
    x = torch.rand(n, device=device)
    y = torch.rand(n, device=device)
    out = torch.full_like(x, float("nan"))
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return (out.double() - (x.double() + y.double())).abs().max().item()
