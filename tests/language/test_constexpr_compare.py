"""Comparisons the code generator folds: constexprs of any value, `is` on tensors."""

import numpy as np
import torch

import tritonc as triton
import tritonc.language as tl


@triton.jit(interpret=True)
def pick(out_ptr, x, OPT: tl.constexpr):
    if OPT == 1:
        v = 10
    elif OPT != None:  # noqa: E711 (the comparison itself is what is tested)
        v = 20
    else:
        v = 30
    if x is not None:
        v += 1
    if x is None:
        v += 100
    tl.store(out_ptr, v)


def test_none_constexpr_compares_false():
    out = torch.full((1,), -1, dtype=torch.int32)
    pick[(1,)](out, 5, None)
    assert out.item() == 31
    pick[(1,)](out, 5, 1)
    assert out.item() == 11
    pick[(1,)](out, 5, "other")
    assert out.item() == 21


@triton.jit(interpret=True)
def optional_bias(x_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if b_ptr is not None:
        x += tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def test_is_not_none_on_a_pointer_argument():
    rng = np.random.default_rng(9)
    x = torch.from_numpy(rng.standard_normal(20).astype(np.float32))
    b = torch.from_numpy(rng.standard_normal(20).astype(np.float32))
    out = torch.full((20,), float("nan"))
    optional_bias[(1,)](x, b, out, 20, 32)
    torch.testing.assert_close(out, x + b)
    out.fill_(float("nan"))
    optional_bias[(1,)](x, None, out, 20, 32)
    torch.testing.assert_close(out, x)
