"""`tl.join` whose pair the result's layout splits across lanes (two scalars joined into a
`tensor<2>`: lane 0 holds the first, lane 1 the second): each thread selects its half by
its coordinate. Run against numpy in the interpreter and on the GPU by the corpus kernel
`join_scalars`; here, the PTX: each lane stores the value its lane bit selects."""

import re
import sys
from pathlib import Path

import tritonc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus.shapes import JOIN_SCALARS  # noqa: E402


def test_each_lane_stores_the_half_its_lane_bit_selects():
    k = JOIN_SCALARS
    ptx = tritonc.compile(k.fn, k.signature, k.constexprs, target="cuda:90",
                          num_warps=4).asm["ptx"]
    loaded = re.findall(r"ld\.global\.b32 (%r\d+),", ptx)
    assert len(loaded) == 2
    selects = [line for line in ptx.splitlines() if "selp.b32" in line]
    assert any(all(f"{r}," in line or f"{r};" in line for r in loaded) for line in selects), \
        selects
