"""Kernel parameters annotated with a language dtype (`v: tl.int8`) are scalars of it.

The annotation is read as the dtype object, as text (this module uses
`from __future__ import annotations`, so every annotation here is text) and from a
`__annotations__` dict set by a decorator. The runtime's specialization names the
annotated type; the TTIR of that specialization takes the argument with that type
under its own name (`%v: i8`) and converts it where it is used; the code passes ptxas.
The interpreter converts the value to the type: stored results are checked against
numpy's conversions of random values. Unknown annotations type nothing. An unsigned
offset (an annotated `tl.uint8`, or a block of them) is zero-extended before `tt.addptr`,
so offsets beyond 127 are not read as negative.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.compiler.compiler import compile as compile_kernel
from tritonc.runtime import gpu_launch
from tritonc.runtime.scalar_annotations import annotation_type, check_value

RNG = np.random.default_rng(20250711)
INT_TYPES = [f"{'' if signed else 'u'}int{bits}" for signed in (True, False)
             for bits in (8, 16, 32, 64)] + ["int1"]
FLOAT_TYPES = ["float16", "bfloat16", "float32", "float64"]


def annotated(fn, **types):
    """`fn` with the annotations `types` set on it (before @jit reads them)."""
    fn.__annotations__ = dict(types)
    return fn


def store_kernel(type_text):
    """A kernel storing the annotated scalar `v` into `X[v]` (integers) or `X[0]`."""
    if type_text.startswith("tl.float") or type_text.startswith("tl.bfloat"):
        def kernel(X, v):
            tl.store(X, v)
    else:
        def kernel(X, v):
            tl.store(X + v, v)
    return triton.jit(annotated(kernel, X="torch.Tensor", v=type_text))


def bf16_round(value: float) -> float:
    """The bfloat16 nearest to `value` (ties to even), computed on float32 bits."""
    bits = int(np.array([value], np.float32).view(np.uint32)[0])
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def reference(type_name: str, value: float) -> float:
    """What a kernel storing `value`, converted to `type_name`, to fp32 memory reads back."""
    if type_name == "bfloat16":
        return bf16_round(value)
    return float(np.float32(np.array([value]).astype(type_name)[0]))


def ttir_and_ptx(kernel, args: tuple) -> tuple[dict, str, str]:
    """The runtime's signature for `args`, and the TTIR and PTX compiled from it."""
    signature, constexprs, divisible = gpu_launch.specialize(kernel, kernel.bind(args, {}))
    compiled = compile_kernel(kernel, signature, constexprs, "cuda:90", divisible)
    return signature, compiled.asm["ttir"], compiled.asm["ptx"]


# -- reading annotations -------------------------------------------------------------------

@pytest.mark.parametrize("annotation, expected", [
    (tl.int8, "i8"), (tl.uint16, "u16"), (tl.int1, "i1"), (tl.float16, "fp16"),
    (tl.bfloat16, "bf16"), (tl.float64, "fp64"), ("tl.uint8", "u8"), ("tl.int64", "i64"),
    ("triton.language.float32", "fp32"), (" tl.bfloat16 ", "bf16"), ("tl.uint1", "i1"),
    ("int16", "i16"), ("bool", "i1"), (bool, "i1"),
    (torch.Tensor, None), (torch.tensor, None), ("torch.Tensor", None), (int, None),
    ("int", None), (float, None), (tl.constexpr, None), ("tl.constexpr", None),
    ("tl.const", None), (tl.pointer_type(tl.float32), None), (tl.float8e5, None),
    ("tl.float8e4nv", None), ("tl.int128", None),
])
def test_annotation_types(annotation, expected) -> None:
    assert annotation_type(annotation) == expected


def test_parameters_carry_their_annotation_type() -> None:
    @triton.jit
    def kernel(X: torch.Tensor, a: tl.int8, b: tl.float16, n: int, flag: bool,
               BLOCK: tl.constexpr):
        pass

    kinds = {p.name: (p.annotation_type, p.is_constexpr) for p in kernel.params}
    assert kinds == {"X": (None, False), "a": ("i8", False), "b": ("fp16", False),
                     "n": (None, False), "flag": ("i1", False), "BLOCK": (None, True)}

    def plain(v, w):
        pass

    objects = triton.jit(annotated(plain, v=tl.uint32, w=tl.bfloat16))
    assert [p.annotation_type for p in objects.params] == ["u32", "bf16"]


