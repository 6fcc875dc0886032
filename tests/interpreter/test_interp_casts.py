"""Conversions: integer widths, int <-> float, bf16 and fp8 rounding, bitcasts."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from interp_support import new_builder, op, rng, ty

from tritonc.backends.interpreter.formats import FORMATS, decode_bits


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}")


def test_integer_width_changes():
    b, _ = new_builder()
    x = np.array([-1, 127, -128, 300 - 256], np.int8)
    np.testing.assert_array_equal(op(b, "arith.extsi", [x], ty("int32", 4)), [-1, 127, -128, 44])
    np.testing.assert_array_equal(op(b, "arith.extui", [x], ty("int32", 4)), [255, 127, 128, 44])
    w = np.array([0x12345678, -1, 0x180], np.int32)
    np.testing.assert_array_equal(op(b, "arith.trunci", [w], ty("int8", 3)), [0x78, -1, -128])
    np.testing.assert_array_equal(op(b, "arith.trunci", [w], ty("int1", 3)), [False, True, False])
    t = np.array([True, False])
    np.testing.assert_array_equal(op(b, "arith.extsi", [t], ty("int32", 2)), [-1, 0])
    np.testing.assert_array_equal(op(b, "arith.extui", [t], ty("int32", 2)), [1, 0])


def test_int_to_float_and_back():
    b, _ = new_builder()
    g = rng(3)
    x = g.integers(-(2**62), 2**62, 200, dtype=np.int64)
    f = op(b, "arith.sitofp", [x], ty("fp32", 200))
    np.testing.assert_array_equal(f, x.astype(np.float32))
    u = np.array([-1], np.int32)  # 0xffffffff
    assert op(b, "arith.uitofp", [u], ty("fp64", 1))[0] == 2.0**32 - 1
    assert op(b, "arith.sitofp", [u], ty("fp64", 1))[0] == -1.0


def test_float_to_int_truncates_and_saturates():
    b, _ = new_builder()
    x = np.array([2.7, -2.7, 1e10, -1e10, np.nan, np.inf, -np.inf, -0.5], np.float32)
    si = op(b, "arith.fptosi", [x], ty("int32", 8))
    np.testing.assert_array_equal(si, [2, -2, 2**31 - 1, -(2**31), 0, 2**31 - 1, -(2**31), 0])
    ui = op(b, "arith.fptoui", [x], ty("uint8", 8))
    np.testing.assert_array_equal(ui, [2, 0, 255, 0, 0, 255, 0, 0])
    big = op(b, "arith.fptosi", [np.array([1e30, -1e30])], ty("int64", 2))
    np.testing.assert_array_equal(big, [2**63 - 1, -(2**63)])


def _bf16_reference(bits32: int) -> int:
    """fp32 bits -> bf16 bits, round to nearest even, written out by hand."""
    upper, lower = bits32 >> 16, bits32 & 0xFFFF
    if lower > 0x8000 or (lower == 0x8000 and upper & 1):
        upper += 1
    return upper


def test_fp32_to_bf16_ties_to_even():
    b, _ = new_builder()
    uppers = rng(4).integers(0, 0x7F00, 300)
    lowers = np.array([0x8000, 0x7FFF, 0x8001, 0x0000, 0xFFFF])
    pats = (uppers[:, None] << 16 | lowers[None, :]).ravel().astype(np.uint32)
    pats = np.concatenate([pats, pats | np.uint32(0x80000000)])
    x = pats.view(np.float32)
    out = op(b, "arith.truncf", [x], ty("bf16", x.size))
    assert out.dtype == np.uint16
    ref = [_bf16_reference(int(p) & 0x7FFFFFFF) | (int(p) >> 31 << 15) for p in pats]
    np.testing.assert_array_equal(out, np.array(ref, np.uint16))
    # torch agrees
    np.testing.assert_array_equal(out, torch.from_numpy(x).to(torch.bfloat16).view(torch.int16)
                                  .numpy().view(np.uint16))


def test_bf16_specials_and_double_rounding():
    b, _ = new_builder()
    x = np.array([np.inf, -np.inf, np.nan, 3.4e38, 0.0, -0.0], np.float32)
    out = op(b, "arith.truncf", [x], ty("bf16", 6))
    assert list(out[[0, 1, 3, 4, 5]]) == [0x7F80, 0xFF80, 0x7F80, 0, 0x8000]
    assert (out[2] & 0x7F80) == 0x7F80 and (out[2] & 0x7F)
    # from fp64 in one rounding: just below the tie of 1 + 2^-7 and 1 + 2^-6
    y = np.array([1 + 2**-7 + 2**-8 - 2**-40])
    assert op(b, "arith.truncf", [y], ty("bf16", 1))[0] == 0x3F81
    back = op(b, "arith.extf", [out], ty("fp32", 6))
    np.testing.assert_array_equal(back[[0, 1, 4]], [np.inf, -np.inf, 0.0])


def _reference_value(bits: int, name: str) -> float:
    """Decode one fp8 pattern from first principles."""
    e, m, bias = {"fp8e5": (5, 2, 15), "fp8e4nv": (4, 3, 7), "fp8e4b15": (4, 3, 15)}[name]
    sign = -1.0 if bits >> 7 else 1.0
    exp, mant = (bits >> m) & ((1 << e) - 1), bits & ((1 << m) - 1)
    if name == "fp8e5" and exp == 31:
        return sign * math.inf if mant == 0 else math.nan
    if name != "fp8e5" and (bits & 0x7F) == 0x7F:
        return math.nan
    if exp == 0:
        return sign * mant * 2.0 ** (1 - bias - m)
    return sign * (1 + mant / 2**m) * 2.0 ** (exp - bias)


@pytest.mark.parametrize("name", ["fp8e5", "fp8e4nv", "fp8e4b15"])
def test_fp8_decode_every_pattern_and_round_trip(name):
    b, _ = new_builder()
    bits = np.arange(256, dtype=np.uint8)
    ref = np.array([_reference_value(int(v), name) for v in bits])
    tagged = op(b, "tt.bitcast", [bits.view(np.int8)], ty(name, 256))
    f = op(b, "tt.fp_to_fp", [tagged], ty("fp32", 256), rounding="")
    np.testing.assert_array_equal(f, ref.astype(np.float32))
    again = op(b, "tt.fp_to_fp", [f], ty(name, 256), rounding="rtne")
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(again[finite], bits[finite])
    infinite = np.isinf(ref)  # satfinite: infinities come back as the largest finite value
    np.testing.assert_array_equal(again[infinite], (bits[infinite] & 0x80) | 0x7B)
    assert np.all(np.isnan(decode_bits(again[np.isnan(ref)], FORMATS[name])))


def _nearest_even(x: float, values: np.ndarray, codes: np.ndarray) -> int:
    """The code of the representable value nearest x, ties to the even code."""
    d = np.abs(values - x)
    best = np.flatnonzero(d == d.min())
    return int(codes[best[np.argmin(codes[best] & 1)]] if best.size > 1 else codes[best[0]])


@pytest.mark.parametrize("name", ["fp8e5", "fp8e4nv", "fp8e4b15"])
def test_fp8_rounding_to_nearest_even(name):
    b, _ = new_builder()
    fmt = FORMATS[name]
    codes = np.arange(256)
    values = decode_bits(codes, fmt)
    keep = np.isfinite(values) & (codes < 0x80)
    codes, values = codes[keep], values[keep]
    pos = np.sort(values)
    mids = (pos[1:] + pos[:-1]) / 2  # exact ties
    g = rng(5)
    x = np.concatenate([mids, -mids, g.uniform(-fmt.max_value, fmt.max_value, 400)])
    out = op(b, "tt.fp_to_fp", [x.astype(np.float32)], ty(name, x.size), rounding="rtne")
    ref = [_nearest_even(abs(float(v)), values, codes) | (0x80 if v < 0 else 0)
           for v in x.astype(np.float32)]
    np.testing.assert_array_equal(out, np.array(ref, np.uint8))
    if name in ("fp8e5", "fp8e4nv"):
        tdt = torch.float8_e5m2 if name == "fp8e5" else torch.float8_e4m3fn
        tout = torch.from_numpy(x.astype(np.float32)).to(tdt).view(torch.uint8).numpy()
        np.testing.assert_array_equal(out, tout)


def test_fp8_overflow_saturates_and_specials():
    b, _ = new_builder()
    x = np.array([1e6, -1e6, np.inf, -np.inf, np.nan], np.float32)
    e4 = op(b, "tt.fp_to_fp", [x], ty("fp8e4nv", 5), rounding="rtne")
    assert list(e4[:4]) == [0x7E, 0xFE, 0x7E, 0xFE] and (e4[4] & 0x7F) == 0x7F
    e5 = op(b, "tt.fp_to_fp", [x], ty("fp8e5", 5), rounding="rtne")
    assert list(e5[:4]) == [0x7B, 0xFB, 0x7B, 0xFB]  # satfinite: infinities saturate too
    assert (e5[4] & 0x7C) == 0x7C and (e5[4] & 3)
    b15 = op(b, "tt.fp_to_fp", [np.array([1.8, 100.0], np.float32)], ty("fp8e4b15", 2),
             rounding="rtne")
    assert list(b15) == [0x7E, 0x7E]  # 1.75 is the largest finite value


def test_fp_to_fp_round_toward_zero():
    b, _ = new_builder()
    g = rng(6)
    x = (g.standard_normal(500) * 100).astype(np.float32)
    rtz = op(b, "tt.fp_to_fp", [x], ty("bf16", 500), rounding="rtz")
    np.testing.assert_array_equal(rtz, (x.view(np.uint32) >> 16).astype(np.uint16))
    h = op(b, "tt.fp_to_fp", [x], ty("fp16", 500), rounding="rtz")
    assert np.all(np.abs(h.astype(np.float64)) <= np.abs(x.astype(np.float64)))
    assert np.all(np.abs(h.astype(np.float64) - x) < np.abs(x) * 2.0**-10)
    e4 = op(b, "tt.fp_to_fp", [np.array([1.1, -1.1, 1000.0], np.float32)], ty("fp8e4nv", 3),
            rounding="rtz")
    assert list(e4) == [0x38, 0xB8, 0x7E]  # 1.1 -> 1.0; overflow saturates


def test_fp16_and_fp64_conversions():
    b, _ = new_builder()
    g = rng(7)
    x = g.standard_normal(100) * 1e3
    np.testing.assert_array_equal(op(b, "arith.truncf", [x], ty("fp16", 100)),
                                  x.astype(np.float16))
    h = x.astype(np.float16)
    np.testing.assert_array_equal(op(b, "arith.extf", [h], ty("fp32", 100)), h.astype(np.float32))
    # fp16 -> bf16 and fp8 -> bf16 through fp_to_fp
    bf = op(b, "tt.fp_to_fp", [h], ty("bf16", 100), rounding="rtne")
    torch_bf = torch.from_numpy(h.astype(np.float32)).to(torch.bfloat16)
    np.testing.assert_array_equal(bf, torch_bf.view(torch.int16).numpy().view(np.uint16))


def test_bitcasts():
    b, _ = new_builder()
    x = np.array([1.0, -2.0], np.float32)
    i = op(b, "arith.bitcast", [x], ty("int32", 2))
    np.testing.assert_array_equal(i, x.view(np.int32))
    back = op(b, "tt.bitcast", [i], ty("fp32", 2))
    np.testing.assert_array_equal(back, x)
    bf = op(b, "tt.bitcast", [np.array([0x3F80], np.int16)], ty("bf16", 1))
    assert b.static_value(op(b, "arith.extf", [bf], ty("fp32", 1)).reshape(())) == 1.0
    p = op(b, "tt.int_to_ptr", [np.array(4096, np.int64)], ty("int64"))
    assert op(b, "tt.ptr_to_int", [p], ty("int64")) == 4096


def test_constants_of_every_type():
    b, _ = new_builder()
    assert b.static_value(b.constant(-1, ty("uint32"))) == 2**32 - 1
    assert b.static_value(b.constant(300, ty("int8"))) == 44
    assert b.static_value(b.constant(True, ty("int1"))) is True
    assert b.static_value(b.constant(0.1, ty("fp32"))) == float(np.float32(0.1))
    assert b.static_value(b.constant(1.3, ty("bf16"))) == 1.296875
    assert b.static_value(b.constant(3.0, ty("fp8e5"))) == 3.0
    blk = b.constant(2.5, ty("fp16", 4, 2))
    assert blk.shape == (4, 2) and blk.dtype == np.float16 and np.all(blk == 2.5)
    assert not blk.flags.writeable
