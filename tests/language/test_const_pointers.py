"""`tl.const`: kernel parameters that point to constant data.

Loads through const pointers (and through pointers, blocks of pointers and block
pointers computed from them) are checked in the interpreter against numpy, with random
inputs and outputs poisoned beyond what the kernel writes. Stores and atomics through
them, and runtime control flow that would mix a const and a plain pointer, are
compilation errors at the user's line, compiled and interpreted alike. The generated
code is the same as without the annotation, and a const-pointer kernel passes ptxas.
"""

from __future__ import annotations

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.compiler.frontend import parse_type

POISON = -7777.0
RNG = np.random.default_rng(20240613)


def interpreted(kernel: triton.JITFunction) -> triton.JITFunction:
    """The same function, run by the interpreter."""
    return triton.jit(interpret=True)(kernel.fn)


def poisoned(n: int, dtype=np.float32) -> np.ndarray:
    return np.full(n, POISON, dtype=dtype)


# -- kernels that only load through const pointers -----------------------------------------

@triton.jit
def axpy(x_ptr: tl.const, y_ptr: tl.const, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def axpy_plain(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def _load_row(row_ptr, cols, n_cols):
    return tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0)


@triton.jit
def row_sums(a_ptr: tl.const, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    # a pointer computed from a const pointer, handed to a function that loads through it
    row = tl.program_id(0)
    total = tl.sum(_load_row(a_ptr + row * stride, tl.arange(0, BLOCK), n_cols), axis=0)
    tl.store(out_ptr + row, total)


@triton.jit
def strided_sum(x_ptr: tl.const, out_ptr, n_chunks, BLOCK: tl.constexpr):
    # a const pointer carried through a runtime loop keeps its type
    offs = tl.arange(0, BLOCK)
    p = x_ptr
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in range(n_chunks):
        acc += tl.load(p + offs)
        p += BLOCK
    tl.store(out_ptr + offs, acc)


@triton.jit
def block_copy(a_ptr: tl.const, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # a block pointer made from a const pointer is loaded through like any other
    src = tl.make_block_ptr(a_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, tile)


@triton.jit
def pick_source(a_ptr: tl.const, b_ptr: tl.const, out_ptr, use_b, BLOCK: tl.constexpr):
    # mixing two const pointers is fine: they have the same type
    offs = tl.arange(0, BLOCK)
    src = b_ptr if use_b else a_ptr
    tl.store(out_ptr + offs, tl.load(src + offs))


@triton.jit
def scale_const_scalar(x_ptr: tl.const, out_ptr, k: tl.const, BLOCK: tl.constexpr):
    # the annotation on a scalar parameter has no effect
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * k)


def test_axpy_against_numpy() -> None:
    n, block = 1000, 128
    x = RNG.standard_normal(n).astype(np.float32)
    y = RNG.standard_normal(n).astype(np.float32)
    out = poisoned(n + 24)
    interpreted(axpy)[(triton.cdiv(n, block),)](x, y, out, n, 1.5, BLOCK=block)
    np.testing.assert_allclose(out[:n], 1.5 * x + y, rtol=1e-6)
    assert np.all(out[n:] == POISON)


def test_row_sums_against_numpy() -> None:
    rows, cols, stride = 7, 50, 64
    a = RNG.standard_normal((rows, stride)).astype(np.float32)
    out = poisoned(rows + 3)
    interpreted(row_sums)[(rows,)](a, out, cols, stride, BLOCK=64)
    np.testing.assert_allclose(out[:rows], a[:, :cols].sum(axis=1), rtol=1e-5)
    assert np.all(out[rows:] == POISON)


def test_strided_sum_against_numpy() -> None:
    chunks, block = 5, 32
    x = RNG.standard_normal(chunks * block).astype(np.float32)
    out = poisoned(block + 8)
    interpreted(strided_sum)[(1,)](x, out, chunks, BLOCK=block)
    np.testing.assert_allclose(out[:block], x.reshape(chunks, block).sum(axis=0), rtol=1e-5)
    assert np.all(out[block:] == POISON)


def test_block_pointer_from_const_base_against_numpy() -> None:
    m, n, bm, bn = 5, 12, 8, 16
    a = RNG.standard_normal((m, n)).astype(np.float32)
    out = poisoned(bm * bn + 4)
    interpreted(block_copy)[(1,)](a, out, m, n, BM=bm, BN=bn)
    expect = np.zeros((bm, bn), dtype=np.float32)
    expect[:m, :n] = a
    np.testing.assert_array_equal(out[:bm * bn].reshape(bm, bn), expect)
    assert np.all(out[bm * bn:] == POISON)


@pytest.mark.parametrize("use_b", [False, True])
def test_two_const_pointers_mix(use_b: bool) -> None:
    a = RNG.standard_normal(16).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    out = poisoned(16)
    interpreted(pick_source)[(1,)](a, b, out, use_b, BLOCK=16)
    np.testing.assert_array_equal(out, b if use_b else a)
    triton.compile(pick_source, {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32",
                                 "use_b": "i1"}, {"BLOCK": 16}, target="ttir")


def test_const_on_a_scalar_has_no_effect() -> None:
    x = RNG.integers(-100, 100, 32).astype(np.int32)
    out = poisoned(32, np.int32)
    interpreted(scale_const_scalar)[(1,)](x, out, 3, BLOCK=32)
    np.testing.assert_array_equal(out, 3 * x)


# -- errors ---------------------------------------------------------------------------------

@triton.jit
def store_to_const(in_ptr: tl.const, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(in_ptr + offs, tl.load(in_ptr + offs) + 1.0)


@triton.jit
def store_through_alias(in_ptr: tl.const, out_ptr, PICK_CONST: tl.constexpr):
    dst = out_ptr
    if PICK_CONST:
        dst = in_ptr
    tl.store(dst, tl.load(in_ptr))


@triton.jit
def atomic_to_const(in_ptr: tl.const):
    tl.atomic_add(in_ptr, 1.0)


@triton.jit
def store_through_const_block_ptr(in_ptr: tl.const, M, N, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(in_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(p, tl.zeros([BM, BN], dtype=tl.float32), boundary_check=(0, 1))


@triton.jit
def mixed_by_if(in_ptr: tl.const, out_ptr, flag):
    if flag:
        dst = in_ptr
    else:
        dst = out_ptr
    tl.store(out_ptr, tl.load(dst))


@triton.jit
def mixed_by_ternary(in_ptr: tl.const, out_ptr, flag):
    src = in_ptr if flag else out_ptr
    tl.store(out_ptr, tl.load(src))


@triton.jit
def _either(a, b, flag):
    if flag:
        return a
    return b


@triton.jit
def mixed_by_returns(in_ptr: tl.const, out_ptr, flag):
    tl.store(out_ptr, tl.load(_either(in_ptr, out_ptr, flag)))


@triton.jit
def mixed_by_loop(in_ptr: tl.const, out_ptr, n):
    p = out_ptr
    for _ in range(n):
        p = in_ptr
    tl.store(out_ptr, tl.load(p))


def _line_of(kernel: triton.JITFunction, text: str) -> int:
    """The file line of the first line of `kernel` containing `text`."""
    local = next(i for i, line in enumerate(kernel.src.splitlines()) if text in line)
    return kernel.def_line + local


SIG = {"in_ptr": "*fp32", "out_ptr": "*fp32", "flag": "i1", "n": "i32", "M": "i32", "N": "i32"}

ERRORS = [
    (store_to_const, {"BLOCK": 16}, "tl.store", "Cannot store to a constant pointer"),
    (store_through_alias, {"PICK_CONST": True}, "tl.store", "Cannot store to a constant pointer"),
    (atomic_to_const, {}, "tl.atomic_add", "Cannot store to a constant pointer"),
    (store_through_const_block_ptr, {"BM": 8, "BN": 8}, "tl.store",
     "Cannot store to a constant pointer"),
    (mixed_by_if, {}, "if flag", "Mismatched type for dst between the `if` branch (*kfp32) "
     "and the `else` branch (*fp32); one is a pointer to constant data"),
    (mixed_by_ternary, {}, "src =", "Ternary expression with dynamic condition has "
     "inconsistent types *kfp32 and *fp32; one is a pointer to constant data"),
    (mixed_by_returns, {}, "_either(", "in call to _either: Inconsistent return types: the "
     "branches return *kfp32 and *fp32; one is a pointer to constant data"),
    (mixed_by_loop, {}, "for _", "loop-carried variable 'p' has type *fp32 before the loop but "
     "*kfp32 inside it"),
]


@pytest.mark.parametrize("kernel, constexprs, where, message", ERRORS,
                         ids=[e[0].__name__ for e in ERRORS])
def test_compile_errors(kernel, constexprs: dict, where: str, message: str) -> None:
    signature = {p.name: SIG[p.name] for p in kernel.params if not p.is_constexpr}
    with pytest.raises(triton.CompilationError) as info:
        triton.compile(kernel, signature, constexprs, target="ttir")
    err = info.value
    assert message in err.error_message
    assert err.filename == __file__
    assert err.lineno == _line_of(kernel, where)
    assert where in err.source_line


def test_store_to_const_is_an_error_in_the_interpreter() -> None:
    x = RNG.standard_normal(16).astype(np.float32)
    before = x.copy()
    with pytest.raises(triton.CompilationError) as info:
        interpreted(store_to_const)[(1,)](x, BLOCK=16)
    assert "Cannot store to a constant pointer" in info.value.error_message
    assert info.value.lineno == _line_of(store_to_const, "tl.store")
    np.testing.assert_array_equal(x, before)


def test_constexpr_choice_of_the_plain_pointer_compiles_and_runs() -> None:
    x = RNG.standard_normal(1).astype(np.float32)
    out = poisoned(1)
    interpreted(store_through_alias)[(1,)](x, out, PICK_CONST=False)
    np.testing.assert_array_equal(out, x)
    triton.compile(store_through_alias, {"in_ptr": "*fp32", "out_ptr": "*fp32"},
                   {"PICK_CONST": False}, target="ttir")


def test_signature_names_const_pointers() -> None:
    # `*k` in a signature makes a pointer const without any annotation
    @triton.jit
    def store_plain(p):
        tl.store(p, 1.0)

    triton.compile(store_plain, {"p": "*fp32"}, {}, target="ttir")
    with pytest.raises(triton.CompilationError, match="Cannot store to a constant pointer"):
        triton.compile(store_plain, {"p": "*kfp32"}, {}, target="ttir")


def test_annotation_read_as_object_and_as_text() -> None:
    def kernel(a, b, c):
        pass

    kernel.__annotations__ = {"a": tl.const, "b": "tl.const", "c": tl.constexpr}
    params = triton.jit(kernel).params
    assert [(p.is_const, p.is_constexpr) for p in params] == [(True, False), (True, False),
                                                              (False, True)]


def test_const_pointer_type() -> None:
    plain, const = tl.pointer_type(tl.float32), tl.pointer_type(tl.float32, const=True)
    assert const != plain and const.is_const() and not plain.is_const()
    assert const == tl.pointer_type(tl.float32, 1, True)
    assert hash(const) == hash(tl.pointer_type(tl.float32, const=True))
    assert str(const) == "*kfp32" and parse_type(str(const)) == const
    assert const.with_const(False) == plain
    assert not tl.float32.is_const()


# -- generated code ------------------------------------------------------------------------

AXPY_SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32"}


def test_constness_does_not_change_the_ttir() -> None:
    const = triton.compile(axpy, AXPY_SIG, {"BLOCK": 128}, target="ttir").asm["ttir"]
    plain = triton.compile(axpy_plain, AXPY_SIG, {"BLOCK": 128}, target="ttir").asm["ttir"]
    assert const.replace("@axpy(", "@axpy_plain(") == plain
    assert "tt.bitcast" not in const


def test_casting_constness_away_emits_nothing() -> None:
    @triton.jit
    def cast_away(in_ptr: tl.const):
        tl.store(in_ptr.to(tl.pointer_type(tl.float32)), 2.0)

    ttir = triton.compile(cast_away, {"in_ptr": "*fp32"}, {}, target="ttir").asm["ttir"]
    assert "tt.store" in ttir and "tt.bitcast" not in ttir


@pytest.mark.parametrize("kernel, signature, constexprs", [
    (axpy, AXPY_SIG, {"BLOCK": 128}),
    (strided_sum, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_chunks": "i32"}, {"BLOCK": 64}),
    (block_copy, {"a_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32"},
     {"BM": 16, "BN": 32}),
], ids=["axpy", "strided_sum", "block_copy"])
def test_compiles_through_ptxas(kernel, signature: dict, constexprs: dict) -> None:
    compiled = triton.compile(kernel, signature, constexprs, target="cuda:90")
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    assert "ld.global" in compiled.asm["ptx"]


@pytest.mark.gpu
def test_axpy_on_the_gpu() -> None:
    import torch

    n = 3000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.full((n + 32,), POISON, device="cuda")
    axpy[(triton.cdiv(n, 256),)](x, y, out, n, -0.5, BLOCK=256)
    torch.testing.assert_close(out[:n], -0.5 * x + y)
    assert torch.all(out[n:] == POISON)
