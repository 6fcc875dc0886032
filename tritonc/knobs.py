"""`tritonc.knobs`: tritonc's configuration object, under Triton 3.6's names.

The settings come in groups (`language`, `runtime`, `compilation`, `cache`,
`autotuning`, `nvidia`), each a `KnobSet`. A knob's value is the one assigned in Python
when there is one, else its default: the environment variable tritonc reads for it
(`TRITONC_CACHE_DIR`, `TRITONC_LIBDEVICE`, ...) when it has one, else a constant.
Assigning a knob that has an environment variable also writes the variable (while
`propagate_env` is true), so compile workers started later see it.

What each knob does in tritonc:

    language.default_fp_fusion  the `enable_fp_fusion` of a compilation that does not
                                give one (True)
    runtime.override_arch       the sm a launch compiles for instead of the device's
                                ("sm80", "90", "sm_90a"; None)
    runtime.interpret           whether launches run in the interpreter; kept in
                                TRITONC_INTERPRET itself, which every launch reads
    cache.dir                   the on-disk kernel cache (TRITONC_CACHE_DIR)
    autotuning.cache / .print   keep autotuning results on disk / report them
                                (TRITONC_CACHE_AUTOTUNING, TRITONC_PRINT_AUTOTUNING)
    nvidia.libdevice_path       the libdevice linked into kernels (TRITONC_LIBDEVICE)
    nvidia.ptxas_path           the ptxas that assembles them (TRITONC_PTXAS)

The rest are accepted and reported as what tritonc does, with no effect: launch and
JIT hooks (None: tritonc calls none), `runtime.debug`, `compilation.*`,
`cache.dump_dir` / `cache.override_dir` (tritonc neither dumps nor overrides IR).

Every knob that changes generated code (fp fusion, the arch, the tool paths) reaches
the cache keys: the options and target are part of every key, and paths assigned here
join the CUDA backend's hash. Changing one of them, or replacing a whole group
(`knobs.language = ...`), tells the listeners registered with `on_code_change`; the
launch path drops its per-call-shape entries then.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

propagate_env = True  # assigning a knob with an environment variable also sets it

_TRUE = ("1", "true", "yes", "on")
_listeners: list[Callable[[], None]] = []


def on_code_change(listener: Callable[[], None]) -> None:
    """Call `listener()` whenever a knob that changes generated code may have changed."""
    if listener not in _listeners:
        _listeners.append(listener)


def _code_changed() -> None:
    for listener in list(_listeners):
        listener()


def _parse_bool(text: str) -> bool:
    return text.strip().lower() in _TRUE


def _env_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (str, int, os.PathLike)):
        return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    return None


class Knob:
    """One setting of a `KnobSet`: the value assigned in Python, else `default()`.

    `key` names the environment variable tritonc reads for it (None when there is
    none): set and non-empty, it is the default, read through `parse`; assigning the
    knob writes it while `propagate_env` is true. `code` marks a knob that changes
    generated code."""

    def __init__(self, default: Callable[[], Any], key: str | None = None,
                 parse: Callable[[str], Any] = str, code: bool = False) -> None:
        self.default = default
        self.key = key
        self.parse = parse
        self.code = code
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if self.name in obj.__dict__:
            return obj.__dict__[self.name]
        text = os.environ.get(self.key) if self.key else None
        return self.parse(text) if text else self.default()

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = value
        if self.key and propagate_env:
            text = _env_text(value)
            if text is not None:
                os.environ[self.key] = text
            elif value is None:
                os.environ.pop(self.key, None)
        if self.code:
            _code_changed()

    def __delete__(self, obj: Any) -> None:
        obj.__dict__.pop(self.name, None)
        if self.code:
            _code_changed()


class EnvKnob(Knob):
    """A knob kept in its environment variable alone (tritonc reads the variable where
    the setting is used): assigning writes it, deleting unsets it."""

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        text = os.environ.get(self.key)
        return self.parse(text) if text else self.default()

    def __set__(self, obj: Any, value: Any) -> None:
        text = _env_text(value)
        if text is None:
            os.environ.pop(self.key, None)
        else:
            os.environ[self.key] = text

    def __delete__(self, obj: Any) -> None:
        os.environ.pop(self.key, None)


_Set = TypeVar("_Set", bound="KnobSet")


class KnobSet:
    """A group of knobs. Attributes that are not knobs (hooks) are plain attributes."""

    @property
    def knob_descriptors(self) -> dict[str, Knob]:
        """The knobs of this group, by name."""
        return {name: value for cls in reversed(type(self).__mro__)
                for name, value in vars(cls).items() if isinstance(value, Knob)}

    @property
    def knobs(self) -> dict[str, Any]:
        """Every knob's current value, by name."""
        return {name: getattr(self, name) for name in self.knob_descriptors}

    def overrides(self) -> dict[str, Any]:
        """The knobs assigned in Python (not left to their defaults), by name."""
        names = self.knob_descriptors
        return {k: v for k, v in vars(self).items() if k in names}

    def copy(self: _Set) -> _Set:
        """A new group holding the same assigned values."""
        copied = type(self)()
        copied.__dict__.update(self.__dict__)
        return copied

    def reset(self: _Set) -> _Set:
        """Every knob back to its default (assigned values dropped); returns the group."""
        for name in self.knob_descriptors:
            delattr(self, name)
        return self

    @contextlib.contextmanager
    def scope(self) -> Iterator[None]:
        """Within the block the group may be changed freely; on leaving it, its values and
        its knobs' environment variables are what they were on entering."""
        keys = {knob.key for knob in self.knob_descriptors.values() if knob.key}
        saved_env = {key: os.environ.get(key) for key in keys}
        saved = dict(self.__dict__)
        try:
            yield
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            _code_changed()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.knobs})"


