"""fp8 kernels shared by the fp8 tests, and an independent numpy reference of the fp8
formats.

Every kernel takes its fp8 buffers as uint8 and views them through a pointer to the fp8
type under test (`DT`), so the same kernel runs for fp8e4nv, fp8e5 and fp8e4b15 (which
torch has no dtype for).

The reference rounds the way Triton does on sm_90 (`cvt.rn.satfinite.{e4m3,e5m2}x2.f32`):
to the nearest value, ties to the even code; magnitudes beyond the largest finite value,
infinities included, give the largest finite value of the same sign; NaN stays NaN. It
is built from the formats' definitions (a table of every code), not from tritonc.
"""

from __future__ import annotations

import numpy as np
import torch

import tritonc as triton
import tritonc.language as tl

# name -> (dtype, exponent bits, mantissa bits, bias, has infinities)
FORMATS = {
    "fp8e4nv": (tl.float8e4nv, 4, 3, 7, False),
    "fp8e5": (tl.float8e5, 5, 2, 15, True),
    "fp8e4b15": (tl.float8e4b15, 4, 3, 15, False),
}
WIDE = {"fp32": (tl.float32, torch.float32), "fp16": (tl.float16, torch.float16),
        "bf16": (tl.bfloat16, torch.bfloat16)}
BLOCK = 128


# -- reference ----------------------------------------------------------------------------
def code_values(name: str) -> np.ndarray:
    """float64 value of each of the 256 codes (NaN for NaN codes)."""
    _, ebits, mbits, bias, has_inf = FORMATS[name]
    out = np.empty(256)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        exp, man = (code >> mbits) & ((1 << ebits) - 1), code & ((1 << mbits) - 1)
        if has_inf and exp == (1 << ebits) - 1:
            out[code] = sign * np.inf if man == 0 else np.nan
        elif not has_inf and code & 0x7F == 0x7F:
            out[code] = np.nan
        elif exp == 0:
            out[code] = sign * man * 2.0 ** (1 - bias - mbits)
        else:
            out[code] = sign * (1 + man / 2**mbits) * 2.0 ** (exp - bias)
    return out


def round_to_codes(x: np.ndarray, name: str) -> np.ndarray:
    """uint8 codes of float values `x`, rounded as `cvt.rn.satfinite` does."""
    values = code_values(name)
    positive = np.arange(128)
    finite = positive[np.isfinite(values[positive])]  # codes ascend with their values
    table = values[finite]
    x = np.asarray(x, np.float64)
    a = np.abs(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=np.inf))
    hi = np.clip(np.searchsorted(table, a), 1, len(table) - 1)
    lo = hi - 1
    d_lo, d_hi = a - table[lo], table[hi] - a
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (finite[hi] % 2 == 0))
    codes = np.where(pick_hi, finite[hi], finite[lo])
    codes = np.where(a >= table[-1], finite[-1], codes)  # saturate (infinities too)
    codes = codes | np.where(np.signbit(x), 0x80, 0)
    nan_code = 0x7F
    return np.where(np.isnan(x), nan_code, codes).astype(np.uint8)


def decode(codes: np.ndarray, name: str) -> np.ndarray:
    """float64 values of uint8 codes."""
    return code_values(name)[np.asarray(codes, np.int64)]


def same_codes(got: np.ndarray, want: np.ndarray, name: str) -> None:
    """Assert fp8 codes equal, any NaN code matching any other."""
    got, want = np.asarray(got, np.uint8), np.asarray(want, np.uint8)
    nan_got, nan_want = np.isnan(decode(got, name)), np.isnan(decode(want, name))
    np.testing.assert_array_equal(nan_got, nan_want)
    np.testing.assert_array_equal(got[~nan_want], want[~nan_want])


def same_floats(got: torch.Tensor, want: np.ndarray) -> None:
    """Assert float values equal bit for bit (any NaN matching any NaN)."""
    g = got.float().numpy().astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(g[ok], want[ok])
    np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(want[ok]))


