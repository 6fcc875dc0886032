"""Errors Triton users expect (all `TritonError`s), and where/store on pointers."""

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.backends.interpreter.errors import InterpreterError


@triton.jit(interpret=True)
def atomic_add_kernel(in_ptr, out_ptr):
    tl.atomic_add(out_ptr, tl.load(in_ptr))


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.uint8, torch.uint16])
def test_narrow_integer_atomics_are_refused(dtype):
    x = torch.ones(1, dtype=dtype)
    with pytest.raises(triton.TritonError, match="not supported"):
        atomic_add_kernel[(1,)](x, torch.zeros(1, dtype=dtype))


@triton.jit(interpret=True)
def expand(out_ptr, AXES: tl.constexpr):
    t = tl.expand_dims(tl.arange(0, 4), AXES)
    tl.store(out_ptr + tl.reshape(t, [4]), tl.reshape(t, [4]))


@pytest.mark.parametrize("axes,message", [
    (-3, "invalid axis -3"), (2, "invalid axis 2"),
    ((0, 0), r"duplicate axes, normalized axes = \[0, 0\]"),
    ((0, -3), r"duplicate axes, normalized axes = \[0, 0\]")])
def test_expand_dims_checks_its_axes(axes, message):
    with pytest.raises(triton.TritonError) as err:
        expand[(1,)](torch.zeros(4, dtype=torch.int32), axes)
    assert err.match(message)


def test_expand_dims_with_valid_axes():
    out = torch.full((4,), -1, dtype=torch.int32)
    expand[(1,)](out, (0, -1))
    assert out.tolist() == [0, 1, 2, 3]


@triton.jit(interpret=True)
def narrow_descriptor(ptr):
    desc = tl.make_tensor_descriptor(ptr, [64, 64], [64, 1], [4, 2])
    desc.load([0, 0])


def test_descriptor_blocks_need_16_bytes_per_row():
    with pytest.raises(InterpreterError) as err:
        narrow_descriptor[(1,)](torch.zeros(64, 64, dtype=torch.int32))
    assert "at least 16 bytes" in str(err.value.__cause__)
    assert "narrow_descriptor" in str(err.value)


@triton.jit(interpret=True)
def pick_pointer(a_ptr, b_ptr, out_ptr, addr_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    choose_a = offs % 3 == 0
    ptrs = tl.where(choose_a, a_ptr + offs, b_ptr + offs)
    tl.store(out_ptr + offs, tl.load(ptrs, mask=mask), mask=mask)
    tl.store(addr_ptr + offs, ptrs - offs, mask=mask)


def test_where_on_pointers_and_storing_addresses():
    rng = np.random.default_rng(14)
    a = torch.from_numpy(rng.standard_normal(21).astype(np.float32))
    b = torch.from_numpy(rng.standard_normal(21).astype(np.float32))
    out = torch.full((21,), float("nan"))
    addr = torch.zeros(21, dtype=torch.int64)
    pick_pointer[(1,)](a, b, out, addr, 21, 32)
    pick = torch.arange(21) % 3 == 0
    torch.testing.assert_close(out, torch.where(pick, a, b))
    assert len(set(addr[pick].tolist())) == 1 and len(set(addr[~pick].tolist())) == 1
    assert addr[0] != addr[1]


@triton.jit(interpret=True)
def maybe_load(x, out_ptr):
    value = 0
    if (x is not None) and hasattr(x, "dtype") and isinstance(x.dtype, tl.pointer_type):
        value = tl.load(x) + 1
    tl.store(out_ptr, value)


def test_hasattr_and_short_circuit():
    out = torch.full((1,), -1, dtype=torch.int32)
    maybe_load[(1,)](None, out)
    assert out.item() == 0
    maybe_load[(1,)](7, out)
    assert out.item() == 0
    maybe_load[(1,)](torch.tensor([41], dtype=torch.int32), out)
    assert out.item() == 42
