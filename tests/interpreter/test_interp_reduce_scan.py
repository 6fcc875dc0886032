"""Reductions and scans with combine functions built from builder ops."""

from __future__ import annotations

import numpy as np
import pytest
from interp_support import new_builder, rng, ty


def _argmax_combine(b):
    """(value, index) pairs: the larger value wins, the lower index on ties.

    Like the semantic layer, it types the ops as scalars although the arrays are slices.
    """
    def combine(lhs, rhs):
        (v1, i1), (v2, i2) = lhs, rhs
        (gt,) = b.create("arith.cmpf", [v1, v2], [ty("int1")], {"predicate": "ogt"})
        (eq,) = b.create("arith.cmpf", [v1, v2], [ty("int1")], {"predicate": "oeq"})
        (lt,) = b.create("arith.cmpi", [i1, i2], [ty("int1")], {"predicate": "slt"})
        (tie,) = b.create("arith.andi", [eq, lt], [ty("int1")])
        (left,) = b.create("arith.ori", [gt, tie], [ty("int1")])
        (v,) = b.create("arith.select", [left, v1, v2], [ty("fp32")])
        (i,) = b.create("arith.select", [left, i1, i2], [ty("int32")])
        return [v, i]
    return combine


def _binary(b, name, t):
    def combine(lhs, rhs):
        return b.create(name, [lhs[0], rhs[0]], [ty(t)])
    return combine


def _last_nonzero(b):
    """Associative but not commutative: the right operand wins unless it is zero."""
    def combine(lhs, rhs):
        (nz,) = b.create("arith.cmpi", [rhs[0], np.array(0, np.int32)], [ty("int1")],
                         {"predicate": "ne"})
        return b.create("arith.select", [nz, rhs[0], lhs[0]], [ty("int32")])
    return combine


@pytest.mark.parametrize("n", [1, 2, 7, 37, 100])
def test_argmax_reduce_with_ties(n):
    b, _ = new_builder()
    v = rng(n).integers(0, 5, n).astype(np.float32)  # many ties
    idx = np.arange(n, dtype=np.int32)
    val, arg = b.reduce([v, idx], 0, [ty("fp32"), ty("int32")], _argmax_combine(b))
    assert val.shape == () and val.dtype == np.float32
    assert val == v.max() and arg == np.argmax(v)


def test_reduce_2d_along_each_axis():
    b, _ = new_builder()
    x = rng(1).standard_normal((5, 12)).astype(np.float32)
    (s0,) = b.reduce([x], 0, [ty("fp32", 12)], _binary(b, "arith.addf", "fp32"))
    (s1,) = b.reduce([x], 1, [ty("fp32", 5)], _binary(b, "arith.addf", "fp32"))
    np.testing.assert_allclose(s0, x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s1, x.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    (m,) = b.reduce([x.astype(np.int64)], 1, [ty("int64", 5)], _binary(b, "arith.maxsi", "int64"))
    np.testing.assert_array_equal(m, x.astype(np.int64).max(1))


def test_reduce_keeps_order_for_non_commutative_combine():
    b, _ = new_builder()
    x = rng(2).integers(0, 3, (4, 23)).astype(np.int32)
    (last,) = b.reduce([x], 1, [ty("int32", 4)], _last_nonzero(b))
    for row, got in zip(x, last, strict=True):
        nz = row[row != 0]
        assert got == (nz[-1] if nz.size else 0)


@pytest.mark.parametrize("n", [1, 5, 37, 64])
def test_cumsum_and_reverse_cumprod(n):
    b, _ = new_builder()
    g = rng(n)
    x = g.standard_normal(n).astype(np.float32)
    (cs,) = b.scan([x], 0, False, [ty("fp32", n)], _binary(b, "arith.addf", "fp32"))
    np.testing.assert_allclose(cs, np.cumsum(x.astype(np.float64)), rtol=1e-5, atol=1e-5)
    y = g.uniform(0.5, 1.5, n).astype(np.float32)
    (cp,) = b.scan([y], 0, True, [ty("fp32", n)], _binary(b, "arith.mulf", "fp32"))
    want = np.cumprod(y[::-1].astype(np.float64))[::-1]
    np.testing.assert_allclose(cp, want, rtol=1e-5)


def test_integer_scan_2d_and_order():
    b, _ = new_builder()
    x = rng(3).integers(-5, 5, (3, 19)).astype(np.int32)
    (cs,) = b.scan([x], 1, False, [ty("int32", 3, 19)], _binary(b, "arith.addi", "int32"))
    np.testing.assert_array_equal(cs, np.cumsum(x, axis=1))
    (cs0,) = b.scan([x], 0, True, [ty("int32", 3, 19)], _binary(b, "arith.addi", "int32"))
    np.testing.assert_array_equal(cs0, np.cumsum(x[::-1], axis=0)[::-1])
    z = rng(4).integers(0, 3, 29).astype(np.int32)
    (fill,) = b.scan([z], 0, False, [ty("int32", 29)], _last_nonzero(b))
    last = 0
    for k, v in enumerate(z):
        last = v if v else last
        assert fill[k] == last
