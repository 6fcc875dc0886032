"""`tritonc inspect` (resource usage and occupancy) and `tritonc list` (the kernels of a file)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tritonc.aot.occupancy import report_lines
from tritonc.aot.spec import (
    UsageError,
    load_module_file,
    parse_constexprs,
    parse_options,
    parse_signature,
    parse_targets,
    require_constexprs,
)
from tritonc.cli.common import fail


def _metadata_of_cubin(path: Path, num_warps: int | None) -> tuple[int, dict, str]:
    """(arch, metadata, note) of a cubin: from its `.json` sidecar when there is one,
    else from the ELF file itself (no spills nor dynamic shared memory then)."""
    from tritonc.aot.cubin import parse_cubin

    sidecar = path.with_suffix(".json")
    if sidecar.is_file():
        try:
            metadata = json.loads(sidecar.read_text())
            arch = int(str(metadata["target"]).partition(":")[2].rstrip("a"))
        except (ValueError, KeyError) as e:
            raise UsageError(f"bad metadata sidecar {sidecar}: {e}") from None
        if num_warps is not None:
            metadata["num_warps"] = num_warps
            metadata.pop("threads", None)
        return arch, metadata, f"metadata from {sidecar.name}"
    try:
        info = parse_cubin(path.read_bytes())
    except ValueError as e:
        raise UsageError(f"{path}: {e}") from None
    if not info.kernels:
        raise UsageError(f"{path}: the cubin has no kernels")
    kernel = next(iter(info.kernels.values()))
    metadata = {"name": kernel.name, "num_warps": num_warps or 4, "shared": 0,
                "ptxas": {"registers": kernel.registers, "stack_frame": kernel.stack_frame,
                          "shared_mem": kernel.static_shared}}
    note = (f"no {sidecar.name}: read from the ELF file (spills and dynamic shared memory "
            f"unknown; {metadata['num_warps']} warps assumed unless --num-warps)")
    return info.arch, metadata, note


@click.command("inspect")
@click.argument("target_file", metavar="FILE.cubin|FILE.py:KERNEL")
@click.option("--signature", "-s", default=None, help="for FILE.py:KERNEL: argument types")
@click.option("--constexpr", "-c", "constexpr_text", default="", help="NAME=VALUE,...")
@click.option("--num-warps", default=None, type=int, help="warps per block (default 4)")
@click.option("--num-stages", default=3, show_default=True, type=int)
@click.option("--target", default=None, help="cuda:<sm>: compile for it / use its limits")
def inspect_command(target_file: str, signature: str | None, constexpr_text: str,
                    num_warps: int | None, num_stages: int, target: str | None) -> None:
    """Registers, spills, shared memory and occupancy of a compiled kernel."""
    from tritonc.compiler.errors import CompilationError

    try:
        archs = parse_targets(target) if target is not None else []
        if len(archs) > 1:
            raise UsageError("inspect takes one --target")
        options = parse_options(num_warps=num_warps, num_stages=num_stages)
        if target_file.endswith(".cubin"):
            path = Path(target_file)
            if not path.is_file():
                raise UsageError(f"no such file: {path}")
            arch, metadata, note = _metadata_of_cubin(path, num_warps)
            arch = archs[0] if archs else arch
        else:
            from tritonc.aot.spec import load_kernel

            if signature is None:
                raise UsageError("inspecting FILE.py:KERNEL needs --signature")
            kernel = load_kernel(target_file)
            spec = parse_signature(kernel, signature, parse_constexprs(kernel, constexpr_text))
            require_constexprs(kernel, spec)
            arch = archs[0] if archs else 90
    except UsageError as e:
        fail(str(e))
    if not target_file.endswith(".cubin"):
        from tritonc.compiler.compiler import compile as compile_kernel

        try:
            compiled = compile_kernel(kernel, spec.signature, spec.constexprs, f"cuda:{arch}",
                                      spec.divisible, options=options)
        except (CompilationError, NotImplementedError, RuntimeError) as e:
            fail(str(e), status=1)
        metadata, note = compiled.metadata, f"compiled for sm_{arch}"
    for line in report_lines(arch, metadata):
        click.echo(line)
    click.echo(f"({note})")


def _describe(kernel) -> str:
    parts = []
    for p in kernel.params:
        kind = "constexpr" if p.is_constexpr else p.annotation_type
        text = f"{p.name}: {kind}" if kind else p.name
        if p.has_default:
            text += f" = {p.default!r}"
        if p.do_not_specialize:
            text += " (not specialized)"
        parts.append(text)
    return f"{kernel.__name__}({', '.join(parts)})"


@click.command("list")
@click.argument("path", metavar="FILE.py")
def list_command(path: str) -> None:
    """The @jit kernels defined in FILE.py and their parameters (constexprs and dtype
    annotations marked)."""
    from tritonc.runtime.jit import JITFunction

    try:
        module = load_module_file(path)
    except UsageError as e:
        fail(str(e))
    kernels = [v for v in vars(module).values()
               if isinstance(v, JITFunction) and v.__module__ == module.__name__]
    if not kernels:
        click.echo(f"{path}: no @jit kernels", err=True)
    for kernel in kernels:
        click.echo(_describe(kernel))
