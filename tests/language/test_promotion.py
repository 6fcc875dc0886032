"""Implicit promotion follows Triton's rules, for tensors and Python scalars, in the
compiler (the TTIR result type) and in the interpreter (the values)."""

import itertools

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.language import dtypes as T
from tritonc.language.promotion import computation_type, integer_promote

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["fp16", "bf16", "fp32", "fp64"]

# (a, b, op) -> the type Triton computes in; written out by hand from Triton's rules
EXPECTED = {
    ("bf16", "int32", "+"): "fp32", ("bf16", "int8", "*"): "fp32", ("bf16", "fp16", "+"): "fp16",
    ("bf16", "bf16", "+"): "bf16", ("bf16", "bf16", "/"): "fp32", ("fp16", "int64", "-"): "fp16",
    ("fp16", "fp16", "%"): "fp32", ("fp16", "fp32", "+"): "fp32", ("bf16", "fp64", "*"): "fp64",
    ("fp8e5", "fp8e4nv", "+"): "fp16", ("fp8e5", "fp8e5", "+"): "fp8e5",
    ("fp8e4nv", "bf16", "+"): "fp32", ("fp8e4nv", "fp16", "*"): "fp16",
    ("int8", "uint8", "+"): "uint8", ("int16", "uint8", "+"): "int16",
    ("uint32", "int64", "+"): "int64", ("uint64", "int64", "+"): "uint64",
    ("int1", "int8", "+"): "int8", ("int1", "uint16", "&"): "uint16", ("int1", "int1", "|"): "int1",
    ("int32", "int32", "/"): "fp32", ("int64", "int8", "//"): "int64",
}


def test_computation_type_table():
    for (a, b, op), want in EXPECTED.items():
        div = op in ("/", "%", "//")
        got = computation_type(T.from_name(a), False, T.from_name(b), False, div)
        if op == "/" and got.is_int():
            got = T.float32
        assert got.name == want, (a, b, op)


def test_promotion_is_symmetric_and_closed():
    names = INTS + FLOATS + ["int1", "fp8e5", "fp8e4nv"]
    for a, b in itertools.product(names, names):
        ta, tb = T.from_name(a), T.from_name(b)
        try:
            got = computation_type(ta, False, tb, False)
        except TypeError:
            assert (ta.is_fp8() and tb.is_int()) or (tb.is_fp8() and ta.is_int())
            continue
        assert got == computation_type(tb, False, ta, False)
        assert got.name in {a, b, "fp16", "fp32"}
        if ta.is_int() and tb.is_int():
            assert got == integer_promote(ta, tb)


def test_python_scalars_are_weak_unless_of_a_higher_kind():
    i8, f16, bf16 = T.int8, T.float16, T.bfloat16
    assert computation_type(T.int32, True, i8, False) == i8          # int scalar, int tensor
    assert computation_type(i8, False, T.float32, True) == T.float32  # float scalar, int tensor
    assert computation_type(T.float32, True, f16, False) == f16      # float scalar, fp16 tensor
    assert computation_type(bf16, False, T.int32, True) == bf16
    assert computation_type(bf16, False, T.int32, True, True) == T.float32
    assert computation_type(T.int1, True, T.uint8, False) == T.uint8


def test_mixed_signedness_division_is_refused():
    with pytest.raises(TypeError, match="different signedness"):
        computation_type(T.uint32, False, T.int32, False, div_or_mod=True)


@triton.jit
def binop_kernel(X, Y, Z, n, OP: tl.constexpr, WANT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask)
    if OP == "+":
        z = x + y
    elif OP == "*":
        z = x * y
    elif OP == "-":
        z = x - y
    elif OP == "/":
        z = x / y
    elif OP == "&":
        z = x & y
    else:
        z = x | y
    tl.static_assert(z.dtype == WANT, "promoted to an unexpected type")
    tl.store(Z + offs, z, mask=mask)


TORCH = {"int1": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
         "int64": torch.int64, "uint8": torch.uint8, "fp16": torch.float16, "bf16": torch.bfloat16,
         "fp32": torch.float32, "fp64": torch.float64}
SIG = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
       "uint8": "u8", "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64"}
KERNEL_CASES = [(a, b, op) for (a, b, op) in EXPECTED
                if a in TORCH and b in TORCH and op in "+*-/&|"]


