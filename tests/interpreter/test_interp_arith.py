"""Integer and float arithmetic through the numpy builder: C semantics, edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from interp_support import new_builder, op, rng, ty


def _c_div(a: int, b: int, bits: int) -> tuple[int, int]:
    """C quotient and remainder, with the interpreter's divide-by-zero convention."""
    if b == 0:
        return -1, a
    q = abs(a) // abs(b)
    q = q if (a < 0) == (b < 0) else -q
    r = a - q * b
    q = (q + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))  # wrap INT_MIN / -1
    return q, r


def test_divsi_remsi_exhaustive_int8():
    b, _ = new_builder()
    a, c = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128))
    a, c = a.ravel().astype(np.int8), c.ravel().astype(np.int8)
    t = ty("int8", a.size)
    q = op(b, "arith.divsi", [a, c], t)
    r = op(b, "arith.remsi", [a, c], t)
    ref = [_c_div(int(x), int(y), 8) for x, y in zip(a, c, strict=True)]
    assert q.dtype == np.int8
    np.testing.assert_array_equal(q, np.array([p[0] for p in ref]).astype(np.int8))
    np.testing.assert_array_equal(r, np.array([p[1] for p in ref]).astype(np.int8))


def test_divsi_remsi_random_int32_with_extremes():
    b, _ = new_builder()
    g = rng(1)
    a = g.integers(-(2**31), 2**31, 500, dtype=np.int64).astype(np.int32)
    c = g.integers(-1000, 1000, 500).astype(np.int32)
    a[:4] = [-(2**31), -(2**31), 7, -7]
    c[:4] = [-1, 0, 0, 3]
    t = ty("int32", a.size)
    q, r = op(b, "arith.divsi", [a, c], t), op(b, "arith.remsi", [a, c], t)
    ref = [_c_div(int(x), int(y), 32) for x, y in zip(a, c, strict=True)]
    np.testing.assert_array_equal(q, np.array([p[0] for p in ref]).astype(np.int32))
    np.testing.assert_array_equal(r, np.array([p[1] for p in ref]).astype(np.int32))


def test_unsigned_division_of_signless_bits():
    b, _ = new_builder()
    a = np.array([-1, 7, 100, 5], np.int32)  # -1 is 0xffffffff unsigned
    c = np.array([2, 0, 7, -1], np.int32)
    t = ty("int32", 4)
    q = op(b, "arith.divui", [a, c], t)
    r = op(b, "arith.remui", [a, c], t)
    np.testing.assert_array_equal(q.view(np.uint32), [0x7FFFFFFF, 0xFFFFFFFF, 14, 0])
    np.testing.assert_array_equal(r.view(np.uint32), [1, 7, 2, 5])


@pytest.mark.parametrize("name", ["int8", "int32", "int64", "uint16", "uint64"])
def test_shifts_by_any_amount(name):
    b, _ = new_builder()
    dt = np.dtype({"int8": np.int8, "int32": np.int32, "int64": np.int64,
                   "uint16": np.uint16, "uint64": np.uint64}[name])
    bits = dt.itemsize * 8
    amounts = np.arange(0, bits + 8).astype(dt)
    x = np.full(amounts.shape, -3 if dt.kind == "i" else 0xF0, dtype=dt)
    t = ty(name, amounts.size)
    left = op(b, "arith.shli", [x, amounts], t)
    right_u = op(b, "arith.shrui", [x, amounts], t)
    right_s = op(b, "arith.shrsi", [x, amounts], t)
    mask = (1 << bits) - 1
    for k, n in enumerate(int(v) for v in amounts):
        u = int(x[k]) & mask
        s = u - (1 << bits) if u >> (bits - 1) else u
        exp_l = (u << n) & mask if n < bits else 0
        exp_ru = u >> n if n < bits else 0
        exp_rs = (s >> min(n, bits - 1)) & mask
        assert int(left[k]) & mask == exp_l, (name, n)
        assert int(right_u[k]) & mask == exp_ru, (name, n)
        assert int(right_s[k]) & mask == exp_rs, (name, n)


def test_wraparound_and_minmax_signedness():
    b, _ = new_builder()
    t = ty("int32", 3)
    a = np.array([2**31 - 1, -5, 3], np.int32)
    c = np.array([1, 4, -2], np.int32)
    np.testing.assert_array_equal(op(b, "arith.addi", [a, c], t), [-(2**31), -1, 1])
    np.testing.assert_array_equal(op(b, "arith.maxsi", [a, c], t), [2**31 - 1, 4, 3])
    np.testing.assert_array_equal(op(b, "arith.maxui", [a, c], t), [2**31 - 1, -5, -2])
    np.testing.assert_array_equal(op(b, "arith.minui", [a, c], t), [1, 4, 3])


