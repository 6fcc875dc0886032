"""`@jit`: a Python function written in the Triton language, and its parameters.

A `JITFunction` holds the function's source, its parameters (which are constexpr,
which have defaults, which are typed by a dtype annotation) and its options. The code
generator reads it to emit TTIR (or to run it in the interpreter); `kernel[grid](...)`
hands it to a launcher (`launch.py`).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tritonc.runtime.scalar_annotations import annotation_type


@dataclass(frozen=True)
class KernelParam:
    """One parameter of a @jit function."""

    index: int
    name: str
    is_constexpr: bool
    default: Any
    do_not_specialize: bool
    is_const: bool = False
    annotation_type: str | None = None  # `i8` for `v: tl.int8` (scalar_annotations.py)

    @property
    def has_default(self) -> bool:
        return self.default is not inspect.Parameter.empty


_DEF_RE = re.compile(r"^def\s+\w+\s*\(", re.MULTILINE)
# How many frames above the one running a function's definition are searched for the
# source text it was created from.
_SOURCE_SEARCH_DEPTH = 6


def _source_in_text(fn: Callable, text: str) -> tuple[str, int] | None:
    """The source of `fn` inside `text` (a module's source) and the line of its `def`, when
    `text` defines a function of that name starting at the line `fn`'s code starts at."""
    if f"def {fn.__name__}" not in text:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    first = fn.__code__.co_firstlineno
    lines = text.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            if start == first:
                body = "\n".join(lines[node.lineno - 1:node.end_lineno]) + "\n"
                return textwrap.dedent(body), node.lineno
    return None


def _source_from_callers(fn: Callable) -> tuple[str, int] | None:
    """For a function created by `exec(text)` or `exec(compile(text, ...))`: the source
    text is still a local of the code that called `exec`, a few frames up the stack."""
    filename = fn.__code__.co_filename
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename != filename:
        frame = frame.f_back
    if frame is None:  # decorated after its definition: search from the caller
        frame = sys._getframe(2)
    for _ in range(_SOURCE_SEARCH_DEPTH):
        if frame is None:
            return None
        for value in list(frame.f_locals.values()):
            if isinstance(value, str):
                found = _source_in_text(fn, value)
                if found is not None:
                    return found
        frame = frame.f_back
    return None


def function_source(fn: Callable) -> tuple[str, str, int]:
    """The source of `fn` starting at its `def`, the file it is in, and the line of the
    `def` in that file. Functions created with `exec()` have no file: their source is
    found in the string `exec` ran; failing that, an OSError says so."""
    filename = fn.__code__.co_filename
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        found = _source_from_callers(fn)
        if found is None:
            raise OSError(f"cannot read the source of {fn.__name__} (defined in {filename}): "
                          "@jit needs the function's source text") from None
        src, def_line = found
        return src, filename, def_line
    offset = next(i for i, line in enumerate(lines) if _DEF_RE.match(line.lstrip()))
    src = textwrap.dedent("".join(lines[offset:]))
    return src, inspect.getsourcefile(fn) or filename, first + offset


_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class KernelSpecialization:
    """One compilation of a kernel, as a `repr=` function of `@jit` sees it to name it.

    `signature` maps every parameter, in order, to its type string (`*fp32`, `i32`, ...;
    `constexpr` for those compiled as constants); `constants` maps those to their values
    (an int argument equal to 1 is one, with value 1); `attrs` maps each argument known
    to be divisible by 16 to its attributes.
    """

    fn: Any
    signature: dict[str, Any]
    constants: dict[str, Any]
    attrs: dict[str, list[tuple[str, int]]]


def _is_annotation(annotation: Any, name: str) -> bool:
    """Whether a parameter's annotation is the language's `name` (`constexpr`, `const`),
    given as the object or, under `from __future__ import annotations`, as text."""
    if annotation is inspect.Parameter.empty:
        return False
    if isinstance(annotation, str):
        return annotation.split(".")[-1] == name
    return getattr(annotation, "__name__", "") == name


class JITFunction:
    """A function of the Triton language; `fn[grid](*args)` launches it as a kernel."""

    def __init__(self, fn: Callable, *, do_not_specialize: Iterable = (), debug: bool | None = None,
                 noinline: bool = False, interpret: bool | None = None,
                 repr: Callable[[KernelSpecialization], str] | None = None) -> None:
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__globals__ = fn.__globals__
        self.debug = debug
        self.noinline = noinline
        self.interpret = interpret
        self._repr = repr
        sig = inspect.signature(fn)
        skip = {d if isinstance(d, str) else list(sig.parameters)[d] for d in do_not_specialize}
        self.params = [
            KernelParam(i, p.name, _is_annotation(p.annotation, "constexpr"), p.default,
                        p.name in skip, _is_annotation(p.annotation, "const"),
                        annotation_type(p.annotation))
            for i, p in enumerate(sig.parameters.values())
        ]
        self.arg_names = [p.name for p in self.params]
        self.constexpr_names = {p.name for p in self.params if p.is_constexpr}
        self.src, self.filename, self.def_line = function_source(fn)
        self.launcher = None

    def _unsafe_update_src(self, new_src: str) -> None:
        """Replace the source the kernel is compiled from (same signature; compiled
        kernels of the old source are dropped)."""
        text = textwrap.dedent(new_src)
        match = _DEF_RE.search(text)
        if match is None:
            raise ValueError(f"the new source of {self.__name__} has no `def`")
        self.src = text[match.start():]
        for cache in ("_grid_launchers", "_fast_kernels"):
            self.__dict__.pop(cache, None)

    def parse(self) -> ast.FunctionDef:
        """The function's AST; line numbers are relative to its `def` line (1-based)."""
        tree = ast.parse(self.src)
        node = tree.body[0]
        assert isinstance(node, ast.FunctionDef)
        return node

    def kernel_name(self, signature: dict[str, Any], constexprs: dict[str, Any],
                    divisible: Iterable[str] = ()) -> str:
        """The name of the compiled kernel (its entry in the PTX and cubin) for one
        specialization: the function's name, or what the `repr=` function given to
        `@jit` returns for the specialization's `KernelSpecialization`."""
        if self._repr is None:
            return self.__name__
        from tritonc.runtime.specialization import divisibility_attrs

        view = KernelSpecialization(
            fn=self,
            signature={p.name: "constexpr" if p.name in constexprs else signature[p.name]
                       for p in self.params if p.name in constexprs or p.name in signature},
            constants=dict(constexprs),
            attrs={name: list(divisibility_attrs(True).items()) for name in sorted(divisible)})
        name = self._repr(view)
        if not isinstance(name, str) or not _IDENTIFIER_RE.match(name):
            from tritonc.compiler.errors import CompilationError

            raise CompilationError(self.src, self.parse(),
                                   f"invalid kernel name {name!r} from the repr= function of "
                                   "@jit: a kernel name must be an identifier",
                                   filename=self.filename, line_offset=self.def_line - 1,
                                   kernel=self.__name__)
        return name

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
        noinline: bool = False, interpret: bool | None = None,
        repr: Callable[[KernelSpecialization], str] | None = None, **_ignored):
    """Decorate a function written in the Triton language (`@jit` or `@jit(...)`).
    `repr`, given, names each compiled kernel from its `KernelSpecialization`."""

    def decorate(f: Callable) -> JITFunction:
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline,
                           interpret=interpret, repr=repr)

    return decorate(fn) if fn is not None else decorate


def must_use_result(fn: Any = None, message: str | bool = True):
    """Mark a @jit function whose result a caller must use (`@must_use_result` or
    `@must_use_result("why")`); calling it as a statement is a compile error."""
    if isinstance(fn, str):
        return lambda f: must_use_result(f, fn)
    if fn is None:
        return lambda f: must_use_result(f, message)
    fn.must_use_result = message
    return fn
