"""The `triton` package tritonc stands in for: one module object per Triton module.

`build()` returns {module name: module} for `triton`, `triton.language` (tritonc's
language namespace plus the Triton names Inductor's kernels use: `tl.core`,
`tl.standard`, `tl.math`, `tl.extra.libdevice`, `tl.extra.cuda`, `tl.PropagateNan`,
`tl.bool`), `triton.compiler`, `triton.runtime` (jit, autotuner, driver, cache,
errors), `triton.backends`, `triton.knobs`, `triton.testing` and `triton.tools`
(`tensor_descriptor`, `mxfp`). The modules carry a
module spec, so `importlib.util.find_spec("triton")` answers for them, and a package
`__path__` that finds nothing else, so `import triton.<unknown>` is a plain
ModuleNotFoundError.
"""

from __future__ import annotations

import enum
import functools
import importlib.machinery
import sys
import types
from typing import Any

from tritonc.inductor import backends, errors, jit
from tritonc.inductor import compile as compile_mod

TRITON_VERSION = "3.6.0"  # the Triton release whose interface these modules present


def _module(name: str, attrs: dict[str, Any], package: bool = False,
            doc: str | None = None) -> types.ModuleType:
    module = types.ModuleType(name, doc)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=package)
    if package:
        module.__path__ = []
    module.__dict__.update(attrs)
    return module


class PropagateNan(enum.Enum):
    """Whether tl.minimum / tl.maximum return NaN when an operand is NaN."""

    NONE = 0
    ALL = 0xFFFF

    def __bool__(self) -> bool:
        return self is PropagateNan.ALL


@functools.cache
def _driver_config() -> backends.DriverConfig:
    return backends.DriverConfig()


def active_driver() -> Any:
    """`triton.runtime.driver.active`."""
    return _driver_config().active


