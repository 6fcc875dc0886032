"""Counter-based random numbers (Philox 4x32), written in the language so the compiler
and the interpreter draw the same stream for the same (seed, offset)."""

from __future__ import annotations

import tritonc.language as tl
from tritonc.runtime.jit import jit

PHILOX_KEY_A: tl.constexpr = tl.constexpr(0x9E3779B9)
PHILOX_KEY_B: tl.constexpr = tl.constexpr(0xBB67AE85)
PHILOX_ROUND_A: tl.constexpr = tl.constexpr(0xD2511F53)
PHILOX_ROUND_B: tl.constexpr = tl.constexpr(0xCD9E8D57)
N_ROUNDS_DEFAULT: tl.constexpr = tl.constexpr(10)


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds on the uint32 counters c0..c3 with the key (k0, k1)."""
    for _ in tl.static_range(n_rounds):
        prev_c0 = c0
        prev_c2 = c2
        c0 = tl.umulhi(PHILOX_ROUND_B, c2) ^ c1 ^ k0
        c2 = tl.umulhi(PHILOX_ROUND_A, prev_c0) ^ c3 ^ k1
        c1 = PHILOX_ROUND_B * prev_c2
        c3 = PHILOX_ROUND_A * prev_c0
        k0 = k0 + PHILOX_KEY_A
        k1 = k1 + PHILOX_KEY_B
    return c0, c1, c2, c3


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for each `offset` (an int32 tensor) under `seed`."""
    offset = offset.to(tl.uint32)
    zero = offset * 0
    seed = seed.to(tl.uint64)
    seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    seed_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    return philox_impl(offset, zero, zero, zero, seed_lo, seed_hi, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32 for each `offset` under `seed`."""
    ret, _, _, _ = randint4x(seed, offset, n_rounds)
    return ret


@jit
def uint_to_uniform_float(x):
    """Map random 32-bit integers to floats uniform in [0, 1)."""
    x = x.to(tl.int32, bitcast=True)
    x = tl.where(x < 0, -x - 1, x)
    return x.to(tl.float32) * 4.6566127342e-10


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Floats uniform in [0, 1), one for each `offset`."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of floats uniform in [0, 1) for each `offset`."""
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3),
            uint_to_uniform_float(i4))


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox on the uint32 counters c0..c3 keyed by the 64-bit `seed`."""
    seed = tl.cast(seed, tl.uint64)
    seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    seed_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    c0 = c0.to(tl.uint32, bitcast=True)
    c1 = c1.to(tl.uint32, bitcast=True)
    c2 = c2.to(tl.uint32, bitcast=True)
    c3 = c3.to(tl.uint32, bitcast=True)
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@jit
def _pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniforms to two standard normals."""
    u1 = tl.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(theta), r * tl.sin(theta)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Standard normal floats, one for each `offset`."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = _pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of standard normal floats for each `offset`."""
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    n1, n2 = _pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    n3, n4 = _pair_uniform_to_normal(uint_to_uniform_float(i3), uint_to_uniform_float(i4))
    return n1, n2, n3, n4
