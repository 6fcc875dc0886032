"""Every fact the axis analysis states holds of the values the kernel computes.

The analysis (`passes/to_llvm/axis_info.py`, `axis_along.py`) decides vector widths,
which masks are uniform over a vector and which registers hold one value (so the op is
computed once). A wrong fact is wrong code, so each kernel here is compiled, its TTGIR
evaluated op by op over several programs, and every stated contiguity, divisibility and
constancy along every dimension compared with the values (`axis_soundness.py`).

The kernels index the way Inductor and hand-written kernels do: row and column blocks,
`//` and `%` by constants, strides that are and are not multiples of 16, masks of every
comparison, selects, and loads through computed indices; the sizes passed are and are
not multiples of the blocks (so the `tt.divisibility` specialization is on and off).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from axis_soundness import check_kernel
from corpus import KERNELS

import tritonc
import tritonc.language as tl
from tritonc.backends.interpreter.errors import InterpreterUnsupported

EXPRESSIONS = 8


@tritonc.jit
def index_expressions(src, out, xnumel, rnumel, stride, XBLOCK: tl.constexpr,
                      RBLOCK: tl.constexpr, C: tl.constexpr, ROWS_FIRST: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    if ROWS_FIRST:
        xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
        rindex = tl.arange(0, RBLOCK)[None, :]
        local = tl.arange(0, XBLOCK)[:, None] * RBLOCK + rindex
    else:
        xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
        rindex = tl.arange(0, RBLOCK)[:, None]
        local = tl.arange(0, XBLOCK)[None, :] * RBLOCK + rindex
    xmask = xindex < xnumel
    rmask = rindex < rnumel
    size = XBLOCK * RBLOCK
    x0 = xindex % C
    x1 = xindex // C
    flat = rindex + rnumel * xindex
    tl.store(out + local, x1 * stride + rindex, xmask & rmask)
    tl.store(out + size + local, x0 + rindex * C, xmask)
    tl.store(out + 2 * size + local, tl.where(xmask & rmask, flat, -1))
    tl.store(out + 3 * size + local, ((xindex == 3) | (rindex != 5)).to(tl.int32))
    gathered = tl.load(src + (flat % 4096), rmask & xmask, other=7)
    tl.store(out + 4 * size + local, gathered + (x1 >= 2).to(tl.int32))
    tl.store(out + 5 * size + local, xindex * 781 + rindex)
    tl.store(out + 6 * size + local, ((rindex + xoffset) >= xnumel).to(tl.int32))
    tl.store(out + 7 * size + local, (xindex * stride + rindex) // 4 + (rindex <= x0))


def _configs(count: int) -> list[tuple]:
    rng = random.Random(12)
    configs = set()
    while len(configs) < count:
        configs.add((rng.choice([64, 100, 4096, 4097]), rng.choice([16, 33, 781, 1024]),
                     rng.choice([1, 3, 48, 64]), rng.choice([1, 8, 32]), rng.choice([16, 128]),
                     rng.choice([1, 3, 16]), rng.choice([True, False])))
    return sorted(configs)


@pytest.mark.parametrize("xnumel, rnumel, stride, xblock, rblock, c, rows_first", _configs(24))
def test_index_expressions(xnumel, rnumel, stride, xblock, rblock, c, rows_first):
    scalars = {"xnumel": xnumel, "rnumel": rnumel, "stride": stride}
    kernel = tritonc.compile(
        index_expressions, {"src": "*i32", "out": "*i32", "xnumel": "i32", "rnumel": "i32",
                            "stride": "i32"},
        {"XBLOCK": xblock, "RBLOCK": rblock, "C": c, "ROWS_FIRST": rows_first},
        target="cuda:90",
        divisible_by_16={"src", "out"} | {k for k, v in scalars.items() if v % 16 == 0})
    src = np.random.default_rng(xnumel + rnumel).integers(-50, 50, 4096).astype(np.int32)
    out = np.full(EXPRESSIONS * xblock * rblock, -9, np.int32)
    for pid in (0, 1, 5):  # each program sees its own offset; one grid point at a time
        found = check_kernel(kernel.asm["ttgir"], [src, out], list(scalars.values()),
                             (pid + 1,))
        assert not found, "\n".join(found[:10])


@tritonc.jit
def loop_and_3d_indices(src, out, n, stride, BLOCK: tl.constexpr, C: tl.constexpr,
                        STEPS: tl.constexpr):
    pid = tl.program_id(0)
    i = tl.arange(0, 4)[:, None, None]
    j = tl.arange(0, 8)[None, :, None]
    k = tl.arange(0, BLOCK)[None, None, :]
    base = pid * BLOCK
    cube = i * (8 * BLOCK) + j * BLOCK + k
    size = 4 * 8 * BLOCK
    tl.store(out + cube, (base + k - 3) % C + i * stride - j)
    tl.store(out + size + cube, ((base + j * stride + k) > n).to(tl.int32))
    acc = tl.zeros([4, 8, BLOCK], tl.int32)
    offs = base + k
    for step in range(STEPS):
        offs = offs + BLOCK
        acc += tl.load(src + (offs + j * stride) % 4096, (offs <= n) & (j < C), other=step)
    tl.store(out + 2 * size + cube, acc + offs)
    tl.store(out + 3 * size + tl.trans(cube, 2, 1, 0),
             tl.trans(tl.where(k >= C, j * 2 + i, cube // C), 2, 1, 0))


@pytest.mark.parametrize("n, stride, block, c, steps", [
    (4096, 16, 16, 16, 2), (1000, 3, 32, 3, 3), (64, 48, 64, 1, 1), (4097, 1, 16, 5, 2),
    (512, 64, 128, 32, 2)])
def test_loop_and_3d_indices(n, stride, block, c, steps):
    scalars = {"n": n, "stride": stride}
    kernel = tritonc.compile(
        loop_and_3d_indices, {"src": "*i32", "out": "*i32", "n": "i32", "stride": "i32"},
        {"BLOCK": block, "C": c, "STEPS": steps}, target="cuda:90",
        divisible_by_16={"src", "out"} | {k for k, v in scalars.items() if v % 16 == 0})
    src = np.random.default_rng(n + block).integers(-50, 50, 4096).astype(np.int32)
    out = np.full(4 * 4 * 8 * block, -9, np.int32)
    for pid in (0, 3):
        found = check_kernel(kernel.asm["ttgir"], [src, out], list(scalars.values()),
                             (pid + 1,))
        assert not found, "\n".join(found[:10])


def _case_arguments(entry, case) -> tuple[list, list] | None:
    """(arrays, scalars) of a corpus case in signature order, when its pointers all come
    before its integer scalars and its divisibility specialization holds of them."""
    values = [case.args[name] for name in entry.signature]
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    scalars = [v for v in values if not isinstance(v, np.ndarray)]
    if values != arrays + scalars or not all(type(v) is int for v in scalars):
        return None
    if any(case.args[n] % 16 for n in entry.divisible_by_16 if not isinstance(case.args[n],
                                                                               np.ndarray)):
        return None
    return [a.copy() for a in arrays], scalars


EVALUATED = [k for k in KERNELS if k.make_case is not None and not k.uses_dot
             and not k.debug_ops and all(isinstance(t, str) for t in k.signature.values())]


@pytest.mark.parametrize("entry", EVALUATED, ids=lambda k: k.name)
def test_corpus_kernels(entry):
    case = entry.make_case(np.random.default_rng(0))
    arguments = _case_arguments(entry, case)
    if arguments is None:
        pytest.skip("the case's arguments are not pointers then integers")
    kernel = tritonc.compile(entry.fn, entry.signature, entry.constexprs, target="cuda:90",
                             divisible_by_16=entry.divisible_by_16)
    if "tt.extern_elementwise" in kernel.asm["ttgir"]:
        pytest.skip("the evaluator has no library functions")
    try:
        found = check_kernel(kernel.asm["ttgir"], *arguments, case.grid)
    except InterpreterUnsupported as e:
        pytest.skip(f"the evaluator cannot run it: {e}")
    assert not found, "\n".join(found[:10])
