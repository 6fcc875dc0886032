"""The runtime's Triton-facing API: `tritonc.runtime.driver`, `@jit(repr=...)` naming the
compiled kernel, out-of-range int arguments, dtype reprs and the num_warps check."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.backends.cuda.options import CUDAOptions
from tritonc.compiler.errors import CompilationError
from tritonc.runtime import specialization
from tritonc.runtime.gpu_launch import compiled_binary, specialize


def test_driver_is_an_attribute_of_the_runtime_package():
    # a fresh interpreter: nothing has imported tritonc.runtime.driver yet
    code = textwrap.dedent("""
        import tritonc as triton
        active = triton.runtime.driver.active
        target = active.get_current_target()
        print(target.backend, target.warp_size, active.get_active_torch_device().type)
        print(triton.runtime.autotune is triton.autotune, triton.runtime.Config.__name__)
    """)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout.split()
    backend, warp_size, device, same_autotune, config = out
    assert (backend, warp_size, device) in (("cuda", "32", "cuda"), ("cpu", "1", "cpu"))
    assert same_autotune == "True" and config == "Config"


def test_driver_set_and_reset_active():
    from tritonc.runtime import driver

    default = driver.default
    marker = object()
    driver.set_active(marker)
    try:
        assert driver.active is marker
    finally:
        driver.reset_active()
    assert driver.active is default


def test_the_errors_triton_exports():
    """`triton.OutOfResources` (what a launch over the shared memory raises, and the
    autotuner prunes) and `triton.InterpreterError`, both TritonErrors."""
    from tritonc.backends.interpreter.errors import InterpreterError
    from tritonc.errors import OutOfResources

    assert triton.OutOfResources is OutOfResources
    assert triton.InterpreterError is InterpreterError
    assert issubclass(triton.OutOfResources, triton.TritonError)
    assert issubclass(triton.InterpreterError, triton.TritonError)


def test_unknown_runtime_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        triton.runtime.nope  # noqa: B018


def _name_by_types(spec) -> str:
    ones = "_".join(k for k, v in spec.constants.items() if v == 1)
    return f"scaled_{spec.signature['n']}_{ones}_{len(spec.attrs)}"


def _scale_body(x_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * alpha, mask=offs < n)


named = triton.jit(repr=_name_by_types)(_scale_body)
plain = triton.jit(_scale_body)


def test_repr_sees_types_and_constants():
    seen = []

    def record(spec):
        seen.append(spec)
        return "k"

    kernel = triton.jit(repr=record)(_scale_body)
    assert kernel.kernel_name({"x_ptr": "*fp32", "n": "i64"}, {"alpha": 1, "BLOCK": 64},
                              {"x_ptr"}) == "k"
    (spec,) = seen
    assert spec.signature == {"x_ptr": "*fp32", "n": "i64", "alpha": "constexpr",
                              "BLOCK": "constexpr"}
    assert spec.constants == {"alpha": 1, "BLOCK": 64}
    assert spec.attrs == {"x_ptr": [("tt.divisibility", 16)]}
    assert spec.fn is kernel


def test_repr_names_the_kernel_in_every_stage():
    compiled = triton.compile(named, {"x_ptr": "*fp32", "n": "i32"}, {"alpha": 1, "BLOCK": 64},
                              target="cuda:90", divisible_by_16={"x_ptr"})
    assert compiled.name == compiled.metadata["name"] == "scaled_i32_alpha_1"
    assert "@scaled_i32_alpha_1(" in compiled.asm["ttir"]
    assert re.findall(r"\.entry (\w+)", compiled.asm["ptx"]) == ["scaled_i32_alpha_1"]
    default = triton.compile(plain, {"x_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
                             {"BLOCK": 64}, target="ttir")
    assert default.name == "_scale_body"


def test_the_call_specialization_reaches_repr():
    torch = pytest.importorskip("torch")

    x = torch.ones(64)
    signature, constexprs, divisible = specialize(named, named.bind((x, 2**40 + 1, 1),
                                                                   {"BLOCK": 64}))
    assert named.kernel_name(signature, constexprs, divisible) == "scaled_i64_alpha_1"


def test_kernel_name_is_part_of_the_cache_key(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    signature, constexprs = {"x_ptr": "*fp32", "n": "i32", "alpha": "fp32"}, {"BLOCK": 64}
    names = set()
    for kernel in (plain, triton.jit(repr=lambda _: "renamed")(_scale_body)):
        entry = compiled_binary(kernel, signature, constexprs, set(), CUDAOptions(), 90)
        names.add(json.loads(entry["metadata.json"])["name"])
    assert names == {"_scale_body", "renamed"}


def test_repr_must_return_an_identifier():
    kernel = triton.jit(repr=lambda _: "not a name")(_scale_body)
    with pytest.raises(CompilationError, match="invalid kernel name 'not a name'"):
        triton.compile(kernel, {"x_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
                       {"BLOCK": 64}, target="ttir")


@pytest.mark.parametrize("value, expected", [
    (-(2**31), "i32"), (2**31, "i64"), (-(2**63), "i64"), (2**63, "u64"), (2**64 - 1, "u64")])
def test_int_types_by_value(value, expected):
    assert specialization.int_type(value) == expected


@pytest.mark.parametrize("value", [-(2**63) - 1, 2**64])
def test_out_of_range_int_is_an_overflow_error(value):
    torch = pytest.importorskip("torch")

    with pytest.raises(OverflowError, match="out of the range of a 64-bit"):
        specialization.int_type(value)
    assert specialization.int_class(value) == 8
    x = torch.ones(64)
    with pytest.raises(OverflowError, match="argument 'n' of _scale_body"):
        specialize(plain, plain.bind((x, value, 1.0), {"BLOCK": 64}))


def test_dtype_repr_is_its_name_in_the_language_module():
    assert repr(tl.float32) == "triton.language.float32"
    assert repr(tl.bfloat16) == "triton.language.bfloat16"
    assert repr(tl.float8e4nv) == "triton.language.float8e4nv"
    assert repr(tl.int8) == "triton.language.int8"
    for value in (tl.float16, tl.float8e5, tl.float8e4b15, tl.uint64, tl.int1):
        assert getattr(tl, value.codegen_name()) == value
    assert str(tl.float32) == "fp32"


def test_num_warps_not_a_power_of_two_is_an_assertion_and_value_error():
    with pytest.raises(AssertionError, match="num_warps must be a power of 2"):
        CUDAOptions(num_warps=3)
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        CUDAOptions.parse({"num_warps": 6})
    assert CUDAOptions(num_warps=2).num_warps == 2


@pytest.mark.gpu
def test_on_the_gpu_repr_names_the_loaded_kernel_and_bad_values_fail():
    import torch

    x = torch.ones(64, device="cuda")
    compiled = named.warmup(x, 5, 1, BLOCK=64, grid=(1,))
    assert compiled.name == "scaled_i32_alpha_1"
    named[(1,)](x, 5, 1, BLOCK=64)
    with pytest.raises(OverflowError):
        plain[(1,)](x, -(2**63) - 1, 2.0, BLOCK=64)
    with pytest.raises(AssertionError, match="must be a power of 2"):
        plain.warmup(x, 5, 2.0, BLOCK=64, grid=(1,), num_warps=3)
    assert triton.runtime.driver.active.get_current_target().warp_size == 32
