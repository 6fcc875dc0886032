"""The `tritonc` command line: compile, inspect, list, cache, aot.

    tritonc compile FILE.py:KERNEL -s SIG ...   stages of one kernel (+ a metadata .json)
    tritonc compile FILE.ttgir ...              the stages after a stage file's own
    tritonc opt FILE.ttir --passes a,b,c        named passes on one stage file
    tritonc inspect FILE.cubin | FILE.py:KERNEL registers, spills, shared memory, occupancy
    tritonc list FILE.py                        the @jit kernels and their parameters
    tritonc cache ls | clear                    the on-disk kernel cache
    tritonc aot FILE.py:KERNEL ... -o DIR       a C header and source with a typed launcher

    tritonc compile examples/vector_add.py:add_kernel \\
        --signature '*fp32:16,*fp32:16,*fp32:16,i32' --constexpr BLOCK=1024 \\
        --target cuda:90 --emit ttir,ptx,cubin -o build/

A bad argument (unknown file or kernel, a malformed signature, an unknown target)
prints one line on stderr and exits with status 2; a kernel that does not compile
prints the compiler's message (with the source line) and exits with status 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from tritonc.aot.spec import (
    load_kernel,
    parse_constexprs,
    parse_options,
    parse_signature,
    parse_value,
    require_constexprs,
)
from tritonc.cli.common import (
    OneLineErrorGroup,
    UsageError,
    fail,
    prepare_output_dir,
    write_atomic,
)

STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin")
__all__ = ["STAGES", "UsageError", "load_kernel", "main", "parse_signature", "parse_value",
           "write_atomic"]


@click.group(cls=OneLineErrorGroup)
def main() -> None:
    """tritonc: the Triton kernel language compiled on stock MLIR."""


@main.command("compile")
@click.argument("kernel_spec", metavar="FILE.py:KERNEL|FILE.ttir|.ttgir|.llir|.ptx")
@click.option("--signature", "-s", default="", help="comma list of argument types")
@click.option("--constexpr", "-c", "constexpr_texts", multiple=True,
              help="NAME=VALUE,... (may be repeated)")
@click.option("--num-warps", default=4, show_default=True, type=int)
@click.option("--num-stages", default=3, show_default=True, type=int)
@click.option("--maxnreg", default=None, type=int, help="register cap per thread (ptxas)")
@click.option("--fp-fusion/--no-fp-fusion", default=True, show_default=True,
              help="contract a*b+c into fused multiply-adds")
@click.option("--target", default="cuda:90", show_default=True, help="cuda:<sm> or ttir")
@click.option("--emit", default="ttir,ptx,cubin", show_default=True,
              help=f"stages to write: {','.join(STAGES)}")
@click.option("-o", "--output", "out_dir", default=".", show_default=True,
              type=click.Path(file_okay=False))
def compile_command(kernel_spec: str, signature: str, constexpr_texts: tuple[str, ...],
                    num_warps: int, num_stages: int, maxnreg: int | None, fp_fusion: bool,
                    target: str, emit: str, out_dir: str) -> None:
    """Compile KERNEL of FILE.py (or a stage file) and write the requested stages to the
    output folder."""
    from tritonc.compiler.errors import CompilationError
    from tritonc.compiler.targets import parse_target

    option_values = dict(num_warps=num_warps, num_stages=num_stages, maxnreg=maxnreg,
                         enable_fp_fusion=fp_fusion)
    if Path(kernel_spec).suffix.lstrip(".") in STAGES:
        _compile_stage_file(kernel_spec, target, emit, out_dir, parse_or_fail(**option_values))
        return
    try:
        kernel = load_kernel(kernel_spec)
        spec = parse_signature(kernel, signature,
                               parse_constexprs(kernel, ",".join(constexpr_texts)))
        sig, constexprs, divisible = spec.signature, spec.constexprs, spec.divisible
        stages = [s.strip() for s in emit.split(",") if s.strip()]
        unknown = [s for s in stages if s not in STAGES]
        if unknown:
            raise UsageError(f"unknown stage {unknown[0]!r} in --emit (stages: "
                             f"{', '.join(STAGES)})")
        try:
            _, arch = parse_target(target)
        except ValueError as e:
            raise UsageError(str(e)) from None
        options = parse_options(**option_values)
        if arch == 0 and any(s != "ttir" for s in stages):
            later = next(s for s in stages if s != "ttir")
            raise UsageError(f"--emit {later} needs a CUDA target such as --target cuda:90; "
                             "--target ttir only makes TTIR")
        require_constexprs(kernel, spec)
        prepare_output_dir(out_dir)
    except UsageError as e:
        fail(str(e))
    from tritonc.compiler.compiler import compile as compile_kernel

    needs_backend = any(s != "ttir" for s in stages)
    try:
        compiled = compile_kernel(kernel, sig, constexprs, target if needs_backend else "ttir",
                                  divisible, options=options)
    except CompilationError as e:
        fail(str(e), status=1)
    except NotImplementedError as e:
        fail(str(e), status=1)
    suffix = f".sm_{arch}" if arch else ""
    outputs = [(Path(out_dir) / f"{kernel.__name__}{suffix}.{stage}", compiled.asm[stage])
               for stage in stages]
    if arch:  # the sidecar that `tritonc inspect FILE.cubin` reads
        outputs.append((Path(out_dir) / f"{kernel.__name__}{suffix}.json",
                        json.dumps(compiled.metadata, indent=1, default=repr) + "\n"))
    for path, data in outputs:
        try:
            write_atomic(path, data)
        except OSError as e:
            fail(f"cannot write {path}: {e.strerror or e}")
        click.echo(str(path))


def parse_or_fail(**values):
    try:
        return parse_options(**values)
    except UsageError as e:
        fail(str(e))


def _compile_stage_file(path: str, target: str, emit: str, out_dir: str, options) -> None:
    """`tritonc compile k.ttgir`: the stages after the file's own, written as requested."""
    from tritonc.compiler.compiler import compile as compile_kernel

    stage = Path(path).suffix.lstrip(".")
    later = STAGES[STAGES.index(stage) + 1:]
    stages = [s.strip() for s in emit.split(",") if s.strip() in later] or list(later[-1:])
    if not Path(path).is_file():
        fail(f"no such file: {path}")
    try:
        compiled = compile_kernel(path, target=target, options=options)
    except ValueError as e:
        fail(str(e))
    except Exception as e:  # the compiler's message about the file's contents
        fail(f"{type(e).__name__}: {e}", status=1)
    try:
        prepare_output_dir(out_dir)
    except UsageError as e:
        fail(str(e))
    arch = compiled.metadata.get("ptx_arch", "").rstrip("a") or target.partition(":")[2]
    for name in stages:
        out = Path(out_dir) / f"{compiled.name}.sm_{arch}.{name}"
        write_atomic(out, compiled.asm[name])
        click.echo(str(out))


def _register_commands() -> None:
    from tritonc.cli import aot_cmd, cache_cmd, inspect_cmd, opt_cmd

    main.add_command(inspect_cmd.inspect_command)
    main.add_command(inspect_cmd.list_command)
    main.add_command(cache_cmd.cache_group)
    main.add_command(aot_cmd.aot_command)
    main.add_command(opt_cmd.opt_command)


_register_commands()


if __name__ == "__main__":
    main()
