"""Line info: the PTX of a kernel maps its instructions to the kernel's source lines
(`.file` naming the kernel's file, `.loc` lines of its loads, arithmetic and stores; the
function's own line is its `def`), with no other debug information (`.target` without
`debug`, which ptxas refuses at -O3); ptxas keeps them in the cubin (`-lineinfo`).
`knobs.compilation.disable_line_info` leaves them out, and changes the backend's hash
(so cached kernels of the other setting are not reused)."""

from __future__ import annotations

import inspect
import re

import pytest

import tritonc
import tritonc.language as tl
from tritonc import knobs
from tritonc.backends.base import Target
from tritonc.backends.cuda.compiler import CUDABackend


@tritonc.jit
def shifted_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # LOAD
    y = x * 2.0 + 1.0  # ARITH
    tl.store(y_ptr + offs, y, mask=offs < n)  # STORE


def _line_of(marker: str) -> int:
    lines, first = inspect.getsourcelines(shifted_copy.fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def _compile(arch: int):
    return tritonc.compile(shifted_copy, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"},
                           {"BLOCK": 256}, target=f"cuda:{arch}")


@pytest.mark.parametrize("arch", [80, 90])
def test_ptx_lines_are_the_kernels(arch):
    kernel = _compile(arch)
    ptx = kernel.asm["ptx"]
    files = dict(re.findall(r'^\t\.file\t(\d+) "([^"]+)"', ptx, re.M))
    assert list(files.values()) == [__file__]
    lines = {int(m) for m in re.findall(r"^\t\.loc\t1 (\d+) \d+", ptx, re.M)}
    def_line = inspect.getsourcelines(shifted_copy.fn)[1] + 1  # below the decorator
    assert {_line_of("# LOAD"), _line_of("# ARITH"), _line_of("# STORE"), def_line} <= lines
    assert re.search(r"^\.target sm_\d+a?$", ptx, re.M)  # no `, debug`
    assert not re.search(r"\.section\t\.debug_(info|line|abbrev)", ptx)
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


def test_disable_line_info_leaves_them_out_and_changes_the_hash():
    backend = CUDABackend(Target("cuda", 90))
    with_lines = backend.hash()
    with knobs.compilation.scope():
        knobs.compilation.disable_line_info = True
        ptx = _compile(90).asm["ptx"]
        without = backend.hash()
    assert "\t.loc\t" not in ptx and "\t.file\t" not in ptx
    assert without != with_lines
    assert "\t.loc\t" in _compile(90).asm["ptx"]


def test_the_knob_is_part_of_the_launch_key():
    """Turning line info off between two launches of one kernel compiles it again: the
    knob is among the launch cache's code knobs, and setting it tells the launch paths."""
    from tritonc.runtime.gpu_launch import code_knobs

    heard = []
    knobs.on_code_change(lambda: heard.append(True))
    before = code_knobs()
    with knobs.compilation.scope():
        knobs.compilation.disable_line_info = True
        assert code_knobs() != before
    assert heard and code_knobs() == before
