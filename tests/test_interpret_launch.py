"""`kernel[grid](...)` in the interpreter: launches, grids, argument kinds, located faults."""

import re
import sys

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.backends.interpreter.errors import DeviceAssertionError, InterpreterMemoryError


@triton.jit(interpret=True)
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit(interpret=True)
def grid3_kernel(out_ptr, nx, ny):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    value = x + 10 * y + 100 * z + 1000 * (tl.num_programs(0) + tl.num_programs(2))
    tl.store(out_ptr + (z * ny + y) * nx + x, value)


@triton.jit(interpret=True)
def shifted_load(x_ptr, shift):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs + shift))


@triton.jit(interpret=True)
def checked_kernel(x_ptr, limit):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x < limit, "value over the limit")


@triton.jit(interpret=True)
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * alpha).to(out_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("n", [1, 1000, 4097])
def test_vector_add_matches_torch(n):
    rng = torch.Generator().manual_seed(n)
    x, y = torch.rand(n, generator=rng), torch.rand(n, generator=rng)
    out = torch.full((n,), float("nan"))
    add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=256)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_numpy_arrays_and_fp16_with_float_scalar():
    x = np.random.default_rng(0).standard_normal(300).astype(np.float16)
    out = np.full(300, np.nan, dtype=np.float16)
    scale_kernel[(3,)](x, out, 300, 0.5, BLOCK=128)
    np.testing.assert_allclose(out.astype(np.float64), x.astype(np.float64) * 0.5, rtol=1e-3)


def test_three_dimensional_grid():
    nx, ny, nz = 3, 4, 2
    out = torch.full((nz, ny, nx), -1, dtype=torch.int32)
    grid3_kernel[(nx, ny, nz)](out, nx, ny)
    z, y, x = np.meshgrid(range(nz), range(ny), range(nx), indexing="ij")
    np.testing.assert_array_equal(out.numpy(), x + 10 * y + 100 * z + 1000 * (nx + nz))


def test_out_of_bounds_load_names_kernel_line_argument_and_offset():
    x = torch.zeros(16)
    with pytest.raises(InterpreterMemoryError) as info:
        shifted_load[(1,)](x, 3)
    text = str(info.value)
    assert "shifted_load" in text and "'x_ptr'" in text
    offending = int(re.search(r"element (\d+)", text).group(1))
    assert 16 <= offending <= 18
    assert "tl.load(x_ptr + offs + shift)" in text
    line = shifted_load.def_line + 2
    assert f"test_interpret_launch.py:{line}" in text


def test_device_assert_raises_with_message_and_line():
    x = torch.arange(16, dtype=torch.float32)
    checked_kernel[(1,)](x, 100.0)
    with pytest.raises(DeviceAssertionError) as info:
        checked_kernel[(1,)](x, 10.0)
    assert "value over the limit" in str(info.value)
    assert f"test_interpret_launch.py:{checked_kernel.def_line + 3}" in str(info.value)


def test_missing_constexpr_and_extra_argument_are_clear_errors():
    x = torch.zeros(4)
    with pytest.raises(TypeError, match="missing the constexpr argument 'BLOCK'"):
        add_kernel[(1,)](x, x, x, 4)
    with pytest.raises(TypeError, match="unexpected argument 'BLOKC'"):
        add_kernel[(1,)](x, x, x, 4, BLOCK=4, BLOKC=4)


def test_environment_variable_selects_interpreter(monkeypatch):
    @triton.jit
    def fill(out_ptr, value):
        tl.store(out_ptr + tl.arange(0, 8), value)

    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    out = torch.zeros(8, dtype=torch.int32)
    fill[(1,)](out, 7)
    assert out.tolist() == [7] * 8


@triton.jit(interpret=True)
def _stores_through_const(src: tl.const, dst: tl.const, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs))


@triton.jit(interpret=True)
def _copies(src, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs))


def test_warmup_in_the_interpreter_judges_the_kernel_and_runs_nothing():
    """A warmup compiles nothing to run, but an illegal kernel is still reported, as a
    compiled warmup reports it; a legal one's outputs stay untouched."""
    src, dst = torch.randn(64), torch.full((64,), 7.0)
    with pytest.raises(triton.CompilationError, match="Cannot store to a constant pointer"):
        _stores_through_const.warmup(src, dst, BLOCK=64, grid=(1,))
    assert _copies.warmup(src, dst, BLOCK=64, grid=(1,)) is None
    assert torch.equal(dst, torch.full((64,), 7.0))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="code objects name themselves from 3.11")
def test_a_bad_argument_list_names_the_kernel():
    x = torch.zeros(64)
    with pytest.raises(TypeError, match=r"^add_kernel\(\) got multiple values for argument "
                                        r"'BLOCK'$"):
        add_kernel[(1,)](x, x, x, 64, 64, BLOCK=64)
