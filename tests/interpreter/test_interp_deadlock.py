"""A `while` loop that can never end in the interpreter raises InterpreterDeadlock instead
of hanging: a program spinning on another program's progress (a grid barrier, as
Inductor's cooperative reductions make) never sees it, since the interpreter runs the
programs one after another. Loops that change their values or memory run to the end."""

from __future__ import annotations

import pytest
import torch

import tritonc
import tritonc.language as tl
from tritonc.backends.interpreter.errors import InterpreterDeadlock


@tritonc.jit(interpret=True)
def grid_barrier(sem, out):
    arrived = tl.atomic_add(sem, 1)
    done = False
    while not done:
        done = tl.atomic_add(sem, 0) == tl.num_programs(0)
    tl.store(out + tl.program_id(0), arrived)


@tritonc.jit(interpret=True)
def counting_loops(counter, out, n):
    i = 0
    while i < n:  # its values change
        i += 1
    while tl.atomic_add(counter, 1) < 2 * n:  # only memory changes
        pass
    total = 0
    while total < 3 * n:  # a value that changes until the end
        total += n
    tl.store(out, i * 1000 + total)


def test_a_spin_on_another_program_raises_with_the_line():
    sem = torch.zeros(1, dtype=torch.int32)
    out = torch.full((2,), -1, dtype=torch.int32)
    with pytest.raises(InterpreterDeadlock, match=r"test_interp_deadlock.py:\d+ in kernel "
                                                 r"'grid_barrier'.*grid barrier"):
        grid_barrier[(2,)](sem, out)


def test_a_grid_of_one_passes_its_barrier():
    sem = torch.zeros(1, dtype=torch.int32)
    out = torch.full((1,), -1, dtype=torch.int32)
    grid_barrier[(1,)](sem, out)
    assert out.tolist() == [0]


@pytest.mark.parametrize("n", [1, 7])
def test_loops_that_change_something_run_to_the_end(n):
    counter = torch.zeros(1, dtype=torch.int32)
    out = torch.full((1,), -1, dtype=torch.int32)
    counting_loops[(1,)](counter, out, n)
    assert out.tolist() == [n * 1000 + 3 * n]
    assert counter.tolist() == [2 * n + 1]
