"""`tritonc opt`: its output, its listing and its one-line errors."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tritonc.cli.main import main

INPUT = Path(__file__).resolve().parent / "convert-to-ttgir.mlir"


def opt(*args: str):
    return CliRunner().invoke(main, ["opt", *args])


def test_passes_run_in_order_and_write_the_output_file(tmp_path):
    out = tmp_path / "k.ttgir"
    result = opt(str(INPUT), "--passes", "convert-to-ttgir{num-warps=8},canonicalize",
                 "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert '"ttg.num-warps" = 8 : i32' in text and "#ttg.blocked<[1], [32], [8], [0]>" in text


def test_print_ir_after_all_names_each_pass():
    result = opt(str(INPUT), "--passes", "convert-to-ttgir,cse", "--print-ir-after-all")
    assert result.exit_code == 0, result.output
    assert "IR after convert-to-ttgir" in result.output and "IR after cse" in result.output


def test_list_shows_every_pass_with_its_before_and_after():
    result = opt("--list")
    assert result.exit_code == 0
    for name in ("convert-to-ttgir", "assign-layouts", "mma-layouts", "propagate-mma",
                 "convert-ttgir-to-llvm"):
        assert f"== {name}" in result.output
    assert result.output.count("Before") >= 5


def test_unknown_pass_bad_option_and_bad_input_exit_2(tmp_path):
    cases = [
        ([str(INPUT), "--passes", "no-such-pass"], "unknown pass 'no-such-pass'"),
        ([str(INPUT), "--passes", "convert-to-ttgir{warps=2}"], "bad option 'warps=2'"),
        ([str(tmp_path / "missing.ttir"), "--passes", "cse"], "no such file"),
        ([str(INPUT)], "no passes given"),
    ]
    bad = tmp_path / "bad.ttir"
    bad.write_text("module { this is not IR }")
    cases.append(([str(bad), "--passes", "cse"], "does not parse"))
    for args, message in cases:
        result = opt(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output
        assert len(result.output.strip().splitlines()) == 1
