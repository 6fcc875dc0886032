"""`kernel[grid](*args, **kwargs)`: bind the arguments, then run on the GPU or interpret.

Arguments are bound to the kernel's parameters once; constexprs (and the launch
options `num_warps`, `num_stages`, `stream`) are taken out of the keyword arguments.
With `TRITONC_INTERPRET=1` in the environment, or `@jit(interpret=True)`, the kernel
runs in the numpy interpreter (`backends/interpreter/launch.py`); otherwise it is
compiled for the current GPU and launched through the CUDA driver.

The hot path. For each kernel a launch function is generated once (`_factory`) whose
Python signature is the kernel's own parameters plus the options as keyword-only
arguments, so Python binds the call. Per argument it reads what the specialization
depends on (a tensor's dtype and whether `data_ptr()` is 16-byte aligned; an int's
class: == 1, divisible by 16, 32/64-bit range; a host descriptor's dtype, block, padding
and alignment; the constexprs' values) into one key
tuple, looks the key up in a dict of launch entries and calls the kernel's C launcher
(`c_launcher.py`). Everything else, like a missing or unknown argument, a tuple
argument, the interpreter or a key seen for the first time, takes the generic path
(`_generic_launch`), which binds through `JITFunction.bind` and compiles on a miss;
a first-time key then gets its entry; a change to a knob that changes the generated code
(`tritonc.knobs`) empties every kernel's entries. `fn[grid]` returns a cached launch function for
int grids and for closure-free grid functions (`JITFunction.__getitem__`).
"""

from __future__ import annotations

import os
import sys
import types
import weakref
from collections.abc import Callable
from typing import Any

from tritonc import knobs
from tritonc.runtime import descriptors, specialization

LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "stream", "maxnreg", "enable_fp_fusion")
_MAX_GRID_LAUNCHERS = 64


def interpret_requested(fn) -> bool:
    """Whether `fn` runs in the interpreter: its own setting, else TRITONC_INTERPRET."""
    if fn.interpret is not None:
        return bool(fn.interpret)
    return os.environ.get("TRITONC_INTERPRET", "0").lower() in ("1", "true", "yes", "on")


def normalize_grid(grid: Any, bound: dict[str, Any]) -> tuple[int, int, int]:
    """A grid tuple (1 to 3 ints) or a callable of the bound arguments, as (x, y, z)."""
    if callable(grid):
        grid = grid(bound)
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"the grid must have 1 to 3 dimensions, got {grid}")
    if any(g < 0 for g in grid):
        raise ValueError(f"grid dimensions must not be negative, got {grid}")
    return grid + (1,) * (3 - len(grid))


# launch keywords the generated hot path leaves to the generic path; `launch_pdl` (a
# programmatic dependent launch) is an ordinary launch: `gdc_wait` then returns at once
GENERIC_LAUNCH_OPTIONS = ("launch_cooperative_grid", "launch_pdl", "arch", "extern_libs")


def split_options(kwargs: dict[str, Any],
                  params: frozenset[str] = frozenset()) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arguments, launch options) of a launch's keywords; a keyword that is both an
    option and one of the kernel's `params` (`num_warps: tl.constexpr`) is both."""
    options = {k: kwargs[k] if k in params else kwargs.pop(k)
               for k in LAUNCH_OPTIONS + GENERIC_LAUNCH_OPTIONS if k in kwargs}
    return kwargs, options


def _generic_launch(fn, grid: Any, warmup: bool, args: tuple, kwargs: dict[str, Any]) -> Any:
    """Bind through `fn.bind`, then interpret or launch on the GPU (compiling on a miss)."""
    kwargs, options = split_options(dict(kwargs), frozenset(p.name for p in fn.params))
    bound = fn.bind(args, kwargs)
    if interpret_requested(fn):
        from tritonc.backends.interpreter.launch import interpret

        if warmup:  # nothing to compile: the front end still judges the kernel
            from tritonc.compiler.legality import check_interpreted_launch

            check_interpreted_launch(fn, bound)
            return None
        return interpret(fn, normalize_grid(grid, bound), bound,
                         options.get("num_warps") or 4)
    from tritonc.runtime.gpu_launch import launch_on_gpu

    return launch_on_gpu(fn, grid, bound, options, warmup)


