"""Language API: tensor.item/cast, `if` on a one-element tensor, tl.tuple,
tl.PropagateNan, the dtype name lists."""

import math

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.language.extra.libdevice import fast_dividef


@triton.jit
def threshold(x_ptr, out_ptr, LIMIT: tl.constexpr, EXPLICIT: tl.constexpr):
    cond = tl.load(x_ptr + tl.arange(0, 1)) > LIMIT
    if EXPLICIT:
        cond = cond.item()
    value = tl.load(x_ptr)
    if cond:
        value = value * 2
    tl.store(out_ptr, value)


@pytest.mark.parametrize("explicit", [False, True])
def test_if_on_a_one_element_tensor(explicit):
    kernel = triton.JITFunction(threshold.fn, interpret=True)
    for x in (41, 43):
        out = torch.full((1,), -1, dtype=torch.int32)
        kernel[(1,)](torch.tensor([x], dtype=torch.int32), out, 42, explicit)
        assert out.item() == (2 * x if x > 42 else x)
    ttir = triton.compile(threshold, {"x_ptr": "*i32", "out_ptr": "*i32"},
                          {"LIMIT": 42, "EXPLICIT": explicit}, target="ttir").asm["ttir"]
    assert "scf.if" in ttir and "tt.reduce" in ttir


@triton.jit
def halve_while_above(x_ptr, out_ptr, LIMIT: tl.constexpr):
    value = tl.load(x_ptr + tl.arange(0, 1))
    steps = 0
    while value > LIMIT:
        value = value // 2
        steps += 1
    tl.store(out_ptr + tl.arange(0, 1), value * 100 + steps)


def test_while_on_a_one_element_tensor():
    kernel = triton.JITFunction(halve_while_above.fn, interpret=True)
    for x in (5, 40, 129):
        out = torch.full((1,), -1, dtype=torch.int32)
        kernel[(1,)](torch.tensor([x], dtype=torch.int32), out, 7)
        value, steps = x, 0
        while value > 7:
            value, steps = value // 2, steps + 1
        assert out.item() == value * 100 + steps
    k = triton.compile(halve_while_above, {"x_ptr": "*i32", "out_ptr": "*i32"}, {"LIMIT": 7},
                       target="cuda:90")
    assert "scf.while" in k.asm["ttir"] and k.asm["cubin"][:4] == b"\x7fELF"


@triton.jit(interpret=True)
def item_of_a_block(x_ptr, out_ptr):
    v = tl.load(x_ptr + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :])
    tl.store(out_ptr, v.item() + 1.0)


def test_item_of_a_2d_block():
    x = torch.tensor([2.75])
    out = torch.zeros(1)
    item_of_a_block[(1,)](x, out)
    assert out.item() == 3.75


def test_item_needs_one_element():
    @triton.jit(interpret=True)
    def bad(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr + tl.arange(0, 2)).item())

    with pytest.raises(triton.CompilationError, match="one element"):
        bad[(1,)](torch.zeros(2))


@triton.jit(interpret=True)
def cast_methods(x_ptr, f_ptr, b_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(f_ptr + tl.arange(0, 8), x.cast(tl.float32))
    tl.store(b_ptr + tl.arange(0, 8), x.cast(tl.int32, bitcast=True))


def test_tensor_cast_method():
    x = np.random.default_rng(12).standard_normal(8).astype(np.float32) * 100
    xi = x.astype(np.int32)
    f = np.full(8, np.nan, np.float32)
    bits = np.zeros(8, np.int32)
    cast_methods[(1,)](xi, f, bits)
    np.testing.assert_array_equal(f, xi.astype(np.float32))
    np.testing.assert_array_equal(bits, xi)


@triton.jit(interpret=True)
def tuples(out_ptr):
    t = tl.tuple((1, 2))
    tl.store(out_ptr, t == (1, 2))
    tl.store(out_ptr + 1, t == (1, 3))
    u = tl.tuple([4, 5]) + (6,)
    tl.store(out_ptr + 2, u[0] + u[1] * 10 + u[2] * 100)
    tl.store(out_ptr + 3, len(u))


def test_tl_tuple():
    out = torch.full((4,), -1, dtype=torch.int32)
    tuples[(1,)](out)
    assert out.tolist() == [1, 0, 654, 3]


@triton.jit(interpret=True)
def nan_min(a_ptr, b_ptr, out_ptr, MODE: tl.constexpr):
    offs = tl.arange(0, 4)
    tl.store(out_ptr + offs, tl.minimum(tl.load(a_ptr + offs), tl.load(b_ptr + offs),
                                        propagate_nan=MODE))


def test_propagate_nan_enum():
    a = torch.tensor([1.0, float("nan"), 3.0, float("nan")])
    b = torch.tensor([2.0, 0.5, float("nan"), float("nan")])
    out = torch.zeros(4)
    nan_min[(1,)](a, b, out, tl.PropagateNan.ALL)
    assert [math.isnan(v) for v in out.tolist()] == [False, True, True, True]
    nan_min[(1,)](a, b, out, tl.PropagateNan.NONE)
    assert out.tolist()[:3] == [1.0, 0.5, 3.0]


@triton.jit(interpret=True)
def zeros_of(out_ptr, DTYPE: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, 4), tl.zeros((4,), DTYPE) + 1)


