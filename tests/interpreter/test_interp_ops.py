"""Shape ops, program ids, dot, histogram, gather, mulhiu, print, assert, inline asm."""

from __future__ import annotations

import numpy as np
import pytest
from interp_support import new_builder, op, rng, ty

from tritonc.backends.interpreter import DeviceAssertionError, InterpreterUnsupported


def test_program_ids_and_ranges():
    b, _ = new_builder()
    b.set_grid((3, 1), (8, 2))
    assert op(b, "tt.get_program_id", [], ty("int32"), axis=0) == 3
    assert op(b, "tt.get_program_id", [], ty("int32"), axis=2) == 0
    assert op(b, "tt.get_num_programs", [], ty("int32"), axis=1) == 2
    r = op(b, "tt.make_range", [], ty("int32", 16), start=16, end=32)
    np.testing.assert_array_equal(r, np.arange(16, 32))


def test_shape_ops():
    b, _ = new_builder()
    x = np.arange(8, dtype=np.int32)
    s = op(b, "tt.splat", [np.array(2.5, np.float32)], ty("fp32", 2, 4))
    assert s.shape == (2, 4) and s.flags.writeable and np.all(s == 2.5)
    e = op(b, "tt.expand_dims", [x], ty("int32", 1, 8), axis=0)
    bc = op(b, "tt.broadcast", [e], ty("int32", 3, 8))
    np.testing.assert_array_equal(bc, np.broadcast_to(x, (3, 8)))
    r = op(b, "tt.reshape", [x], ty("int32", 2, 4), allow_reorder=False)
    np.testing.assert_array_equal(r, x.reshape(2, 4))
    t = op(b, "tt.trans", [r], ty("int32", 4, 2), order=[1, 0])
    np.testing.assert_array_equal(t, x.reshape(2, 4).T)
    j = op(b, "tt.join", [r, r + 100], ty("int32", 2, 4, 2))
    assert j.shape == (2, 4, 2) and j[1, 2, 1] == 106
    lo, hi = b.create("tt.split", [j], [ty("int32", 2, 4), ty("int32", 2, 4)])
    np.testing.assert_array_equal(lo, r)
    np.testing.assert_array_equal(hi, r + 100)
    c = op(b, "tt.cat", [x, x], ty("int32", 16))
    np.testing.assert_array_equal(c, np.concatenate([x, x]))
    bf = b.constant(1.0, ty("bf16", 4))
    assert op(b, "tt.reshape", [bf], ty("bf16", 2, 2)).dtype.metadata == {"tt": "bf16"}


def test_gather():
    b, _ = new_builder()
    src = rng(1).standard_normal((4, 6)).astype(np.float32)
    idx = rng(2).integers(0, 6, (4, 3)).astype(np.int32)
    g = op(b, "tt.gather", [src, idx], ty("fp32", 4, 3), axis=1)
    np.testing.assert_array_equal(g, np.take_along_axis(src, idx, 1))
    with pytest.raises(Exception, match="out of range"):
        op(b, "tt.gather", [src, idx + 6], ty("fp32", 4, 3), axis=1)


def _tf32(x: np.ndarray) -> np.ndarray:
    """Round float32 to 11 significant bits, ties to even, through frexp."""
    m, e = np.frexp(x.astype(np.float64))
    return np.ldexp(np.rint(np.ldexp(m, 11)), e - 11)