def make_launch(fn, grid: Any, warmup: bool = False) -> Callable:
    """The callable behind `fn[grid]`."""
    factory = None if warmup else _factory(fn)
    if factory is None:
        def launch(*args, **kwargs):
            return _generic_launch(fn, grid, warmup, args, kwargs)

        return launch
    make, defaults = factory
    fixed = _fixed_grid(grid)
    kernels = fn.__dict__.setdefault("_fast_kernels", {})
    _FAST_TABLES.add(fn)
    launch = make(fn, kernels, grid, None if fixed else grid, *(fixed or (1, 1, 1)), *defaults)
    if fixed or (callable(grid) and getattr(grid, "__closure__", 1) is None):
        launchers = fn.__dict__.setdefault("_grid_launchers", {})
        if len(launchers) >= _MAX_GRID_LAUNCHERS:
            launchers.clear()
        launchers[grid] = launch
    return launch


_FAST_TABLES: weakref.WeakSet = weakref.WeakSet()  # kernels whose hot path has entries


def _forget_fast_entries() -> None:
    """Drop every hot-path entry: a knob that changes the generated code changed, and the
    entries' keys do not hold it (the generic path's keys do)."""
    for fn in list(_FAST_TABLES):
        fn.__dict__.get("_fast_kernels", {}).clear()


knobs.on_code_change(_forget_fast_entries)


def _fixed_grid(grid: Any) -> tuple[int, int, int] | None:
    """(x, y, z) of a valid grid of plain ints, else None (normalized at each call)."""
    if type(grid) is int or (type(grid) is tuple and all(type(g) is int for g in grid)):
        try:
            return normalize_grid(grid, {})
        except ValueError:
            return None
    return None


# -- the generated hot path -------------------------------------------------------------


class _Missing:
    """The default of a parameter the call did not give (the generic path reports it)."""

    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()
_NOCACHE = object()  # a key part that never hits: such calls always take the generic path
_ENV_TRUE = frozenset(("1", "true", "yes", "on"))


def _int_code(value: int, specialize: bool) -> int:
    """The class of an int argument outside the 32-bit range (or of an int subclass)."""
    return specialization.int_class(value, specialize)


def _other(value: Any, specialize: bool) -> tuple[Any, Any, Any]:
    """(launch value, key, flag) of an argument that is not an exact tensor, int or float."""
    from tritonc.language.core import constexpr

    if value is _MISSING or isinstance(value, tuple):
        return None, _NOCACHE, None
    if isinstance(value, bool):
        return value, "i1", None
    if hasattr(value, "data_ptr"):
        ptr = value.data_ptr()
        return ptr, ("t", value.dtype), specialize and specialization.is_divisible(ptr)
    if isinstance(value, int):
        return value, ("int", _int_code(value, specialize)), None
    if isinstance(value, float):
        return value, 10, None
    if value is None:
        return None, "none", None
    if isinstance(value, constexpr):
        return None, ("c", repr(value.value)), None
    if descriptors.is_descriptor(value):  # the entry's launcher flattens it (gpu_launch)
        return value, ("d", value.base.dtype, tuple(value.block_shape), value.padding), \
            specialize and descriptors.is_aligned(value)
    return None, _NOCACHE, None


def _interpret_env(fn) -> bool:
    return os.environ.get("TRITONC_INTERPRET", "0").lower() in _ENV_TRUE


def _options(num_warps: Any, num_stages: Any, num_ctas: Any, stream: Any, maxnreg: Any,
             enable_fp_fusion: Any) -> dict[str, Any]:
    options = {"num_warps": num_warps, "num_stages": num_stages}
    for name, value in (("num_ctas", num_ctas), ("stream", stream), ("maxnreg", maxnreg),
                        ("enable_fp_fusion", enable_fp_fusion)):
        if value is not None:
            options[name] = value
    return options


