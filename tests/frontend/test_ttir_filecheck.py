"""Every corpus kernel compiles to TTIR that verifies, parses back and passes its FileCheck lines."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus import KERNELS, Kernel  # noqa: E402

import tritonc  # noqa: E402
from tritonc.compiler import mlir_loader  # noqa: E402


def filecheck(ir_text: str, checks: str, tmp_path: Path) -> None:
    """Run LLVM's FileCheck with `checks` (one directive per line) over `ir_text`."""
    check_file = tmp_path / "checks.txt"
    check_file.write_text("\n".join(line.strip() for line in checks.strip().splitlines()) + "\n")
    tool = mlir_loader.llvm_tool("FileCheck")
    result = subprocess.run([tool, str(check_file), "--dump-input=fail"], input=ir_text,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]


def compile_ttir(k: Kernel) -> str:
    compiled = tritonc.compile(k.fn, k.signature, k.constexprs, target="ttir",
                               divisible_by_16=k.divisible_by_16)
    return compiled.asm["ttir"]


def test_corpus_size() -> None:
    assert len(KERNELS) >= 40
    assert sum(k.uses_dot for k in KERNELS) >= 3


@pytest.mark.parametrize("k", KERNELS, ids=[k.name for k in KERNELS])
def test_ttir(k: Kernel, tmp_path: Path) -> None:
    text = compile_ttir(k)
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(text)
        assert module.operation.verify()
    filecheck(text, k.checks, tmp_path)
    if k.uses_dot:
        assert '"tt.dot"' in text
    else:
        assert '"tt.dot"' not in text


def test_divisibility_specialization(tmp_path: Path) -> None:
    from corpus import BY_NAME

    k = BY_NAME["add_kernel"]
    text = tritonc.compile(k.fn, k.signature, k.constexprs,
                           divisible_by_16={"x_ptr", "n_elements"}).asm["ttir"]
    filecheck(text, """
        CHECK: func.func public @add_kernel(%x_ptr: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32, 1 : i32>, %output_ptr: !tt.ptr<f32, 1 : i32>, %n_elements: i32 {tt.divisibility = 16 : i32})
    """, tmp_path)
