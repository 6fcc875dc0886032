"""`tl.math.sqrt_rn` and `div_rn` are correctly rounded: `sqrt.rn.f32` / `div.rn.f32` in
the PTX (never the approximations `tl.sqrt` and `/` take), and on the GPU bit for bit the
float64 result rounded to fp32."""

from __future__ import annotations

import re

import pytest

import tritonc
import tritonc.language as tl


@tritonc.jit
def precise(x_ptr, y_ptr, root_ptr, quotient_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(root_ptr + offs, tl.math.sqrt_rn(x), mask=mask)
    tl.store(quotient_ptr + offs, tl.math.div_rn(x, y), mask=mask)


SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "root_ptr": "*fp32", "quotient_ptr": "*fp32",
       "n": "i32"}


@pytest.mark.parametrize("arch", [80, 90])
def test_precise_roots_and_quotients_are_ieee_instructions(arch):
    ptx = tritonc.compile(precise, SIG, {"BLOCK": 256}, target=f"cuda:{arch}").asm["ptx"]
    found = set(re.findall(r"(?:sqrt|div|rcp)\.[\w.]+", ptx))
    assert found == {"sqrt.rn.f32", "div.rn.f32"}


@pytest.mark.gpu
def test_precise_roots_and_quotients_are_correctly_rounded():
    import torch

    torch.manual_seed(6)
    n = 3001
    x = torch.randn(n, device="cuda").abs() * 100
    y = torch.randn(n, device="cuda") + 1e-3
    root, quotient = (torch.full((n,), float("nan"), device="cuda") for _ in range(2))
    precise[(tritonc.cdiv(n, 256),)](x, y, root, quotient, n, BLOCK=256)
    assert torch.equal(root, x.double().sqrt().float())
    assert torch.equal(quotient, (x.double() / y.double()).float())
