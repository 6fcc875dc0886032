"""`triton.knobs`: the settings Inductor reads and sets, grouped as Triton groups them.

Values start from tritonc's own state (its cache directory, the libdevice and ptxas it
found); hooks start unset. Setting a knob tritonc does not use is accepted and kept.
"""

from __future__ import annotations

from typing import Any


def _tool_path(finder: str) -> str | None:
    from tritonc.backends.cuda import tools

    try:
        return getattr(tools, finder)()
    except tools.ToolNotFound:
        return None


class _Group:
    """A group of knobs: attributes with defaults, any other attribute settable."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({vars(self)})"


class RuntimeKnobs(_Group):
    def __init__(self) -> None:
        self.launch_enter_hook: Any = None
        self.launch_exit_hook: Any = None
        self.jit_post_compile_hook: Any = None
        self.jit_cache_hook: Any = None
        self.interpret = False
        self.debug = False


class CacheKnobs(_Group):
    def __init__(self) -> None:
        self._dir: str | None = None
        self.dump_dir: str | None = None
        self.override_dir: str | None = None

    @property
    def dir(self) -> str:
        from tritonc.runtime.cache import cache_dir

        return self._dir or str(cache_dir())

    @dir.setter
    def dir(self, value: str) -> None:
        self._dir = value


class NvidiaKnobs(_Group):
    def __init__(self) -> None:
        self._libdevice_path: str | None = None
        self._ptxas_path: str | None = None

    @property
    def libdevice_path(self) -> str | None:
        return self._libdevice_path or _tool_path("find_libdevice")

    @libdevice_path.setter
    def libdevice_path(self, value: str | None) -> None:
        self._libdevice_path = value

    @property
    def ptxas_path(self) -> str | None:
        return self._ptxas_path or _tool_path("find_ptxas")

    @ptxas_path.setter
    def ptxas_path(self, value: str | None) -> None:
        self._ptxas_path = value


class CompilationKnobs(_Group):
    def __init__(self) -> None:
        self.always_compile = False
        self.disable_line_info = True
        self.front_end_debugging = False


class AutotuningKnobs(_Group):
    def __init__(self) -> None:
        self.cache = False
        self.print = False


runtime = RuntimeKnobs()
cache = CacheKnobs()
nvidia = NvidiaKnobs()
compilation = CompilationKnobs()
autotuning = AutotuningKnobs()
