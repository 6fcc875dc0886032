"""tritonc: a compiler for the Triton kernel language, on stock MLIR.

`import tritonc as triton; import tritonc.language as tl` runs kernels written for
Triton. Importing the package is cheap: MLIR loads only when a kernel is compiled.
"""

from tritonc.compiler.errors import CompilationError
from tritonc.runtime.jit import JITFunction, jit

__version__ = "0.1.0"


def compile(*args, **kwargs):
    """Compile a @jit function for one specialization (see `tritonc.compiler.compiler`)."""
    from tritonc.compiler.compiler import compile as _compile

    return _compile(*args, **kwargs)


def __getattr__(name: str):
    if name in ("language", "testing", "runtime"):
        import importlib

        return importlib.import_module(f"tritonc.{name}")
    if name in ("autotune", "Config", "heuristics"):
        from tritonc.runtime import autotuner

        return getattr(autotuner, name)
    raise AttributeError(f"module 'tritonc' has no attribute {name!r}")


__all__ = ["CompilationError", "JITFunction", "compile", "jit", "__version__"]
