"""FileCheck tests of single passes: each `<pass>.mlir` here holds its input IR, a RUN line
`tritonc opt %s --passes ... | filecheck %s` and the CHECK lines of its output."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tritonc import passes
from tritonc.cli.main import main

HERE = Path(__file__).resolve().parent
CASES = sorted(HERE.glob("*.mlir"))


def run_line(path: Path) -> list[str]:
    """The arguments of `tritonc opt` in the file's RUN line, with %s as the file."""
    for line in path.read_text().splitlines():
        if line.startswith("// RUN:"):
            command, _, check = line[len("// RUN:"):].partition("|")
            words = shlex.split(command)
            assert words[:2] == ["tritonc", "opt"] and check.split() == ["filecheck", "%s"]
            return [str(path) if w == "%s" else w for w in words[2:]]
    raise AssertionError(f"{path.name} has no RUN line")


def test_every_tritonc_pass_has_a_filecheck_test():
    tested = {run_line(p)[run_line(p).index("--passes") + 1] for p in CASES}
    named = {item.partition("{")[0] for text in tested for item in passes.split_pipeline(text)}
    assert set(passes.PASSES) <= named


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_pass(path: Path):
    result = CliRunner().invoke(main, ["opt", *run_line(path)])
    assert result.exit_code == 0, result.output
    done = subprocess.run([sys.executable, "-m", "filecheck", str(path)], input=result.output,
                          text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