def test_dtype_lists_name_usable_types():
    names = tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.STANDARD_FP_TYPES
    assert {"int8", "int1", "uint64", "bf16", "fp64"} <= set(names)
    for name in names:
        out = torch.zeros(4, dtype=torch.float64)
        zeros_of[(1,)](out, tl.dtype(name))
        assert out.tolist() == [1.0] * 4, name


@triton.jit(interpret=True)
def fast_divide(x_ptr, y_ptr, out_ptr):
    offs = tl.arange(0, 16)
    tl.store(out_ptr + offs, fast_dividef(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


def test_libdevice_fast_dividef():
    rng = np.random.default_rng(13)
    x = rng.standard_normal(16).astype(np.float32)
    y = rng.uniform(0.5, 2.0, 16).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    fast_divide[(1,)](x, y, out)
    np.testing.assert_allclose(out, x.astype(np.float64) / y, rtol=1e-6)


@triton.jit
def helper_asserts(x, N: tl.constexpr):
    tl.static_assert(N % 2 == 0, "N must be even")
    return x


@triton.jit
def asserting(out_ptr, N: tl.constexpr):
    tl.store(out_ptr, helper_asserts(1, N))


def test_static_assert_raises_compile_time_assertion_failure():
    from tritonc.compiler.errors import CompileTimeAssertionFailure

    with pytest.raises(CompileTimeAssertionFailure, match="N must be even") as err:
        triton.compile(asserting, {"out_ptr": "*i32"}, {"N": 3}, target="ttir")
    assert isinstance(err.value, triton.CompilationError)
    kernel = triton.JITFunction(asserting.fn, interpret=True)
    with pytest.raises(CompileTimeAssertionFailure):
        kernel[(1,)](torch.zeros(1, dtype=torch.int32), 5)


@triton.must_use_result("Assign it.")
@triton.jit
def cube(x):
    return x * x * x


@triton.jit
def uses_cube(out_ptr):
    a = cube(tl.full((4,), 2.0, tl.float32))
    tl.store(out_ptr + tl.arange(0, 4), a)


@triton.jit
def drops_cube(out_ptr):
    cube(tl.full((4,), 2.0, tl.float32))


def test_must_use_result():
    out = torch.zeros(4)
    triton.JITFunction(uses_cube.fn, interpret=True)[(1,)](out)
    assert out.tolist() == [8.0] * 4
    with pytest.raises(triton.CompilationError, match="The result of cube is not being used. "
                                                      "Assign it."):
        triton.compile(drops_cube, {"out_ptr": "*fp32"}, {}, target="ttir")


@triton.jit
def print_types(x_ptr, N: tl.constexpr):
    block = tl.load(x_ptr + tl.arange(0, N))
    tl.static_print("", block)
    tl.static_print("scalar", tl.load(x_ptr).to(tl.float16))
    tl.static_print("2-D", tl.reshape(block, (2, N // 2)))


def test_static_print_writes_tensors_as_triton_does(capsys):
    triton.compile(print_types, {"x_ptr": "*i32"}, {"N": 128}, target="ttir")
    assert capsys.readouterr().out.splitlines() == [
        " int32[constexpr[128]]", "scalar fp16[]", "2-D int32[constexpr[2], constexpr[64]]"]


@triton.jit
def nested_hints(out_ptr, n):
    k = 1
    for i in tl.range(0, n, flatten=True):
        for j in tl.range(0, n, warp_specialize=True, disallow_acc_multi_buffer=True):
            tl.store(out_ptr + i * 8 + j, k)
            k += 1


def test_range_hints_are_recorded_on_their_loops():
    """flatten, warp_specialize and disallow_acc_multi_buffer are recorded on the scf.for
    they were given to, as Triton's TTIR has them (tritonc does not act on them), and the
    loops still compute what they say."""
    import re

    ttir = triton.compile(nested_hints, {"out_ptr": "*i32", "n": "i32"}, {},
                          target="ttir").asm["ttir"]
    loops = [m.group(0) for m in re.finditer(r"\} \{[^}]*\}", ttir)]
    assert loops == ["} {tt.disallow_acc_multi_buffer, tt.warp_specialize}",
                     "} {tt.flatten}"], loops
    out = torch.full((64,), -1, dtype=torch.int32)
    triton.JITFunction(nested_hints.fn, interpret=True)[(1,)](out, 5)
    want = torch.full((64,), -1, dtype=torch.int32)
    for i in range(5):
        want[i * 8:i * 8 + 5] = torch.arange(1 + 5 * i, 6 + 5 * i)
    assert torch.equal(out, want)


@triton.constexpr_function
def _padded(n, multiple):
    return (n + multiple - 1) // multiple * multiple


@triton.jit
def padded_range(out_ptr, N: tl.constexpr):
    P: tl.constexpr = _padded(N, 16)
    offs = tl.arange(0, P)
    tl.store(out_ptr + offs, offs + P)


def test_constexpr_function_from_the_package_runs_at_compile_time():
    """`@triton.constexpr_function`, as Triton exports it: called from a kernel on
    constexprs while compiling (its result sizes a range), and from Python as is."""
    assert _padded(30, 16) == 32
    out = torch.full((64,), -1, dtype=torch.int32)
    triton.JITFunction(padded_range.fn, interpret=True)[(1,)](out, N=30)
    want = torch.full((64,), -1, dtype=torch.int32)
    want[:32] = torch.arange(32) + 32
    assert torch.equal(out, want)
    ttir = triton.compile(padded_range, {"out_ptr": "*i32"}, {"N": 30}, target="ttir").asm["ttir"]
    assert "end = 32 : i32" in ttir