def _random(name: str, n: int, rng: np.random.Generator) -> torch.Tensor:
    if name == "int1":
        return torch.from_numpy(rng.integers(0, 2, n).astype(bool))
    if name.startswith(("int", "uint")):
        return torch.from_numpy(rng.integers(1, 100, n)).to(TORCH[name])
    return torch.from_numpy(rng.uniform(0.5, 4.0, n)).to(TORCH[name])


@pytest.mark.parametrize("a,b,op", KERNEL_CASES, ids=["-".join(c) for c in KERNEL_CASES])
def test_kernels_compute_in_the_promoted_type(a, b, op):
    want = EXPECTED[(a, b, op)]
    n, rng = 37, np.random.default_rng(hash((a, b, op)) % 2**32)
    x, y = _random(a, n, rng), _random(b, n, rng)
    z = torch.full((n,), -7, dtype=TORCH[want])
    const = {"OP": op, "WANT": T.from_name(want), "BLOCK": 64}
    interp = triton.JITFunction(binop_kernel.fn, interpret=True)
    interp[(1,)](x, y, z, n, **const)
    xs, ys = x.to(TORCH[want]).double(), y.to(TORCH[want]).double()
    ref = {"+": xs + ys, "*": xs * ys, "-": xs - ys, "/": xs / ys,
           "&": (x.to(TORCH[want]) & y.to(TORCH[want])).double() if want.startswith(("int", "uint"))
           else None,
           "|": (x.to(TORCH[want]) | y.to(TORCH[want])).double() if want.startswith(("int", "uint"))
           else None}[op]
    tol = {"fp16": 2e-3, "bf16": 2e-2}.get(want, 1e-6)
    torch.testing.assert_close(z.double(), ref.to(TORCH[want]).double(), rtol=tol, atol=tol)
    ttir = triton.compile(binop_kernel, {"X": f"*{SIG[a]}", "Y": f"*{SIG[b]}", "Z": f"*{SIG[want]}",
                                         "n": "i32"}, const, target="ttir").asm["ttir"]
    assert "tt.store" in ttir


@triton.jit(interpret=True)
def scalar_kernel(X, Z, S: tl.constexpr, WANT: tl.constexpr):
    x = tl.load(X + tl.arange(0, 16))
    z = x + S
    tl.static_assert(z.dtype == WANT, "promoted to an unexpected type")
    tl.store(Z + tl.arange(0, 16), z)


@pytest.mark.parametrize("dtype,scalar,want", [
    (torch.int8, 3, "int8"), (torch.int8, 2.5, "fp32"), (torch.float16, 2**40, "fp16"),
    (torch.bfloat16, 7, "bf16"), (torch.uint8, True, "uint8"), (torch.int16, 1e-300, "fp64")])
def test_scalar_operands(dtype, scalar, want):
    x = torch.arange(1, 17).to(dtype)
    z = torch.full((16,), -1, dtype=TORCH.get(want, torch.float64))
    scalar_kernel[(1,)](x, z, S=scalar, WANT=T.from_name(want))
    torch.testing.assert_close(z.double(), (x.double() + scalar).to(z.dtype).double(),
                               rtol=2e-2, atol=0)


@pytest.mark.parametrize("dtype,scalar,message", [
    (torch.int8, 300, "out of range"), (torch.int32, 2**40, "out of range"),
    (torch.uint8, -1, "negative scalar")])
def test_scalars_that_do_not_fit_are_errors(dtype, scalar, message):
    x = torch.arange(16).to(dtype)
    z = torch.empty(16, dtype=dtype)
    with pytest.raises(triton.TritonError, match=message):
        scalar_kernel[(1,)](x, z, S=scalar, WANT=T.from_name("int8"))


@triton.jit(interpret=True)
def shift_kernel(X, S, Z):
    offs = tl.arange(0, 32)
    tl.store(Z + offs, tl.load(X + offs) >> tl.load(S + offs))


def test_signed_shift_by_unsigned_is_arithmetic():
    rng = np.random.default_rng(11)
    x = rng.integers(-(2**62), 2**62, 32, dtype=np.int64)
    s = rng.integers(0, 63, 32).astype(np.uint64)
    z = np.zeros(32, np.uint64)
    shift_kernel[(1,)](x, s, z)
    np.testing.assert_array_equal(z.view(np.int64), x >> s.astype(np.int64))
