"""`@jit`: a Python function written in the Triton language, and its parameters.

A `JITFunction` holds the function's source, its parameters (which are constexpr,
which have defaults) and its options. The code generator reads it to emit TTIR (or to
run it in the interpreter); `kernel[grid](...)` hands it to a launcher (`launch.py`).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KernelParam:
    """One parameter of a @jit function."""

    index: int
    name: str
    is_constexpr: bool
    default: Any
    do_not_specialize: bool

    @property
    def has_default(self) -> bool:
        return self.default is not inspect.Parameter.empty


def _is_constexpr_annotation(annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty:
        return False
    if isinstance(annotation, str):
        return annotation.split(".")[-1] == "constexpr"
    return getattr(annotation, "__name__", "") == "constexpr"


class JITFunction:
    """A function of the Triton language; `fn[grid](*args)` launches it as a kernel."""

    def __init__(self, fn: Callable, *, do_not_specialize: Iterable = (), debug: bool | None = None,
                 noinline: bool = False, interpret: bool | None = None) -> None:
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__globals__ = fn.__globals__
        self.debug = debug
        self.noinline = noinline
        self.interpret = interpret
        sig = inspect.signature(fn)
        skip = {d if isinstance(d, str) else list(sig.parameters)[d] for d in do_not_specialize}
        self.params = [
            KernelParam(i, p.name, _is_constexpr_annotation(p.annotation), p.default,
                        p.name in skip)
            for i, p in enumerate(sig.parameters.values())
        ]
        self.arg_names = [p.name for p in self.params]
        self.constexpr_names = {p.name for p in self.params if p.is_constexpr}
        self.src = textwrap.dedent(inspect.getsource(fn))
        self.src = self.src[self.src.index("def "):]
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        # The line of `def` itself in the file (decorators precede it); the AST of
        # `parse()` numbers lines from it, so errors add `def_line - 1`.
        lines, first = inspect.getsourcelines(fn)
        self.def_line = first + next(i for i, line in enumerate(lines)
                                     if line.lstrip().startswith("def "))
        self.launcher = None

    def parse(self) -> ast.FunctionDef:
        """The function's AST; line numbers are relative to its `def` line (1-based)."""
        tree = ast.parse(self.src)
        node = tree.body[0]
        assert isinstance(node, ast.FunctionDef)
        return node

    def source_hash(self) -> str:
        return hashlib.sha256(self.src.encode()).hexdigest()

    def bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        """Map call arguments to parameter names, filling defaults; a clear error when
        a parameter is missing or unknown."""
        if len(args) > len(self.params):
            raise TypeError(f"{self.__name__}() takes {len(self.params)} arguments but "
                            f"{len(args)} were given")
        bound = dict(zip(self.arg_names, args, strict=False))
        for name, value in kwargs.items():
            if name not in self.arg_names:
                raise TypeError(f"{self.__name__}() got an unexpected argument {name!r}")
            if name in bound:
                raise TypeError(f"{self.__name__}() got multiple values for argument {name!r}")
            bound[name] = value
        for p in self.params:
            if p.name not in bound:
                if not p.has_default:
                    kind = "constexpr " if p.is_constexpr else ""
                    raise TypeError(f"{self.__name__}() is missing the {kind}argument {p.name!r}")
                bound[p.name] = p.default
        return {name: bound[name] for name in self.arg_names}

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is a @jit function: launch it with "
                           f"{self.__name__}[grid](...) or call it from another @jit function")

    def __getitem__(self, grid):
        launchers = self.__dict__.get("_grid_launchers")  # filled by make_launch
        if launchers is not None:
            try:
                return launchers[grid]
            except (KeyError, TypeError):
                pass
        from tritonc.runtime.launch import make_launch

        return make_launch(self, grid)

    def warmup(self, *args, grid=(1,), **kwargs):
        """Compile for these arguments without launching; returns the compiled kernel."""
        from tritonc.runtime.launch import make_launch

        return make_launch(self, grid, warmup=True)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"JITFunction({self.__module__}:{self.__qualname__})"


def jit(fn: Callable | None = None, *, do_not_specialize: Iterable = (), debug: bool | None = None,
        noinline: bool = False, interpret: bool | None = None, **_ignored):
    """Decorate a function written in the Triton language (`@jit` or `@jit(...)`)."""

    def decorate(f: Callable) -> JITFunction:
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline,
                           interpret=interpret)

    return decorate(fn) if fn is not None else decorate