def _slow(fn, grid: Any, values: tuple, extra: tuple, kw: dict, options: dict) -> Any:
    """The generic path for a call the generated function did not take."""
    if extra:
        args, kwargs = values + extra, dict(kw)
    else:
        args = ()
        kwargs = {n: v for n, v in zip(fn.arg_names, values, strict=True) if v is not _MISSING}
        kwargs.update(kw)
    kwargs.update(options)
    return _generic_launch(fn, grid, False, args, kwargs)


def _miss(fn, grid: Any, values: tuple, options: dict, key: tuple, kernels: dict,
          names: tuple[str, ...]) -> Any:
    """A key seen for the first time: launch through the generic path, then add its entry."""
    from tritonc.runtime import gpu_launch

    _HOT.update(gpu_launch.hot_path_functions())
    result = _slow(fn, grid, values, (), {}, options)
    if isinstance(result, gpu_launch.CompiledLaunch) and not any(k is _NOCACHE for k in key):
        try:
            kernels[key] = gpu_launch.fast_entry(result, names)
        except TypeError:  # an unhashable constexpr: this call shape stays generic
            pass
    return result


def _unresolved(*_args: Any) -> Any:
    raise RuntimeError("the launch path was used before its first generic launch")


_HOT: dict[str, Any] = {
    "_tc_M": _MISSING, "_tc_int": int, "_tc_float": float, "_tc_other": _other,
    "_tc_ibig": _int_code, "_tc_slow": _slow, "_tc_miss": _miss, "_tc_opts": _options,
    "_tc_norm": normalize_grid, "_tc_interp": _interpret_env,
    "_tc_env": os.environ._data.get if isinstance(getattr(os.environ, "_data", None), dict)
    and os.name == "posix" else os.environ.get,
    "_tc_ekey": b"TRITONC_INTERPRET" if os.name == "posix" else "TRITONC_INTERPRET",
    "_tc_T": _Missing, "_tc_rs": _unresolved, "_tc_dev": _unresolved,
}


def _classify(i: int, name: str, specialize: bool) -> list[str]:
    """Generated lines setting _tc_v<i> (launch value), _tc_k<i> and _tc_f<i> (key parts)."""
    int_key = specialization.int_key_expr(name) if specialize else "2"
    return [
        f"        _tc_t = {name}.__class__",
        "        if _tc_t is _tc_T:",
        f"            _tc_v{i} = {name}.data_ptr()",
        f"            _tc_k{i} = {name}.dtype",
        f"            _tc_f{i} = "
        + (specialization.pointer_key_expr(f"_tc_v{i}") if specialize else "None"),
        "        elif _tc_t is _tc_int:",
        f"            _tc_v{i} = {name}",
        f"            _tc_k{i} = {int_key} if -2147483648 <= {name} <= 2147483647 "
        f"else _tc_ibig({name}, {specialize})",
        f"            _tc_f{i} = None",
        "        elif _tc_t is _tc_float:",
        f"            _tc_v{i}, _tc_k{i}, _tc_f{i} = {name}, 10, None",
        "        else:",
        f"            _tc_v{i}, _tc_k{i}, _tc_f{i} = _tc_other({name}, {specialize})",
    ]


def _factory(fn) -> tuple[Callable, tuple] | None:
    """The generated launch-function maker of `fn` and the parameter defaults it takes,
    built once per kernel; None when the kernel's parameters rule the hot path out."""
    cached = fn.__dict__.get("_fast_factory")
    if cached is None:
        cached = fn.__dict__["_fast_factory"] = _build_factory(fn) or False
    return cached or None


