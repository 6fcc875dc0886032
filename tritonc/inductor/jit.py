"""`triton.jit` as Inductor uses it: tritonc's `JITFunction` with Triton's attribute names.

Inductor reads a kernel's parameters as `fn.params[i].num` / `.is_constexpr`, its
`arg_names`, `src`, `cache_key` and `repr`, and pickles the function to send it from a
compile worker to the parent after setting `fn.fn` and `fn.__globals__` to None. This
subclass adds those names and drops the launch caches (which hold loaded kernels)
when pickled.
"""

from __future__ import annotations

import inspect
import textwrap
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from tritonc.language.standard import constexpr_function as _mark_constexpr_function
from tritonc.runtime.jit import JITFunction as _BaseJITFunction
from tritonc.runtime.jit import KernelParam

_LAUNCH_CACHES = ("_gpu_kernels", "_fast_kernels", "_grid_launchers", "launcher")


@dataclass(frozen=True)
class InductorKernelParam(KernelParam):
    """A parameter, also answering to Triton's `num`."""

    @property
    def num(self) -> int:
        return self.index


class KernelInterface:
    """Base of what `kernel[grid](...)` launches (Triton's name for it)."""

    def __getitem__(self, grid: Any) -> Callable:
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


def _repr(fn: JITFunction) -> str:
    return f"JITFunction({fn.__module__}:{fn.__qualname__})"


class JITFunction(_BaseJITFunction):
    """A @jit function under the `triton` alias."""

    def __init__(self, fn: Callable, **kwargs: Any) -> None:
        super().__init__(fn, **kwargs)
        self.params = [InductorKernelParam(**{f.name: getattr(p, f.name) for f in fields(p)})
                       for p in self.params]
        self.constexprs = [p.index for p in self.params if p.is_constexpr]
        self.used_global_vals: dict = {}
        self.repr = _repr
        self._hash_lock = threading.RLock()

    @property
    def cache_key(self) -> str:
        from tritonc.runtime.gpu_launch import dependencies_key

        return dependencies_key(self) if self.fn is not None else self.source_hash()

    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> Any:
        """`fn.run(*args, grid=...)`, Triton's spelling of `fn[grid](*args)`."""
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        return self[grid](*args, **kwargs)

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in _LAUNCH_CACHES}
        state["_hash_lock"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.launcher = None
        self._hash_lock = threading.RLock()


def jit(fn: Callable | None = None, *, do_not_specialize: Iterable = (),
        debug: bool | None = None, noinline: bool = False, interpret: bool | None = None,
        repr: Callable[[Any], str] | None = None, **_ignored: Any) -> Any:
    """`@triton.jit` / `@triton.jit(...)` under the alias."""

    def decorate(f: Callable) -> JITFunction:
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline, interpret=interpret, repr=repr)

    return decorate(fn) if fn is not None else decorate


class _MarkedFunctionType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return callable(obj) and getattr(obj, "__triton_constexpr_function__", False)


class ConstexprFunction(metaclass=_MarkedFunctionType):
    """What Inductor tests a user kernel's globals against when it writes the kernel's
    source into its own module: a tritonc `constexpr_function` is the function itself,
    marked, and `isinstance(f, ConstexprFunction)` says whether `f` is one. Those made
    through the alias also carry the `fn` and `src` Inductor then reads."""


def constexpr_function(fn: Callable) -> Callable:
    """`@triton.constexpr_function` / `@tl.constexpr_function` under the alias: tritonc's,
    with `fn` (the function) and `src` (its source, where Python has it) for Inductor."""
    marked = _mark_constexpr_function(fn)
    marked.fn = marked
    try:
        marked.src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):  # defined where no source file holds it
        marked.src = ""
    return marked
