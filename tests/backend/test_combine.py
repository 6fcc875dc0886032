"""combine: `acc += tl.dot(a, b)` accumulates in the dot.

The TTIR of a loop written that way holds one dot accumulating into the loop-carried
value and no separate sum; evaluated op by op (`ttgir_eval.py`) on fresh random tiles it
computes the products numpy does (fp16 into fp32, int8 into int32, ragged K masked); and
on sm_90 and sm_80 the 128 x 128 x 64 loop on 4 warps assembles without spilling (one
accumulator live, not two).
"""

from __future__ import annotations

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc
import tritonc.language as tl


@tritonc.jit
def summed_products(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr, INT: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32 if INT else tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K,
                    other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :], mask=(k + rk)[:, None] < K,
                    other=0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def _compiled(int8: bool, tile=(16, 16, 32), target="cuda:90", warps=4):
    t = "*i8" if int8 else "*fp16"
    sig = {"a_ptr": t, "b_ptr": t, "c_ptr": "*i32" if int8 else "*fp32", "K": "i32"}
    bm, bn, bk = tile
    return tritonc.compile(summed_products, sig, {"BM": bm, "BN": bn, "BK": bk, "INT": int8},
                           target=target, num_warps=warps, divisible_by_16=set(sig))


@pytest.mark.parametrize("int8", [False, True])
def test_the_sum_is_the_dot_accumulating(int8):
    ttir = _compiled(int8).asm["ttir"]
    assert ttir.count('"tt.dot"') == 1
    assert "arith.addf" not in ttir and "arith.addi %arg" not in ttir
    rng = np.random.default_rng(int8)
    k = 77
    if int8:
        a = rng.integers(-128, 128, (16, k), dtype=np.int8)
        b = rng.integers(-128, 128, (k, 16), dtype=np.int8)
        c = np.full((16, 16), -7, np.int32)
    else:
        a = rng.standard_normal((16, k)).astype(np.float16)
        b = rng.standard_normal((k, 16)).astype(np.float16)
        c = np.full((16, 16), np.nan, np.float32)
    evaluate(ttir, [a, b, c], [k], (1, 1, 1))
    want = a.astype(np.float64) @ b.astype(np.float64)
    if int8:
        np.testing.assert_array_equal(c, want.astype(np.int64))
    else:
        np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("arch", [80, 90])
def test_one_accumulator_fits_without_spilling(arch):
    k = _compiled(False, (128, 128, 64), f"cuda:{arch}")
    assert k.metadata["ptxas"]["spill_stores"] == 0, k.metadata["ptxas"]
