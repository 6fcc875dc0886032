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
from tritonc.runtime.jit import JITFunction


@dataclass
class CompiledKernel:
    """Every stage's output (`asm["ptx"]`, `asm["cubin"]`) and the kernel's metadata."""

    name: str
    asm: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def parse_target(target: str) -> tuple[str, int]:
    """`cuda:90` -> ("cuda", 90); `ttir` compiles only to TTIR."""
    if target == "ttir":
        return "ttir", 0
    backend, _, arch = target.partition(":")
    if backend != "cuda" or not arch.rstrip("a").isdigit():
        raise ValueError(f"unknown target {target!r}; expected 'cuda:<sm>' such as cuda:90, "
                         "or 'ttir'")
    return backend, int(arch.rstrip("a"))


def compile(fn: JITFunction, signature: Mapping[str, Any],
            constexprs: Mapping[str, Any] | None = None,
            target: str = "ttir", divisible_by_16: frozenset[str] | set[str] = frozenset(),
            num_warps: int = 4, num_stages: int = 3,
            maxnreg: int | None = None) -> CompiledKernel:
    """Compile `fn` for one specialization; stop after TTIR when `target` is "ttir"."""
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
