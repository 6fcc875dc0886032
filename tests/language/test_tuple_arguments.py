"""Tuple arguments with items known at compile time, and @jit functions as arguments.

A tuple (or NamedTuple) argument may hold None, `tl.constexpr` values, @jit functions
and nested tuples beside tensors and scalars. The constant items are constexprs in the
kernel and take no function argument; the others are passed. An int item equal to 1 is
a constexpr when compiled (`strides[1].type` is a `tl.constexpr_type`), as Triton
specializes it. A @jit function passed as an argument is a constexpr the kernel calls.
Each kernel runs in the interpreter against numpy (random inputs, shapes that are not
multiples of the blocks), compiles through ptxas on the CPU, and runs on the GPU.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.compiler.compiler import compile as compile_kernel
from tritonc.runtime import gpu_launch
from tritonc.runtime.specialization import ConstantItem

RNG = np.random.default_rng(31)


def interpreted(kernel: triton.JITFunction) -> triton.JITFunction:
    return triton.jit(interpret=True)(kernel.fn)


def compiled(kernel: triton.JITFunction, *args: Any) -> tuple[dict, dict, Any]:
    """The runtime's specialization of `args` (CPU tensors stand for device ones) and the
    kernel compiled from it down to a cubin."""
    signature, constexprs, divisible = gpu_launch.specialize(kernel, kernel.bind(args, {}))
    k = compile_kernel(kernel, signature, constexprs, "cuda:90", divisible)
    assert k.asm["cubin"][:4] == b"\x7fELF"
    return signature, constexprs, k


# -- a NamedTuple holding a @jit function and the arguments it captured ---------------------

class Closure(NamedTuple):
    fn: Any
    captured: tuple


class View(NamedTuple):
    ptr: Any
    shape: tuple
    stride: tuple


@triton.jit
def _view_mask(view, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    return (rows < view.shape[0]) & (cols < view.shape[1])


@triton.jit
def _view_offsets(view, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    return view.ptr + rows * view.stride[0] + cols * view.stride[1]


@triton.jit
def _apply_closure(closure, src, dst, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x = tl.load(_view_offsets(src, BLOCK_M, BLOCK_N), mask=_view_mask(dst, BLOCK_M, BLOCK_N),
                other=0.0)
    y = closure.fn(x, *closure.captured)
    tl.store(_view_offsets(dst, BLOCK_M, BLOCK_N), y, mask=_view_mask(dst, BLOCK_M, BLOCK_N))


@triton.jit
def _scale_shift(x, scale_ptr, shift):
    return x * tl.load(scale_ptr) + shift


@triton.jit
def _square(x):
    return x * x


def _closure_case(device: str):
    src = RNG.standard_normal((37, 41)).astype(np.float32)
    scale = RNG.standard_normal(1).astype(np.float32)
    shift = float(RNG.standard_normal())
    rows, cols = 23, 29
    x = torch.from_numpy(src).to(device)
    y = torch.zeros((rows, cols), device=device)
    s = torch.from_numpy(scale).to(device)
    want = src[:rows, :cols] * scale[0] + np.float32(shift)
    args = (Closure(_scale_shift, (s, shift)), View(x, x.shape, x.stride()),
            View(y, y.shape, y.stride()))
    return args, y, want


def test_closure_in_the_interpreter() -> None:
    args, y, want = _closure_case("cpu")
    interpreted(_apply_closure)[(1,)](*args, 32, 32)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6, atol=1e-6)
    # a captured tuple without runtime items: the function alone
    x = torch.from_numpy(RNG.standard_normal((5, 6)).astype(np.float32))
    out = torch.zeros((5, 6))
    interpreted(_apply_closure)[(1,)](Closure(_square, ()), View(x, x.shape, x.stride()),
                                      View(out, out.shape, out.stride()), 8, 8)
    np.testing.assert_allclose(out.numpy(), x.numpy() ** 2, rtol=1e-6)


def test_closure_compiles() -> None:
    args, _, _ = _closure_case("cpu")
    signature, constexprs, k = compiled(_apply_closure, *args, 32, 32)
    assert signature["closure"] == Closure(ConstantItem(_scale_shift), ("*fp32", "fp32"))
    # the last stride of a contiguous tensor is 1: a constexpr, as Triton specializes it
    assert signature["src"] == View("*fp32", ("i32", "i32"), ("i32", ConstantItem(1)))
    assert constexprs == {"BLOCK_M": 32, "BLOCK_N": 32}
    params = [line for line in k.asm["ptx"].splitlines()
              if line.strip().startswith(".param")]
    assert len(params) == 2 + 4 + 4  # scale_ptr, shift; each view: ptr, shape, stride[0]
    assert "%closure.captured.0: !tt.ptr<f32, 1 : i32>" in k.asm["ttir"]


@pytest.mark.gpu
def test_closure_on_the_gpu() -> None:
    for _ in range(2):  # a second launch takes the compiled kernel
        args, y, want = _closure_case("cuda")
        _apply_closure[(1,)](*args, 32, 32)
        np.testing.assert_allclose(y.cpu().numpy(), want, rtol=1e-6, atol=1e-6)


# -- None and constexprs inside runtime tuples ------------------------------------------------

@triton.jit
def _nested_items(out_ptr, first, nested, flag, pair):
    tl.static_assert(flag is None)
    tl.static_assert(nested[1][1] is None)
    tl.static_assert(nested[1][3] == 4)
    tl.static_assert(pair[1] is None)
    tl.store(out_ptr + 0, tl.load(first[0]))
    tl.store(out_ptr + 1, nested[1][0])
    tl.store(out_ptr + 2, tl.load(nested[1][2]))
    tl.store(out_ptr + 3, nested[1][3] + pair[0])
    tl.store(out_ptr + 4, tl.load(nested[0]))
    for i in range(2):  # a new scope: the tuple's items are carried into it
        tl.store(out_ptr + 5 + i, nested[1][0] * nested[1][3] + i)


def _nested_case(device: str):
    a, b, c = (torch.tensor([int(v)], dtype=torch.int32, device=device)
               for v in RNG.integers(-1000, 1000, 3))
    k = int(RNG.integers(2, 50))
    p = int(RNG.integers(-50, 50))
    out = torch.zeros(7, dtype=torch.int32, device=device)
    args = (out, (a,), (b, (k, None, c, tl.constexpr(4))), None, (p, None))
    want = [a.item(), k, c.item(), 4 + p, b.item(), k * 4, k * 4 + 1]
    return args, out, want


def test_nested_items_in_the_interpreter() -> None:
    args, out, want = _nested_case("cpu")
    interpreted(_nested_items)[(1,)](*args)
    assert out.tolist() == want


def test_nested_items_compile() -> None:
    args, _, _ = _nested_case("cpu")
    signature, constexprs, k = compiled(_nested_items, *args)
    assert signature["nested"] == ("*i32", ("i32", ConstantItem(None), "*i32", ConstantItem(4)))
    assert signature["pair"] == ("i32", ConstantItem(None))
    assert constexprs == {"flag": None}
    assert "%nested.1.2: !tt.ptr<i32, 1 : i32>" in k.asm["ttir"]
    assert gpu_launch._flatten(tuple(signature.values())) == [
        "*i32", "*i32", "*i32", "i32", "*i32", "i32"]
    values = [v for name, entry in signature.items()
              for v in gpu_launch.argument_values(entry, dict(zip(_nested_items.arg_names,
                                                                 args, strict=True))[name])]
    assert len(values) == 6 and values[3] is args[2][1][0]


@pytest.mark.gpu
def test_nested_items_on_the_gpu() -> None:
    for _ in range(2):
        args, out, want = _nested_case("cuda")
        _nested_items[(1,)](*args)
        assert out.cpu().tolist() == want


@triton.jit
def _constexpr_in_scope(out_ptr, x):
    for i in range(3):  # copies the tuple into the loop's scope and back
        tl.static_assert(x[1][0] == 2)
        tl.store(out_ptr + i, x[0][0] * x[1][0] + i)


def test_nested_constexpr_in_a_runtime_tuple() -> None:
    n = int(RNG.integers(3, 100))
    out = np.zeros(3, np.int32)
    interpreted(_constexpr_in_scope)[(1,)](out, ((n,), (tl.constexpr(2),)))
    assert out.tolist() == [2 * n, 2 * n + 1, 2 * n + 2]
    signature, _, _ = compiled(_constexpr_in_scope, torch.zeros(3, dtype=torch.int32),
                               ((n,), (tl.constexpr(2),)))
    assert signature["x"] == (("i32",), (ConstantItem(2),))
    # only constants: the whole tuple is one constexpr
    _, constexprs, _ = compiled(_constexpr_in_scope, torch.zeros(3, dtype=torch.int32),
                                ((tl.constexpr(n),), (tl.constexpr(2),)))
    assert constexprs == {"x": ((n,), (2,))}


@pytest.mark.gpu
def test_nested_constexpr_on_the_gpu() -> None:
    n = int(RNG.integers(3, 100))
    out = torch.zeros(3, dtype=torch.int32, device="cuda")
    _constexpr_in_scope[(1,)](out, ((n,), (tl.constexpr(2),)))
    assert out.cpu().tolist() == [2 * n, 2 * n + 1, 2 * n + 2]


# -- a @jit function as an argument -------------------------------------------------------

@triton.jit
def _map_kernel(x_ptr, out_ptr, n, f, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, f(tl.load(x_ptr + offs, mask=mask)), mask=mask)


def _twice_plus_one():
    @triton.jit
    def f(x):
        return 2 * x + 1

    return f


def _cube():
    @triton.jit
    def f(x):
        return x * x * x

    return f


def test_function_argument() -> None:
    n = 300
    x = RNG.standard_normal(n).astype(np.float32)
    kernel = interpreted(_map_kernel)
    for make, ref in ((_twice_plus_one, 2 * x + 1), (_cube, x * x * x)):
        out = np.zeros(n, np.float32)
        kernel[(triton.cdiv(n, 128),)](x, out, n, make(), 128)
        np.testing.assert_allclose(out, ref, rtol=1e-6)
    twice, cube = _twice_plus_one(), _cube()  # the same name, different code
    sig, constexprs, k = compiled(_map_kernel, torch.from_numpy(x), torch.zeros(n), n, cube, 128)
    assert constexprs["f"] is cube and "f" not in sig
    assert "arith.mulf" in k.asm["ttir"]
    assert gpu_launch.constant_text(twice) != gpu_launch.constant_text(cube)
    assert gpu_launch.constant_key(twice) != gpu_launch.constant_key(cube)
    assert repr(ConstantItem(twice)) != repr(ConstantItem(cube))


def _add_constant(k: float):
    K = tl.constexpr(k)

    @triton.jit
    def f(x):
        return x + K

    return f


def test_closures_are_part_of_the_cache_key() -> None:
    """Two functions with the same source and name, differing by a captured constexpr:
    both as arguments and as the kernel itself, their compilations are told apart."""
    one, two = _add_constant(1.5), _add_constant(-4.0)
    assert gpu_launch.constant_text(one) != gpu_launch.constant_text(two)
    assert gpu_launch.dependencies_key(one) != gpu_launch.dependencies_key(two)
    assert gpu_launch.dependencies_key(one) == gpu_launch.dependencies_key(_add_constant(1.5))
    n = 77
    x = RNG.standard_normal(n).astype(np.float32)
    for f, k in ((one, 1.5), (two, -4.0)):
        out = np.zeros(n, np.float32)
        interpreted(_map_kernel)[(1,)](x, out, n, f, 128)
        np.testing.assert_allclose(out, x + np.float32(k), rtol=1e-6)
        _, _, compiled_kernel = compiled(_map_kernel, torch.from_numpy(x), torch.zeros(n), n,
                                         f, 128)
        assert f"{k:.6e}" in compiled_kernel.asm["ttir"].replace("E+", "e+").replace(
            "E-", "e-")


@pytest.mark.gpu
def test_function_argument_on_the_gpu() -> None:
    n = 1000
    x = torch.randn(n, device="cuda")
    out = torch.zeros(n, device="cuda")
    for make, ref in ((_twice_plus_one, 2 * x + 1), (_cube, x * x * x),
                      (lambda: _add_constant(1.5), x + 1.5),
                      (lambda: _add_constant(-4.0), x - 4.0)):
        _map_kernel[(triton.cdiv(n, 128),)](x, out, n, make(), 128)
        torch.testing.assert_close(out, ref)


# -- int items equal to 1 ---------------------------------------------------------------

@triton.jit
def _strided_copy(x_ptr, out_ptr, shape, strides, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    tl.static_assert(isinstance(strides[1].type, tl.constexpr_type))
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < shape[0]) & (cols < shape[1])
    x = tl.load(x_ptr + rows * strides[0] + cols * strides[1], mask=mask)
    tl.store(out_ptr + rows * shape[1] + cols, x, mask=mask)


def test_int_items_equal_to_one_are_constexprs_when_compiled() -> None:
    x = torch.from_numpy(RNG.standard_normal((13, 21)).astype(np.float32))
    signature, _, k = compiled(_strided_copy, x, torch.zeros(13 * 21), x.shape, x.stride(),
                               16, 32)
    assert signature["strides"] == ("i32", ConstantItem(1))
    assert "%strides.1" not in k.asm["ttir"]
    assert isinstance(tl.constexpr(1).type, tl.constexpr_type)
    assert tl.constexpr(1).type == tl.constexpr_type(1) != tl.constexpr_type(2)

    @triton.jit(do_not_specialize=["strides"])
    def unspecialized(strides):
        pass

    signature, _, _ = gpu_launch.specialize(unspecialized, {"strides": (21, 1)})
    assert signature["strides"] == ("i32", "i32")


@pytest.mark.gpu
def test_int_items_equal_to_one_on_the_gpu() -> None:
    x = torch.randn((13, 21), device="cuda")
    out = torch.zeros(13 * 21, device="cuda")
    _strided_copy[(1,)](x, out, x.shape, x.stride(), 16, 32)
    torch.testing.assert_close(out.reshape(13, 21), x)
