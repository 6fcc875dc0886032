"""while-to-for: `while k < n: ...; k += STEP` is an scf.for in the TTIR.

The TTIR of each kernel is evaluated op by op (`ttgir_eval.py`) on starts and bounds that
give no trip, one, several and a partial last step, against a Python model of the while
loop: the sums in the loop, the trips and the counter's value after it (an iteration
argument the rewrite keeps). Loops of another form stay while loops. On the GPU the
compiled kernels meet the same model.
"""

from __future__ import annotations

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc
import tritonc.language as tl


@tritonc.jit
def counting(out, lo, hi, step, STEP: tl.constexpr, FORM: tl.constexpr):
    """out = [sum of k * k, trips, the counter after the loop] over k = lo, lo + STEP, ...
    while k < hi; FORM 1 writes the test `hi > k`, FORM 2 steps by the argument `step`,
    FORM 3 stops below hi - step (a bound computed in the condition)."""
    total = 0
    trips = 0
    k = lo
    if FORM == 1:
        while hi > k:
            total += k * k
            trips += 1
            k += STEP
    elif FORM == 2:
        while k < hi:
            total += k * k
            trips += 1
            k += step
    elif FORM == 3:
        while k < hi - step:
            total += k * k
            trips += 1
            k += STEP
    else:
        while k < hi:
            total += k * k
            k += STEP
            trips += 1
    tl.store(out, total)
    tl.store(out + 1, trips)
    tl.store(out + 2, k)


def _model(lo: int, hi: int, step: int) -> list[int]:
    values = list(range(lo, hi, step))
    end = lo + len(values) * step
    return [sum(k * k for k in values), len(values), end]


def _ttir(step: int, form: int) -> str:
    return tritonc.compile(counting, {"out": "*i32", "lo": "i32", "hi": "i32", "step": "i32"},
                           {"STEP": step, "FORM": form}, target="cuda:90").asm["ttir"]


@pytest.mark.parametrize("form", [0, 1, 3])
@pytest.mark.parametrize("step", [1, 3, 64])
def test_a_counted_while_loop_is_a_for_loop_computing_the_same(step, form):
    ttir = _ttir(step, form)
    assert "scf.while" not in ttir and "scf.for" in ttir
    rng = np.random.default_rng(step * 3 + form)
    bounds = [(0, 0), (5, 3), (0, 1), (0, step), (0, step + 1), (-7, 4 * step + 2)]
    bounds += [tuple(int(v) for v in rng.integers(-50, 200, 2)) for _ in range(4)]
    less = 7  # the `step` argument: FORM 3's bound is hi - 7
    for lo, hi in bounds:
        out = np.full(3, -1, np.int32)
        evaluate(ttir, [out], [lo, hi, less], (1, 1, 1))
        assert out.tolist() == _model(lo, hi - less if form == 3 else hi, step), (lo, hi)


@tritonc.jit
def nested(out, n, m):
    """A while loop in a while loop, the inner one starting at the outer counter."""
    total = 0
    i = 0
    while i < n:
        j = i
        while j < m:
            total += i * 100 + j
            j += 2
        i += 1
    tl.store(out, total)
    tl.store(out + 1, i)


def test_nested_while_loops_are_for_loops():
    ttir = tritonc.compile(nested, {"out": "*i32", "n": "i32", "m": "i32"}, {},
                           target="cuda:90").asm["ttir"]
    assert "scf.while" not in ttir and ttir.count("scf.for") == 2
    for n, m in [(0, 5), (3, 10), (7, 4), (5, 5), (-2, 3)]:
        out = np.full(2, -1, np.int32)
        evaluate(ttir, [out], [n, m], (1, 1, 1))
        want = sum(i * 100 + j for i in range(n) for j in range(i, m, 2))
        assert out.tolist() == [want, max(n, 0)], (n, m)


def test_a_step_known_at_run_time_stays_a_while_loop():
    ttir = _ttir(1, 2)
    assert "scf.while" in ttir
    out = np.full(3, -1, np.int32)
    evaluate(ttir, [out], [2, 30, 5], (1, 1, 1))
    assert out.tolist() == _model(2, 30, 5)


@pytest.mark.parametrize("arch", [80, 90])
def test_compiles_through_ptxas(arch):
    kernel = tritonc.compile(counting, {"out": "*i32", "lo": "i32", "hi": "i32", "step": "i32"},
                             {"STEP": 3, "FORM": 0}, target=f"cuda:{arch}")
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("step, form", [(3, 0), (64, 1), (1, 2)])
def test_on_the_gpu(step, form):
    import torch

    for lo, hi in [(0, 0), (-7, 200), (5, 6)]:
        out = torch.full((3,), -1, dtype=torch.int32, device="cuda")
        counting[(1,)](out, lo, hi, step, STEP=step, FORM=form)
        assert out.tolist() == _model(lo, hi, step), (lo, hi)
