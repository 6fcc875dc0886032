"""thread-locality: row statistics accumulated over a loop (a grid-stride loop over column
blocks, `acc + tl.sum(x, 1)`, `tl.maximum(acc, tl.max(x, 1))`) reduce within each thread
inside the loop and across threads once after it.

Checked on the CPU three ways here: the split layout places every element where the
tile's layout does (so the reshape moves nothing); the compiled kernels hold two
`tt.reduce`s, pass ptxas and have loop bodies without shuffles, barriers or shared memory;
their TTGIR, evaluated op by op with the interpreter's numpy rules, gives numpy's answer
(as the kernel run in the interpreter does). That the pass leaves the zoo's TTGIR as it is
is checked beside the zoo (tests/test_zoo_layouts.py). On the GPU the kernels meet numpy
in float64 on ragged sizes.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc
import tritonc.language as tl
from tritonc.passes.ttgir.layouts import BlockedLayout
from tritonc.passes.ttgir.thread_locality import split_layout

BLOCK_M = 32
NUMPY = {"sum": np.sum, "max": np.max, "min": np.min}


def _row_statistic(X, Y, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, OP: tl.constexpr,
                   START: tl.constexpr, MASKED: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    part = tl.program_id(1)
    parts = tl.num_programs(1)
    acc = tl.full([BLOCK_M], START, dtype=Y.dtype.element_ty)
    for block in range(part, tl.cdiv(N, BLOCK_N), parts):
        cols = block * BLOCK_N + tl.arange(0, BLOCK_N)
        ptrs = X + rows[:, None] * N + cols[None, :]
        if MASKED:
            if OP == "sum":
                x = tl.load(ptrs, mask=cols[None, :] < N, other=0.0)
            elif OP == "max":
                x = tl.load(ptrs, mask=cols[None, :] < N, other=float("-inf"))
            else:
                x = tl.load(ptrs, mask=cols[None, :] < N, other=float("inf"))
        else:
            x = tl.load(ptrs)
        if OP == "sum":
            acc = acc + tl.sum(x, axis=1)
        elif OP == "max":
            acc = tl.maximum(acc, tl.max(x, axis=1))
        else:
            acc = tl.minimum(acc, tl.min(x, axis=1))
    tl.store(Y + rows * parts + part, acc)


def start(op: str, dtype: str = "fp32") -> float | int:
    """The identity of `op` the accumulator starts from."""
    if op == "sum":
        return 0
    bound = float("inf") if dtype.startswith("fp") else 2**31 - 1
    return -bound - (dtype == "i32") if op == "max" else bound


row_statistic = tritonc.jit(_row_statistic)
row_statistic_interpreted = tritonc.jit(_row_statistic, interpret=True)


@tritonc.jit
def column_sums(X, Y, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Columns of a column-major X: the tile loads along dimension 0."""
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        acc += tl.sum(tl.load(X + rows[:, None] + cols[None, :] * M), axis=0)
    tl.store(Y + cols, acc)