def test_dot_precisions():
    b, _ = new_builder()
    g = rng(3)
    a = g.standard_normal((16, 32)).astype(np.float32)
    w = g.standard_normal((32, 8)).astype(np.float32)
    c = g.standard_normal((16, 8)).astype(np.float32)
    out = ty("fp32", 16, 8)
    ieee = op(b, "tt.dot", [a, w, c], out, input_precision="ieee", max_num_imprecise_acc=0)
    tf32 = op(b, "tt.dot", [a, w, c], out, input_precision="tf32", max_num_imprecise_acc=0)
    exact = a.astype(np.float64) @ w + c
    np.testing.assert_allclose(ieee, exact, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(tf32, _tf32(a) @ _tf32(w) + c, rtol=1e-6, atol=1e-5)
    assert np.abs(tf32 - exact).max() > 10 * np.abs(ieee - exact).max()
    x3 = op(b, "tt.dot", [a, w, c], out, input_precision="tf32x3")
    np.testing.assert_allclose(x3, exact, rtol=1e-6, atol=1e-5)


def test_dot_fp16_bf16_int8_and_batched():
    b, _ = new_builder()
    g = rng(4)
    a = g.standard_normal((8, 16)).astype(np.float16)
    w = g.standard_normal((16, 4)).astype(np.float16)
    z = np.zeros((8, 4), np.float32)
    h = op(b, "tt.dot", [a, w, z], ty("fp32", 8, 4), input_precision="ieee")
    np.testing.assert_allclose(h, a.astype(np.float64) @ w, rtol=1e-6, atol=1e-6)
    abf = op(b, "arith.truncf", [a.astype(np.float32)], ty("bf16", 8, 16))
    wbf = op(b, "arith.truncf", [w.astype(np.float32)], ty("bf16", 16, 4))
    hb = op(b, "tt.dot", [abf, wbf, z], ty("fp32", 8, 4), input_precision="ieee")
    np.testing.assert_allclose(hb, h, rtol=0.05, atol=0.05)
    i = g.integers(-128, 128, (8, 64)).astype(np.int8)
    j = g.integers(-128, 128, (64, 4)).astype(np.int8)
    acc = g.integers(-1000, 1000, (8, 4)).astype(np.int32)
    d = op(b, "tt.dot", [i, j, acc], ty("int32", 8, 4), input_precision="ieee")
    np.testing.assert_array_equal(d, i.astype(np.int64) @ j.astype(np.int64) + acc)
    aa = g.standard_normal((2, 4, 8)).astype(np.float32)
    bb = g.standard_normal((2, 8, 3)).astype(np.float32)
    bd = op(b, "tt.dot", [aa, bb, np.zeros((2, 4, 3), np.float32)], ty("fp32", 2, 4, 3),
            input_precision="ieee")
    np.testing.assert_allclose(bd, aa.astype(np.float64) @ bb, rtol=1e-6, atol=1e-6)


def test_histogram_with_mask():
    b, _ = new_builder()
    x = rng(5).integers(-3, 12, 200).astype(np.int32)
    mask = rng(6).random(200) < 0.5
    h = op(b, "tt.histogram", [x, mask], ty("int32", 8))
    keep = mask & (x >= 0) & (x < 8)
    np.testing.assert_array_equal(h, np.bincount(x[keep], minlength=8)[:8])
    assert h.dtype == np.int32
    h2 = op(b, "tt.histogram", [x, None], ty("int32", 16))
    np.testing.assert_array_equal(h2, np.bincount(x[(x >= 0) & (x < 16)], minlength=16))


def test_mulhiu_32_and_64_bit():
    b, _ = new_builder()
    g = rng(7)
    x = g.integers(0, 2**32, 50, dtype=np.uint64).astype(np.uint32).view(np.int32)
    y = g.integers(0, 2**32, 50, dtype=np.uint64).astype(np.uint32).view(np.int32)
    hi = op(b, "tt.mulhiu", [x, y], ty("int32", 50))
    want = [(int(p) * int(q)) >> 32 for p, q in zip(x.view(np.uint32), y.view(np.uint32),
                                                   strict=True)]
    np.testing.assert_array_equal(hi.view(np.uint32), np.array(want, np.uint64))
    u = g.integers(0, 2**63, 50, dtype=np.int64).view(np.uint64) * np.uint64(2) + np.uint64(1)
    v = g.integers(0, 2**63, 50, dtype=np.int64).view(np.uint64) * np.uint64(2)
    hi64 = op(b, "tt.mulhiu", [u, v], ty("uint64", 50))
    want64 = [(int(p) * int(q)) >> 64 for p, q in zip(u, v, strict=True)]
    assert [int(h) for h in hi64] == want64


def test_clampf_and_precise_ops():
    b, _ = new_builder()
    x = np.array([-2.0, 0.5, 3.0, np.nan], np.float32)
    lo, hi = np.float32(-1), np.float32(1)
    t = ty("fp32", 4)
    c = op(b, "tt.clampf", [x, np.full(4, lo), np.full(4, hi)], t, propagate_nan=True)
    assert list(c[:3]) == [-1.0, 0.5, 1.0] and np.isnan(c[3])
    c2 = op(b, "tt.clampf", [x, np.full(4, lo), np.full(4, hi)], t, propagate_nan=False)
    assert not np.isnan(c2[3])
    y = rng(8).random(4).astype(np.float32) + 0.5
    np.testing.assert_array_equal(op(b, "tt.precise_sqrt", [y], t), np.sqrt(y))
    np.testing.assert_array_equal(op(b, "tt.precise_divf", [y, y + 1], t), y / (y + 1))


def test_print_like_device_print(capsys):
    b, _ = new_builder()
    b.set_grid((1, 0, 2), (4, 1, 3))
    b.create("tt.print", [np.array([[1, 2]], np.int32)], [], {"prefix": " x: ", "hex": False,
                                                              "is_signed": [1]})
    b.create("tt.print", [np.array(-1, np.int32), np.array(0.5, np.float32)], [],
             {"prefix": " pair: ", "hex": False, "is_signed": [0, 1]})
    b.create("tt.print", [np.array([255], np.int32)], [], {"prefix": " h: ", "hex": True})
    b.create("tt.print", [np.arange(11, dtype=np.int32) * 3], [],
             {"prefix": ": ", "hex": False, "is_signed": [1]})
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "pid (1, 0, 2) idx (0, 0) x: 1",
        "pid (1, 0, 2) idx (0, 1) x: 2",
        "pid (1, 0, 2) idx () pair: (operand 0) 4294967295",
        "pid (1, 0, 2) idx () pair: (operand 1) 0.500000",
        "pid (1, 0, 2) idx (0) h: 0x000000ff",
        *(f"pid (1, 0, 2) idx ({i:2}): {3 * i}" for i in range(11)),  # padded to "10"
    ]


