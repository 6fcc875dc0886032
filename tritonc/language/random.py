"""Counter-based random numbers (Philox 4x32), written in the language so the compiler
and the interpreter draw the same stream for the same (seed, offset)."""

from __future__ import annotations

import tritonc.language as tl
from tritonc.language.standard import constexpr_function
from tritonc.runtime.jit import jit

# Philox 4x32 and 4x64 constants (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3")
PHILOX_KEY_A: tl.constexpr = tl.constexpr(0x9E3779B9)
PHILOX_KEY_B: tl.constexpr = tl.constexpr(0xBB67AE85)
PHILOX_ROUND_A: tl.constexpr = tl.constexpr(0xD2511F53)
PHILOX_ROUND_B: tl.constexpr = tl.constexpr(0xCD9E8D57)
PHILOX64_KEY_A: tl.constexpr = tl.constexpr(0x9E3779B97F4A7C15)
PHILOX64_KEY_B: tl.constexpr = tl.constexpr(0xBB67AE8584CAA73B)
PHILOX64_ROUND_A: tl.constexpr = tl.constexpr(0xD2E7470EE14C6C93)
PHILOX64_ROUND_B: tl.constexpr = tl.constexpr(0xCA5A826395121157)
N_ROUNDS_DEFAULT: tl.constexpr = tl.constexpr(10)


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds on the counters c0..c3 (all uint32, or all uint64) with the
    key (k0, k1)."""
    if c0.dtype == tl.uint32:
        key_a: tl.constexpr = PHILOX_KEY_A
        key_b: tl.constexpr = PHILOX_KEY_B
        round_a: tl.constexpr = PHILOX_ROUND_A
        round_b: tl.constexpr = PHILOX_ROUND_B
    else:
        tl.static_assert(c0.dtype == tl.uint64, "philox counters must be uint32 or uint64")
        key_a: tl.constexpr = PHILOX64_KEY_A
        key_b: tl.constexpr = PHILOX64_KEY_B
        round_a: tl.constexpr = PHILOX64_ROUND_A
        round_b: tl.constexpr = PHILOX64_ROUND_B
    for _ in tl.static_range(n_rounds):
        prev_c0 = c0
        prev_c2 = c2
        c0 = tl.umulhi(round_b, c2) ^ c1 ^ k0
        c2 = tl.umulhi(round_a, prev_c0) ^ c3 ^ k1
        c1 = round_b * prev_c2
        c3 = round_a * prev_c0
        k0 = k0 + key_a
        k1 = k1 + key_b
    return c0, c1, c2, c3


@constexpr_function
def _is_int(dtype) -> bool:
    return dtype.is_int()


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox on 32- or 64-bit counters (the width of c0) keyed by the integer `seed`."""
    seed = tl.to_tensor(seed)
    tl.static_assert(_is_int(seed.dtype), "the seed must be an integer")
    seed = seed.to(tl.uint64)
    if c0.dtype.primitive_bitwidth == 32:
        int_dtype: tl.constexpr = tl.uint32
        seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        seed_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(c0.dtype.primitive_bitwidth == 64, "counters must be 32 or 64 bits")
        int_dtype: tl.constexpr = tl.uint64
        seed_hi = tl.full((), 0, tl.uint64)
        seed_lo = seed
    c0 = c0.to(int_dtype, bitcast=True)
    c1 = c1.to(int_dtype, bitcast=True)
    c2 = c2.to(int_dtype, bitcast=True)
    c3 = c3.to(int_dtype, bitcast=True)
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for each integer `offset` under `seed`; a 64-bit
    offset fills the first two counter words (low, high)."""
    lo = offset.to(tl.uint32)
    zero = lo * 0
    if offset.dtype.primitive_bitwidth > 32:
        hi = (offset >> 32).to(tl.uint32)
    else:
        hi = zero
    return philox(seed, lo, hi, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32 for each `offset` under `seed`."""
    ret, _, _, _ = randint4x(seed, offset, n_rounds)
    return ret


@jit
def uint_to_uniform_float(x):
    """Map random 32- or 64-bit integers to fp32 floats uniform in [0, 1)."""
    if x.dtype == tl.uint32 or x.dtype == tl.int32:
        x = x.to(tl.int32, bitcast=True)
        scale: tl.constexpr = 4.6566127342e-10
    else:
        tl.static_assert(x.dtype == tl.uint64 or x.dtype == tl.int64,
                         "uint_to_uniform_float needs 32- or 64-bit integers")
        x = x.to(tl.int64, bitcast=True)
        scale: tl.constexpr = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x.to(tl.float32) * scale


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
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniforms to two standard normals."""
    u1 = tl.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(theta), r * tl.sin(theta)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Standard normal floats, one for each `offset`."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of standard normal floats for each `offset`."""
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    n3, n4 = pair_uniform_to_normal(uint_to_uniform_float(i3), uint_to_uniform_float(i4))
    return n1, n2, n3, n4
