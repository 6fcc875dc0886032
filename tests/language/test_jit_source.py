"""`@jit` on functions without a source file (made by `exec`), and `_unsafe_update_src`."""

import textwrap

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl

TEMPLATE = textwrap.dedent('''
    @triton.jit(interpret=True)
    def scaled(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(X + offs, mask=mask)
        tl.store(Y + offs, EXPR, mask=mask)
''')


def build(expr: str):
    namespace: dict = {}
    source = TEMPLATE.replace("EXPR", expr)
    exec(source, {"triton": triton, "tl": tl}, namespace)
    return namespace["scaled"]


def run(kernel, x: torch.Tensor) -> torch.Tensor:
    y = torch.full_like(x, float("nan"))
    kernel[(triton.cdiv(x.numel(), 32),)](x, y, x.numel(), BLOCK=32)
    return y


def test_exec_created_kernels_run():
    x = torch.from_numpy(np.random.default_rng(3).standard_normal(77).astype(np.float32))
    three = build("x * 3.0 + 1.0")
    square = build("x * x")
    np.testing.assert_allclose(run(three, x).numpy(), x.numpy() * 3 + 1, rtol=1e-6)
    np.testing.assert_allclose(run(square, x).numpy(), x.numpy() ** 2, rtol=1e-6)
    assert three.src.startswith("def scaled(") and "x * 3.0" in three.src


def test_exec_created_kernel_errors_point_at_its_line():
    kernel = build("x + undefined_name")
    x = torch.ones(40)
    with pytest.raises(triton.CompilationError) as err:
        run(kernel, x)
    assert err.value.lineno == 7  # the line of the store in the exec'd text
    assert "undefined_name" in str(err.value)


def test_source_gone_is_a_clear_error():
    code = compile(TEMPLATE.replace("EXPR", "x"), "<generated>", "exec")
    namespace: dict = {"triton": triton, "tl": tl}
    with pytest.raises(OSError, match="cannot read the source of scaled"):
        exec(code, namespace)


@triton.jit(interpret=True)
def patched(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=mask) + OFFSET, mask=mask)  # noqa: F821 (replaced before use)


def test_unsafe_update_src_replaces_the_source():
    kernel = triton.JITFunction(patched.fn, interpret=True)
    x = torch.from_numpy(np.random.default_rng(4).standard_normal(50).astype(np.float32))
    y = torch.full_like(x, float("nan"))
    kernel._unsafe_update_src(kernel.src.replace("OFFSET", "2.5"))
    kernel[(1,)](x, y, 50, BLOCK=64)
    np.testing.assert_allclose(y.numpy(), x.numpy() + 2.5, rtol=1e-6)
    kernel._unsafe_update_src(kernel.src.replace("+ 2.5", "- 1.0"))
    y.fill_(float("nan"))
    kernel[(1,)](x, y, 50, BLOCK=64)
    np.testing.assert_allclose(y.numpy(), x.numpy() - 1.0, rtol=1e-6)
    assert "OFFSET" in patched.src


def test_errors_share_the_triton_error_base():
    from tritonc.backends.interpreter.errors import InterpreterError

    assert issubclass(triton.CompilationError, triton.TritonError)
    assert issubclass(InterpreterError, triton.TritonError)
