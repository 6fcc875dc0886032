"""The barrier before a write of shared memory (`LoweringContext.guard_barrier`): it keeps
threads from overwriting what others still read from an earlier use, so the kernel's first
use outside any loop needs none; inside a loop, or after another use, it stays. FileCheck
of the PTX of row reductions across warps, one after another and inside a loop."""

import re

import pytest
from test_cuda_filecheck import filecheck

import tritonc
import tritonc.language as tl

SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}


@tritonc.jit
def one_sum(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + tl.program_id(0), tl.sum(x, axis=0))


@tritonc.jit
def sum_and_max(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + 2 * tl.program_id(0), tl.sum(x, axis=0))
    tl.store(y_ptr + 2 * tl.program_id(0) + 1, tl.max(x, axis=0))


@tritonc.jit
def sums_in_a_loop(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, 4):
        x = tl.load(x_ptr + (tl.program_id(0) * 4 + i) * n + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + tl.program_id(0) * 4 + i, tl.sum(x, axis=0))


def ptx(kernel, arch: int) -> str:
    k = tritonc.compile(kernel, SIG, {"BLOCK": 2048}, target=f"cuda:{arch}",
                        divisible_by_16={"x_ptr", "y_ptr"}, num_warps=8)
    return k.asm["ptx"]


@pytest.mark.parametrize("arch", [80, 90])
def test_the_first_use_of_shared_memory_needs_no_barrier_before_it(arch, tmp_path):
    text = ptx(one_sum, arch)
    filecheck(text, """
CHECK: shfl.sync.bfly
CHECK-NOT: bar.sync
CHECK: st.shared
CHECK: bar.sync
CHECK: ld.shared
""", tmp_path)
    assert len(re.findall(r"\bbar\.sync", text)) == 1


@pytest.mark.parametrize("arch", [80, 90])
def test_a_second_use_waits_for_the_readers_of_the_first(arch, tmp_path):
    filecheck(ptx(sum_and_max, arch), """
CHECK-NOT: bar.sync
CHECK: st.shared
CHECK: bar.sync
CHECK: ld.shared
CHECK: bar.sync
CHECK: st.shared
CHECK: bar.sync
CHECK: ld.shared
""", tmp_path)


@pytest.mark.parametrize("arch", [80, 90])
def test_a_use_inside_a_loop_waits_for_the_last_iteration(arch, tmp_path):
    """Two barriers in the loop: before the partial sums are written and before they are
    read (the blocks of the loop are laid out rotated, so the order in the text varies)."""
    text = ptx(sums_in_a_loop, arch)
    filecheck(text, """
CHECK: ld.global
CHECK: bar.sync
CHECK: st.shared
""", tmp_path)
    assert len(re.findall(r"\bbar\.sync", text)) == 2
