"""Running a kernel compiled for the `cpu` target: the numpy interpreter over the grid.

`interpreter_runner(src)` gives the `run` function of a `CompiledKernel` for `cpu`: it
binds every parameter as the signature types it (an `i64` size stays 64-bit, a pointer
points into the registered tensor) and the constants as constexprs, then walks the
kernel once per program (`backends/interpreter/launch.py` does the same for `@jit`
launches, typing scalars by value instead).
"""

from __future__ import annotations

from typing import Any

from tritonc.backends.interpreter.launch import bind_value
from tritonc.language import dtypes as T
from tritonc.language.core import constexpr, tensor


def _scalar(value: Any, ty: str, builder: Any) -> tensor:
    dtype = T.from_name(ty)
    if dtype.is_floating():
        value = float(value)
    elif dtype.is_bool():
        value = bool(value)
    else:
        value = int(value)
    return tensor(builder.constant(value, dtype), dtype)


def _bind(src: Any, args: tuple, builder: Any, copies: list) -> dict[str, Any]:
    fn = src.fn
    if len(args) < len(fn.arg_names):
        raise TypeError(f"{fn.__name__} takes {len(fn.arg_names)} arguments, got {len(args)}")
    scope: dict[str, Any] = {}
    for name, value in zip(fn.arg_names, args, strict=False):
        ty = src.signature.get(name, "constexpr")
        if name in src.constants or ty == "constexpr":
            scope[name] = constexpr(src.constants.get(name, value))
        elif ty.startswith("*"):
            scope[name] = bind_value(value, name, builder, copies)
        else:
            scope[name] = _scalar(value, ty, builder)
    return scope


def _live_function(fn: Any) -> Any:
    """`fn` with its Python function and globals: a kernel that came back pickled from a
    compile worker has neither, and is reloaded from the file that defines it."""
    if fn.fn is not None and fn.__globals__ is not None:
        return fn
    import runpy

    defined = runpy.run_path(fn.filename)[fn.__name__]
    return getattr(defined, "fn", defined)


def interpreter_runner(src: Any) -> Any:
    """The `run` function interpreting `src.fn` (see the module doc)."""
    from tritonc.backends.interpreter.launch import _runtime_fault
    from tritonc.backends.interpreter.memory import Memory
    from tritonc.backends.interpreter.numpy_builder import NumpyBuilder
    from tritonc.compiler.code_generator import CodeGenerator
    from tritonc.compiler.errors import CompilationError
    from tritonc.language.semantic import Semantic

    fn = src.fn
    tree = fn.parse()
    live: list = []

    def run(gx: int, gy: int, gz: int, stream: int, function: Any, metadata: Any,
            launch_metadata: Any, enter_hook: Any, exit_hook: Any, *args: Any) -> None:
        if enter_hook is not None:
            enter_hook(launch_metadata)
        if not live:
            live.append(_live_function(fn))
        builder = NumpyBuilder(Memory())
        copies: list = []
        scope = _bind(src, args, builder, copies)
        semantic = Semantic(builder, getattr(metadata, "num_warps", 4))
        try:
            for z in range(gz):
                for y in range(gy):
                    for x in range(gx):
                        builder.set_grid((x, y, z), (gx, gy, gz))
                        CodeGenerator(live[0], semantic, dict(scope)).visit(tree)
        except CompilationError as e:
            fault = _runtime_fault(e)
            if fault is not None:
                raise fault from None
            raise
        finally:
            for gpu, host in copies:
                gpu.copy_(host)
        if exit_hook is not None:
            exit_hook(launch_metadata)

    return run
