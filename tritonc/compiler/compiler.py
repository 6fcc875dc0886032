"""`tritonc.compile`: run a kernel through the stages of a target and keep every stage.

The source is a @jit function with its specialization, or the file of any stage
(`k.ttir`, `k.ttgir`, `k.llir`, `k.ptx`). A function goes through the code generator
(`frontend.make_ttir`) first; a file starts at the stage after the one its extension
names. The stages come from the target's backend (`backends/cuda/compiler.py`), in order
ttir -> ttgir -> llir -> ptx -> cubin; each takes the previous stage's output, the
metadata dict and the options, and `CompiledKernel.asm[ext]` keeps every output
(the TTIR with the kernel's arguments named after its parameters: `ttir_text`).

Options are one frozen value (`CUDAOptions`): pass `options=` or the keywords
`num_warps`, `num_stages`, `maxnreg`, `enable_fp_fusion`. A TTGIR file carries
num-warps, num-stages and the target as module attributes, and those rule its later
stages. With `target="ttir"` a function stops at the code generator's TTIR, before any
pass.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tritonc.backends.base import Target, get_backend
from tritonc.compiler.frontend import Specialization, make_ttir
from tritonc.compiler.targets import parse_target
from tritonc.runtime.jit import JITFunction

STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")
_MLIR_STAGES = ("ttir", "ttgir")


@dataclass
class CompiledKernel:
    """Every stage's output (`asm["ptx"]`, `asm["cubin"]`) and the kernel's metadata."""

    name: str
    asm: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def make_options(options: Any = None, **overrides: Any):
    """A validated `CUDAOptions` from an options value or mapping plus keyword overrides
    (None keeps the default); ValueError naming a bad value."""
    from tritonc.backends.cuda.options import CUDAOptions

    if options is None:
        options = CUDAOptions()
    elif not isinstance(options, CUDAOptions):
        options = CUDAOptions.parse(dict(options))
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(options, **given) if given else options


def compile(src: JITFunction | str | os.PathLike,
            signature: Mapping[str, Any] | None = None,
            constexprs: Mapping[str, Any] | None = None,
            target: str = "ttir", divisible_by_16: frozenset[str] | set[str] = frozenset(),
            num_warps: int | None = None, num_stages: int | None = None,
            maxnreg: int | None = None, *, options: Any = None,
            enable_fp_fusion: bool | None = None,
            override: Mapping[str, str | bytes] | None = None) -> CompiledKernel:
    """Compile `src` (see the module docstring); stop after TTIR when `target` is "ttir".
    `override` maps stage names to outputs used instead of running those stages (an
    edited .ttgir, say); the later stages compile from them."""
    opts = make_options(options, num_warps=num_warps, num_stages=num_stages, maxnreg=maxnreg,
                        enable_fp_fusion=enable_fp_fusion)
    if isinstance(src, (str, os.PathLike)):
        return compile_file(src, target, opts, override)
    spec = Specialization(dict(signature or {}), dict(constexprs or {}),
                          frozenset(divisible_by_16))
    backend_name, _ = parse_target(target)
    name = src.kernel_name(dict(spec.signature), dict(spec.constexprs), spec.divisible_by_16)
    module = make_ttir(src, spec, name=name, num_warps=opts.num_warps)
    kernel = CompiledKernel(name)
    kernel.asm["ttir"] = ttir_text(module)
    kernel.metadata.update(name=name, target=target, specialization=spec.key(),
                           **opts.as_dict())
    if backend_name == "ttir":
        return kernel
    _run_stages(module, None, kernel, parse_target_value(target), opts, override)
    return kernel


def ttir_text(module: Any) -> str:
    """A TTIR module as `asm["ttir"]` keeps it. A value whose location is a name prints
    under that name: the kernel's arguments are `%x_ptr`, `%n` (its Python parameters)
    rather than `%arg0`, `%arg1`. The text parses back like any other, without the
    names, so the later stages print numbered arguments: compiled from the function or
    resumed from its .ttir, they are the same text."""
    return module.operation.get_asm(use_name_loc_as_prefix=True)


def parse_target_value(target: str) -> Target:
    backend, arch = parse_target(target)
    return Target(backend, arch)


def compile_file(path: str | os.PathLike, target: str, options: Any,
                 override: Mapping[str, str | bytes] | None = None) -> CompiledKernel:
    """Compile the stage file `path` (`k.ttgir`, ...) through the stages after its own."""
    from tritonc.compiler import mlir_loader

    path = Path(path)
    stage = path.suffix.lstrip(".")
    if stage not in STAGES[:-1]:
        raise ValueError(f"cannot compile {path.name}: the extension must name a stage "
                         f"({', '.join('.' + s for s in STAGES[:-1])})")
    text = path.read_text()
    kernel = CompiledKernel(path.stem.split(".")[0])
    kernel.asm[stage] = text
    if stage in _MLIR_STAGES:
        ir = mlir_loader.load()
        context = mlir_loader.new_context()
        try:
            source = ir.Module.parse(text, context=context)
        except ir.MLIRError as e:
            raise ValueError(f"{path.name} does not parse: {' '.join(str(e).split())}") from None
        if stage == "ttgir":
            from tritonc.passes.ttgir.convert_to_ttgir import module_options

            target = module_options(source).target
    else:
        source = text
    if target == "ttir":
        raise ValueError(f"compiling {path.name} needs a target such as cuda:90")
    kernel.metadata.update(target=target, **options.as_dict())
    _run_stages(source, stage, kernel, parse_target_value(target), options, override)
    kernel.name = kernel.metadata.get("name", kernel.name)
    return kernel


def _run_stages(source: Any, done: str | None, kernel: CompiledKernel, target: Target,
                options: Any, override: Mapping[str, str | bytes] | None = None) -> None:
    """Run every stage of the target's backend after `done` (all of them for None),
    keeping each output; a stage named in `override` yields that output instead."""
    backend = get_backend(target)
    options = backend.parse_options(options)
    stages = backend.add_stages(options)
    names = list(stages)
    override = override or {}
    unknown = sorted(set(override) - set(names))
    if unknown:
        raise ValueError(f"cannot override {unknown[0]!r}: the stages are {', '.join(names)}")
    for name in names[names.index(done) + 1:] if done is not None else names:
        if name in override:
            source = override[name]
            if name in _MLIR_STAGES:
                from tritonc.compiler import mlir_loader

                source = mlir_loader.load().Module.parse(source,
                                                         context=mlir_loader.new_context())
        else:
            source = stages[name](source, kernel.metadata, options)
        if isinstance(source, (str, bytes)):
            kernel.asm[name] = source
        else:
            kernel.asm[name] = ttir_text(source) if name == "ttir" else str(source)
