"""`tritonc.compile(tritonc.compiler.ASTSource(...))`, the form `triton.compile` takes: a
kernel the front end rejects raises its CompilationError for any target (the CPU's
too), with Triton's position within the kernel (`at line:col:`, the def being line 1)
and no frame of the compiler in the traceback."""

from __future__ import annotations

import traceback

import pytest

import tritonc
import tritonc.language as tl
from tritonc.inductor.backends import GPUTarget


@tritonc.jit
def undefined_name():
    a += 1  # noqa: F821, F841


@tritonc.jit
def bad_operands(x_ptr):
    y = tl.load(x_ptr)
    tl.store(x_ptr, y + "a")


@tritonc.jit
def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@pytest.mark.parametrize("target", [None, GPUTarget("cpu", "interpreter", 1)])
def test_rejected_kernels_raise_with_their_position(target):
    with pytest.raises(tritonc.CompilationError) as info:
        tritonc.compile(tritonc.compiler.ASTSource(fn=undefined_name, signature={},
                                                   constexprs={}), target=target)
    text = "".join(traceback.format_exception(info.type, info.value, info.tb, chain=False))
    assert "is not defined" in text and "at 2:4:" in text
    assert "code_generator.py" not in text
    with pytest.raises(tritonc.CompilationError, match="at 3:20:"):
        tritonc.compile(tritonc.compiler.ASTSource(fn=bad_operands, signature={"x_ptr": "*fp32"}),
                        target=target)


def test_a_legal_kernel_compiles_for_the_cpu_target():
    kernel = tritonc.compile(tritonc.compiler.ASTSource(
        fn=copy, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 64}), target=GPUTarget("cpu", "interpreter", 1))
    assert kernel.src.fn is copy


def test_a_plain_compile_still_takes_a_function():
    kernel = tritonc.compile(copy, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {"BLOCK": 64})
    assert "tt.load" in kernel.asm["ttir"]
