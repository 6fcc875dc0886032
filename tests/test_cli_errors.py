"""Bad `tritonc compile` / `tritonc aot` calls: exit status 2 and one line naming the mistake,
before any compilation; never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "vector_add.py")
KERNEL = f"{EXAMPLE}:add_kernel"
SIG = "*fp32:16,*fp32:16,*fp32:16,i32"


def tritonc(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tritonc.cli.main", *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(Path(EXAMPLE).parents[1])})


def assert_one_line(done: subprocess.CompletedProcess, message: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tritonc: error: ") and message in lines[0], lines[0]
    assert done.stdout == ""


@pytest.mark.parametrize("extra, message", [
    (["--target", "cuda:0"], "unsupported target 'cuda:0'"),
    (["--target", "cuda:9999"], "unsupported target 'cuda:9999'"),
    (["--target", "ttir", "--emit", "ptx"], "--emit ptx needs a CUDA target"),
    (["-c", "BLOCK_SIZE=512"], "constexpr 'BLOCK_SIZE' is given twice"),
    (["--num-stages", "-1"], "--num-stages must be an integer >= 1, got -1"),
], ids=["cuda0", "cuda9999", "ttir-ptx", "constexpr-twice", "num-stages"])
def test_compile_bad_arguments(extra: list[str], message: str, tmp_path: Path) -> None:
    done = tritonc("compile", KERNEL, "-s", SIG, "-c", "BLOCK_SIZE=1024", "-o", str(tmp_path),
                   *extra)
    assert_one_line(done, message)
    assert list(tmp_path.iterdir()) == []


def test_constexpr_twice_in_one_list(tmp_path: Path) -> None:
    done = tritonc("compile", KERNEL, "-s", SIG, "-c", "BLOCK_SIZE=1024,BLOCK_SIZE=64",
                   "-o", str(tmp_path))
    assert_one_line(done, "given twice")


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return path


@pytest.mark.parametrize("form", ["a file", "under a file", "a stage is a folder"])
def test_unwritable_output(form: str, tmp_path: Path) -> None:
    if form == "a file":
        out, message = _file(tmp_path), "is a file"
    elif form == "under a file":
        out, message = _file(tmp_path) / "sub", "cannot create output folder"
    else:
        out, message = tmp_path / "out", "cannot write"
        (out / "add_kernel.sm_90.ttir").mkdir(parents=True)
    done = tritonc("compile", KERNEL, "-s", SIG, "-c", "BLOCK_SIZE=1024", "--emit", "ttir",
                   "-o", str(out))
    assert_one_line(done, message)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
def test_read_only_output(tmp_path: Path) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        done = tritonc("compile", KERNEL, "-s", SIG, "-c", "BLOCK_SIZE=1024", "--emit", "ttir",
                       "-o", str(out))
    finally:
        out.chmod(0o700)
    assert_one_line(done, "not writable")


@pytest.mark.parametrize("extra, message", [
    (["--target", "cuda:9999"], "unsupported target 'cuda:9999'"),
    (["--num-stages", "-1"], "--num-stages must be an integer >= 1"),
])
def test_aot_bad_arguments(extra: list[str], message: str, tmp_path: Path) -> None:
    done = tritonc("aot", KERNEL, "-s", SIG, "-c", "BLOCK_SIZE=1024", "--grid",
                   "cdiv(n_elements, BLOCK_SIZE)", "-o", str(tmp_path), *extra)
    assert_one_line(done, message)


def test_aot_output_under_a_file(tmp_path: Path) -> None:
    done = tritonc("aot", KERNEL, "-s", SIG, "-c", "BLOCK_SIZE=1024", "--grid",
                   "cdiv(n_elements, BLOCK_SIZE)", "-o", str(_file(tmp_path) / "sub"))
    assert_one_line(done, "cannot create output folder")


def test_compile_api_rejects_bad_options() -> None:
    from tritonc.compiler.compiler import compile as compile_kernel

    sys.path.insert(0, str(Path(EXAMPLE).parent))
    from vector_add import add_kernel

    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}
    for kwargs, message in (({"target": "cuda:9999"}, "unsupported target"),
                            ({"num_stages": -1}, "num_stages must be an integer >= 1"),
                            ({"num_warps": 3}, "num_warps must be")):
        with pytest.raises(ValueError, match=message):
            compile_kernel(add_kernel, sig, {"BLOCK_SIZE": 1024}, **kwargs)
