"""FileCheck tests on small .mlir inputs, as MLIR's own: each file's first line names what
runs on it (`// RUN: roundtrip` or `// RUN: passes a,b`), the rest holds the input IR and
its CHECK lines. The printed result must also parse and verify again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tritonc.compiler import mlir_loader
from tritonc.passes.ttgir import cleanup

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.glob("**/*.mlir"))
PASSES = {cleanup.NAME: cleanup.cleanup,
          "cleanup-own": lambda module: cleanup.cleanup(module, upstream=False)}


def run_line(path: Path) -> list[str]:
    first = path.read_text().splitlines()[0]
    if not first.startswith("// RUN: "):
        raise ValueError(f"{path.name}: the first line must be a RUN line")
    words = first[len("// RUN: "):].split()
    if words == ["roundtrip"]:
        return []
    if len(words) == 2 and words[0] == "passes":
        unknown = [p for p in words[1].split(",") if p not in PASSES]
        if unknown:
            raise ValueError(f"{path.name}: unknown passes {unknown}")
        return words[1].split(",")
    raise ValueError(f"{path.name}: cannot read RUN line {first!r}")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(HERE)) for p in FILES])
def test_filecheck(path: Path) -> None:
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(path.read_text())
        assert module.operation.verify()
        for name in run_line(path):
            PASSES[name](module)
            assert module.operation.verify()
        text = str(module)
        assert ir.Module.parse(text).operation.verify()
    done = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(path), "--dump-input=fail"],
                          input=text, text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr[-6000:]


def test_there_are_files_for_each_pass():
    runs = {name for p in FILES for name in run_line(p)}
    assert cleanup.NAME in runs
    assert any(not run_line(p) for p in FILES)
