"""bf16 meets an integer in fp32 and fp16 in fp16, as in Triton.

Triton computes `bf16 op T` in bf16 only when T is bf16 too; with an integer it converts
both to fp32. Computing in bf16 instead rounds a u32 operand to 8 significant bits and
makes a later reduction depend on the order of its additions, which is how compiled code
and the interpreter disagreed on a kernel that summed `(x_bf16 + y_u32)` cast to bf16
and then to i32. The reference below is numpy/torch, independent of both.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl

N, BLOCK = 1000, 1024


@triton.jit
def mixed_sum(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    z = (x + y).to(tl.bfloat16).to(tl.int32)
    tl.store(out_ptr + 1 + offs, z, mask=mask)
    tl.store(out_ptr, tl.sum(z, 0))


def inputs(seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.uniform(-300, 300, N).astype(np.float32)).to(torch.bfloat16)
    y = torch.from_numpy(rng.integers(2**9, 2**20, N, dtype=np.uint32).view(np.int32))
    y = y.view(torch.uint32)
    out = torch.full((N + 1,), -12345, dtype=torch.int32)
    return x, y, out


def reference(x: torch.Tensor, y: torch.Tensor) -> np.ndarray:
    """fp32 sum (bf16 -> fp32 is exact, u32 -> fp32 rounds to nearest even), then bf16
    (nearest even), then i32 (toward zero); the sum of those is exact."""
    y32 = y.view(torch.int32).numpy().view(np.uint32).astype(np.float32)
    z = torch.from_numpy(x.float().numpy() + y32).to(torch.bfloat16).to(torch.int32)
    z = z.numpy().astype(np.int64)
    return np.concatenate([[z.sum()], z])


def test_bf16_with_an_integer_computes_in_fp32() -> None:
    ttir = triton.compile(mixed_sum, {"x_ptr": "*bf16", "y_ptr": "*u32", "out_ptr": "*i32",
                                      "n": "i32"}, {"BLOCK": BLOCK}).asm["ttir"]
    assert "arith.uitofp %" in ttir and "tensor<1024xi32> to tensor<1024xf32>" in ttir
    assert "arith.addf" in ttir and "tensor<1024xbf16>" in ttir
    assert "arith.extf" in ttir  # x widened to fp32, not y narrowed to bf16


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interpreter_matches_reference(seed: int) -> None:
    x, y, out = inputs(seed)
    mixed_sum.interpret = True
    try:
        mixed_sum[(1,)](x, y, out, N, BLOCK=BLOCK)
    finally:
        mixed_sum.interpret = None
    np.testing.assert_array_equal(out.numpy().astype(np.int64), reference(x, y))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_matches_interpreter_and_reference(seed: int) -> None:
    x, y, out = inputs(seed)
    gpu_out = out.cuda()
    mixed_sum[(1,)](x.cuda(), y.cuda(), gpu_out, N, BLOCK=BLOCK)
    np.testing.assert_array_equal(gpu_out.cpu().numpy().astype(np.int64), reference(x, y))


def test_weak_scalars_keep_the_tensor_type() -> None:
    """A Python int with a bf16 tensor stays bf16 (the scalar is weakly typed)."""
    from tritonc.language import dtypes as T
    from tritonc.language.semantic_core import SemanticCore

    rule = SemanticCore(None).computation_type
    assert rule(T.int32, True, T.bfloat16, False) == T.bfloat16
    assert rule(T.bfloat16, False, T.int32, True, div_or_mod=True) == T.float32
    assert rule(T.bfloat16, False, T.uint32, False) == T.float32
    assert rule(T.bfloat16, False, T.bfloat16, False) == T.bfloat16
    assert rule(T.float16, False, T.uint32, False) == T.float16
    assert rule(T.bfloat16, False, T.float16, False) == T.float16  # Triton: half wins


@triton.jit
def int_to_bf16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.bfloat16), mask=mask)


def _exact_bf16(v: int) -> float:
    """`v` rounded once to 8 significant bits, ties to even."""
    magnitude, shift = abs(v), abs(v).bit_length() - 8
    if shift > 0:
        q, r, half = magnitude >> shift, magnitude & ((1 << shift) - 1), 1 << (shift - 1)
        magnitude = (q + (r > half or (r == half and q & 1))) << shift
    return float(-magnitude if v < 0 else magnitude)


def test_int_to_bf16_rounds_once() -> None:
    """2**25 + 2**17 + 1 rounds up to 2**25 + 2**18 directly, but through fp32 it first
    loses the 1 and then ties down to 2**25."""
    rng = np.random.default_rng(5)
    values = np.concatenate([[2**25 + 2**17 + 1, -(2**25 + 2**17 + 1), 3, -7],
                             rng.integers(-(2**31), 2**31, 93)]).astype(np.int32)
    out = torch.full((values.size,), float("nan"), dtype=torch.bfloat16)
    int_to_bf16.interpret = True
    try:
        int_to_bf16[(1,)](values, out, values.size, BLOCK=128)
    finally:
        int_to_bf16.interpret = None
    want = np.array([_exact_bf16(int(v)) for v in values], np.float32)
    np.testing.assert_array_equal(out.float().numpy(), want)
    assert out[0].item() == 2.0**25 + 2.0**18
