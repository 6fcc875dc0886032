"""tritonc as the `triton` package of PyTorch Inductor (`torch.compile`).

Opt in, in the process that calls torch.compile, before its first compilation:

    import tritonc.inductor
    tritonc.inductor.install()

`install()` registers the alias modules (`modules.py`) as `triton`, `triton.language`,
`triton.compiler`, ... in `sys.modules`, and prepares the processes torch starts
itself (its compile workers): it sets `TRITONC_AS_TRITON=1` in the environment and puts
the directory of a `triton` shim package first on `sys.path`, which torch passes on as
the workers' PYTHONPATH; importing that shim with `TRITONC_AS_TRITON=1` installs the
alias in the worker. To opt in a whole program without editing it:

    python -m tritonc.inductor train.py [args...]

Nothing changes for a process that does not ask: `import tritonc` registers nothing.
A real `triton` already imported in the process is an error (both cannot be `triton`),
and so is torch's Inductor runtime imported before `install()`: it decided then that
there is no triton. torch's cached probes of that question are cleared on install.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV_VAR = "TRITONC_AS_TRITON"
# (major, minor) releases of torch whose Inductor this integration is tested with
SUPPORTED_TORCH = ((2, 11), (2, 12), (2, 13))


class UnsupportedTorch(RuntimeError):
    """The installed torch is a release whose Inductor tritonc does not support."""


def shim_path() -> str:
    """The directory holding the `triton` shim package (for PYTHONPATH)."""
    return str(Path(__file__).parent / "shim")


def torch_release(version: str) -> tuple[int, int]:
    """(major, minor) of a torch version string such as '2.11.0+cu130'."""
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def check_torch(version: str | None = None) -> None:
    """Raise UnsupportedTorch naming `version` (the installed torch's by default)."""
    if version is None:
        try:
            import torch
        except ImportError:
            return
        version = torch.__version__
    if torch_release(str(version)) not in SUPPORTED_TORCH:
        supported = ", ".join(f"{a}.{b}" for a, b in SUPPORTED_TORCH)
        raise UnsupportedTorch(f"torch {version} is not supported by tritonc.inductor "
                               f"(supported: {supported})")


def is_installed() -> bool:
    """Whether `triton` in this process is tritonc's alias."""
    module = sys.modules.get("triton")
    return module is not None and hasattr(module, "__tritonc_version__")


def install() -> None:
    """Make tritonc serve as `triton` in this process and the workers it starts."""
    if is_installed():
        return
    real = sys.modules.get("triton")
    if real is not None:
        raise RuntimeError(f"a real triton is already imported ({getattr(real, '__file__', real)}"
                           "); call tritonc.inductor.install() before anything imports triton")
    check_torch()
    hints = sys.modules.get("torch._inductor.runtime.hints")
    if hints is not None and not hasattr(hints, "triton"):
        raise RuntimeError("torch's Inductor runtime was imported before "
                           "tritonc.inductor.install() and found no triton; call install() "
                           "before anything imports torch._dynamo or torch._inductor (meta "
                           "tensor arithmetic does)")
    from tritonc.inductor.modules import build, register

    register(build())
    os.environ[ENV_VAR] = "1"
    shim = shim_path()
    if shim not in sys.path:
        sys.path.insert(0, shim)
    _forget_torch_probes()


#: torch's cached answers to "is there a triton?", made the first time it asks
_TORCH_PROBES = (("torch.utils._triton", "has_triton_package"),
                 ("torch.utils._triton", "has_triton"),
                 ("torch._inductor.utils", "get_triton_attrs_descriptor_version"))


def _forget_torch_probes() -> None:
    """Clear torch's cached triton probes, so that one made before `install()` (by any
    torch code that asked) does not hide the alias."""
    for module, name in _TORCH_PROBES:
        probe = getattr(sys.modules.get(module), name, None)
        if hasattr(probe, "cache_clear"):
            probe.cache_clear()


def uninstall() -> None:
    """Remove the alias from this process (modules that imported it keep their references)."""
    if not is_installed():
        return
    for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        del sys.modules[name]
    os.environ.pop(ENV_VAR, None)
    while shim_path() in sys.path:
        sys.path.remove(shim_path())


__all__ = ["ENV_VAR", "SUPPORTED_TORCH", "UnsupportedTorch", "check_torch", "install",
           "is_installed", "shim_path", "uninstall"]
