"""A function whose runtime `if` returns in one branch and falls off its end in the other:
that path returns `ub.poison` of the returned types (as Triton does), which reaches LLVM
as `poison`. Checked on TTIR, LLVM IR and PTX for sm_90, and on the GPU for the branch
that returns."""

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl


@triton.jit
def return_poison(x):
    a = False
    if a:
        return x


@triton.jit
def store_poison(Out):
    tl.store(Out, return_poison(0))


@triton.jit
def scaled_when_positive(x, c):
    if c > 0:
        return x * 2, x + 1


@triton.jit
def pair_kernel(X, Out, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    a, b = scaled_when_positive(x, c)
    tl.store(Out + offs, a + b, mask=offs < n)


def test_a_scalar_poison_reaches_llvm():
    k = tritonc.compile(store_poison, {"Out": "*i32"}, {}, target="cuda:90")
    assert "ub.poison" in k.asm["ttir"]
    assert "i32 poison" in k.asm["llir"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_tensor_results_are_poison_on_the_other_path():
    k = tritonc.compile(pair_kernel, {"X": "*fp32", "Out": "*fp32", "c": "i32", "n": "i32"},
                        dict(BLOCK=256), target="cuda:90")
    ttir = k.asm["ttir"]
    assert "ub.poison : tensor<256xf32>" in ttir
    assert "scf.if" in ttir
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_both_branches_must_still_agree_when_code_follows():
    @triton.jit
    def half_return(x, c):
        if c > 0:
            return x
        y = x + 1
        return y, y

    @triton.jit
    def caller(Out, c):
        tl.store(Out, half_return(1, c))

    with pytest.raises(tritonc.CompilationError, match="return"):
        tritonc.compile(caller, {"Out": "*i32", "c": "i32"}, {}, target="cuda:90")


@pytest.mark.gpu
def test_gpu_the_returning_branch():
    import torch
    n = 1000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    xt, out = torch.from_numpy(x).cuda(), torch.zeros(n, device="cuda")
    pair_kernel[(triton.cdiv(n, 256),)](xt, out, 1, n, BLOCK=256)
    np.testing.assert_allclose(out.cpu().numpy(), 3 * x + 1, rtol=1e-6, atol=1e-6)
