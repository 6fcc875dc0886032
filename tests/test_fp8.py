"""fp8 (fp8e4nv, fp8e5, fp8e4b15) without a GPU: every kernel of fp8_cases.py compiles
through ptxas for sm_80 and sm_90, and runs in the interpreter against the independent
numpy reference of the fp8 rounding; a type LLVM cannot translate is a CompilationError."""

from __future__ import annotations

import fp8_cases as C
import numpy as np
import pytest
import torch

import tritonc
import tritonc.language as tl
from tritonc.backends.cuda import llvm_to_ptx
from tritonc.compiler.errors import CompilationError

NAMES = list(C.FORMATS)


def _case_id(case) -> str:
    kernel, signature, constexprs = case
    wide = signature.get("x_ptr", "").lstrip("*")
    return f"{kernel.__name__}-{C.FORMATS_BY_DTYPE[constexprs['DT']]}" + (
        f"-{wide}" if wide != "u8" and wide else "")


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("case", C.compile_cases(), ids=_case_id)
def test_fp8_kernel_compiles_to_cubin(case, arch):
    kernel, signature, constexprs = case
    compiled = tritonc.compile(kernel, signature=signature, constexprs=constexprs,
                               target=f"cuda:{arch}")
    cubin, ptx = compiled.asm["cubin"], compiled.asm["ptx"]
    assert cubin[:4] == b"\x7fELF"
    assert f".target sm_{arch}" in ptx
    kind = {tl.float8e4nv: "e4m3x2", tl.float8e5: "e5m2x2"}.get(constexprs["DT"])
    if kernel in (C.load_convert, C.convert_store):  # the hardware's conversions from sm_89
        assert (f".{kind}" in ptx) == (arch >= 89 and kind is not None)


@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")


def _poisoned(shape, dtype) -> torch.Tensor:
    out = torch.empty(shape, dtype=dtype)
    if dtype == torch.uint8:
        return out.fill_(0xA5)
    return out.fill_(float("nan") if dtype.is_floating_point else 0x5A)


@pytest.mark.parametrize("name", NAMES)
def test_load_and_convert_every_code(interpret, name):
    rng = np.random.default_rng(1)
    codes = rng.permutation(np.tile(np.arange(256, dtype=np.uint8), 2))[:509]
    n = codes.size
    outs = [_poisoned(n + 3, t) for t in (torch.float32, torch.float16, torch.bfloat16)]
    C.load_convert[(triton_cdiv(n, C.BLOCK),)](torch.from_numpy(codes), *outs, n,
                                                DT=C.FORMATS[name][0], BLOCK=C.BLOCK)
    want = C.decode(codes, name)
    for out in outs:  # every fp8 value is exact in fp32, fp16 and bf16
        C.same_floats(out[:n], want)
        assert torch.isnan(out[n:]).all()  # nothing stored past n


@pytest.mark.parametrize("wide", list(C.WIDE))
@pytest.mark.parametrize("name", NAMES)
def test_convert_and_store_rounds_to_nearest_even_and_saturates(interpret, name, wide):
    rng = np.random.default_rng(2)
    x = C.interesting_inputs(name, wide, rng, 300)
    n = x.size
    out = _poisoned(n + 5, torch.uint8)
    C.convert_store[(triton_cdiv(n, C.BLOCK),)](torch.from_numpy(x).to(C.WIDE[wide][1]), out, n,
                                                 DT=C.FORMATS[name][0], BLOCK=C.BLOCK)
    C.same_codes(out[:n].numpy(), C.round_to_codes(x, name), name)
    assert (out[n:] == 0xA5).all()


@pytest.mark.parametrize("value", [-1.25, 0.375, 1.5])
@pytest.mark.parametrize("name", NAMES)
def test_constant_blocks(interpret, name, value):
    n = 203
    out, out32 = _poisoned(n + 1, torch.uint8), _poisoned(n + 1, torch.float32)
    C.constants[(triton_cdiv(n, C.BLOCK),)](out, out32, n, VALUE=value, DT=C.FORMATS[name][0],
                                            BLOCK=C.BLOCK)
    code = C.round_to_codes(np.array([value]), name)[0]
    want = np.where(np.arange(n) % 3 == 0, 0, code).astype(np.uint8)
    np.testing.assert_array_equal(out[:n].numpy(), want)
    C.same_floats(out32[:n], np.full(n, C.decode(code, name)))


@pytest.mark.parametrize("name", NAMES)
def test_arithmetic_after_upcast(interpret, name):
    rng = np.random.default_rng(3)
    n = 777
    limit = 16.0 if name != "fp8e4b15" else 1.5
    xc, yc = (C.finite_codes(name, rng, n, limit) for _ in range(2))
    out32, out8 = _poisoned(n, torch.float32), _poisoned(n, torch.uint8)
    C.arithmetic[(triton_cdiv(n, C.BLOCK),)](torch.from_numpy(xc), torch.from_numpy(yc), out32,
                                             out8, n, DT=C.FORMATS[name][0], BLOCK=C.BLOCK)
    a, b = (C.decode(c, name).astype(np.float32) for c in (xc, yc))
    want = (a * b - a + b * np.float32(0.5)).astype(np.float64)
    np.testing.assert_allclose(out32.numpy(), want, rtol=1e-6, atol=1e-6)
    C.same_codes(out8.numpy(), C.round_to_codes((a * b).astype(np.float64), name), name)


