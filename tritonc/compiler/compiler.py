"""`tritonc.compile`: run a kernel through the stages of a target and keep every stage.

The stages of a target are an ordered list of (extension, function) pairs supplied by
its backend (`backends/cuda/stages.py`): ttir -> ttgir -> llir -> ptx -> cubin. Each
function takes the previous stage's output and the metadata dict, and returns its own
output; `CompiledKernel.asm[ext]` keeps them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tritonc.compiler.frontend import Specialization, make_ttir
from tritonc.compiler.targets import parse_target
from tritonc.runtime.jit import JITFunction


@dataclass
class CompiledKernel:
    """Every stage's output (`asm["ptx"]`, `asm["cubin"]`) and the kernel's metadata."""

    name: str
    asm: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def compile(fn: JITFunction, signature: Mapping[str, Any],
            constexprs: Mapping[str, Any] | None = None,
            target: str = "ttir", divisible_by_16: frozenset[str] | set[str] = frozenset(),
            num_warps: int = 4, num_stages: int = 3,
            maxnreg: int | None = None) -> CompiledKernel:
    """Compile `fn` for one specialization; stop after TTIR when `target` is "ttir"."""
    if num_warps not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"num_warps must be a power of two up to 32, not {num_warps}")
    if num_stages < 1:
        raise ValueError(f"num_stages must be at least 1, not {num_stages}")
    spec = Specialization(dict(signature), dict(constexprs or {}), frozenset(divisible_by_16))
    backend, arch = parse_target(target)
    module = make_ttir(fn, spec)
    kernel = CompiledKernel(fn.__name__)
    kernel.asm["ttir"] = str(module)
    kernel.metadata.update(name=fn.__name__, target=target, num_warps=num_warps,
                           num_stages=num_stages, specialization=spec.key())
    if maxnreg:
        kernel.metadata["maxnreg"] = maxnreg
    if backend == "ttir":
        return kernel
    from tritonc.backends.cuda.stages import run_stages

    run_stages(module, kernel, arch)
    return kernel
