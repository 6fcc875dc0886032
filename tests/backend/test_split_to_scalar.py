"""`tl.split` of a `tensor<2>` into two scalars: every thread reads both elements back
from a scratch copy. Checked in the interpreter against numpy for several element types,
compiled to PTX (and through ptxas) for sm_90, and on the GPU."""

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl


@triton.jit
def split_pair(X, Z1, Z2, Out, BLOCK: tl.constexpr):
    pair = tl.load(X + tl.program_id(0) * 2 + tl.arange(0, 2))
    a, b = tl.split(pair)
    tl.static_assert(a.shape == [] and b.shape == [])
    tl.store(Z1 + tl.program_id(0), a)
    tl.store(Z2 + tl.program_id(0), b)
    # the scalars in every thread: a block that uses both
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Out + offs, tl.where(tl.arange(0, BLOCK) % 2 == 0, a, b))


TYPES = {"int64": "i64", "float16": "fp16", "int32": "i32"}


def _inputs(dtype: str, programs: int) -> np.ndarray:
    rng = np.random.default_rng(len(dtype))
    if dtype.startswith("float"):
        return rng.standard_normal(2 * programs).astype(dtype)
    return rng.integers(-2**30, 2**30, 2 * programs).astype(dtype)


@pytest.mark.parametrize("dtype", list(TYPES))
def test_interpreter(dtype, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    programs, block = 3, 64
    x = _inputs(dtype, programs)
    z1, z2 = np.zeros(programs, dtype), np.zeros(programs, dtype)
    out = np.zeros(programs * block, dtype)
    split_pair[(programs,)](x, z1, z2, out, BLOCK=block)
    np.testing.assert_array_equal(z1, x[0::2])
    np.testing.assert_array_equal(z2, x[1::2])
    want = np.where(np.arange(block) % 2 == 0, x[0::2, None], x[1::2, None]).ravel()
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", list(TYPES))
def test_compiles_for_sm90(dtype):
    t = TYPES[dtype]
    sig = {"X": f"*{t}", "Z1": f"*{t}", "Z2": f"*{t}", "Out": f"*{t}"}
    k = tritonc.compile(split_pair, sig, dict(BLOCK=256), target="cuda:90", num_warps=4)
    assert '"tt.split"' in k.asm["ttir"]
    assert "ld.shared" in k.asm["ptx"] and "bar.sync" in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", list(TYPES))
def test_gpu(dtype):
    import torch
    programs, block = 5, 256
    x = _inputs(dtype, programs)
    xt = torch.from_numpy(x).cuda()
    z1, z2 = torch.zeros(programs, dtype=xt.dtype, device="cuda"), torch.zeros(
        programs, dtype=xt.dtype, device="cuda")
    out = torch.zeros(programs * block, dtype=xt.dtype, device="cuda")
    split_pair[(programs,)](xt, z1, z2, out, BLOCK=block)
    np.testing.assert_array_equal(z1.cpu().numpy(), x[0::2])
    np.testing.assert_array_equal(z2.cpu().numpy(), x[1::2])
    want = np.where(np.arange(block) % 2 == 0, x[0::2, None], x[1::2, None]).ravel()
    np.testing.assert_array_equal(out.cpu().numpy(), want)
