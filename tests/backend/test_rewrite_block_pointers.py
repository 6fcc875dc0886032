"""rewrite-block-pointers: loads and stores through block pointers become pointer tiles.

Each kernel's TTIR after the pass holds no block pointer op, and it computes what the
block pointers say: the TTIR is evaluated op by op (`ttgir_eval.py`) on fresh random
inputs with poisoned outputs, at offsets that fall before, across and past the tensor's
edges, and compared with numpy. The kernels carry block pointers through loops, branches
and while loops, advance them by negative steps, pad with zeros and NaN, check one
dimension or none, and are rank 1 to 3. Every kernel also compiles through ptxas for
sm_80 and sm_90; boolean blocks move as bytes.
"""

from __future__ import annotations

import numpy as np
import pytest
from ttgir_eval import evaluate

import tritonc
import tritonc.language as tl


@tritonc.jit
def tile_copy(x, out, M, N, sxm, om, on, BM: tl.constexpr, BN: tl.constexpr,
              CHECK: tl.constexpr, PAD: tl.constexpr):
    """One BM x BN block of x (M x N, row stride sxm) at (om, on), written whole to out."""
    src = tl.make_block_ptr(x, shape=(M, N), strides=(sxm, 1), offsets=(om, on),
                            block_shape=(BM, BN), order=(1, 0))
    if CHECK == 2:
        t = tl.load(src, boundary_check=(0, 1), padding_option=PAD)
    elif CHECK == 1:
        t = tl.load(src, boundary_check=(1,), padding_option=PAD)
    else:
        t = tl.load(src)
    r = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out + r, t)


@tritonc.jit
def column_sums(x, out, M, N, sxm, sxn, BM: tl.constexpr, BN: tl.constexpr):
    """Sums of BN columns of x down its M rows, a block pointer walking down by a loop,
    the result stored through a block pointer checked at the right edge."""
    pid = tl.program_id(0)
    src = tl.make_block_ptr(x, shape=(M, N), strides=(sxm, sxn), offsets=(0, pid * BN),
                            block_shape=(BM, BN), order=(0, 1))
    acc = tl.zeros((BN,), dtype=tl.float32)
    for _ in range(0, tl.cdiv(M, BM)):
        acc += tl.sum(tl.load(src, boundary_check=(0, 1), padding_option="zero"), axis=0)
        src = tl.advance(src, (BM, 0))
    dst = tl.make_block_ptr(out, shape=(N,), strides=(1,), offsets=(pid * BN,),
                            block_shape=(BN,), order=(0,))
    tl.store(dst, acc, boundary_check=(0,))


@tritonc.jit
def backwards_and_branches(x, y, out, n, start, FLAG: tl.constexpr, B: tl.constexpr):
    """A block pointer chosen by a runtime branch, walked backwards by a while loop from
    `start` (negative offsets read padding), each block stored through a block pointer."""
    if n > 40:
        p = tl.make_block_ptr(x, shape=(n,), strides=(1,), offsets=(start,), block_shape=(B,),
                              order=(0,))
    else:
        p = tl.make_block_ptr(y, shape=(n,), strides=(1,), offsets=(start,), block_shape=(B,),
                              order=(0,))
    if FLAG:
        p = tl.advance(p, (3,))
    q = tl.make_block_ptr(out, shape=(4 * B,), strides=(1,), offsets=(0,), block_shape=(B,),
                          order=(0,))
    i = 0
    while i < 4:
        tl.store(q, tl.load(p, boundary_check=(0,), padding_option="zero") + i,
                 boundary_check=(0,))
        p = tl.advance(p, (-B,))
        q = tl.advance(q, (B,))
        i += 1


@tritonc.jit
def cube_copy(x, out, A, B, C, sa, sb, oa, ob, oc, BA: tl.constexpr, BB: tl.constexpr,
              BC: tl.constexpr):
    """A rank-3 block of x (A x B x C, strides sa, sb, 1) at (oa, ob, oc), NaN-padded, stored
    through a rank-3 block pointer into out (BA x BB x BC) checked on its first dimension."""
    src = tl.make_block_ptr(x, shape=(A, B, C), strides=(sa, sb, 1), offsets=(oa, ob, oc),
                            block_shape=(BA, BB, BC), order=(2, 1, 0))
    t = tl.load(src, boundary_check=(0, 1, 2), padding_option="nan")
    dst = tl.make_block_ptr(out, shape=(BA - 1, BB, BC), strides=(BB * BC, BC, 1),
                            offsets=(0, 0, 0), block_shape=(BA, BB, BC), order=(2, 1, 0))
    tl.store(dst, t, boundary_check=(0,))