@pytest.mark.parametrize("name", NAMES)
def test_dot_with_fp32_accumulator(interpret, name):
    rng = np.random.default_rng(4)
    m, n, k = C.DOT_SHAPE
    limit = 8.0 if name != "fp8e4b15" else 1.5
    ac, bc = C.finite_codes(name, rng, (m, k), limit), C.finite_codes(name, rng, (k, n), limit)
    c = _poisoned((m, n), torch.float32)
    grid = (triton_cdiv(m, C.DOT_BLOCK["BM"]), triton_cdiv(n, C.DOT_BLOCK["BN"]))
    C.dot[grid](torch.from_numpy(ac), torch.from_numpy(bc), c, m, n, k, DT=C.FORMATS[name][0],
                **C.DOT_BLOCK)
    a, b = C.decode(ac, name), C.decode(bc, name)
    want = a @ b
    scale = np.abs(a) @ np.abs(b)
    assert np.all(np.abs(c.numpy() - want) <= 1e-6 * scale + 1e-30)


def test_fp8_gep_reaching_llvm_is_a_compilation_error():
    """The shape of the original abort: a GEP over fp8 elements given to the LLVM step."""
    module = """
    module attributes {gpu.container_module} {
      gpu.module @m {
        llvm.func @k(%p: !llvm.ptr<1>, %i: i32) attributes {nvvm.kernel} {
          %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f8E4M3FN
          %v = llvm.load %q : !llvm.ptr<1> -> i8
          llvm.store %v, %p : i8, !llvm.ptr<1>
          llvm.return
        }
      }
    }"""
    with pytest.raises(CompilationError, match=r"f8E4M3FN in 'llvm.getelementptr'") as info:
        llvm_to_ptx.mlir_to_llvm_ir(module, "k", 90)
    assert info.value.kernel == "k"


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def test_fuzz_cases_with_fp8_inputs_compile(tmp_path, monkeypatch):
    """The fuzzer's compile mode (`--precompile --fp8`) over its first cases with fp8."""
    from tests.fuzz.generator import generate
    from tests.fuzz.reference import FP8
    from tests.fuzz.runner import precompile

    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    cases = [c for c in (generate(seed, fp8=True) for seed in range(120))
             if set(c.inputs) & set(FP8)][:25]
    assert len(cases) == 25
    for case in cases:
        precompile(case)
    assert any(tmp_path.rglob("*"))


@tritonc.jit
def _to_amd_fp8(x_ptr, y_ptr):
    offs = tl.arange(0, 16)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float8e4b8).to(tl.float32))


@pytest.mark.parametrize("signature, where", [
    ({"x_ptr": "*fp32", "y_ptr": "*fp32"},
     "to: fp8e4b8 is not supported in this architecture: the CUDA backend has no encoding"),
    ({"x_ptr": "*fp8e5b16", "y_ptr": "*fp32"},
     "signature: fp8e5b16 is not supported in this architecture")])
def test_amd_fp8_formats_are_a_compilation_error(signature, where):
    with pytest.raises(CompilationError, match=where):
        tritonc.compile(_to_amd_fp8, signature, {}, target="cuda:90")


@tritonc.jit
def _copy_rows(src, dst, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(dst + row * BLOCK + offs, tl.load(src + row * stride + offs))


@pytest.mark.parametrize("ty", ["fp8e4nv", "fp8e5"])
def test_fp8_rows_an_unknown_stride_apart_load_byte_by_byte(ty):
    """An fp8 pointer advances 1 byte per element: rows `stride` elements apart (a stride
    not known to be a multiple of 16) start 1-byte aligned, so they load byte by byte;
    the rows stored 512 apart store 4 bytes at a time (an fp8 element once counted as 4
    bytes made the loads 4 bytes wide: misaligned)."""
    import re

    sig = {"src": f"*{ty}", "dst": f"*{ty}", "stride": "i32"}
    k = tritonc.compile(_copy_rows, sig, {"BLOCK": 512}, target="cuda:90",
                        divisible_by_16={"src", "dst"})
    ptx = k.asm["ptx"]
    assert set(re.findall(r"ld\.global[.\w]*", ptx)) == {"ld.global.b8"}
    assert "st.global.b32" in ptx


@tritonc.jit
def _square_dot(out_ptr, DT: tl.constexpr):
    a = tl.full((64, 64), 1.0, DT)
    tl.store(out_ptr + tl.arange(0, 64), tl.sum(tl.dot(a, a), axis=1))


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("name", ["fp8e4b15", "fp8e4nv"])
def test_fp8e4b15_dots_warn_from_hopper_on(arch, name):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tritonc.compile(_square_dot, {"out_ptr": "*fp32"}, {"DT": C.FORMATS[name][0]},
                        target=f"cuda:{arch}", override={"ptx": "", "cubin": b""})
    deprecated = [w for w in caught if "fp8e4b15 is deprecated on Hopper" in str(w.message)]
    assert len(deprecated) == (arch >= 90 and name == "fp8e4b15")
