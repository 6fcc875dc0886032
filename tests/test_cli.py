"""`tritonc compile`: outputs on success, one line and exit status 2 on a bad argument."""

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tritonc.cli.main import main

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "vector_add.py")
SIG = "*fp32:16,*fp32:16,*fp32:16,i32"


def run(*args):
    return CliRunner().invoke(main, ["compile", *args])


def test_emits_ttir(tmp_path):
    result = run(f"{EXAMPLE}:add_kernel", "--signature", SIG, "--constexpr", "BLOCK_SIZE=1024",
                 "--emit", "ttir", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    text = (tmp_path / "add_kernel.sm_90.ttir").read_text()
    assert "tt.divisibility = 16" in text and '"tt.make_range"' in text
    assert "end = 1024" in text
    # the arguments are named after the kernel's parameters, and the file compiles on
    assert "@add_kernel(%x_ptr: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}" in text
    assert "%n_elements: i32" in text and "%arg0" not in text
    resumed = run(str(tmp_path / "add_kernel.sm_90.ttir"), "--emit", "ptx", "-o",
                  str(tmp_path / "resumed"))
    assert resumed.exit_code == 0, resumed.output
    assert ".visible .entry add_kernel(" in next((tmp_path / "resumed").glob("*.ptx")).read_text()


@pytest.mark.parametrize("args, message", [
    (["nope.py:k"], "no such file"),
    ([f"{EXAMPLE}:missing"], "no @jit kernel named 'missing'"),
    ([f"{EXAMPLE}:add_kernel", "--signature", "*fp32,i32"], "has 2 entries"),
    ([f"{EXAMPLE}:add_kernel", "--signature", "*fp32,*fp32,*fp33,i32"], "unknown type '*fp33'"),
    ([f"{EXAMPLE}:add_kernel", "--signature", SIG, "--target", "rocm:90"], "unknown target"),
    ([f"{EXAMPLE}:add_kernel", "--signature", SIG, "--emit", "sass"], "unknown stage 'sass'"),
    ([f"{EXAMPLE}:add_kernel", "--signature", SIG, "--constexpr", "BLOCK"], "NAME=VALUE"),
])
def test_bad_arguments_exit_2_with_one_line(args, message, tmp_path):
    result = run(*args, "-o", str(tmp_path))
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output
    assert "Traceback" not in result.output


def test_subprocess_bad_signature():
    done = subprocess.run([sys.executable, "-m", "tritonc.cli.main", "compile",
                           f"{EXAMPLE}:add_kernel", "--signature", "i32"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "runtime parameters" in done.stderr


def test_emits_every_stage(tmp_path):
    # n divisible by 16 makes the mask uniform over 4 elements: 128-bit accesses
    result = run(f"{EXAMPLE}:add_kernel", "--signature", SIG + ":16", "--constexpr",
                 "BLOCK_SIZE=1024", "--emit", "ttir,ttgir,llir,ptx,cubin", "--target", "cuda:80",
                 "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "#ttg.blocked<[4], [32], [4], [0]>" in (tmp_path / "add_kernel.sm_80.ttgir").read_text()
    ptx = (tmp_path / "add_kernel.sm_80.ptx").read_text()
    assert ".target sm_80" in ptx and "ld.global.v4.b32" in ptx
    assert (tmp_path / "add_kernel.sm_80.cubin").read_bytes()[:4] == b"\x7fELF"
