"""`tritonc inspect`, `list` and `cache`: output, and one-line errors with exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tritonc.aot.occupancy import occupancy
from tritonc.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "vector_add.py")
SIG = "*fp32:16,*fp32:16,*fp32:16,i32"


def run(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


def test_inspect_source_kernel_reports_occupancy():
    result = run("inspect", f"{EXAMPLE}:add_kernel", "-s", SIG, "-c", "BLOCK_SIZE=1024",
                 "--target", "cuda:80")
    assert result.exit_code == 0, result.output
    assert "registers" in result.output and "shared      0 bytes" in result.output
    assert "blocks/SM" in result.output and "A100 limits" in result.output
    assert "warning" not in result.output


def test_inspect_cubin_with_and_without_sidecar(tmp_path):
    assert run("compile", f"{EXAMPLE}:add_kernel", "-s", SIG, "-c", "BLOCK_SIZE=1024",
               "--emit", "cubin", "-o", str(tmp_path)).exit_code == 0
    cubin = tmp_path / "add_kernel.sm_90.cubin"
    with_sidecar = run("inspect", str(cubin))
    assert with_sidecar.exit_code == 0
    assert "metadata from add_kernel.sm_90.json" in with_sidecar.output
    (tmp_path / "add_kernel.sm_90.json").unlink()
    from_elf = run("inspect", str(cubin))
    assert from_elf.exit_code == 0, from_elf.output
    regs = [line for line in with_sidecar.output.splitlines() if line.startswith("registers")]
    assert regs and regs[0] in from_elf.output  # the ELF's count agrees with ptxas's report
    assert "read from the ELF file" in from_elf.output


def test_spills_print_a_warning(tmp_path):
    from tritonc.aot.occupancy import report_lines

    lines = report_lines(90, {"name": "k", "num_warps": 4, "shared": 0,
                              "ptxas": {"registers": 255, "spill_stores": 64}})
    assert any(line.startswith("warning: the kernel spills") for line in lines)


def test_report_counts_a_producer_warpgroup_in_the_block():
    from tritonc.aot.occupancy import report_lines

    lines = report_lines(90, {"name": "k", "num_warps": 8, "threads": 384, "shared": 160_000,
                              "ptxas": {"registers": 168}})
    assert lines[0] == "kernel      k (sm_90, 8 + 4 producer warps, 384 threads/block)"
    # 168 registers x 384 threads: one block by registers, as by shared memory
    assert "1 blocks/SM, 12/64 warps" in lines[-2]


def test_occupancy_table():
    assert occupancy(90, 32, 0, 4).blocks_per_sm == 16  # 2048 threads / 128
    assert occupancy(90, 128, 0, 4).blocks_per_sm == 4  # 65536 / (128 * 128)
    smem = occupancy(80, 32, 100 * 1024, 4)
    assert smem.blocks_per_sm == 1 and smem.limiter == "shared memory"
    assert occupancy(90, 32, 100 * 1024, 4).blocks_per_sm == 2
    assert occupancy(80, 32, 200 * 1024, 4).blocks_per_sm == 0  # over 163 KB per block


def test_list_marks_constexprs():
    result = run("list", EXAMPLE)
    assert result.exit_code == 0
    expected = "add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: constexpr)"
    assert expected in result.output


def test_cache_ls_and_clear(tmp_path):
    from tritonc.runtime.cache import Cache

    env = {"TRITONC_CACHE_DIR": str(tmp_path)}
    cache = Cache(tmp_path)
    cache.put("ab" * 32, {"kernel.cubin": b"x" * 2000, "metadata.json": b'{"name": "k1"}'})
    cache.put("cd" * 32, {"kernel.cubin": b"y"})
    listing = run("cache", "ls", env=env)
    assert listing.exit_code == 0
    assert "abababababababab" in listing.output and "k1" in listing.output
    assert "2 entries" in listing.output
    cleared = run("cache", "clear", env=env)
    assert cleared.exit_code == 0 and "removed 2 entries" in cleared.output
    assert "0 entries" in run("cache", "ls", env=env).output


@pytest.mark.parametrize("args, message", [
    (["inspect", "missing.cubin"], "no such file"),
    (["inspect", f"{EXAMPLE}:add_kernel"], "needs --signature"),
    (["inspect", f"{EXAMPLE}:add_kernel", "-s", SIG], "needs a value for the constexpr"),
    (["inspect", f"{EXAMPLE}:add_kernel", "-s", SIG, "--target", "cuda:9z"], "unknown target"),
    (["inspect", f"{EXAMPLE}:nope", "-s", SIG], "no @jit kernel named 'nope'"),
    (["inspect", EXAMPLE + ".cubin"], "no such file"),
    (["list", "nope.py"], "no such file"),
    (["list"], "Missing argument"),
    (["cache", "drop"], "No such command"),
    (["inspect", "x.cubin", "--bogus"], "No such option"),
])
def test_bad_arguments_one_line_exit_2(args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output
    assert "Traceback" not in result.output


def test_not_a_cubin(tmp_path):
    bad = tmp_path / "bad.cubin"
    bad.write_bytes(b"not an elf")
    result = run("inspect", str(bad))
    assert result.exit_code == 2 and "not a cubin" in result.output


def test_subprocess_errors_are_one_line():
    for args in (["inspect"], ["list", "nope.py"], ["cache", "ls", "extra"]):
        done = subprocess.run([sys.executable, "-m", "tritonc.cli.main", *args],
                              capture_output=True, text=True)
        assert done.returncode == 2, args
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
