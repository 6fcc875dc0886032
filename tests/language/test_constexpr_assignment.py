"""Assigning constexprs, as Triton's language tests write it: `tritonc.language.core`
exports `constexpr_type` (where Triton's `triton.language.core` has it); a name annotated
`tl.constexpr` keeps the constexpr and its type; a plain assignment makes a tensor of the
value's type. Compiled for sm_90 and interpreted."""

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl
from tritonc.language.core import constexpr_type


@triton.jit
def assign(Out, V: tl.constexpr, TY: tl.constexpr):
    kept: tl.constexpr = V
    tl.static_assert(kept.type == constexpr_type(V))
    tl.static_assert(V.type == constexpr_type(V))
    tl.static_assert(kept == V)
    plain = V
    tl.static_assert(plain.type == TY)
    tl.store(Out, plain)


def test_core_exports_constexpr_type():
    assert constexpr_type is tl.constexpr_type


@pytest.mark.parametrize("value, ty, np_ty, sig", [(10, tl.int32, np.int32, "*i32"),
                                                   (32.5, tl.float32, np.float32, "*fp32")])
def test_compiled_and_interpreted(value, ty, np_ty, sig, monkeypatch):
    k = tritonc.compile(assign, {"Out": sig}, {"V": value, "TY": ty}, target="cuda:90")
    assert k.asm["cubin"][:4] == b"\x7fELF"
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    out = np.zeros(1, np_ty)
    assign[(1,)](out, value, ty)
    assert out[0] == value


def test_a_tuple_stays_a_constexpr():
    @triton.jit
    def keep_tuple(Out, V: tl.constexpr):
        kept: tl.constexpr = V
        tl.static_assert(kept.type == constexpr_type((5, 6, 7)))
        tl.store(Out, kept[1])

    k = tritonc.compile(keep_tuple, {"Out": "*i32"}, {"V": (5, 6, 7)}, target="cuda:90")
    assert "6 : i32" in k.asm["ttir"]