# -- the split layout ---------------------------------------------------------------------
@pytest.mark.parametrize("layout, shape, axis", [
    (BlockedLayout((1, 4), (2, 16), (4, 1), (1, 0)), (32, 64), 1),
    (BlockedLayout((1, 4), (1, 32), (4, 1), (1, 0)), (32, 256), 1),   # repeats along N
    (BlockedLayout((2, 4), (4, 8), (2, 2), (1, 0)), (8, 32), 1),       # wraps along M
    (BlockedLayout((4, 1), (16, 2), (1, 4), (0, 1)), (64, 16), 0),
    (BlockedLayout((1, 2, 4), (1, 4, 8), (2, 2, 1), (2, 1, 0)), (4, 16, 64), 2),
    (BlockedLayout((1, 2, 4), (2, 4, 4), (1, 4, 1), (2, 0, 1)), (4, 32, 16), 1),
])
def test_split_layout_places_every_element_in_the_same_register(layout, shape, axis):
    k = layout.size_per_thread[axis]
    split = split_layout(layout, axis, k)
    split_shape = shape[:axis] + (shape[axis] // k, k) + shape[axis + 1:]
    merged = split.to_linear(split_shape)
    original = layout.to_linear(shape)

    def merge(basis: tuple[int, ...]) -> tuple[int, ...]:
        return basis[:axis] + (basis[axis] * k + basis[axis + 1],) + basis[axis + 2:]

    for dim in ("register", "lane", "warp"):
        assert [merge(b) for b in merged.bases(dim)] == list(original.bases(dim)), dim
    assert split.size_per_thread[axis + 1] == k and split.threads_per_warp[axis + 1] == 1
    assert split.warps_per_cta[axis + 1] == 1


# -- compiled kernels ----------------------------------------------------------------------
@functools.cache
def _compiled(op: str, block_n: int, masked: bool = False, dtype: str = "fp32"):
    return tritonc.compile(row_statistic, {"X": f"*{dtype}", "Y": f"*{dtype}", "N": "i32"},
                           {"BLOCK_M": BLOCK_M, "BLOCK_N": block_n, "OP": op,
                            "START": start(op, dtype), "MASKED": masked}, target="cuda:90",
                           divisible_by_16={"X", "Y", "N"})


def loop_bodies(ptx: str) -> list[str]:
    """The PTX between each label and the backward branch to it."""
    bodies = []
    for label in re.finditer(r"^(\$L__BB\d+_\d+):$", ptx, re.M):
        branch = re.search(rf"bra(?:\.uni)?\s+{re.escape(label.group(1))};", ptx[label.end():])
        if branch:
            bodies.append(ptx[label.end():label.end() + branch.start()])
    return bodies


def _assert_thread_local(kernel) -> None:
    assert kernel.asm["ttgir"].count('"tt.reduce"') == 2
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    assert kernel.metadata["ptxas"].get("spill_stores", 0) == 0
    bodies = loop_bodies(kernel.asm["ptx"])
    assert len(bodies) == 1
    for word in ("shfl", "bar.sync", ".shared"):
        assert word not in bodies[0], word


@pytest.mark.parametrize("block_n", [32, 64, 128])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_loop_reduces_within_threads(op, block_n):
    _assert_thread_local(_compiled(op, block_n))


@pytest.mark.parametrize("case", ["masked", "int32", "columns"])
def test_masked_integer_and_column_loops_reduce_within_threads(case):
    if case == "columns":
        kernel = tritonc.compile(column_sums, {"X": "*fp32", "Y": "*fp32", "M": "i32"},
                                 {"BLOCK_M": 64, "BLOCK_N": 32}, target="cuda:90",
                                 divisible_by_16={"X", "Y", "M"})
        assert not re.search(r'"ttg.convert_layout"\(%\w+\) : \(tensor<64x32xf32',
                             kernel.asm["ttgir"])  # reduced as loaded
    else:
        kernel = _compiled("max" if case == "int32" else "sum", 64, case == "masked",
                           "i32" if case == "int32" else "fp32")
    _assert_thread_local(kernel)


@pytest.mark.parametrize("parts", [2, 4])
@pytest.mark.parametrize("n", [512, 1024, 2048])
@pytest.mark.parametrize("block_n", [32, 64, 128])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_compiled_ttgir_computes_the_row_statistic(op, block_n, n, parts):
    rng = np.random.default_rng(n + block_n + parts)
    x = rng.standard_normal((BLOCK_M, n)).astype(np.float32)
    kernel = _compiled(op, block_n)
    expected = NUMPY[op](x.astype(np.float64), axis=1)
    for stage in ("ttir", "ttgir"):
        y = np.full((BLOCK_M, parts), np.nan, dtype=np.float32)
        evaluate(kernel.asm[stage], [x, y], [n], (1, parts, 1))
        np.testing.assert_allclose(NUMPY[op](y.astype(np.float64), axis=1), expected,
                                   rtol=1e-5, atol=1e-4, err_msg=stage)


@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_ragged_ttgir_and_interpreter_agree_with_numpy(op):
    n, parts = 1040, 3
    rng = np.random.default_rng(7)
    x = rng.standard_normal((BLOCK_M, n)).astype(np.float32)
    expected = NUMPY[op](x.astype(np.float64), axis=1)
    y = np.full((BLOCK_M, parts), np.nan, dtype=np.float32)
    evaluate(_compiled(op, 64, True).asm["ttgir"], [x, y], [n], (1, parts, 1))
    np.testing.assert_allclose(NUMPY[op](y.astype(np.float64), axis=1), expected, rtol=1e-5,
                               atol=1e-4)
    y = np.full((BLOCK_M, parts), np.nan, dtype=np.float32)
    row_statistic_interpreted[(1, parts, 1)](x, y, n, BLOCK_M=BLOCK_M, BLOCK_N=64, OP=op,
                                             START=start(op), MASKED=True)
    np.testing.assert_allclose(NUMPY[op](y.astype(np.float64), axis=1), expected, rtol=1e-5,
                               atol=1e-4)


def test_integer_ttgir_is_exact():
    n, parts = 512, 2
    x = np.random.default_rng(3).integers(-1000, 1000, (BLOCK_M, n)).astype(np.int32)
    y = np.zeros((BLOCK_M, parts), dtype=np.int32)
    evaluate(_compiled("max", 64, False, "i32").asm["ttgir"], [x, y], [n], (1, parts, 1))
    np.testing.assert_array_equal(y.max(axis=1), x.max(axis=1))


# -- on the GPU ------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("n, parts", [(1040, 2), (2000, 3), (2048, 4)])
@pytest.mark.parametrize("block_n", [32, 64, 128])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_row_statistic_on_gpu(op, block_n, n, parts):
    import torch

    torch.manual_seed(n * block_n)
    x = torch.randn((BLOCK_M, n), dtype=torch.float32, device="cuda")
    y = torch.full((BLOCK_M, parts), float("nan"), dtype=torch.float32, device="cuda")
    h = row_statistic[(1, parts, 1)](x, y, n, BLOCK_M=BLOCK_M, BLOCK_N=block_n, OP=op,
                                     START=start(op), MASKED=n % block_n != 0)
    torch.cuda.synchronize()
    assert h.asm["ttgir"].count('"tt.reduce"') == 2
    expected = NUMPY[op](x.cpu().double().numpy(), axis=1)
    got = NUMPY[op](y.cpu().double().numpy(), axis=1)
    if op == "sum":
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)
    else:
        np.testing.assert_array_equal(got, expected)
