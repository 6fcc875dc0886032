"""A pointer moved 2**40 bytes or more keeps its provenance in the interpreter: an access
through it is out of bounds of its own argument, never a read or write of a neighbour's."""

from __future__ import annotations

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.backends.interpreter import InterpreterMemoryError


@triton.jit(interpret=True)
def far_load(x_ptr, y_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    far = x_ptr + shift  # int64 elements: 2**39 fp32 elements is 2**41 bytes
    tl.store(out_ptr + offs, tl.load(far + offs))


@triton.jit(interpret=True)
def far_store(x_ptr, y_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + shift + offs, tl.full((BLOCK,), 7.0, tl.float32))


@triton.jit(interpret=True)
def far_masked(x_ptr, y_ptr, out_ptr, shift, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    ptrs = x_ptr + offs + shift * (offs >= n).to(tl.int64)  # the masked-off lanes move far
    tl.store(out_ptr + offs, tl.load(ptrs, mask=mask, other=-1.0), mask=mask)


def _buffers(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = rng.standard_normal(40).astype(np.float32)
    y = rng.standard_normal(40).astype(np.float32)
    out = np.full(40, np.nan, np.float32)
    return x, y, out


# 2**39 fp32 elements = 2**41 bytes: exactly the distance between two arguments' buffers,
# and a few other far moves (either direction, or past the int64 range)
SHIFTS = [2**39, 2**39 + 3, 2**38, -(2**39), 2**40 + 5, 2**61]


@pytest.mark.parametrize("shift", SHIFTS)
def test_far_load_is_out_of_bounds(shift: int) -> None:
    x, y, out = _buffers(np.random.default_rng(shift % 1000))
    with pytest.raises(InterpreterMemoryError, match="out of bounds of argument 'x_ptr'"):
        far_load[(1,)](x, y, out, shift, BLOCK=16)
    assert np.isnan(out).all()


@pytest.mark.parametrize("shift", SHIFTS)
def test_far_store_writes_nothing(shift: int) -> None:
    x, y, _ = _buffers(np.random.default_rng(shift % 997))
    x0, y0 = x.copy(), y.copy()
    with pytest.raises(InterpreterMemoryError, match="out of bounds of argument 'x_ptr'"):
        far_store[(1,)](x, y, shift, BLOCK=16)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)


def test_masked_off_far_lanes_are_never_touched() -> None:
    x, y, out = _buffers(np.random.default_rng(3))
    far_masked[(1,)](x, y, out, 2**39, 11, BLOCK=16)
    np.testing.assert_array_equal(out[:11], x[:11])
    assert np.isnan(out[11:]).all()


def test_near_pointers_still_work() -> None:
    x, y, out = _buffers(np.random.default_rng(4))
    far_load[(1,)](x, y, out, 24, BLOCK=16)
    np.testing.assert_array_equal(out[:16], x[24:40])
