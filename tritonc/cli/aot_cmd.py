"""`tritonc aot`: a C header and source that embed a kernel's cubins behind a typed launcher.

    tritonc aot examples/vector_add.py:add_kernel -c BLOCK_SIZE=1024 \\
        -s '*fp32:16,*fp32:16,*fp32:16,i32:16' -s '*fp32,*fp32,*fp32,i32' \\
        --grid 'cdiv(n_elements, BLOCK_SIZE)' --target cuda:80,cuda:90 -o build/

writes build/add_kernel.h, build/add_kernel.c, build/cuda_min.h (the driver API subset
the launcher needs; build with -DTRITONC_CUDA_MIN to use it instead of <cuda.h>) and
build/add_kernel.aot.json (the variants, their conditions and cubin hashes).
"""

from __future__ import annotations

import json
from importlib import resources

import click

from tritonc.aot.spec import (
    UsageError,
    load_kernel,
    parse_constexprs,
    parse_options,
    parse_signature,
    parse_targets,
    require_constexprs,
)
from tritonc.cli.common import fail, prepare_output_dir, write_atomic


@click.command("aot")
@click.argument("kernel_spec", metavar="FILE.py:KERNEL")
@click.option("--signature", "-s", "signatures", multiple=True, required=True,
              help="argument types; repeat for more specializations")
@click.option("--constexpr", "-c", "constexpr_text", default="", help="NAME=VALUE,...")
@click.option("--grid", "grid_text", required=True,
              help="grid formula over the arguments, e.g. 'cdiv(n,1024),1,1'")
@click.option("--target", default="cuda:90", show_default=True, help="cuda:80,cuda:90,...")
@click.option("--num-warps", default=4, show_default=True, type=int)
@click.option("--num-stages", default=3, show_default=True, type=int)
@click.option("-o", "--output", "out_dir", default=".", show_default=True,
              type=click.Path(file_okay=False))
def aot_command(kernel_spec: str, signatures: tuple[str, ...], constexpr_text: str,
                grid_text: str, target: str, num_warps: int, num_stages: int,
                out_dir: str) -> None:
    """Write KERNEL's C launcher (cubins embedded) for each signature and target."""
    from tritonc.aot.cgen import Variant, dispatch_order, generate, launcher_params
    from tritonc.aot.grid import parse_grid
    from tritonc.aot.variants import compile_variant, manifest
    from tritonc.compiler.errors import CompilationError

    try:
        kernel = load_kernel(kernel_spec)
        constexprs = parse_constexprs(kernel, constexpr_text)
        specs = [parse_signature(kernel, sig, dict(constexprs)) for sig in signatures]
        for spec in specs:
            require_constexprs(kernel, spec)
        archs = parse_targets(target)
        # the C launcher passes the kernel's arguments only: no maps for its descriptors
        options = parse_options(num_warps=num_warps, num_stages=num_stages,
                                launch_tensormaps=False)
        grid = parse_grid(grid_text)
        # check types and the grid before the (slow) compilation
        variants = [Variant(spec) for spec in specs]
        launcher_params(kernel, constexprs, variants)
        generate(kernel, constexprs, [Variant(s, {a: b"" for a in archs},
                                              {a: {"threads": 0} for a in archs})
                                      for s in specs], grid)
        out = prepare_output_dir(out_dir)
    except UsageError as e:
        fail(str(e))
    try:
        variants = dispatch_order([compile_variant(kernel, spec, archs, options)
                                   for spec in specs])
    except (CompilationError, NotImplementedError, RuntimeError) as e:
        fail(str(e), status=1)
    header, source = generate(kernel, constexprs, variants, grid)
    name = kernel.__name__
    cuda_min = resources.files("tritonc.aot").joinpath("cuda_min.h").read_text()
    files = {f"{name}.h": header, f"{name}.c": source, "cuda_min.h": cuda_min,
             f"{name}.aot.json": json.dumps(manifest(name, variants, grid_text), indent=1)}
    for file_name, text in files.items():
        try:
            write_atomic(out / file_name, text)
        except OSError as e:
            fail(f"cannot write {out / file_name}: {e.strerror or e}")
        click.echo(str(out / file_name))