def triton_key() -> str:
    """The cache key of the compiler: tritonc's version and the hash of its sources."""
    import hashlib
    from pathlib import Path

    import tritonc

    digest = hashlib.sha256(tritonc.__version__.encode())
    for path in sorted(Path(tritonc.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return f"tritonc-{tritonc.__version__}-{digest.hexdigest()}"


def set_allocator(allocator: Any) -> None:
    """Accept the scratch allocator Inductor registers (tritonc kernels need none)."""
    _driver_config().allocator = allocator


def _language_modules() -> dict[str, types.ModuleType]:
    import tritonc.language as tl
    from tritonc.language import builtins, core, dtypes, extra, math, random, standard
    from tritonc.language.extra import libdevice

    public = {k: v for k, v in vars(tl).items() if not k.startswith("__")}
    core_attrs = {**vars(dtypes), **vars(builtins), **vars(core), "view": builtins.view}
    core_attrs = {k: v for k, v in core_attrs.items() if not k.startswith("__")}
    core_mod = _module("triton.language.core", {**core_attrs, **public})
    standard_mod = _module("triton.language.standard",
                           {**{k: v for k, v in vars(standard).items()
                               if not k.startswith("__")}, "_log2": standard._log2})
    math_mod = _module("triton.language.math", {
        **{k: v for k, v in vars(math).items() if not k.startswith("__")},
        **{k: v for k, v in vars(libdevice).items() if callable(v) and not k.startswith("_")},
        **{k: public[k] for k in ("abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt",
                                   "floor", "ceil", "fma", "umulhi", "cdiv", "sigmoid",
                                   "softmax", "max", "min")}})
    from tritonc.inductor import libdevice_extra

    libdevice_mod = _module("triton.language.extra.libdevice", {
        **{k: v for k, v in vars(libdevice).items() if not k.startswith("__")},
        **{k: getattr(libdevice_extra, k) for k in libdevice_extra.NAMES}})
    cuda_mod = _module("triton.language.extra.cuda", {
        **{k: v for k, v in vars(extra.cuda).items()
           if getattr(v, "__module__", None) == extra.cuda.__name__ and not k.startswith("_")},
        "libdevice": libdevice_mod}, package=True)
    extra_mod = _module("triton.language.extra", {"libdevice": libdevice_mod, "cuda": cuda_mod},
                        package=True)
    random_mod = _module("triton.language.random",
                         {k: v for k, v in vars(random).items() if not k.startswith("__")})
    language = _module("triton.language", {
        **public, "core": core_mod, "standard": standard_mod, "math": math_mod,
        "extra": extra_mod, "random": random_mod, "PropagateNan": PropagateNan,
        "bool": dtypes.int1, "semantic": _module("triton.language.semantic", {}),
        "constexpr_function": jit.constexpr_function,
    }, package=True, doc=tl.__doc__)
    del extra
    return {"triton.language": language, "triton.language.core": core_mod,
            "triton.language.standard": standard_mod, "triton.language.math": math_mod,
            "triton.language.random": random_mod, "triton.language.extra": extra_mod,
            "triton.language.extra.libdevice": libdevice_mod,
            "triton.language.extra.cuda": cuda_mod,
            "triton.language.extra.cuda.libdevice": libdevice_mod}


def _runtime_modules() -> dict[str, types.ModuleType]:
    from tritonc.compiler.errors import CompilationError
    from tritonc.runtime import autotuner

    autotuner_mod = _module("triton.runtime.autotuner", {
        "Autotuner": autotuner.Autotuner, "Heuristics": autotuner.Heuristics,
        "Config": autotuner.Config, "autotune": autotuner.autotune,
        "heuristics": autotuner.heuristics, "OutOfResources": errors.OutOfResources,
        "PTXASError": errors.PTXASError})
    jit_mod = _module("triton.runtime.jit", {
        "JITFunction": jit.JITFunction, "KernelInterface": jit.KernelInterface,
        "jit": jit.jit, "KernelParam": jit.InductorKernelParam,
        "ConstexprFunction": jit.ConstexprFunction})
    driver_mod = _module("triton.runtime.driver", {"driver": _driver_config()})
    cache_mod = _module("triton.runtime.cache", {"triton_key": triton_key, "knobs": knobs_mod()})
    errors_mod = _module("triton.runtime.errors", {
        "OutOfResources": errors.OutOfResources, "PTXASError": errors.PTXASError,
        "InterpreterError": errors.InterpreterError, "CompilationError": CompilationError})
    runtime = _module("triton.runtime", {
        "autotuner": autotuner_mod, "jit": jit_mod, "driver": _driver_config(),
        "cache": cache_mod, "errors": errors_mod, "Autotuner": autotuner.Autotuner,
        "Heuristics": autotuner.Heuristics, "Config": autotuner.Config,
        "JITFunction": jit.JITFunction, "KernelInterface": jit.KernelInterface,
        "OutOfResources": errors.OutOfResources}, package=True)
    return {"triton.runtime": runtime, "triton.runtime.autotuner": autotuner_mod,
            "triton.runtime.jit": jit_mod, "triton.runtime.driver": driver_mod,
            "triton.runtime.cache": cache_mod, "triton.runtime.errors": errors_mod}


class _KnobsAlias(types.ModuleType):
    """`triton.knobs`: every attribute read and assignment goes to `tritonc.knobs`, so a
    group Inductor changes (or replaces) is the one tritonc's compiler reads."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(f"module 'triton.knobs' has no attribute {name!r}")
        import tritonc.knobs

        return getattr(tritonc.knobs, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("__"):
            super().__setattr__(name, value)
            return
        import tritonc.knobs

        setattr(tritonc.knobs, name, value)


@functools.cache
def knobs_mod() -> types.ModuleType:
    module = _module("triton.knobs", {}, doc="tritonc's configuration (`tritonc.knobs`).")
    module.__class__ = _KnobsAlias
    return module


def _compiler_modules() -> dict[str, types.ModuleType]:
    from tritonc.compiler.errors import CompilationError

    compiler_attrs = {"ASTSource": compile_mod.ASTSource,
                      "CompiledKernel": compile_mod.CompiledKernel,
                      "compile": compile_mod.compile, "make_backend": backends.make_backend,
                      "triton_key": triton_key, "CompilationError": CompilationError}
    compiler_mod = _module("triton.compiler.compiler", compiler_attrs)
    errors_mod = _module("triton.compiler.errors", {"CompilationError": CompilationError})
    compiler = _module("triton.compiler", {**compiler_attrs, "compiler": compiler_mod,
                                           "errors": errors_mod}, package=True)
    backend_compiler = _module("triton.backends.compiler", {
        "GPUTarget": backends.GPUTarget, "BaseBackend": backends.BaseBackend})
    backend_pkg = _module("triton.backends", {
        "backends": dict(backends.BACKENDS), "compiler": backend_compiler,
        "BaseBackend": backends.BaseBackend}, package=True)
    return {"triton.compiler": compiler, "triton.compiler.compiler": compiler_mod,
            "triton.compiler.errors": errors_mod, "triton.backends": backend_pkg,
            "triton.backends.compiler": backend_compiler}


def _testing_module() -> types.ModuleType:
    import tritonc.testing as testing
    from tritonc.inductor import device_limits

    return _module("triton.testing", {
        **{k: v for k, v in vars(testing).items() if not k.startswith("__")},
        **{k: v for k, v in vars(device_limits).items() if k.startswith("get_")}})


def _tools_modules() -> dict[str, types.ModuleType]:
    from tritonc.tools import mxfp, tensor_descriptor

    mods = {f"triton.tools.{m.__name__.rpartition('.')[2]}": _module(
        f"triton.tools.{m.__name__.rpartition('.')[2]}",
        {k: v for k, v in vars(m).items() if not k.startswith("__")})
        for m in (tensor_descriptor, mxfp)}
    tools = _module("triton.tools", {name.rpartition(".")[2]: m for name, m in mods.items()},
                    package=True)
    return {"triton.tools": tools, **mods}


def build() -> dict[str, types.ModuleType]:
    """Every module of the alias, by name (see the module doc)."""
    import tritonc
    from tritonc.compiler.errors import CompilationError
    from tritonc.runtime import autotuner

    mods = {**_language_modules(), **_runtime_modules(), **_compiler_modules(),
            **_tools_modules(), "triton.knobs": knobs_mod(), "triton.testing": _testing_module()}
    top = _module("triton", {
        "__version__": TRITON_VERSION, "__tritonc_version__": tritonc.__version__,
        "jit": jit.jit, "JITFunction": jit.JITFunction, "KernelInterface": jit.KernelInterface,
        "Config": autotuner.Config, "autotune": autotuner.autotune,
        "heuristics": autotuner.heuristics, "cdiv": tritonc.cdiv,
        "next_power_of_2": tritonc.next_power_of_2, "compile": compile_mod.compile,
        "CompilationError": CompilationError, "OutOfResources": errors.OutOfResources,
        "set_allocator": set_allocator, "constexpr_function": jit.constexpr_function,
    }, package=True, doc="tritonc, standing in for Triton (tritonc.inductor.install()).")
    for name, module in mods.items():
        parent, _, child = name.rpartition(".")
        if parent == "triton":
            setattr(top, child, module)
    mods["triton"] = top
    return mods


def register(mods: dict[str, types.ModuleType]) -> None:
    """Put the alias into sys.modules (parents before children)."""
    for name in sorted(mods, key=lambda n: n.count(".")):
        sys.modules[name] = mods[name]