# -- the runtime's specialization -------------------------------------------------------

def test_specialization_takes_the_annotated_type() -> None:
    @triton.jit
    def kernel(X, a: tl.int8, b: tl.uint16, h: tl.float16, d: tl.float64, n: int, m):
        pass

    x = torch.empty(4)
    signature, constexprs, divisible = gpu_launch.specialize(
        kernel, kernel.bind((x, 1, 32, 3, 2, 1, 7), {}))
    # an annotated 1 stays a runtime argument; an unannotated one (`n: int`) is a constexpr
    assert signature == {"X": "*fp32", "a": "i8", "b": "u16", "h": "fp16", "d": "fp64",
                         "m": "i32"}
    assert constexprs == {"n": 1}
    assert divisible == {"X", "b"}  # div16 still applies to an integer type


@pytest.mark.parametrize("type_name, value, error", [
    ("i8", 128, OverflowError), ("i8", -129, OverflowError), ("u8", -1, OverflowError),
    ("u32", 2**32, OverflowError), ("i8", 1.5, TypeError), ("fp16", 1e6, OverflowError),
    ("fp32", 1e40, OverflowError), ("fp16", "1.0", TypeError),
    ("fp32", torch.ones(1), TypeError),
])
def test_values_a_type_cannot_hold(type_name: str, value, error: type) -> None:
    with pytest.raises(error):
        check_value(type_name, value)


def test_bad_values_name_the_argument() -> None:
    kernel = store_kernel("tl.int8")
    with pytest.raises(OverflowError, match="argument 'v' of kernel: 300 is out of the range"):
        gpu_launch.specialize(kernel, kernel.bind((torch.empty(1), 300), {}))
    interpreted = triton.jit(interpret=True)(kernel.fn)
    with pytest.raises(TypeError, match="argument 'v'.*takes an integer"):
        interpreted[(1,)](np.zeros(4, np.float32), 2.5)


# -- TTIR and PTX --------------------------------------------------------------------------

@pytest.mark.parametrize("type_name", INT_TYPES)
def test_integer_annotation_ttir(type_name: str) -> None:
    signed = not type_name.startswith("u") and type_name != "int1"
    bits = int(type_name.lstrip("uint"))
    signature, ttir, ptx = ttir_and_ptx(store_kernel(f"tl.{type_name}"),
                                        (torch.empty(1), int(RNG.integers(2, 100))))
    assert signature["v"] == annotation_type(type_name)
    assert f"%v: i{bits}" in ttir
    assert f"arith.{'si' if signed else 'ui'}tofp %v : i{bits} to f32" in ttir
    if not signed and bits < 64:  # a pointer offset: zero-extended, as addptr is signed
        assert f"arith.extui %v : i{bits} to i64" in ttir
    elif bits < 64:
        assert "arith.extsi" not in ttir  # a signed offset goes to addptr as it is
    param = {1: ".u8", 8: ".u8", 16: ".u16", 32: ".u32", 64: ".u64"}[bits]
    assert f".param {param} kernel_param_1" in ptx


@pytest.mark.parametrize("type_name", FLOAT_TYPES)
def test_float_annotation_ttir(type_name: str) -> None:
    signature, ttir, ptx = ttir_and_ptx(store_kernel(f"tl.{type_name}"),
                                        (torch.empty(1), float(RNG.standard_normal())))
    mlir = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}[type_name]
    assert signature["v"] == annotation_type(type_name)
    assert f"%v: {mlir}" in ttir
    if mlir in ("f16", "bf16"):
        assert f"arith.extf %v : {mlir} to f32" in ttir
    elif mlir == "f64":
        assert "arith.truncf %v : f64 to f32" in ttir
    else:
        assert '"tt.store"(%X, %v)' in ttir
    assert "kernel_param_1" in ptx


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float64, tl.int16, tl.uint64])
def test_static_assert_sees_the_annotated_dtype(dtype) -> None:
    def kernel(ptr, val):
        tl.static_assert(val.dtype == dtype)
        tl.store(ptr, val.to(tl.float32))

    jitted = triton.jit(annotated(kernel, val=dtype))
    ttir_and_ptx(jitted, (torch.empty(1), 3))
    out = np.zeros(1, np.float32)
    triton.jit(interpret=True)(jitted.fn)[(1,)](out, 3)
    assert out[0] == 3.0


