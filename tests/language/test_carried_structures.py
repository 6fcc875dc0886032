"""Tuples and aggregates (`@tl.core._aggregate`) assigned in a loop or a runtime `if` are
carried by it, part by part (their tensors; constant entries as they are): the final
TTGIR of each kernel, evaluated op by op with the interpreter's numpy rules, and the
interpreter itself give the numpy reference. Before, the loop kept the value from before
it. A constant entry that changes inside the loop is an error naming the variable."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ttgir_eval import evaluate

import tritonc
import tritonc.language as tl
from tritonc import CompilationError


@tl.core._aggregate
class Pair:
    first: tl.tensor
    second: tl.tensor
    scale: tl.constexpr

    def __init__(self, first, second, scale):
        self.first = first
        self.second = second
        self.scale = scale

    @tritonc.jit
    def stepped(self):
        return Pair(self.second, self.first * self.scale + 1.0, self.scale)


@tritonc.jit
def tuple_loop(x_ptr, y_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = (tl.load(x_ptr + offs, mask=mask), (tl.load(y_ptr + offs, mask=mask), 2.0))
    for _ in range(k):
        p = (p[1][0], (p[0] * p[1][1] + 1.0, p[1][1]))
    if k > 2:
        p = (p[0] - 1.0, p[1])
    tl.store(out_ptr + offs, p[0] * 10.0 + p[1][0], mask=mask)


@tritonc.jit
def aggregate_loop(x_ptr, y_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = Pair(tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask), 3.0)
    i = 0
    while i < k:
        p = p.stepped()
        i += 1
    if k % 2 == 1:
        p = Pair(p.second, p.first, p.scale)
    tl.store(out_ptr + offs, p.first * 10.0 + p.second, mask=mask)


def _reference(x, y, k, scale, swap_when):
    a, b = x.astype(np.float64), y.astype(np.float64)
    for _ in range(k):
        a, b = b, a * scale + 1.0
    return swap_when(a, b)


CASES = [
    (tuple_loop, 2.0, lambda k: (lambda a, b: ((a - 1.0) if k > 2 else a) * 10.0 + b)),
    (aggregate_loop, 3.0, lambda k: (lambda a, b: b * 10.0 + a if k % 2 else a * 10.0 + b)),
]
SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "k": "i32"}


@pytest.mark.parametrize("kernel,scale,combine", CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("k", [0, 1, 3])
def test_compiled_and_interpreted_loops_carry_them(kernel, scale, combine, k):
    n, block = 300, 128
    rng = np.random.default_rng(k)
    x, y = (rng.standard_normal(n).astype(np.float32) * 0.5 for _ in range(2))
    want = _reference(x, y, k, scale, combine(k))
    ttgir = tritonc.compile(kernel, SIG, {"BLOCK": block}, target="cuda:90",
                            override={"llir": "", "ptx": "", "cubin": b""}).asm["ttgir"]
    out = np.full(n, np.nan, np.float32)
    evaluate(ttgir, [x.copy(), y.copy(), out], [n, k], (-(-n // block), 1, 1))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    got = torch.full((n,), float("nan"))
    tritonc.JITFunction(kernel.fn, interpret=True)[(-(-n // block),)](
        torch.from_numpy(x), torch.from_numpy(y), got, n, k, BLOCK=block)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


@tritonc.jit
def constant_entry_changes(x_ptr, k):
    p = (tl.load(x_ptr), 1)
    for _ in range(k):
        p = (p[0] + 1.0, 2)  # <- error
    tl.store(x_ptr, p[0])


def test_a_constant_entry_changing_in_the_loop_is_an_error():
    with pytest.raises(CompilationError, match="loop-carried variable 'p' has type"):
        tritonc.compile(constant_entry_changes, {"x_ptr": "*fp32", "k": "i32"}, {},
                        target="ttir")


@tritonc.jit
def constant_changed_in_loop(x_ptr, k):
    c: tl.constexpr = 1
    for _ in range(k):
        c = 5
    tl.store(x_ptr, c)  # <- error


@tritonc.jit
def constant_changed_in_if(x_ptr, k):
    t = (1, 2)
    if k > 0:
        t = (3, 4)
    tl.store(x_ptr, t[0])  # <- error


@tritonc.jit
def constant_changed_but_unused(x_ptr, k):
    for j in tl.static_range(2):
        tl.store(x_ptr + j, j)
    for _ in range(k):
        for j in tl.static_range(3):  # `j` ends the loop as 2, not read after it
            tl.store(x_ptr + j, j + 1)
    tl.store(x_ptr + 4, k)


@pytest.mark.parametrize("kernel,where", [(constant_changed_in_loop, "the loop"),
                                          (constant_changed_in_if, "a runtime `if`")])
def test_reading_a_constant_a_runtime_loop_or_if_changed_is_an_error(kernel, where):
    """Its value after the loop or `if` is known only at run time (before, the value from
    before it was used, silently)."""
    import inspect

    with pytest.raises(CompilationError, match=f"that {where} changes") as info:
        tritonc.compile(kernel, {"x_ptr": "*i32", "k": "i32"}, {}, target="ttir")
    lines, first = inspect.getsourcelines(kernel.fn)
    assert info.value.lineno == first + next(i for i, t in enumerate(lines) if "<- error" in t)


def test_a_changed_constant_nothing_reads_is_no_error():
    tritonc.compile(constant_changed_but_unused, {"x_ptr": "*i32", "k": "i32"}, {},
                    target="ttir")
