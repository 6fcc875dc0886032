"""The `tritonc` command line: compile a kernel of a Python file to the stages you ask for.

    tritonc compile examples/vector_add.py:add_kernel \\
        --signature '*fp32:16,*fp32:16,*fp32:16,i32' --constexpr BLOCK=1024 \\
        --target cuda:90 --emit ttir,ptx,cubin -o build/

A bad argument (unknown file or kernel, a malformed signature, an unknown target)
prints one line on stderr and exits with status 2; a kernel that does not compile
prints the compiler's message (with the source line) and exits with status 1.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import click

STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")


class UsageError(Exception):
    """A bad command-line argument: reported in one line, exit status 2."""


def _fail(message: str, status: int = 2) -> None:
    click.echo(f"tritonc: error: {message}", err=True)
    sys.exit(status)


def load_kernel(spec: str):
    """`path/to/file.py:kernel` -> the JITFunction `kernel` defined in that file."""
    from tritonc.runtime.jit import JITFunction

    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise UsageError(f"expected FILE.py:KERNEL, got {spec!r}")
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    module_name = f"_tritonc_cli_{Path(path).stem}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as e:
        raise UsageError(f"importing {path} failed: {type(e).__name__}: {e}") from e
    kernel = getattr(module, name, None)
    if not isinstance(kernel, JITFunction):
        kernels = [k for k, v in vars(module).items() if isinstance(v, JITFunction)]
        raise UsageError(f"{path} has no @jit kernel named {name!r} "
                         f"(kernels: {', '.join(kernels) or 'none'})")
    return kernel


def parse_value(text: str) -> Any:
    """A constexpr value from the command line: int, float, bool, or a string."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_signature(kernel, text: str, constexprs: dict[str, Any]):
    """Map the comma list SIG onto the kernel's non-constexpr parameters.

    Entries: `*fp16` (pointer), `*fp32:16` (pointer divisible by 16), `i32`, `i32:16`,
    `i32:1` (equal to 1: becomes a constexpr), `fp32`, or a bare number (a constant).
    """
    from tritonc.compiler.frontend import parse_type

    params = [p for p in kernel.params if p.name not in constexprs and not p.is_constexpr]
    entries = [e.strip() for e in text.split(",")] if text.strip() else []
    if len(entries) != len(params):
        names = ", ".join(p.name for p in params)
        raise UsageError(f"the signature has {len(entries)} entries but {kernel.__name__} has "
                         f"{len(params)} runtime parameters ({names})")
    signature, divisible = {}, set()
    for p, entry in zip(params, entries):
        ty, _, attr = entry.partition(":")
        if attr not in ("", "16", "1"):
            raise UsageError(f"bad specialization {entry!r} for {p.name}: use :16 or :1")
        if ty.lstrip("-").replace(".", "", 1).isdigit():
            constexprs[p.name] = parse_value(ty)
            continue
        try:
            parse_type(ty)
        except ValueError:
            raise UsageError(f"unknown type {ty!r} for parameter {p.name} (expected e.g. *fp32, "
                             "i32, i64, fp32)") from None
        if attr == "1":
            constexprs[p.name] = 1
            continue
        signature[p.name] = ty
        if attr == "16":
            divisible.add(p.name)
    return signature, divisible


@click.group()
def main() -> None:
    """tritonc: the Triton kernel language compiled on stock MLIR."""


@main.command("compile")
@click.argument("kernel_spec", metavar="FILE.py:KERNEL")
@click.option("--signature", "-s", default="", help="comma list of argument types")
@click.option("--constexpr", "-c", "constexpr_text", default="", help="NAME=VALUE,...")
@click.option("--num-warps", default=4, show_default=True, type=int)
@click.option("--num-stages", default=3, show_default=True, type=int)
@click.option("--target", default="cuda:90", show_default=True, help="cuda:<sm> or ttir")
@click.option("--emit", default="ttir,ptx,cubin", show_default=True,
              help=f"stages to write: {','.join(STAGES)}")
@click.option("-o", "--output", "out_dir", default=".", show_default=True,
              type=click.Path(file_okay=False))
def compile_command(kernel_spec: str, signature: str, constexpr_text: str, num_warps: int,
                    num_stages: int, target: str, emit: str, out_dir: str) -> None:
    """Compile KERNEL of FILE.py and write the requested stages to the output folder."""
    from tritonc.compiler.compiler import parse_target
    from tritonc.compiler.errors import CompilationError

    try:
        kernel = load_kernel(kernel_spec)
        constexprs = {}
        for item in filter(None, (i.strip() for i in constexpr_text.split(","))):
            name, sep, value = item.partition("=")
            if not sep or not name:
                raise UsageError(f"bad --constexpr entry {item!r}: expected NAME=VALUE")
            if name not in kernel.arg_names:
                raise UsageError(f"{kernel.__name__} has no parameter {name!r}")
            constexprs[name] = parse_value(value)
        sig, divisible = parse_signature(kernel, signature, constexprs)
        stages = [s.strip() for s in emit.split(",") if s.strip()]
        unknown = [s for s in stages if s not in STAGES]
        if unknown:
            raise UsageError(f"unknown stage {unknown[0]!r} in --emit (stages: "
                             f"{', '.join(STAGES)})")
        try:
            _, arch = parse_target(target)
        except ValueError as e:
            raise UsageError(str(e)) from None
        if num_warps not in (1, 2, 4, 8, 16, 32):
            raise UsageError(f"--num-warps must be a power of two up to 32, not {num_warps}")
    except UsageError as e:
        _fail(str(e))
    from tritonc.compiler.compiler import compile as compile_kernel

    needs_backend = any(s != "ttir" for s in stages)
    try:
        compiled = compile_kernel(kernel, sig, constexprs, target if needs_backend else "ttir",
                                  divisible, num_warps, num_stages)
    except CompilationError as e:
        _fail(str(e), status=1)
    except NotImplementedError as e:
        _fail(str(e), status=1)
    os.makedirs(out_dir, exist_ok=True)
    suffix = f".sm_{arch}" if arch else ""
    for stage in stages:
        data = compiled.asm[stage]
        path = Path(out_dir) / f"{kernel.__name__}{suffix}.{stage}"
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
        os.replace(tmp, path)
        click.echo(str(path))


if __name__ == "__main__":
    main()
