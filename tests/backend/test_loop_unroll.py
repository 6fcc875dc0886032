"""loop-unroll: `tl.range(..., loop_unroll_factor=k)` loops unrolled k times in the TTIR.

The unrolled TTIR holds k copies of the body (Triton's own test counts them), and it
computes what the loop computes: each kernel's TTIR is evaluated op by op
(`ttgir_eval.py`) on bounds that give no trip, fewer trips than k, a multiple of k and
a remainder, with negative and non-unit steps and nested loops, against a Python model;
it compiles through ptxas for sm_80 and sm_90, and on the GPU meets the same model.
"""

from __future__ import annotations

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc
import tritonc.language as tl


@tritonc.jit
def unrolled_sums(out, lo, hi, STEP: tl.constexpr, K: tl.constexpr, INNER: tl.constexpr):
    """out[0] = sum of i * i over range(lo, hi, STEP); out[1] = the number of trips;
    out[2] = sum over i of the sum of j < i % 7 (an inner unrolled loop)."""
    total = 0
    trips = 0
    nested = 0
    for i in tl.range(lo, hi, STEP, loop_unroll_factor=K):
        total += i * i
        trips += 1
        tl.atomic_add(out + 3, 1)
        if INNER:
            for j in tl.range(0, i % 7, loop_unroll_factor=3):
                nested += j
    tl.store(out, total)
    tl.store(out + 1, trips)
    tl.store(out + 2, nested)


def _model(lo: int, hi: int, step: int, inner: bool) -> list[int]:
    values = list(range(lo, hi, step))
    nested = sum(sum(range(int(np.fmod(i, 7)))) for i in values) if inner else 0
    return [sum(i * i for i in values), len(values), nested, len(values)]


def _compiled(step: int, k: int, inner: bool, target: str = "cuda:90"):
    return tritonc.compile(unrolled_sums, {"out": "*i32", "lo": "i32", "hi": "i32"},
                           {"STEP": step, "K": k, "INNER": inner}, target=target)


@pytest.mark.parametrize("k", [1, 2, 4, 5, 8])
def test_the_ttir_holds_k_copies_of_the_body(k):
    ttir = _compiled(1, k, False).asm["ttir"]
    assert ttir.count('"tt.atomic_rmw"') >= k
    assert "loop_unroll_factor" not in ttir


@pytest.mark.parametrize("inner", [False, True])
@pytest.mark.parametrize("step", [1, 3, -2])
@pytest.mark.parametrize("k", [2, 4, 5])
def test_unrolled_ttir_computes_the_loop(k, step, inner):
    ttir = _compiled(step, k, inner).asm["ttir"]
    rng = np.random.default_rng(k * 10 + step)
    bounds = [(0, 0), (5, 3), (0, 1), (0, k - 1), (0, 4 * k), (-3, 4 * k + 2)]
    bounds += [tuple(int(v) for v in rng.integers(-20, 40, 2)) for _ in range(3)]
    for lo, hi in bounds:
        if step < 0:
            lo, hi = hi, lo
        out = np.full(4, 0, np.int32)
        evaluate(ttir, [out], [lo, hi], (1, 1, 1))
        assert out.tolist() == _model(lo, hi, step, inner), (lo, hi)


@pytest.mark.parametrize("arch", [80, 90])
def test_compiles_through_ptxas(arch):
    kernel = _compiled(3, 4, True, f"cuda:{arch}")
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("step, k", [(1, 4), (3, 5), (-2, 2)])
def test_on_gpu(step, k):
    import torch

    for lo, hi in [(0, 0), (0, 3), (-5, 37), (2, 64)]:
        if step < 0:
            lo, hi = hi, lo
        out = torch.zeros(4, dtype=torch.int32, device="cuda")
        unrolled_sums[(1,)](out, lo, hi, STEP=step, K=k, INNER=True)
        assert out.cpu().tolist() == _model(lo, hi, step, True), (lo, hi)
