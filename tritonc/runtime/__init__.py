"""Running compiled kernels: the CUDA driver (`driver`) and the on-disk cache (`cache`).

Nothing is imported here: `import tritonc` stays fast, and libcuda, torch and MLIR are
loaded only by the modules that need them, on first use. The submodules and the
autotuner's names are attributes of this package all the same, imported when first
read: `tritonc.runtime.driver.active` is the driver of the current device.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = frozenset({
    "autotuner", "c_launcher", "cache", "descriptors", "driver", "gpu_launch", "jit",
    "launch", "specialization", "tensor_wrapper",
})
_AUTOTUNER_NAMES = frozenset({"Autotuner", "Config", "Heuristics", "autotune", "heuristics"})


def __getattr__(name: str) -> Any:
    """A submodule (`driver`, `cache`, ...), `JITFunction`, or an autotuner name."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _AUTOTUNER_NAMES:
        return getattr(importlib.import_module(f"{__name__}.autotuner"), name)
    if name == "JITFunction":
        return importlib.import_module(f"{__name__}.jit").JITFunction
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
