"""The language surface Inductor's helpers need, in the interpreter and compiled to PTX.

Type queries (`x.dtype.is_floating()`, `primitive_bitwidth`, ...) run at compile time;
`tl.core.get_int_dtype` / `_unwrap_if_constexpr`; `x is None` on a tensor; int1 order;
a combine function that builds a block; `tl.rand4x`; integer abs.
"""

from __future__ import annotations

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.inductor import libdevice_extra as extra
from tritonc.inductor.modules import PropagateNan
from tritonc.language import core
from tritonc.language.extra import libdevice


@triton.jit
def _is_float(x):
    return (x + tl.zeros((1,), tl.int1)).dtype.is_floating()


@triton.jit
def _max_combine(a, b):
    if _is_float(a):
        return tl.maximum(a, b)
    return tl.where(a > b, a, b)


@triton.jit
def queries_kernel(x_ptr, out_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask, other=-1e30)
    idtype: tl.constexpr = core.get_int_dtype(x.dtype.primitive_bitwidth, True)
    bits = x.to(idtype, bitcast=True)
    tl.store(out_ptr + offs, bits.to(x.dtype, bitcast=True) * 2.0, mask)
    best = tl.reduce(x, 0, _max_combine)
    flags = tl.zeros((4,), tl.float32)
    flags = tl.where(tl.arange(0, 4) == 0, best, flags)
    if x.dtype.is_floating() and not x.dtype.is_int_signed() and x.dtype.is_fp32():
        flags = tl.where(tl.arange(0, 4) == 1, 1.0, flags)
    if n is not None:
        flags = tl.where(tl.arange(0, 4) == 2, core._unwrap_if_constexpr(BLOCK), flags)
    valid = offs < n
    order = (valid > (offs < 0)).to(tl.float32)
    flags = tl.where(tl.arange(0, 4) == 3, tl.sum(order, 0), flags)
    tl.store(flags_ptr + tl.arange(0, 4), flags)


@triton.jit
def rand_kernel(seed, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    r0, r1, r2, r3 = tl.rand4x(seed, offs)
    i0, i1, i2, i3 = tl.randint4x(seed, offs)
    u = tl.uint_to_uniform_float(i2)
    tl.store(out_ptr + offs, r0)
    tl.store(out_ptr + BLOCK + offs, r3)
    tl.store(out_ptr + 2 * BLOCK + offs, r2 - u)


@triton.jit
def iabs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask)
    tl.store(out_ptr + offs, tl.abs(x), mask)


def _interpret(kernel, grid, *args, **kwargs):
    kernel.interpret = True
    try:
        kernel[grid](*args, **kwargs)
    finally:
        kernel.interpret = None


def test_type_queries_and_helpers_in_the_interpreter():
    rng = np.random.default_rng(1)
    n = 77
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    flags = np.full(4, np.nan, np.float32)
    _interpret(queries_kernel, (1,), x, out, flags, n, BLOCK=128)
    np.testing.assert_array_equal(out, x * 2)
    assert flags[0] == x.max() and flags[1] == 1.0 and flags[2] == 128.0
    assert flags[3] == n  # true > false for int1


def test_rand4x_is_four_uniform_streams():
    out = np.full(3 * 256, np.nan, np.float32)
    _interpret(rand_kernel, (1,), 1234, out, BLOCK=256)
    r0, r3, diff = out[:256], out[256:512], out[512:]
    assert ((r0 >= 0) & (r0 < 1)).all() and ((r3 >= 0) & (r3 < 1)).all()
    assert abs(r0.mean() - 0.5) < 0.08 and not np.array_equal(r0, r3)
    np.testing.assert_array_equal(diff, 0)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_abs(dtype):
    rng = np.random.default_rng(2)
    n = 45
    x = rng.integers(-100, 100, n).astype(dtype)
    out = np.zeros(n, dtype)
    _interpret(iabs_kernel, (1,), x, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, np.abs(x))