def test_device_assert():
    b, _ = new_builder()
    b.set_grid((5,), (8,))
    b.create("tt.assert", [np.array([True, True])], [], {"message": "ok"})
    with pytest.raises(DeviceAssertionError, match="kernel.py:12: x > 0") as info:
        b.create("tt.assert", [np.array([True, False, False])], [],
                 {"message": "kernel.py:12: x > 0"})
    assert info.value.pid == (5, 0, 0) and info.value.index == (1,)
    b.create("tt.assume", [np.array(True)], [])
    b.create("tt.barrier", [], [])


def test_inline_asm_is_unsupported():
    b, _ = new_builder()
    with pytest.raises(InterpreterUnsupported, match="inline_asm_elementwise"):
        b.create("tt.elementwise_inline_asm", [np.zeros(4, np.int32)], [ty("int32", 4)],
                 {"asm_string": "mov.b32 $0, $1;", "constraints": "=r,r", "pure": True,
                  "packed_element": 1})


def test_dot_fp8_inputs():
    b, _ = new_builder()
    g = rng(11)
    a = g.standard_normal((8, 32)).astype(np.float32)
    w = g.standard_normal((32, 4)).astype(np.float32)
    a8 = op(b, "tt.fp_to_fp", [a], ty("fp8e4nv", 8, 32), rounding="rtne")
    w8 = op(b, "tt.fp_to_fp", [w], ty("fp8e5", 32, 4), rounding="rtne")
    got = op(b, "tt.dot", [a8, w8, np.zeros((8, 4), np.float32)], ty("fp32", 8, 4),
             input_precision="tf32")
    a_back = op(b, "tt.fp_to_fp", [a8], ty("fp32", 8, 32), rounding="")
    w_back = op(b, "tt.fp_to_fp", [w8], ty("fp32", 32, 4), rounding="")
    np.testing.assert_allclose(got, a_back.astype(np.float64) @ w_back, rtol=1e-6, atol=1e-6)


def test_print_encoded_floats_and_bools(capsys):
    b, _ = new_builder()
    b.create("tt.print", [b.constant(1.5, ty("bf16", 2)), np.array([True, False])], [],
             {"prefix": " v: ", "hex": False, "is_signed": [1, 1]})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pid (0, 0, 0) idx (0) v: (operand 0) 1.500000"
    assert out[3] == "pid (0, 0, 0) idx (1) v: (operand 1) 0"
