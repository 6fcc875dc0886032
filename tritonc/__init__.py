"""tritonc: a compiler for the Triton kernel language, on stock MLIR.

`import tritonc as triton; import tritonc.language as tl` runs kernels written for
Triton. Importing the package is cheap: MLIR loads only when a kernel is compiled.
"""

from tritonc.allocation import set_allocator
from tritonc.compiler.errors import CompilationError
from tritonc.errors import OutOfResources, TritonError
from tritonc.runtime.jit import JITFunction, jit, must_use_result

__version__ = "0.1.0"


def cdiv(x: int, y: int) -> int:
    """ceil(x / y): grid arithmetic on the host, and at compile time inside a kernel (on
    constexprs, as a `tl.constexpr_function`)."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1); in a kernel, on constexprs."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


# what `tl.constexpr_function` marks, set here so that importing the package stays cheap
cdiv.__triton_constexpr_function__ = True
next_power_of_2.__triton_constexpr_function__ = True


def compile(*args, **kwargs):
    """Compile a @jit function for one specialization (see `tritonc.compiler.compiler`),
    or, as `triton.compile` does, an `ASTSource` for a target (`inductor/compile.py`)."""
    from tritonc.inductor.compile import ASTSource
    from tritonc.inductor.compile import compile as compile_source

    if (args and isinstance(args[0], ASTSource)) or isinstance(kwargs.get("src"), ASTSource):
        return compile_source(*args, **kwargs)
    from tritonc.compiler.compiler import compile as _compile

    return _compile(*args, **kwargs)


def __getattr__(name: str):
    if name in ("language", "testing", "runtime", "knobs"):
        import importlib

        return importlib.import_module(f"tritonc.{name}")
    if name in ("autotune", "Config", "heuristics"):
        from tritonc.runtime import autotuner

        return getattr(autotuner, name)
    if name == "constexpr_function":  # `@triton.constexpr_function`, as Triton exports it
        from tritonc.language.standard import constexpr_function

        return constexpr_function
    if name == "InterpreterError":
        from tritonc.backends.interpreter.errors import InterpreterError

        return InterpreterError
    if name in ("reinterpret", "TensorWrapper"):
        from tritonc.runtime import tensor_wrapper

        return getattr(tensor_wrapper, name)
    raise AttributeError(f"module 'tritonc' has no attribute {name!r}")


__all__ = ["CompilationError", "JITFunction", "OutOfResources", "TritonError", "cdiv", "compile",
           "jit", "must_use_result", "next_power_of_2", "set_allocator", "__version__"]
