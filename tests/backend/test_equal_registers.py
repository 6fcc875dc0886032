"""Registers the axis analysis proves equal are computed once (`elementwise.py`).

A row mask `xindex < xnumel` over [XBLOCK, RBLOCK] tiles, with `xnumel` a multiple of 16
and XBLOCK rows per program, is the same for every row of a thread: it is compared once,
and each load's predicate combines that one compare with its column's. Without the
divisibility specialization each row is compared. The values are checked beside it
(`test_axis_soundness.py`); here the PTX is.
"""

from __future__ import annotations

import re

import pytest

import tritonc
import tritonc.language as tl


@tritonc.jit
def masked_row_sums(X, Y, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    rindex = tl.arange(0, RBLOCK)[None, :]
    x = tl.load(X + rindex + rnumel * xindex, (xindex < xnumel) & (rindex < rnumel), other=0.0)
    tl.store(Y + xindex, tl.sum(x, 1)[:, None], xindex < xnumel)


def _row_compares(divisible: bool, arch: int) -> int:
    """How many compares against `xnumel` the PTX makes."""
    kernel = tritonc.compile(
        masked_row_sums, {"X": "*fp32", "Y": "*fp32", "xnumel": "i32", "rnumel": "i32"},
        {"XBLOCK": 8, "RBLOCK": 256}, target=f"cuda:{arch}", num_warps=8,
        divisible_by_16={"X", "Y"} | ({"xnumel"} if divisible else set()))
    ptx = kernel.asm["ptx"]
    register = re.search(r"ld\.param\.b32\s+(%r\d+), \[masked_row_sums_param_2\]", ptx).group(1)
    return len(re.findall(rf"setp\.\w+\.s32\s+%p\d+, %r\d+, {register};", ptx))


@pytest.mark.parametrize("arch", [80, 90])
def test_a_row_mask_is_compared_once_per_thread(arch):
    # one for the tile's mask, one for the store's (the row sums' own layout)
    assert _row_compares(True, arch) == 2
    assert _row_compares(False, arch) == 9  # the 8 rows of each thread in the tile
