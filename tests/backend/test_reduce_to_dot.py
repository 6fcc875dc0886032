"""reduce-to-dot on a matmul written as a broadcast product and a sum (the corpus's
broadcast_product_sum, M, N and K ragged): the loop holds a dot and no reduction or 3-D
product on sm_90 and sm_80, and its final TTGIR, evaluated op by op with the
interpreter's numpy rules, gives a @ b computed in float64. On the GPU the same kernel
runs through the corpus (tests/test_corpus_gpu.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus.dot_fusions import BROADCAST_PRODUCT_SUM as K  # noqa: E402


def _ttgir(arch: int) -> str:
    return tritonc.compile(K.fn, K.signature, K.constexprs, target=f"cuda:{arch}",
                           num_warps=4, override={"llir": "", "ptx": "", "cubin": b""}
                           ).asm["ttgir"]


@pytest.mark.parametrize("arch", [90, 80])
def test_the_loop_holds_a_dot_and_no_product_tensor(arch):
    text = _ttgir(arch)
    loop = text[text.index("scf.for"):text.index("scf.yield")]
    assert '"tt.dot"' in loop
    assert '"tt.reduce"' not in loop
    assert not re.search(r"tensor<\d+x\d+x\d+x", loop)  # no M x K x N product


@pytest.mark.parametrize("seed", [3, 11])
def test_the_rewritten_ttgir_computes_the_product(seed):
    case = K.make_case(np.random.default_rng(seed))
    arrays = [v for n, v in case.args.items() if K.signature[n].startswith("*")]
    scalars = [v for n, v in case.args.items() if not K.signature[n].startswith("*")]
    want = K.reference({n: (v.copy() if isinstance(v, np.ndarray) else v)
                        for n, v in case.args.items()})
    evaluate(_ttgir(90), arrays, scalars, tuple(case.grid) + (1,))
    np.testing.assert_allclose(case.args["c_ptr"], want["c_ptr"], rtol=1e-4, atol=1e-4)
