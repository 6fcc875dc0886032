"""Bit-exact conversions for the floating-point formats numpy lacks: bf16 and the fp8s.

bf16 values are stored as np.uint16 holding the raw bits, fp8 values as np.uint8.
Encoding goes from float64 (which holds every input exactly), so each conversion
rounds once: to nearest, ties to even ("rtne"), or toward zero ("rtz").

Out-of-range values follow the NVIDIA conversions Triton emits (`cvt.rn.satfinite`):

- bf16, fp16: IEEE. Overflow rounds to infinity (rtne) or to the largest finite
  value (rtz).
- fp8e5 (e5m2, bias 15): has infinities; values beyond the largest finite one (57344),
  infinities included, saturate to it when rounding to nearest (`satfinite`); toward
  zero (Triton truncates through fp16) infinities stay infinite. NaN stays NaN.
- fp8e4nv (e4m3fn, bias 7) and fp8e4b15 (e4m3, bias 15): no infinities; 0x7f/0xff are
  NaN. Overflow and infinities saturate to the largest finite value (448 and 1.75).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: widths, bias and how it treats the extremes."""

    name: str
    ebits: int
    mbits: int
    bias: int
    has_inf: bool
    saturate: bool  # finite overflow gives the largest finite value, not infinity
    storage: type

    @property
    def nbits(self) -> int:
        return 1 + self.ebits + self.mbits

    @property
    def exp_all_ones(self) -> int:
        return (1 << self.ebits) - 1

    @property
    def nan_bits(self) -> int:
        return (self.exp_all_ones << self.mbits) | ((1 << self.mbits) - 1)

    @property
    def inf_bits(self) -> int:
        return self.exp_all_ones << self.mbits

    @property
    def max_bits(self) -> int:
        """Bits of the largest finite value."""
        if self.has_inf:
            return self.inf_bits - 1
        return self.nan_bits - 1

    @cached_property
    def max_value(self) -> float:
        return float(decode_bits(np.array([self.max_bits]), self)[0])

    @cached_property
    def table(self) -> np.ndarray:
        """float32 value of every bit pattern (formats of at most 16 bits)."""
        return decode_bits(np.arange(1 << self.nbits), self).astype(np.float32)


FORMATS = {
    "bf16": FloatFormat("bf16", 8, 7, 127, True, False, np.uint16),
    "fp16": FloatFormat("fp16", 5, 10, 15, True, False, np.uint16),
    "fp32": FloatFormat("fp32", 8, 23, 127, True, False, np.uint32),
    "fp8e5": FloatFormat("fp8e5", 5, 2, 15, True, True, np.uint8),
    "fp8e4nv": FloatFormat("fp8e4nv", 4, 3, 7, False, True, np.uint8),
    "fp8e4b15": FloatFormat("fp8e4b15", 4, 3, 15, False, True, np.uint8),
}

#: formats stored as raw bits in an unsigned integer array
ENCODED = ("bf16", "fp8e5", "fp8e4nv", "fp8e4b15")


def decode_bits(bits: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """float64 values of the bit patterns `bits` of format `fmt` (exact)."""
    b = np.asarray(bits).astype(np.int64)
    sign = (b >> (fmt.ebits + fmt.mbits)) & 1
    expf = (b >> fmt.mbits) & fmt.exp_all_ones
    mant = b & ((1 << fmt.mbits) - 1)
    sub = np.ldexp(mant.astype(np.float64), 1 - fmt.bias - fmt.mbits)
    norm = np.ldexp((mant + (1 << fmt.mbits)).astype(np.float64), expf - fmt.bias - fmt.mbits)
    val = np.where(expf == 0, sub, norm)
    if fmt.has_inf:
        special = expf == fmt.exp_all_ones
        val = np.where(special, np.where(mant == 0, np.inf, np.nan), val)
    else:
        val = np.where((b & ((1 << (fmt.nbits - 1)) - 1)) == fmt.nan_bits, np.nan, val)
    return np.where(sign == 1, -val, val)


def encode_bits(x: np.ndarray, fmt: FloatFormat, rounding: str = "rtne") -> np.ndarray:
    """Bits (in `fmt.storage`) of float values `x` rounded to `fmt` ("rtne" or "rtz")."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        sign = np.signbit(x)
        a = np.abs(x)
        finite = np.isfinite(a)
        a = np.where(finite, a, 0.0)
        _, e = np.frexp(a)
        emin = 1 - fmt.bias
        qexp = np.maximum(e - 1, emin) - fmt.mbits  # exponent of one unit in the last place
        scaled = np.ldexp(a, -qexp)
        q = np.rint(scaled) if rounding != "rtz" else np.trunc(scaled)
        rounded = np.ldexp(q, qexp)
        bump = q >= (1 << (fmt.mbits + 1))  # rounding carried into the next binade
        q = np.where(bump, q / 2, q).astype(np.int64)
        qexp = qexp + bump
        normal = q >= (1 << fmt.mbits)
        expf = np.where(normal, qexp + fmt.mbits + fmt.bias, 0)
        mant = np.where(normal, q - (1 << fmt.mbits), q)
        bits = (expf.astype(np.int64) << fmt.mbits) | mant
        overflow = rounded > fmt.max_value
        on_overflow = fmt.max_bits if (fmt.saturate or rounding == "rtz") else fmt.inf_bits
        bits = np.where(overflow, on_overflow, bits)
        keeps_inf = fmt.has_inf and not (fmt.saturate and rounding != "rtz")
        inf_bits = fmt.inf_bits if keeps_inf else fmt.max_bits
        bits = np.where(np.isinf(x), inf_bits, bits)
        bits = np.where(np.isnan(x), fmt.nan_bits, bits)
        bits = bits | (sign.astype(np.int64) << (fmt.nbits - 1))
    return bits.astype(fmt.storage)


def fp32_to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """bf16 bits of float32 `x`, rounded to nearest even (NaN stays a quiet NaN)."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    rounded = np.where(nan, (b >> np.uint32(16)) | np.uint32(0x40), rounded)
    return rounded.astype(np.uint16)


def bf16_bits_to_fp32(bits: np.ndarray) -> np.ndarray:
    """float32 values of bf16 bit patterns (exact)."""
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def decode(bits: np.ndarray, name: str) -> np.ndarray:
    """float32 values of raw bits in encoded format `name` (exact)."""
    if name == "bf16":
        return bf16_bits_to_fp32(bits)
    return FORMATS[name].table[bits]


def encode(x: np.ndarray, name: str, rounding: str = "rtne") -> np.ndarray:
    """Raw bits of float values `x` rounded to encoded format `name`."""
    x = np.asarray(x)
    if name == "bf16" and rounding != "rtz" and x.dtype != np.float64:
        return fp32_to_bf16_bits(x.astype(np.float32))
    return encode_bits(x, FORMATS[name], rounding)


def round_to_native(x: np.ndarray, name: str, rounding: str = "rtne") -> np.ndarray:
    """float values `x` rounded to numpy-native format `name` (fp16/fp32/fp64)."""
    x = np.asarray(x)
    target = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64}[name]
    if rounding != "rtz" or name == "fp64" or x.dtype == target:
        with np.errstate(all="ignore"):
            return x.astype(target)
    return encode_bits(x, FORMATS[name], "rtz").view(target)


def round_to_tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to tf32 (10 mantissa bits), to nearest even."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32)
    with np.errstate(all="ignore"):
        r = (b + np.uint32(0xFFF) + ((b >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    special = (b & np.uint32(0x7F800000)) == np.uint32(0x7F800000)
    return np.where(special, b, r).view(np.float32)
