"""tl.randint/rand with Python-integer seeds and 64-bit offsets, Philox on 64-bit
counters, and uint_to_uniform_float's limits, against a plain-Python Philox."""

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
CONSTANTS = {32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
             64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157)}


def philox(bits, counters, key, rounds=10):
    """Philox-4xW (W = bits) with Python integers."""
    mask = (1 << bits) - 1
    key_a, key_b, round_a, round_b = CONSTANTS[bits]
    c0, c1, c2, c3 = counters
    k0, k1 = key
    for _ in range(rounds):
        p0, p2 = round_a * c0, round_b * c2
        c0, c1, c2, c3 = (p2 >> bits) ^ c1 ^ k0, p2 & mask, (p0 >> bits) ^ c3 ^ k1, p0 & mask
        k0, k1 = (k0 + key_a) & mask, (k1 + key_b) & mask
    return c0, c1, c2, c3


def reference_randint(seed, offset):
    seed &= M64
    return philox(32, (offset & M32, (offset >> 32) & M32, 0, 0), (seed & M32, seed >> 32))[0]


@triton.jit(interpret=True)
def randint_kernel(out_ptr, base, n, SEED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    offset = base + offs
    tl.store(out_ptr + offs, tl.randint(SEED, offset), mask=offs < n)


@pytest.mark.parametrize("seed", [0, 7, 0xFFFFFFFF, 0x0000000FCAFEB0BA, 2**63 + 5])
@pytest.mark.parametrize("base", [3, 2**33 + 11])
def test_randint_with_an_integer_seed(seed, base):
    n = 37
    out = torch.full((64,), -1, dtype=torch.int64)
    randint_kernel[(1,)](out, base, n, seed, 64)
    got = [v & M32 for v in out[:n].tolist()]
    assert got == [reference_randint(seed, base + i) for i in range(n)]


@triton.jit(interpret=True)
def philox64_kernel(out_ptr, c_ptr, SEED: tl.constexpr):
    c = tl.load(c_ptr + tl.arange(0, 8)).to(tl.uint64, bitcast=True)
    a, b, d, e = tl.random.philox(SEED, c, c * 0, c * 0, c * 0)
    tl.store(out_ptr + tl.arange(0, 8), a.to(tl.int64, bitcast=True))
    tl.store(out_ptr + 8 + tl.arange(0, 8), e.to(tl.int64, bitcast=True))


def test_philox_on_64_bit_counters():
    counters = np.random.default_rng(8).integers(0, 2**62, 8, dtype=np.int64)
    out = np.zeros(16, np.int64)
    seed = 123456789
    philox64_kernel[(1,)](out, counters, seed)
    for i, c in enumerate(counters.tolist()):
        want = philox(64, (c, 0, 0, 0), (seed, 0))
        assert int(out[i]) & M64 == want[0] and int(out[8 + i]) & M64 == want[3]


@triton.jit(interpret=True)
def uniform_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 2))
    tl.store(out_ptr + tl.arange(0, 2), tl.random.uint_to_uniform_float(x))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_uniform_floats_stay_below_one(dtype):
    info = torch.iinfo(dtype)
    x = torch.tensor([info.min, info.max], dtype=dtype)
    out = torch.full((2,), -1.0)
    uniform_kernel[(1,)](x, out)
    assert out[0] == out[1]
    assert 1.0 - torch.finfo(torch.float32).eps <= out[0].item() < 1.0


@triton.jit(interpret=True)
def rand_kernel(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs))


def test_rand_with_a_runtime_seed_matches_the_reference():
    out = torch.full((16,), -1.0)
    rand_kernel[(1,)](out, 42, 16)
    for i, v in enumerate(out.tolist()):
        r = reference_randint(42, i)
        r = r - (1 << 32) if r >= 1 << 31 else r
        r = -r - 1 if r < 0 else r
        assert v == pytest.approx(np.float32(r) * np.float32(4.6566127342e-10), rel=1e-6)
