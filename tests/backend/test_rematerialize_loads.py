"""rematerialize-loads and read-back-operands on kernels whose small rows meet a dot:
after every TTGIR pass (rows loaded in the slice of the mma or dot-operand layout, their
pointers and masks made again there or, carried by the loop, converted once before it;
conversions of invariants hoisted before the loop), the TTGIR, evaluated op by op with
the interpreter's numpy rules, still gives the corpus kernel's numpy reference; and the
loops hold no conversion of a loaded row. On the GPU the same kernels run through the
corpus (tests/test_corpus_gpu.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus.dot_fusions import (  # noqa: E402
    DEQUANT_NIBBLES_DOT,
    DOT_MINUS_CARRIED_STATS,
    DOT_MINUS_KEY_STATS,
)

KERNELS = [DEQUANT_NIBBLES_DOT, DOT_MINUS_KEY_STATS, DOT_MINUS_CARRIED_STATS]


def _ttgir(k, arch: int) -> str:
    return tritonc.compile(k.fn, k.signature, k.constexprs, target=f"cuda:{arch}",
                           divisible_by_16=k.divisible_by_16, num_warps=4,
                           override={"llir": "", "ptx": "", "cubin": b""}).asm["ttgir"]


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("k", KERNELS, ids=[k.name for k in KERNELS])
def test_rows_load_in_the_layout_they_meet(k, arch):
    text = _ttgir(k, arch)
    loop = text[text.index("scf.for"):text.index("ttg.pipeline_stages")]
    row_loads = [line for line in loop.splitlines()
                 if '"tt.load"' in line and re.search(r"-> tensor<\d+xf(16|32), #ttg\.slice", line)]
    assert row_loads, loop
    converted = {m.group(1) for m in re.finditer(r'"ttg.convert_layout"\((%\w+)\)', loop)}
    loaded = {line.split("=")[0].strip() for line in row_loads}
    assert not converted & loaded


@pytest.mark.parametrize("k", KERNELS, ids=[k.name for k in KERNELS])
def test_the_rewritten_ttgir_computes_the_reference(k):
    case = k.make_case(np.random.default_rng(7))
    arrays = [v for n, v in case.args.items() if k.signature[n].startswith("*")]
    scalars = [v for n, v in case.args.items() if not k.signature[n].startswith("*")]
    want = k.reference({n: (v.copy() if isinstance(v, np.ndarray) else v)
                        for n, v in case.args.items()})
    evaluate(_ttgir(k, 90), arrays, scalars, tuple(case.grid) + (1,) * (3 - len(case.grid)))
    for name in case.outputs:
        np.testing.assert_allclose(case.args[name], want[name], rtol=case.rtol, atol=case.atol)
