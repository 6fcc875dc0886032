"""Register prefetching (`passes/to_llvm/prefetch.py`) of dot tiles whose pointers move by
a loop-carried step: a step the loop computes is evaluated one iteration early, so the
tiles are prefetched; a step it loads from a lookup table (block-sparse kernels) cannot
be, so the tiles load in place. Both compile through ptxas for sm_80 and sm_90, and on
the GPU meet numpy in float64."""

from __future__ import annotations

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

SIG = {"A": "*fp16", "lut": "*i32", "C": "*fp32", "K": "i32"}


@tritonc.jit
def walk_by_table(A, lut, C, K, T: tl.constexpr, LOADED_STEP: tl.constexpr):
    """C = sum over k of a_k @ a_k, a_k the T x T tile at A + sum of the first k steps."""
    offs = tl.arange(0, T)
    pa = A + offs[:, None] * T + offs[None, :]
    step = tl.load(lut)
    acc = tl.zeros((T, T), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(pa)
        acc += tl.dot(a, a)
        pa += step
        if LOADED_STEP:
            step = tl.load(lut + k + 1)
        else:
            step = step + T * T
    tl.store(C + offs[:, None] * T + offs[None, :], acc)


def _reference(a: np.ndarray, lut: np.ndarray, k: int, t: int, loaded: bool) -> np.ndarray:
    acc = np.zeros((t, t))
    at, step = 0, int(lut[0])
    for i in range(k):
        tile = a[at:at + t * t].reshape(t, t).astype(np.float64)
        acc += tile @ tile
        at += step
        step = int(lut[i + 1]) if loaded else step + t * t
    return acc


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("loaded", [True, False])
def test_compiles_through_ptxas(loaded, arch):
    k = tritonc.compile(walk_by_table, SIG, {"T": 16, "LOADED_STEP": loaded},
                        target=f"cuda:{arch}", divisible_by_16={"A", "lut", "C"}, num_stages=3)
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("loaded", [True, False])
def test_on_gpu(loaded):
    import torch

    t, k = 16, 5
    rng = np.random.default_rng(4)
    lut = np.array([t * t * s for s in (1, 3, 2, 1, 4, 2)], np.int32)
    a = (rng.standard_normal(t * t * 64) / 4).astype(np.float16)
    c = torch.full((t, t), float("nan"), device="cuda")
    walk_by_table[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(lut).cuda(), c, k, T=t,
                        LOADED_STEP=loaded)
    np.testing.assert_allclose(c.cpu().double().numpy(), _reference(a, lut, k, t, loaded),
                               rtol=1e-2, atol=1e-2)