def _build_factory(fn) -> tuple[Callable, tuple] | None:
    import inspect

    try:
        kinds = {p.kind for p in inspect.signature(fn.fn).parameters.values()}
    except (TypeError, ValueError):
        return None
    names = [p.name for p in fn.params]
    if kinds - {inspect.Parameter.POSITIONAL_OR_KEYWORD} or any(
            n.startswith("_tc_") or n in LAUNCH_OPTIONS or not n.isidentifier() for n in names):
        return None
    title = fn.__name__ if fn.__name__.isidentifier() and not fn.__name__.startswith(
        "_tc_") else "launch"
    defaults = tuple(p.default for p in fn.params if p.has_default)
    default_names = [f"_tc_d{p.index}" for p in fn.params if p.has_default]
    header = ", ".join(f"{p.name}=_tc_d{p.index}" if p.has_default else f"{p.name}=_tc_M"
                       for p in fn.params)
    options = ", ".join(LAUNCH_OPTIONS)
    values = "(" + "".join(f"{n}, " for n in names) + ")"
    runtime = [p for p in fn.params if not p.is_constexpr]
    lines = [
        "def _tc_make(_tc_fn, _tc_kernels, _tc_g0, _tc_grid, _tc_gx, _tc_gy, _tc_gz"
        + "".join(f", {d}" for d in default_names) + "):",
        f"    def {title}({header}{', ' if header else ''}*_tc_extra, num_warps=4, "
        "num_stages=3, num_ctas=None, stream=None, maxnreg=None, enable_fp_fusion=None, "
        "**_tc_kw):",
        "        _tc_i = _tc_fn.interpret",
        "        if _tc_extra or _tc_kw or (_tc_i if _tc_i is not None else "
        "_tc_env(_tc_ekey) is not None and _tc_interp(_tc_fn)):",
        f"            return _tc_slow(_tc_fn, _tc_g0, {values}, _tc_extra, _tc_kw, "
        f"_tc_opts({options}))",
    ]
    key = []
    for i, p in enumerate(runtime):
        lines += _classify(i, p.name, not p.do_not_specialize)
        key += [f"_tc_k{i}", f"_tc_f{i}"]
    for p in fn.params:
        if p.is_constexpr:
            key += [f"{p.name}.__class__", p.name]
    key += ["num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion"]
    args = "".join(f", _tc_v{i}" for i in range(len(runtime)))
    bound = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
    lines += [
        f"        _tc_key = ({', '.join(key)},)",
        "        try:",
        "            _tc_launch, _tc_kl, _tc_c = _tc_kernels[_tc_key]",
        "        except (KeyError, TypeError):",
        f"            return _tc_miss(_tc_fn, _tc_g0, {values}, _tc_opts({options}), "
        f"_tc_key, _tc_kernels, {tuple(p.name for p in runtime)!r})",
        "        if stream is None:",
        "            stream = _tc_rs(_tc_dev())",
        "        if _tc_grid is None:",
        "            _tc_x, _tc_y, _tc_z = _tc_gx, _tc_gy, _tc_gz",
        "        else:",
        f"            _tc_x, _tc_y, _tc_z = _tc_norm(_tc_grid, {bound})",
        "        try:",
        f"            _tc_r = _tc_launch(_tc_x, _tc_y, _tc_z, stream{args})",
        "        except (TypeError, OverflowError) as _tc_e:",
        "            _tc_kl.bad_args(_tc_e)",
        "        _tc_kl.driver.last_kernel = _tc_kl.name",
        "        if _tc_r:",
        f"            _tc_kl.failed(_tc_r, _tc_x, _tc_y, _tc_z, stream{args})",
        "        return _tc_c",
        f"    return {title}",
    ]
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines) + "\n", f"<launch of {fn.__name__}>", "exec"), _HOT,
         namespace)
    make = namespace["_tc_make"]
    if sys.version_info >= (3, 11):  # errors binding the arguments name the kernel alone
        make.__code__ = make.__code__.replace(co_consts=tuple(
            c.replace(co_qualname=c.co_name) if isinstance(c, types.CodeType) else c
            for c in make.__code__.co_consts))
    return make, defaults