def interesting_inputs(name: str, wide: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """Values of `wide` (as float64) that exercise every rounding case of `name`: exact
    codes, ties between neighbours, values just off the ties, overflow, subnormals,
    signed zeros, infinities and NaN, plus random values over the whole range."""
    values = code_values(name)
    finite = np.sort(values[np.isfinite(values) & (values >= 0)])
    ties = (finite[1:] + finite[:-1]) / 2
    wide_max = {"fp32": 3e38, "fp16": 65504.0, "bf16": 3e38}[wide]
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, finite[-1] * 1.06,
                        finite[-1] * 1.2, min(finite[-1] * 300, wide_max), finite[1] / 3])
    pieces = [finite, ties, ties * (1 + 2**-9), ties * (1 - 2**-9), special,
              rng.uniform(-finite[-1], finite[-1], n)]
    x = np.concatenate([p * s for p in pieces for s in (1, -1)])
    torch_dtype = WIDE[wide][1]
    return torch.from_numpy(x).to(torch_dtype).double().numpy()  # representable in `wide`


# -- kernels ------------------------------------------------------------------------------
@triton.jit
def load_convert(x_ptr, out32_ptr, out16_ptr, outbf_ptr, n, DT: tl.constexpr,
                 BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr.to(tl.pointer_type(DT)) + offs, mask=mask)
    tl.store(out32_ptr + offs, x.to(tl.float32), mask=mask)
    tl.store(out16_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(outbf_ptr + offs, x.to(tl.bfloat16), mask=mask)


@triton.jit
def convert_store(x_ptr, out_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr.to(tl.pointer_type(DT)) + offs, x.to(DT), mask=mask)


@triton.jit
def constants(out_ptr, out32_ptr, n, VALUE: tl.constexpr, DT: tl.constexpr,
              BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    block = tl.where(offs % 3 == 0, tl.zeros((BLOCK,), DT), tl.full((BLOCK,), VALUE, DT))
    tl.store(out_ptr.to(tl.pointer_type(DT)) + offs, block, mask=mask)
    tl.store(out32_ptr + offs, tl.full((BLOCK,), VALUE, DT).to(tl.float32), mask=mask)


@triton.jit
def arithmetic(x_ptr, y_ptr, out32_ptr, out8_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr.to(tl.pointer_type(DT)) + offs, mask=mask)
    y = tl.load(y_ptr.to(tl.pointer_type(DT)) + offs, mask=mask)
    a, b = x.to(tl.float32), y.to(tl.float32)
    tl.store(out32_ptr + offs, a * b - a + b * 0.5, mask=mask)
    tl.store(out8_ptr.to(tl.pointer_type(DT)) + offs, (a * b).to(DT), mask=mask)


@triton.jit
def dot(a_ptr, b_ptr, c_ptr, M, N, K, DT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
        BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr.to(tl.pointer_type(DT)) + rm[:, None] * K + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr.to(tl.pointer_type(DT)) + rk[:, None] * N + rn[None, :],
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


DOT_SHAPE = (37, 45, 70)
DOT_BLOCK = {"BM": 32, "BN": 32, "BK": 32}


def finite_codes(name: str, rng: np.random.Generator, size, limit: float) -> np.ndarray:
    """Random codes of finite values of magnitude at most `limit`."""
    values = code_values(name)
    allowed = np.flatnonzero(np.isfinite(values) & (np.abs(values) <= limit))
    return rng.choice(allowed, size).astype(np.uint8)


# -- signatures for compiling without launching --------------------------------------------
def compile_cases() -> list[tuple]:
    """(kernel, signature, constexprs) of every kernel, for each fp8 format."""
    cases = []
    for dt, *_rest in FORMATS.values():
        cases += [
            (load_convert, {"x_ptr": "*u8", "out32_ptr": "*fp32", "out16_ptr": "*fp16",
                            "outbf_ptr": "*bf16", "n": "i32"}, {"DT": dt, "BLOCK": BLOCK}),
            (constants, {"out_ptr": "*u8", "out32_ptr": "*fp32", "n": "i32"},
             {"VALUE": -1.25, "DT": dt, "BLOCK": BLOCK}),
            (arithmetic, {"x_ptr": "*u8", "y_ptr": "*u8", "out32_ptr": "*fp32",
                          "out8_ptr": "*u8", "n": "i32"}, {"DT": dt, "BLOCK": BLOCK}),
            (dot, {"a_ptr": "*u8", "b_ptr": "*u8", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                   "K": "i32"}, {"DT": dt, **DOT_BLOCK}),
        ]
        cases += [(convert_store, {"x_ptr": f"*{wide}", "out_ptr": "*u8", "n": "i32"},
                   {"DT": dt, "BLOCK": BLOCK}) for wide in WIDE]
    return cases


FORMATS_BY_DTYPE = {dt: name for name, (dt, *_rest) in FORMATS.items()}
