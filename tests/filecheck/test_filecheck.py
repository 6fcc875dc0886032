"""FileCheck tests on small .mlir inputs, as MLIR's own: each file's first line names what
runs on it, the rest holds the input IR and the CHECK lines of the result:

    // RUN: roundtrip                                      parse, verify, print
    // RUN: passes a,b                                     the passes a, b
    // RUN: tritonc opt %s --passes a,b | filecheck %s     the same, as a command line

Pass names are those of the registry (`tritonc.passes`, upstream MLIR passes by name).
The printed result must also parse and verify again. Every registered pass has a file.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tritonc import passes
from tritonc.compiler import mlir_loader

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.glob("**/*.mlir"))
ALIASES = {"cleanup-own": "cleanup{upstream=false}"}


def run_line(path: Path) -> list[str]:
    """The passes the file's RUN line names ([] for a round trip)."""
    first = path.read_text().splitlines()[0]
    if not first.startswith("// RUN: "):
        raise ValueError(f"{path.name}: the first line must be a RUN line")
    command, _, check = first[len("// RUN: "):].partition("|")
    words = shlex.split(command)
    if words == ["roundtrip"]:
        return []
    if len(words) == 2 and words[0] == "passes":
        return [ALIASES.get(p, p) for p in passes.split_pipeline(words[1])]
    if words[:3] == ["tritonc", "opt", "%s"] and words[3:4] == ["--passes"] and \
            len(words) == 5 and check.split() == ["filecheck", "%s"]:
        return passes.split_pipeline(words[4])
    raise ValueError(f"{path.name}: cannot read RUN line {first!r}")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_filecheck(path: Path) -> None:
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(path.read_text())
        assert module.operation.verify()
        module = passes.run_passes(module, run_line(path))
        assert module.operation.verify()
        text = str(module)
        assert ir.Module.parse(text).operation.verify()
    done = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(path), "--dump-input=fail"],
                          input=text, text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr[-6000:]


def test_every_registered_pass_has_a_file():
    runs = {item.partition("{")[0] for p in FILES for item in run_line(p)}
    assert set(passes.PASSES) <= runs
    assert any(not run_line(p) for p in FILES)