@tritonc.jit
def block_matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, BM: tl.constexpr,
                 BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    pa = tl.make_block_ptr(a, shape=(M, K), strides=(sam, sak), offsets=(pid_m * BM, 0),
                           block_shape=(BM, BK), order=(1, 0))
    pb = tl.make_block_ptr(b, shape=(K, N), strides=(sbk, sbn), offsets=(0, pid_n * BN),
                           block_shape=(BK, BN), order=(0, 1))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(pa, boundary_check=(0, 1)), tl.load(pb, boundary_check=(0, 1)))
        pa = tl.advance(pa, (0, BK))
        pb = tl.advance(pb, (BK, 0))
    pc = tl.make_block_ptr(c, shape=(M, N), strides=(scm, 1), offsets=(pid_m * BM, pid_n * BN),
                           block_shape=(BM, BN), order=(1, 0))
    tl.store(pc, acc, boundary_check=(0, 1))


@tritonc.jit
def half_copy(a, b, n, start, B: tl.constexpr):
    """b[start:start + B] = a[start:start + B] where that lies in a's first half (0 past
    it), through block pointers checked on their one dimension."""
    src = tl.make_block_ptr(a, shape=(n // 2,), strides=(1,), offsets=(start,), block_shape=(B,),
                            order=(0,))
    dst = tl.make_block_ptr(b, shape=(n,), strides=(1,), offsets=(start,), block_shape=(B,),
                            order=(0,))
    tl.store(dst, tl.load(src, boundary_check=(0,), padding_option="zero"), boundary_check=(0,))


def _ttir(kernel, signature, constexprs, target="cuda:90"):
    text = tritonc.compile(kernel, signature, constexprs, target=target).asm["ttir"]
    return text


def _assert_rewritten(ttir: str) -> None:
    for name in ("tt.make_block_ptr", "tt.advance", "!tt.ptr<tensor<"):
        assert name not in ttir, name


TILE_SIG = {"x": "*fp32", "out": "*fp32", "M": "i32", "N": "i32", "sxm": "i32", "om": "i32",
            "on": "i32"}


@pytest.mark.parametrize("check, pad", [(2, "zero"), (2, "nan"), (1, "zero"), (0, "zero")])
def test_tile_copy(check, pad):
    bm, bn, m, n = 8, 16, 13, 21
    ttir = _ttir(tile_copy, TILE_SIG, {"BM": bm, "BN": bn, "CHECK": check, "PAD": pad})
    _assert_rewritten(ttir)
    rng = np.random.default_rng(check)
    x = rng.standard_normal((m, n + 3)).astype(np.float32)  # a row stride past the width
    offsets = [(0, 0), (-3, -5), (9, 14), (-2, 7), (10, -20)]
    if check != 2:  # rows must stay inside the tensor when only columns are checked
        offsets = [(om, on) for om, on in offsets if 0 <= om <= m - bm]
    if check == 0:
        offsets = [(om, on) for om, on in offsets if 0 <= on <= n - bn]
    assert offsets
    fill = np.nan if pad == "nan" else 0.0
    for om, on in offsets:
        out = np.full((bm, bn), 7.5e9, np.float32)
        evaluate(ttir, [x, out], [m, n, n + 3, om, on], (1, 1, 1))
        want = np.full((bm, bn), fill, np.float32)
        for i in range(bm):
            for j in range(bn):
                r, c = om + i, on + j
                inside_r = 0 <= r < m or check < 2
                if inside_r and 0 <= c < n:
                    want[i, j] = x[r, c]
        np.testing.assert_array_equal(out, want, err_msg=str((om, on)))


def test_column_sums_walk_down_a_loop():
    m, n, bm, bn = 37, 45, 8, 16
    ttir = _ttir(column_sums, {"x": "*fp32", "out": "*fp32", "M": "i32", "N": "i32",
                               "sxm": "i32", "sxn": "i32"}, {"BM": bm, "BN": bn})
    _assert_rewritten(ttir)
    assert "scf.for" in ttir
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, m)).astype(np.float32).T  # column-major: sxm 1, sxn m
    storage = np.ascontiguousarray(x.T)
    out = np.full(n + 5, np.nan, np.float32)
    evaluate(ttir, [storage, out], [m, n, 1, m], (-(-n // bn), 1, 1))
    np.testing.assert_allclose(out[:n], x.astype(np.float64).sum(axis=0), rtol=1e-5)
    assert np.isnan(out[n:]).all()  # nothing stored past the edge


@pytest.mark.parametrize("flag", [False, True])
@pytest.mark.parametrize("n, start", [(50, 30), (30, 20), (50, 2)])
def test_branches_and_a_while_loop_walking_backwards(flag, n, start):
    b = 8
    ttir = _ttir(backwards_and_branches, {"x": "*fp32", "y": "*fp32", "out": "*fp32",
                                          "n": "i32", "start": "i32"},
                 {"FLAG": flag, "B": b})
    _assert_rewritten(ttir)
    assert "scf.if" in ttir
    assert "scf.for" in ttir  # the while loop, rewritten after the block pointers were
    rng = np.random.default_rng(n + start)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(4 * b, np.nan, np.float32)
    evaluate(ttir, [x, y, out], [n, start], (1, 1, 1))
    src = x if n > 40 else y
    want = np.zeros(4 * b, np.float32)
    for i in range(4):
        for j in range(b):
            k = start + (3 if flag else 0) - i * b + j
            want[i * b + j] = (src[k] if 0 <= k < n else 0.0) + i
    np.testing.assert_array_equal(out, want)


def test_rank_three_with_nan_padding_and_a_checked_store():
    shape, block = (5, 6, 7), (4, 4, 8)
    ttir = _ttir(cube_copy, {"x": "*fp32", "out": "*fp32", **{k: "i32" for k in (
        "A", "B", "C", "sa", "sb", "oa", "ob", "oc")}},
        {"BA": block[0], "BB": block[1], "BC": block[2]})
    _assert_rewritten(ttir)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    for oa, ob, oc in [(0, 0, 0), (3, -2, 2), (-1, 4, -3)]:
        out = np.full(block, 1e30, np.float32)
        evaluate(ttir, [x, out], [*shape, 6 * 7, 7, oa, ob, oc], (1, 1, 1))
        want = np.full(block, np.nan, np.float32)
        for i, j, k in np.ndindex(*block):
            p = (oa + i, ob + j, oc + k)
            if all(0 <= p[d] < shape[d] for d in range(3)):
                want[i, j, k] = x[p]
        want[block[0] - 1] = 1e30  # the store's first dimension is one short
        np.testing.assert_array_equal(out, want)


MATMUL_SIG = {"a": "*fp16", "b": "*fp16", "c": "*fp32", **{k: "i32" for k in (
    "M", "N", "K", "sam", "sak", "sbk", "sbn", "scm")}}


def test_matmul_through_block_pointers():
    m, n, k = 37, 45, 70
    ttir = _ttir(block_matmul, MATMUL_SIG, {"BM": 16, "BN": 32, "BK": 16})
    _assert_rewritten(ttir)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = np.asfortranarray(rng.standard_normal((k, n)).astype(np.float16))
    c = np.full((m, n), np.nan, np.float32)
    evaluate(ttir, [a, np.ascontiguousarray(b.T), c], [m, n, k, k, 1, 1, k, n],
             (-(-m // 16), -(-n // 32), 1))
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("dtype", ["i1", "i16", "fp16"])
def test_booleans_move_as_bytes(dtype):
    """A bool block (`*i1`) is read and written through byte pointers, as the language's
    own bool loads are (an i1 vector access had LLVM assert on an invalid bitcast); the
    copy is exact for every dtype, zeros past the first half, and assembles for sm_80 and
    sm_90."""
    ttir = _ttir(half_copy, {"a": f"*{dtype}", "b": f"*{dtype}", "n": "i32", "start": "i32"},
                 {"B": 64})
    _assert_rewritten(ttir)
    kind = {"i1": np.bool_, "i16": np.int16, "fp16": np.float16}[dtype]
    rng = np.random.default_rng(5)
    n = 100
    a = (rng.integers(0, 2, n) if dtype != "fp16" else rng.standard_normal(n)).astype(kind)
    for start in (0, 30, 64):
        b = np.ones(n, kind) if dtype != "fp16" else np.full(n, np.nan, kind)
        evaluate(ttir, [a, b], [n, start], (1, 1, 1))
        want = b.copy()
        for i in range(start, min(start + 64, n)):
            want[i] = a[i] if i < n // 2 else 0
        np.testing.assert_array_equal(b, want)
    if dtype == "i1":
        assert '"tt.bitcast"' in ttir and "arith.extui" in ttir
    for arch in (80, 90):
        compiled = tritonc.compile(half_copy, {"a": f"*{dtype}", "b": f"*{dtype}", "n": "i32",
                                               "start": "i32"}, {"B": 64},
                                   target=f"cuda:{arch}")
        assert compiled.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.parametrize("arch", [80, 90])
def test_compiles_through_ptxas(arch):
    target = f"cuda:{arch}"
    cases = [
        (tile_copy, TILE_SIG, {"BM": 16, "BN": 32, "CHECK": 2, "PAD": "nan"}),
        (backwards_and_branches, {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32",
                                  "start": "i32"}, {"FLAG": True, "B": 64}),
        (block_matmul, MATMUL_SIG, {"BM": 64, "BN": 64, "BK": 32}),
    ]
    for kernel, sig, const in cases:
        compiled = tritonc.compile(kernel, sig, const, target=target)
        assert compiled.asm["cubin"][:4] == b"\x7fELF"
        assert compiled.metadata["ptxas"]["spill_stores"] == 0