def test_unknown_annotations_are_ignored() -> None:
    @triton.jit
    def kernel(X: torch.Tensor, N: int, BLOCK_SIZE: tl.constexpr):
        offs = tl.arange(0, BLOCK_SIZE)
        tl.store(X + offs, offs.to(tl.float32) + N, mask=offs < N)

    signature, ttir, _ = ttir_and_ptx(kernel, (torch.empty(37), 37, 64))
    assert signature == {"X": "*fp32", "N": "i32"}
    assert "%X: !tt.ptr<f32, 1 : i32>" in ttir and "%N: i32" in ttir
    out = np.zeros(64, np.float32)
    triton.jit(interpret=True)(kernel.fn)[(1,)](out, 37, 64)
    np.testing.assert_array_equal(out[:37], np.arange(37, dtype=np.float32) + 37)
    assert not out[37:].any()


# -- values, in the interpreter -----------------------------------------------------------

@triton.jit
def _scalars_kernel(out_ptr, a: tl.int8, b: tl.uint8, c: tl.int16, d: tl.uint32,
                    h: tl.float16, g: tl.bfloat16, f: tl.float32, e: tl.float64,
                    flag: tl.int1, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.zeros([BLOCK], dtype=tl.float32)
    row = tl.where(offs == 0, a.to(tl.float32), row)
    row = tl.where(offs == 1, b.to(tl.float32), row)
    row = tl.where(offs == 2, c.to(tl.float32), row)
    row = tl.where(offs == 3, d.to(tl.float32), row)
    row = tl.where(offs == 4, h.to(tl.float32), row)
    row = tl.where(offs == 5, g.to(tl.float32), row)
    row = tl.where(offs == 6, f, row)
    row = tl.where(offs == 7, e.to(tl.float32), row)
    row = tl.where(offs == 8, flag.to(tl.float32), row)
    tl.store(out_ptr + offs, row, mask=offs < n)
    tl.store(out_ptr + n + b, h.to(tl.float32) + g.to(tl.float32))  # an offset beyond 127


def _scalar_case(rng: np.random.Generator) -> tuple[list, np.ndarray]:
    a = int(rng.integers(-128, 128))
    b = int(rng.integers(128, 256))
    c = int(rng.integers(-32768, 32768))
    d = int(rng.integers(0, 2**32))
    h, g, f, e = (float(x) for x in rng.standard_normal(4) * [10.0, 1000.0, 1.0, 1e-3])
    flag = int(rng.integers(2, 9))  # nonzero: true
    n = 9
    args = [a, b, c, d, h, g, f, e, flag, n]
    want = np.zeros(n + 256 + 1, np.float32)
    want[:n] = [a, b, c, np.float32(d), reference("float16", h), reference("bfloat16", g),
                np.float32(f), np.float32(e), 1.0]
    half, brain = np.float16(h), np.float32(reference("bfloat16", g))
    want[n + b] = np.float32(half) + brain
    return args, want


def test_values_are_converted_to_the_annotated_types() -> None:
    interpreted = triton.jit(interpret=True)(_scalars_kernel.fn)
    for _ in range(4):
        args, want = _scalar_case(RNG)
        out = np.zeros_like(want)
        interpreted[(1,)](out, *args, BLOCK=16)
        np.testing.assert_array_equal(out, want)


def test_scalars_kernel_compiles() -> None:
    args, _ = _scalar_case(RNG)
    signature, ttir, ptx = ttir_and_ptx(_scalars_kernel, (torch.empty(300), *args, 16))
    assert [signature[k] for k in "abcdhgfe"] + [signature["flag"]] == [
        "i8", "u8", "i16", "u32", "fp16", "bf16", "fp32", "fp64", "i1"]
    assert "%flag: i1" in ttir and "arith.extui %b : i8 to i64" in ttir
    assert ".param .u8 _scalars_kernel_param_9" in ptx


@pytest.mark.parametrize("type_name, value", [
    (t, v) for t in FLOAT_TYPES
    for v in (0.0, 42.0, float("inf"), float("-inf"), float("nan"), 1e-5, 65504.0, 3.0e38)
    if not (t == "float16" and v == 3.0e38)])  # beyond fp16: test_values_a_type_cannot_hold
def test_special_float_values(type_name: str, value: float) -> None:
    kernel = triton.jit(interpret=True)(store_kernel(f"tl.{type_name}").fn)
    out = np.zeros(1, np.float32)
    kernel[(1,)](out, value)
    np.testing.assert_array_equal(out, [reference(type_name, value)])


# -- on the GPU ----------------------------------------------------------------------------

@pytest.mark.gpu
def test_annotated_scalars_on_the_gpu() -> None:
    for _ in range(3):
        args, want = _scalar_case(RNG)
        out = torch.zeros(len(want), device="cuda")
        for _ in range(2):  # the generic path, then the hot path
            out.zero_()
            _scalars_kernel[(1,)](out, *args, BLOCK=16)
            np.testing.assert_array_equal(out.cpu().numpy(), want)


@pytest.mark.gpu
@pytest.mark.parametrize("type_name", FLOAT_TYPES)
def test_float_annotations_on_the_gpu(type_name: str) -> None:
    kernel = store_kernel(f"tl.{type_name}")
    out = torch.empty(1, device="cuda")
    for value in (0.0, 42.0, float("inf"), float("nan"), float(RNG.standard_normal())):
        handle = kernel[(1,)](out, value)
        np.testing.assert_array_equal(out.cpu().numpy(), [reference(type_name, value)])
    assert "%v: " in handle.asm["ttir"]


@pytest.mark.gpu
@pytest.mark.parametrize("type_name", INT_TYPES)
def test_integer_annotations_on_the_gpu(type_name: str) -> None:
    kernel = store_kernel(f"tl.{type_name}")
    high = 2 if type_name == "int1" else 200 if type_name in ("uint8",) else 120
    out = torch.zeros(256, device="cuda")
    value = int(RNG.integers(1, high))
    handle = kernel[(1,)](out, value)
    want = np.zeros(256, np.float32)
    want[value] = value
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    assert f"%v: i{int(type_name.lstrip('uint'))}" in handle.asm["ttir"]


# -- unsigned pointer offsets ----------------------------------------------------------------

@triton.jit
def _unsigned_offsets(x_ptr, y_ptr, offs_ptr, v: tl.uint8, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    offs = tl.load(offs_ptr + i, mask=i < n, other=0)  # uint8 offsets, many beyond 127
    tl.store(x_ptr + offs, offs.to(tl.float32) + 1.0, mask=i < n)
    tl.store((y_ptr + 255) - v, 2.0)


def test_unsigned_offsets_are_zero_extended() -> None:
    n = 37
    offs = RNG.permutation(256)[:n].astype(np.uint8)
    v = int(RNG.integers(128, 256))
    want_x = np.zeros(256, np.float32)
    want_x[offs] = offs.astype(np.float32) + 1.0
    want_y = np.zeros(256, np.float32)
    want_y[255 - v] = 2.0
    x, y = np.zeros(256, np.float32), np.zeros(256, np.float32)
    triton.jit(interpret=True)(_unsigned_offsets.fn)[(1,)](x, y, offs, v, n, BLOCK=64)
    np.testing.assert_array_equal(x, want_x)
    np.testing.assert_array_equal(y, want_y)
    args = (torch.empty(256), torch.empty(256), torch.from_numpy(offs), v, n, 64)
    _, ttir, _ = ttir_and_ptx(_unsigned_offsets, args)
    assert "arith.extui %v : i8 to i64" in ttir
    assert "arith.extui" in ttir.split("tt.load")[1]  # the loaded offsets too


@pytest.mark.gpu
def test_unsigned_offsets_on_the_gpu() -> None:
    n = 41
    offs = RNG.permutation(256)[:n].astype(np.uint8)
    v = int(RNG.integers(128, 256))
    x, y = torch.zeros(256, device="cuda"), torch.zeros(256, device="cuda")
    _unsigned_offsets[(1,)](x, y, torch.from_numpy(offs).cuda(), v, n, BLOCK=64)
    want_x = np.zeros(256, np.float32)
    want_x[offs] = offs.astype(np.float32) + 1.0
    np.testing.assert_array_equal(x.cpu().numpy(), want_x)
    assert y.cpu().numpy().nonzero()[0].tolist() == [255 - v]
