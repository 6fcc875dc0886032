"""`tritonc opt FILE --passes a,b,c`: run named passes on a .ttir/.ttgir/.mlir file.

    tritonc opt k.ttir --passes 'convert-to-ttgir{num-warps=8},mma-layouts' -o k.ttgir
    tritonc opt k.ttgir --passes canonicalize,cse --print-ir-after-all
    tritonc opt --list                      every tritonc pass with its documentation

The names are those of `tritonc.passes` (tritonc's passes) or any upstream MLIR pass;
the result is printed on stdout, or written to `-o FILE`. An unknown pass, a bad pass
option or a file that does not parse exits with status 2 and one line saying so.
"""

from __future__ import annotations

from pathlib import Path

import click

from tritonc.cli.common import fail, write_atomic


@click.command("opt")
@click.argument("input_file", metavar="FILE", required=False)
@click.option("--passes", "-p", "pass_text", default="",
              help="comma list of passes, options in braces: a,b{key=value},c")
@click.option("-o", "--output", "output", default=None, help="write the result here")
@click.option("--print-ir-after-all", is_flag=True, help="print the IR after every pass")
@click.option("--list", "list_passes", is_flag=True, help="list tritonc's passes and exit")
def opt_command(input_file: str | None, pass_text: str, output: str | None,
                print_ir_after_all: bool, list_passes: bool) -> None:
    """Run the passes named by --passes on FILE and print the result."""
    from tritonc import passes

    if list_passes:
        for info in passes.PASSES.values():
            click.echo(f"== {info.name}\n{info.doc.strip()}\n")
        return
    if input_file is None:
        fail("tritonc opt needs a FILE (.ttir, .ttgir or .mlir)")
    path = Path(input_file)
    if not path.is_file():
        fail(f"no such file: {path}")
    pipeline = passes.split_pipeline(pass_text)
    if not pipeline:
        fail("no passes given: use --passes a,b,c (tritonc opt --list shows them)")
    from tritonc.compiler import mlir_loader

    ir = mlir_loader.load()
    context = mlir_loader.new_context()
    try:
        module = ir.Module.parse(path.read_text(), context=context)
    except (ValueError, ir.MLIRError) as e:  # MLIR's parse diagnostics
        fail(f"{path} does not parse: {' '.join(str(e).split())}")
    try:
        for item in pipeline:
            if passes.is_registered(item):
                passes.parse_pass(item)
            else:
                passes.check_upstream([item], context)
    except ValueError as e:
        fail(str(e))

    def show(name: str, current) -> None:
        click.echo(f"// -----// IR after {name} //----- //\n{current}", err=True)

    try:
        module = passes.run_passes(module, pipeline, show if print_ir_after_all else None)
    except Exception as e:  # a pass that rejects its input
        fail(f"{type(e).__name__}: {e}", status=1)
    text = str(module)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(Path(output), text)