base_knobs = KnobSet  # Triton's name for the group class


def _none() -> None:
    return None


class LanguageKnobs(KnobSet):
    default_fp_fusion = Knob(lambda: True, code=True)


class RuntimeKnobs(KnobSet):
    interpret = EnvKnob(lambda: False, "TRITONC_INTERPRET", _parse_bool)
    override_arch = Knob(_none, code=True)
    debug = Knob(lambda: False)

    def __init__(self) -> None:
        self.launch_enter_hook: Any = None
        self.launch_exit_hook: Any = None
        self.kernel_load_start_hook: Any = None
        self.kernel_load_end_hook: Any = None
        self.jit_cache_hook: Any = None
        self.jit_post_compile_hook: Any = None
        self.add_stages_inspection_hook: Any = None


class CompilationKnobs(KnobSet):
    always_compile = Knob(lambda: False)
    disable_line_info = Knob(lambda: False, "TRITONC_DISABLE_LINE_INFO", _parse_bool,
                             code=True)
    front_end_debugging = Knob(lambda: False)
    dump_ir = Knob(lambda: False)
    override = Knob(lambda: False)

    def __init__(self) -> None:
        self.listener: Any = None


def _default_cache_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".cache", "tritonc")


def _expand(text: str) -> str:
    return os.path.expanduser(text)


class CacheKnobs(KnobSet):
    dir = Knob(_default_cache_dir, "TRITONC_CACHE_DIR", _expand)
    dump_dir = Knob(_none)
    override_dir = Knob(_none)


class AutotuningKnobs(KnobSet):
    cache = Knob(lambda: False, "TRITONC_CACHE_AUTOTUNING", _parse_bool)
    print = Knob(lambda: False, "TRITONC_PRINT_AUTOTUNING", _parse_bool)


def _found(finder: str) -> Callable[[], str | None]:
    def find() -> str | None:
        from tritonc.backends.cuda import tools

        try:
            return getattr(tools, finder)()
        except tools.ToolNotFound:
            return None

    return find


class NvidiaKnobs(KnobSet):
    libdevice_path = Knob(_found("find_libdevice"), "TRITONC_LIBDEVICE", code=True)
    ptxas_path = Knob(_found("find_ptxas"), "TRITONC_PTXAS", code=True)


language = LanguageKnobs()
runtime = RuntimeKnobs()
compilation = CompilationKnobs()
cache = CacheKnobs()
autotuning = AutotuningKnobs()
nvidia = NvidiaKnobs()


def libdevice_path() -> str:
    """The libdevice to link: `nvidia.libdevice_path`, else an error naming where
    tritonc looked."""
    from tritonc.backends.cuda import tools

    return nvidia.libdevice_path or tools.find_libdevice()


def ptxas_path() -> str:
    """The ptxas to run: `nvidia.ptxas_path`, else an error naming where tritonc looked."""
    from tritonc.backends.cuda import tools

    return nvidia.ptxas_path or tools.find_ptxas()


class _KnobsModule(types.ModuleType):
    """This module, telling the code-change listeners when a group is replaced."""

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if isinstance(value, KnobSet):
            _code_changed()


sys.modules[__name__].__class__ = _KnobsModule
