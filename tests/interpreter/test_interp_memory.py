"""Pointers and memory: loads, stores, masks, bounds checks, atomics, block pointers."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch
from interp_support import new_builder, op, ptr, rng, ty

import tritonc.language.dtypes as tl
from tritonc.backends.interpreter import InterpreterMemoryError


def _pointers(b, base, offsets, elt="fp32"):
    """base + offsets, built as the semantic layer would (splat, then addptr)."""
    n = offsets.size
    p = op(b, "tt.splat", [base], ptr(elt, n))
    return op(b, "tt.addptr", [p, offsets.astype(np.int32)], ptr(elt, n))


def test_load_add_store_with_mask():
    b, mem = new_builder()
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    px, po = mem.register(x, "x_ptr"), mem.register(out, "out_ptr")
    offs = np.arange(16)
    mask = op(b, "arith.cmpi", [offs.astype(np.int32), np.full(16, 10, np.int32)],
              ty("int1", 16), predicate="slt")
    v = op(b, "tt.load", [_pointers(b, px, offs), mask, None], ty("fp32", 16))
    assert np.all(v[10:] == 0)
    other = np.full(16, -1.0, np.float32)
    w = op(b, "tt.load", [_pointers(b, px, offs), mask, other], ty("fp32", 16))
    assert np.all(w[10:] == -1)
    b.create("tt.store", [_pointers(b, po, offs), v * 2, mask], [])
    np.testing.assert_array_equal(out, x * 2)


def test_out_of_bounds_load_names_argument_and_offset():
    b, mem = new_builder()
    mem.register(np.zeros(4, np.float32), "a_ptr")
    px = mem.register(np.zeros(8, np.float32), "x_ptr")
    with pytest.raises(InterpreterMemoryError, match=r"'x_ptr'.*byte offset 32 \(element 8"):
        op(b, "tt.load", [_pointers(b, px, np.arange(9)), None, None], ty("fp32", 9))
    with pytest.raises(InterpreterMemoryError, match=r"'x_ptr'.*byte offset -4.*32 bytes"):
        op(b, "tt.load", [_pointers(b, px, np.arange(-1, 3)), None, None], ty("fp32", 4))
    with pytest.raises(InterpreterMemoryError, match="'x_ptr'"):
        b.create("tt.store", [_pointers(b, px, np.arange(100, 104)), np.zeros(4, np.float32),
                              None], [])
    # the same lanes masked off are fine
    mask = np.arange(9) < 8
    v = op(b, "tt.load", [_pointers(b, px, np.arange(9)), mask, None], ty("fp32", 9))
    assert v.shape == (9,)


def test_null_and_misaligned_pointers():
    b, mem = new_builder()
    px = mem.register(np.zeros(8, np.int32), "x_ptr")
    with pytest.raises(InterpreterMemoryError, match="no argument"):
        op(b, "tt.load", [np.zeros(4, np.int64), None, None], ty("int32", 4))
    as_bytes = op(b, "tt.bitcast", [px], ptr("int8"))
    odd = op(b, "tt.addptr", [as_bytes, np.array(1, np.int32)], ptr("int8"))
    odd32 = op(b, "tt.bitcast", [odd], ptr("int32"))
    with pytest.raises(InterpreterMemoryError, match="misaligned"):
        op(b, "tt.load", [odd32, None, None], ty("int32"))
    assert op(b, "tt.load", [odd, None, None], ty("int8")) == 0


def test_scalar_pointer_load_store_and_bool_values():
    b, mem = new_builder()
    y = np.array([5, 6], np.int64)
    p = mem.register(y, "y")
    p1 = op(b, "tt.addptr", [p, np.array(1, np.int32)], ptr("int64"))
    assert op(b, "tt.load", [p1, None, None], ty("int64")) == 6
    b.create("tt.store", [p1, np.array(9, np.int64), None], [])
    assert y[1] == 9
    flags = np.array([0, 1, 2], np.int8)
    pf = mem.register(flags, "flags")
    v = op(b, "tt.load", [_pointers(b, pf, np.arange(3), "int8"), None, None], ty("int8", 3))
    assert list(v) == [0, 1, 2]


def test_torch_strided_and_bf16_buffers():
    b, mem = new_builder()
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4).t()  # not contiguous
    p = mem.register(t.numpy(), "t")
    # element (i, j) of the transposed view sits at i * 1 + j * 4
    offs = np.array([0 * 1 + 1 * 4, 3 * 1 + 2 * 4])
    v = op(b, "tt.load", [_pointers(b, p, offs), None, None], ty("fp32", 2))
    np.testing.assert_array_equal(v, [t[0, 1].item(), t[3, 2].item()])
    bf = torch.tensor([1.5, -2.0, 3.0], dtype=torch.bfloat16)
    pb = mem.register(bf.view(torch.int16).numpy(), "bf")
    raw = op(b, "tt.load", [_pointers(b, pb, np.arange(3), "bf16"), None, None], ty("bf16", 3))
    f = op(b, "arith.extf", [raw], ty("fp32", 3))
    np.testing.assert_array_equal(f, [1.5, -2.0, 3.0])
    b.create("tt.store", [_pointers(b, pb, np.arange(3), "bf16"),
                          op(b, "arith.truncf", [f * 2], ty("bf16", 3)), None], [])
    assert bf.tolist() == [3.0, -4.0, 6.0]


def test_duplicate_store_last_lane_wins():
    b, mem = new_builder()
    out = np.zeros(2, np.int32)
    p = mem.register(out, "out")
    b.create("tt.store", [_pointers(b, p, np.array([0, 1, 0, 0]), "int32"),
                          np.array([1, 2, 3, 4], np.int32), None], [])
    assert list(out) == [4, 2]


def _sequential_atomic(mem0, idx, vals, fn, mask=None):
    mem = mem0.copy()
    old = np.zeros(len(idx), mem.dtype)
    for k, (i, v) in enumerate(zip(idx, vals, strict=True)):
        if mask is not None and not mask[k]:
            continue
        old[k] = mem[i]
        mem[i] = fn(mem[i], v)
    return mem, old


@pytest.mark.parametrize("kind,dtype,fn", [
    ("add", np.int32, lambda a, v: a + v),
    ("fadd", np.float32, lambda a, v: np.float32(a + v)),
    ("max", np.int32, max), ("min", np.int32, min),
    ("umax", np.uint32, max), ("fadd", np.float64, lambda a, v: a + v),
    ("and", np.int32, lambda a, v: a & v), ("or", np.int32, lambda a, v: a | v),
    ("xor", np.int64, lambda a, v: a ^ v), ("xchg", np.float32, lambda a, v: v),
])
def test_atomic_rmw_with_duplicate_addresses(kind, dtype, fn):
    b, mem = new_builder()
    g = rng(8)
    init = (g.integers(-50, 50, 8) if dtype != np.uint32 else g.integers(0, 99, 8)).astype(dtype)
    buf = init.copy()
    p = mem.register(buf, "acc")
    idx = g.integers(0, 8, 64)
    lo = 0 if dtype == np.uint32 else -100
    vals = g.integers(lo, 999, 64).astype(dtype)
    if np.dtype(dtype).kind == "f":
        vals = vals + np.asarray(g.random(64), dtype)
    mask = g.random(64) < 0.8
    name = {np.int32: "int32", np.float32: "fp32", np.uint32: "uint32", np.float64: "fp64",
            np.int64: "int64"}[dtype]
    ptrs = _pointers(b, p, idx, name)
    old = op(b, "tt.atomic_rmw", [ptrs, vals, mask], ty(name, 64), kind=kind, sem="acq_rel",
             scope="gpu")
    want_mem, want_old = _sequential_atomic(init, idx, vals, fn, mask)
    np.testing.assert_array_equal(buf, want_mem)
    np.testing.assert_array_equal(old, want_old)


def test_atomic_add_all_lanes_one_address_and_fp16():
    b, mem = new_builder()
    acc = np.zeros(1, np.float16)
    p = mem.register(acc, "acc")
    ptrs = _pointers(b, p, np.zeros(100, np.int64), "fp16")
    old = op(b, "tt.atomic_rmw", [ptrs, np.ones(100, np.float16), None], ty("fp16", 100),
             kind="fadd")
    assert acc[0] == 100 and list(old[:3]) == [0, 1, 2]


def test_atomic_cas_scalar_and_tensor():
    b, mem = new_builder()
    lock = np.array([0, 7], np.int32)
    p = mem.register(lock, "lock")
    old = op(b, "tt.atomic_cas", [p, np.array(0, np.int32), np.array(1, np.int32)], ty("int32"))
    assert old == 0 and lock[0] == 1
    old = op(b, "tt.atomic_cas", [p, np.array(0, np.int32), np.array(5, np.int32)], ty("int32"))
    assert old == 1 and lock[0] == 1
    ptrs = _pointers(b, p, np.array([1, 1, 1]), "int32")
    olds = op(b, "tt.atomic_cas", [ptrs, np.array([7, 7, 8], np.int32),
                                   np.array([8, 9, 10], np.int32)], ty("int32", 3))
    assert list(olds) == [7, 8, 8] and lock[1] == 10


def _block_ptr_type(elt, *shape):
    return tl.pointer_type(tl.block_type(tl.from_name(elt), shape))


def test_block_pointer_boundary_check_and_padding():
    b, mem = new_builder()
    a = np.arange(5 * 6, dtype=np.float32).reshape(5, 6)
    p = mem.register(a, "a")
    i64 = lambda v: np.array(v, np.int64)  # noqa: E731
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    bp = op(b, "tt.make_block_ptr", [p, i64(5), i64(6), i64(6), i64(1), i32(3), i32(4)],
            _block_ptr_type("fp32", 4, 4), order=[1, 0])
    v = op(b, "tt.load", [bp, None, None], ty("fp32", 4, 4), boundary_check=[0, 1],
           padding="zero")
    want = np.zeros((4, 4), np.float32)
    want[:2, :2] = a[3:5, 4:6]
    np.testing.assert_array_equal(v, want)
    nan = op(b, "tt.load", [bp, None, None], ty("fp32", 4, 4), boundary_check=[0, 1],
             padding="nan")
    assert np.isnan(nan[3, 3]) and nan[0, 0] == a[3, 4]
    with pytest.raises(InterpreterMemoryError, match="'a'"):
        op(b, "tt.load", [bp, None, None], ty("fp32", 4, 4), boundary_check=[1])
    back = op(b, "tt.advance", [bp, i32(-3), i32(-4)], _block_ptr_type("fp32", 4, 4))
    np.testing.assert_array_equal(op(b, "tt.load", [back, None, None], ty("fp32", 4, 4)),
                                  a[:4, :4])
    b.create("tt.store", [bp, np.full((4, 4), -1, np.float32), None], [],
             {"boundary_check": [0, 1]})
    assert np.all(a[3:, 4:] == -1) and a[2, 4] == 16


def test_tensor_descriptor_out_of_bounds():
    b, mem = new_builder()
    a = np.arange(6 * 8, dtype=np.int32).reshape(6, 8)
    p = mem.register(a, "a")
    desc_ty = tl.tensor_descriptor_type(tl.block_type(tl.int32, [4, 4]))
    d = op(b, "tt.make_tensor_descriptor",
           [p, np.array(6, np.int32), np.array(8, np.int32), np.array(8, np.int64),
            np.array(1, np.int64)], desc_ty)
    v = op(b, "tt.descriptor_load", [d, np.array(4, np.int32), np.array(-2, np.int32)],
           ty("int32", 4, 4))
    want = np.zeros((4, 4), np.int32)
    want[:2, 2:] = a[4:6, 0:2]
    np.testing.assert_array_equal(v, want)
    before = a.copy()
    b.create("tt.descriptor_store", [d, np.full((4, 4), 99, np.int32), np.array(5, np.int32),
                                     np.array(6, np.int32)], [])
    changed = a != before
    assert changed.sum() == 2 and np.all(a[5, 6:] == 99)


def test_speed_one_million_element_add(capsys):
    """1M floats added in 1024 programs of 1024 lanes (timing printed, not asserted)."""
    b, mem = new_builder()
    n, block = 1 << 20, 1024
    g = rng(9)
    x, y = g.random(n, dtype=np.float32), g.random(n, dtype=np.float32)
    out = np.empty(n, np.float32)
    px, py, po = mem.register(x, "x"), mem.register(y, "y"), mem.register(out, "out")
    i32, f32 = ty("int32"), ty("fp32", block)
    pb, ib = ptr("fp32", block), ty("int32", block)
    nb = b.constant(n, i32)
    size = b.constant(block, i32)
    calls = 0
    start = time.perf_counter()
    for pid in range(n // block):
        b.set_grid((pid,), (n // block,))
        (p,) = b.create("tt.get_program_id", [], [i32], {"axis": 0})
        (base,) = b.create("arith.muli", [p, size], [i32])
        (r,) = b.create("tt.make_range", [], [ib], {"start": 0, "end": block})
        (sb,) = b.create("tt.splat", [base], [ib])
        (offs,) = b.create("arith.addi", [sb, r], [ib])
        (nbb,) = b.create("tt.splat", [nb], [ib])
        (mask,) = b.create("arith.cmpi", [offs, nbb], [ty("int1", block)], {"predicate": "slt"})
        ptrs = []
        for arg in (px, py, po):
            (s,) = b.create("tt.splat", [arg], [pb])
            (a,) = b.create("tt.addptr", [s, offs], [pb])
            ptrs.append(a)
        (vx,) = b.create("tt.load", [ptrs[0], mask, None], [f32])
        (vy,) = b.create("tt.load", [ptrs[1], mask, None], [f32])
        (vs,) = b.create("arith.addf", [vx, vy], [f32])
        b.create("tt.store", [ptrs[2], vs, mask], [])
        calls += 16
    elapsed = time.perf_counter() - start
    np.testing.assert_array_equal(out, x + y)
    with capsys.disabled():
        print(f"\n[interpreter speed] 1M-element add, 1024 programs x 1024 lanes, {calls} ops: "
              f"{elapsed * 1e3:.0f} ms ({elapsed / calls * 1e6:.1f} us/op)")


def test_negative_strides_and_signed_offsets():
    b, mem = new_builder()
    base = np.arange(10, dtype=np.int32)
    rev = base[::-1]  # first element is the last in memory
    p = mem.register(rev, "rev")
    offs = -np.arange(10)  # element i of rev sits i elements *before* rev[0]
    v = op(b, "tt.load", [_pointers(b, p, offs, "int32"), None, None], ty("int32", 10))
    np.testing.assert_array_equal(v, rev[0] - np.arange(10))
    with pytest.raises(InterpreterMemoryError, match="'rev'"):
        op(b, "tt.load", [_pointers(b, p, np.array([1]), "int32"), None, None], ty("int32", 1))
    # an unsigned offset holding 0xffffffff steps back one element, as the GPU's GEP does
    q = op(b, "tt.addptr", [p, np.array(2**32 - 1, np.uint32)], ptr("int32"))
    assert op(b, "tt.load", [q, None, None], ty("int32")) == 8


def test_bf16_atomic_fadd_accumulates_in_order():
    b, mem = new_builder()
    acc = np.zeros(2, np.uint16)
    p = mem.register(acc, "acc")
    ones = b.constant(1.0, ty("bf16", 300))
    ptrs = _pointers(b, p, np.zeros(300, np.int64), "bf16")
    op(b, "tt.atomic_rmw", [ptrs, ones, None], ty("bf16", 300), kind="fadd")
    # bf16 has 8 significant bits: counting by ones sticks at 256
    assert acc[0] == 0x4380 and acc[1] == 0


# -- pointers the kernel loads: a table of data_ptr()s -------------------------------------
import tritonc  # noqa: E402
import tritonc.language as language  # noqa: E402


@tritonc.jit(interpret=True)
def scale_each_group(table, sizes, out_table, n_groups, BLOCK: language.constexpr):
    """out_g = 2 * x_g + g for groups g of sizes[g] elements, their addresses in tables."""
    g = language.program_id(0)
    if g < n_groups:
        x = language.load(table + g).to(language.pointer_type(language.float32))
        y = language.load(out_table + g).to(language.pointer_type(language.float32))
        n = language.load(sizes + g)
        for start in range(0, n, BLOCK):
            offs = start + language.arange(0, BLOCK)
            v = language.load(x + offs, mask=offs < n)
            language.store(y + offs, 2 * v + g, mask=offs < n)


def test_loads_and_stores_through_addresses_read_from_memory():
    gen = torch.Generator().manual_seed(11)
    xs = [torch.randn(n, generator=gen) for n in (37, 100, 5)]
    outs = [torch.full_like(x, float("nan")) for x in xs]
    table = torch.tensor([x.data_ptr() for x in xs], dtype=torch.int64)
    out_table = torch.tensor([o.data_ptr() for o in outs], dtype=torch.int64)
    sizes = torch.tensor([x.numel() for x in xs], dtype=torch.int32)
    scale_each_group[(4,)](table, sizes, out_table, 3, BLOCK=32)
    for g, (x, o) in enumerate(zip(xs, outs)):
        torch.testing.assert_close(o.double(), 2 * x.double() + g)


def test_addresses_of_numpy_arrays_in_a_table():
    """numpy arrays of numbers are not tracked by the garbage collector: the interpreter
    finds those the table points into through the caller's local variables, a list
    and a view's base."""
    rng = np.random.default_rng(12)
    xs = [rng.standard_normal(n).astype(np.float32) for n in (37, 100)]
    held = [rng.standard_normal(64).astype(np.float32)]
    view = held[0][3:]
    outs = [np.full(37, np.nan, np.float32), np.full(100, np.nan, np.float32),
            np.full(61, np.nan, np.float32)]
    table = np.array([xs[0].ctypes.data, xs[1].ctypes.data, view.ctypes.data], np.int64)
    out_table = np.array([o.ctypes.data for o in outs], np.int64)
    sizes = np.array([37, 100, 61], np.int32)
    scale_each_group[(3,)](table, sizes, out_table, 3, BLOCK=32)
    for g, (x, o) in enumerate(zip([*xs, view], outs)):
        np.testing.assert_allclose(o, 2 * x.astype(np.float64) + g, rtol=1e-6)


def test_an_access_past_a_loaded_address_is_out_of_bounds_of_its_tensor():
    x = torch.randn(10)
    table = torch.tensor([x.data_ptr()], dtype=torch.int64)
    out = torch.zeros(10)
    with pytest.raises(InterpreterMemoryError, match="out of bounds of argument 'tensor at"):
        scale_each_group[(1,)](table, torch.tensor([12], dtype=torch.int32),
                               torch.tensor([out.data_ptr()], dtype=torch.int64), 1, BLOCK=16)


def test_an_address_in_no_live_tensor_is_an_error():
    table = torch.tensor([64], dtype=torch.int64)
    out = torch.zeros(4)
    with pytest.raises(InterpreterMemoryError, match="in no argument's buffer"):
        scale_each_group[(1,)](table, torch.tensor([4], dtype=torch.int32),
                               torch.tensor([out.data_ptr()], dtype=torch.int64), 1, BLOCK=16)