def test_int1_arithmetic_is_modulo_two():
    b, _ = new_builder()
    x = np.array([False, False, True, True])
    y = np.array([False, True, False, True])
    t = ty("int1", 4)
    np.testing.assert_array_equal(op(b, "arith.addi", [x, y], t), x ^ y)
    np.testing.assert_array_equal(op(b, "arith.muli", [x, y], t), x & y)
    np.testing.assert_array_equal(op(b, "arith.ori", [x, y], t), x | y)
    # signed i1: true is -1, so true < false
    lt = op(b, "arith.cmpi", [x, y], ty("int1", 4), predicate="slt")
    np.testing.assert_array_equal(lt, [False, False, True, False])


def test_cmpi_predicates_signed_and_unsigned():
    b, _ = new_builder()
    x = np.array([-1, 0, 5], np.int32)
    y = np.array([1, 0, 5], np.int32)
    t = ty("int1", 3)
    assert list(op(b, "arith.cmpi", [x, y], t, predicate="slt")) == [True, False, False]
    assert list(op(b, "arith.cmpi", [x, y], t, predicate="ult")) == [False, False, False]
    assert list(op(b, "arith.cmpi", [x, y], t, predicate="uge")) == [True, True, True]
    assert list(op(b, "arith.cmpi", [x, y], t, predicate="ne")) == [True, False, False]


def test_cmpf_ordered_and_unordered():
    b, _ = new_builder()
    x = np.array([1.0, np.nan, 2.0, np.nan], np.float32)
    y = np.array([1.0, 1.0, 3.0, np.nan], np.float32)
    t = ty("int1", 4)
    expect = {"oeq": [1, 0, 0, 0], "une": [0, 1, 1, 1], "one": [0, 0, 1, 0],
              "uno": [0, 1, 0, 1], "ord": [1, 0, 1, 0], "ult": [0, 1, 1, 1],
              "oge": [1, 0, 0, 0], "ueq": [1, 1, 0, 1]}
    for pred, want in expect.items():
        got = op(b, "arith.cmpf", [x, y], t, predicate=pred)
        assert got.dtype == np.bool_
        assert list(got.astype(int)) == want, pred


def test_float_ops_and_nan_semantics():
    b, _ = new_builder()
    g = rng(2)
    x = g.standard_normal(64).astype(np.float32)
    y = g.standard_normal(64).astype(np.float32)
    t = ty("fp32", 64)
    np.testing.assert_array_equal(op(b, "arith.addf", [x, y], t), x + y)
    np.testing.assert_array_equal(op(b, "arith.divf", [x, y], t), x / y)
    np.testing.assert_array_equal(op(b, "arith.remf", [x, y], t), np.fmod(x, y))
    nan = np.array([np.nan, 1.0], np.float32)
    one = np.array([0.0, 2.0], np.float32)
    t2 = ty("fp32", 2)
    assert np.isnan(op(b, "arith.maximumf", [nan, one], t2)[0])
    assert op(b, "arith.maxnumf", [nan, one], t2)[0] == 0.0
    assert op(b, "arith.minnumf", [nan, one], t2)[1] == 1.0


def test_bf16_arithmetic_rounds_through_fp32():
    b, _ = new_builder()
    t = ty("bf16", 3)
    x = b.create("arith.truncf", [np.array([1.0, 3.0, 256.0], np.float32)], [t])[0]
    y = b.create("arith.truncf", [np.array([2.0**-8, 1.0, 1.0], np.float32)], [t])[0]
    s = op(b, "arith.addf", [x, y], t)
    f = op(b, "arith.extf", [s], ty("fp32", 3))
    # 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even gives 1; 256 + 1 rounds to 256
    np.testing.assert_array_equal(f, [1.0, 4.0, 256.0])
    lt = op(b, "arith.cmpf", [x, y], ty("int1", 3), predicate="olt")
    assert list(lt) == [False, False, False]


def test_select_and_scalar_ops_return_arrays():
    b, _ = new_builder()
    s = op(b, "arith.addi", [np.array(3, np.int32), np.array(4, np.int32)], ty("int32"))
    assert isinstance(s, np.ndarray) and s.shape == () and s.dtype == np.int32
    assert b.static_value(s) == 7
    c = np.array([True, False])
    r = op(b, "arith.select", [c, np.array([1, 2], np.int16), np.array([3, 4], np.int16)],
           ty("int16", 2))
    assert list(r) == [1, 4] and r.dtype == np.int16


def test_unknown_op_is_named():
    from tritonc.backends.interpreter import InterpreterUnsupported

    b, _ = new_builder()
    with pytest.raises(InterpreterUnsupported, match="arith.frobnicate"):
        b.create("arith.frobnicate", [], [ty("int32")])