@pytest.mark.parametrize("arch", [80, 90])
def test_surface_compiles_to_ptx(arch):
    from tritonc.compiler.compiler import compile as compile_kernel

    q = compile_kernel(queries_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                        "flags_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128},
                       target=f"cuda:{arch}")
    assert f".target sm_{arch}" in q.asm["ptx"]
    r = compile_kernel(rand_kernel, {"seed": "i64", "out_ptr": "*fp32"}, {"BLOCK": 256},
                       target=f"cuda:{arch}")
    assert "mul.hi.u32" in r.asm["ptx"]
    for ty in ("i8", "i32", "i64"):
        a = compile_kernel(iabs_kernel, {"x_ptr": f"*{ty}", "out_ptr": f"*{ty}", "n": "i32"},
                           {"BLOCK": 64}, target=f"cuda:{arch}")
        assert a.asm["cubin"][:4] == b"\x7fELF"


@triton.jit
def special_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask)
    y = libdevice.cyl_bessel_i0(x) + libdevice.cyl_bessel_i1(x) + extra.erfcx(x)
    y += libdevice.j0(x) + libdevice.j1(x) + libdevice.y0(x) + libdevice.y1(x)
    y += libdevice.fma(x, x, x) + extra.mul_rn(x, x)
    y += extra.ldexp(x, extra.ilogb(x)) + extra.fast_tanhf(x)
    tl.store(out_ptr + offs, y, mask)


@pytest.mark.parametrize("arch", [80, 90])
def test_extra_libdevice_functions_link(arch):
    from tritonc.compiler.compiler import compile as compile_kernel

    k = compile_kernel(special_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                       {"BLOCK": 128}, target=f"cuda:{arch}")
    assert ".extern" not in k.asm["ptx"] and "tanh.approx.f32" in k.asm["ptx"]


@triton.jit
def nan_max_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask)
    b = tl.load(b_ptr + offs, mask)
    tl.store(out_ptr + offs, tl.maximum(a, b, PropagateNan.ALL), mask)
    tl.store(out_ptr + n + offs, tl.minimum(a, b, PropagateNan.NONE), mask)


def test_propagate_nan_values():
    rng = np.random.default_rng(3)
    n = 50
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    a[::7] = np.nan
    out = np.zeros(2 * n, np.float32)
    _interpret(nan_max_kernel, (1,), a, b, out, n, BLOCK=64)
    np.testing.assert_array_equal(out[:n], np.maximum(a, b))
    np.testing.assert_array_equal(out[n:], np.fmin(a, b))



@triton.jit(interpret=True)
def extra_functions_interpreted(x_ptr, out_ptr, e_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask)
    e = extra.ilogb(x)
    tl.store(e_ptr + offs, e, mask)
    y = extra.erfcx(x) + extra.ldexp(x, -e) + extra.mul_rn(x, x) + extra.fast_tanhf(x)
    tl.store(out_ptr + offs, y, mask)


def test_extra_libdevice_functions_in_the_interpreter():
    """erfcx, ilogb, ldexp, mul_rn and fast_tanhf against Python's math in float64."""
    import math

    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-3, 3, 90), [0.5, 1.0, -2.0, 3.0, 0.0]]).astype(np.float32)
    out = np.full(x.size, np.nan, np.float32)
    exps = np.full(x.size, 7, np.int32)
    extra_functions_interpreted[(1,)](x, out, exps, x.size, BLOCK=128)
    want_e = [math.frexp(float(v))[1] - 1 if v else -2**31 for v in x]
    np.testing.assert_array_equal(exps, want_e)
    want = [math.exp(float(v) ** 2) * math.erfc(float(v)) + float(v) * float(v)
            + math.tanh(float(v)) + (math.ldexp(float(v), -e) if v else 0.0)
            for v, e in zip(x, want_e)]
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=1e-5, atol=1e-5)
