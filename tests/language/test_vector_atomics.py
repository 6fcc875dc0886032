"""Floating-point atomic adds over contiguous, aligned registers are one vector `atom` on
sm_90 (`atom.global.gpu.relaxed.v4.f32.add`, `.v8.f16.add.noftz`), scalar ones before:
the PTX on the CPU, and rows scattered into a table (Inductor's `index_add`) against
torch on the GPU, the old values too."""

from __future__ import annotations

import re

import pytest

import tritonc
import tritonc.language as tl


@tritonc.jit
def scatter_rows(out_ptr, old_ptr, idx_ptr, src_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr,
                 KEEP_OLD: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n * D
    row = tl.load(idx_ptr + offs // D, mask=mask)
    value = tl.load(src_ptr + offs, mask=mask)
    old = tl.atomic_add(out_ptr + (offs % D + D * row), value, mask=mask, sem="relaxed")
    if KEEP_OLD:
        tl.store(old_ptr + offs, old, mask=mask)


def _compile(dtype: str, arch: int, keep_old: bool = False):
    sig = {"out_ptr": f"*{dtype}", "old_ptr": f"*{dtype}", "idx_ptr": "*i64",
           "src_ptr": f"*{dtype}", "n": "i32"}
    return tritonc.compile(scatter_rows, sig, {"D": 64, "BLOCK": 1024, "KEEP_OLD": keep_old},
                           target=f"cuda:{arch}", divisible_by_16=set(sig), num_warps=4)


@pytest.mark.parametrize("dtype, vector, per_thread", [
    ("fp32", "atom.global.gpu.relaxed.v4.f32.add", 2),
    ("fp16", "atom.global.gpu.relaxed.v8.f16.add.noftz", 1),
    ("bf16", "atom.global.gpu.relaxed.v8.bf16.add.noftz", 1)])
def test_contiguous_float_adds_are_vector_atomics_on_sm90(dtype, vector, per_thread):
    """1024 elements over 128 threads: 8 registers each, contiguous in runs of 64 (the
    index is the same over a row), the mask uniform over aligned runs (n * 64)."""
    ptx = _compile(dtype, 90, keep_old=True).asm["ptx"]
    atoms = re.findall(r"atom\.[\w.]+", ptx)
    assert atoms == [vector] * per_thread
    assert ".version 8.4" in ptx
    scalar = re.findall(r"atom\.[\w.]+", _compile(dtype, 80).asm["ptx"])
    assert len(scalar) == 8 and not any(".v" in a for a in scalar)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("keep_old", [False, True])
def test_scattered_rows_add_up(dtype, keep_old):
    import torch

    torch.manual_seed(5)
    kind = getattr(torch, dtype)
    n, m, d = 3001, 97, 64
    if keep_old:  # each row of the table hit once: the old values are its contents
        idx = torch.randperm(n, device="cuda")
        m = n
    else:
        idx = torch.randint(0, m, (n,), device="cuda")
    src = torch.randn(n, d, device="cuda").to(kind)
    table = torch.randn(m, d, device="cuda").to(kind)
    out = table.clone()
    old = torch.full((n, d), float("nan"), device="cuda", dtype=kind)
    grid = (tritonc.cdiv(n * d, 1024),)
    scatter_rows[grid](out, old, idx, src, n, D=d, BLOCK=1024, KEEP_OLD=keep_old)
    want = table.double().index_add(0, idx, src.double())
    tol = {"float32": 1e-5, "float16": 2e-2, "bfloat16": 1e-1}[dtype]
    assert (out.double() - want).abs().max().item() <= tol * max(1.0, want.abs().max().item())
    if keep_old:
        assert torch.equal(old, table[idx])
