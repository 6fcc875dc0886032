"""`tl.range(..., disable_licm=True)` and `while tl.condition(c, disable_licm=True)`: the
loop carries an `#llvm.loop_annotation` that reaches its back edge in the LLVM IR as
`llvm.licm.disable` (compiled for sm_90 on the CPU); loops without it carry none. In the
interpreter both are plain loops (values against Python)."""

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl


@triton.jit
def count_while(Out, n, NO_LICM: tl.constexpr):
    i = 0
    total = 0
    while tl.condition(i < n, disable_licm=NO_LICM):
        i = i + 1
        total += i * tl.load(Out + 1)
    tl.store(Out, total)


@triton.jit
def sum_for(Out, n, NO_LICM: tl.constexpr):
    total = 0
    for i in tl.range(0, n, disable_licm=NO_LICM):
        total += i * tl.load(Out + 1)
    tl.store(Out, total)


@pytest.mark.parametrize("kernel", [count_while, sum_for])
@pytest.mark.parametrize("no_licm", [True, False])
def test_annotation_reaches_llvm(kernel, no_licm):
    k = tritonc.compile(kernel, {"Out": "*i32", "n": "i32"}, {"NO_LICM": no_licm},
                        target="cuda:90")
    assert ("llvm.licm.disable" in k.asm["llir"]) == no_licm
    assert ("loop_annotation" in k.asm["ttir"]) == no_licm
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.parametrize("kernel, first", [(count_while, 1), (sum_for, 0)])
def test_interpreter(kernel, first, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    for n in (0, 1, 13):
        out = np.array([0, 3], np.int32)
        kernel[(1,)](out, n, NO_LICM=True)
        assert out[0] == 3 * sum(range(first, n + first))


@pytest.mark.gpu
def test_gpu():
    import torch
    out = torch.tensor([0, 3], dtype=torch.int32, device="cuda")
    count_while[(1,)](out, 13, NO_LICM=True)
    assert out[0].item() == 3 * sum(range(1, 14))
