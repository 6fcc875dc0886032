"""Idioms of kernel libraries (Liger, SGLang, flash-linear-attention) and of Triton's
tutorials that Triton accepts: `triton.cdiv` inside a kernel, a parameter named like a
launch option, a scalar indexed with `[:, None]`, casts to a block pointer's
`dtype.element_ty`, libdevice's rounding, fused and fast-math functions, the grid
dependency controls with `launch_pdl`, and `extern_libs`. Each runs in the interpreter
against torch in float64 (fresh random inputs, poisoned outputs, ragged sizes) and
compiles through ptxas for sm_80 and sm_90 (the grid dependency controls: sm_90)."""

from __future__ import annotations

import pytest
import torch

import tritonc
import tritonc as triton
import tritonc.language as tl
from tritonc.language.extra import libdevice


@triton.jit(interpret=True)
def tiles_by_cdiv(x_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    for t in tl.static_range(triton.cdiv(N, BLOCK)):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, offs.to(tl.float32) * 2, mask=offs < N)


def test_cdiv_and_next_power_of_2_run_at_compile_time_in_a_kernel():
    x = torch.full((100,), float("nan"))
    tiles_by_cdiv[(1,)](x, N=100, BLOCK=32)
    torch.testing.assert_close(x, torch.arange(100.0) * 2)
    assert triton.cdiv(100, 32) == 4 and triton.next_power_of_2(100) == 128


@triton.jit(interpret=True)
def offset_by_options(x_ptr, n, BLOCK: tl.constexpr, num_warps: tl.constexpr,
                      num_stages: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs.to(tl.float32) + num_warps * 10 + num_stages, mask=offs < n)


@pytest.mark.parametrize("warps, stages", [(2, 1), (8, 3)])
def test_parameters_named_like_launch_options_are_bound_from_them(warps, stages):
    x = torch.full((100,), float("nan"))
    offset_by_options[(1,)](x, 100, BLOCK=128, num_warps=warps, num_stages=stages)
    torch.testing.assert_close(x, torch.arange(100.0) + warps * 10 + stages)


@triton.jit
def scale_rows_by_scalar(x_ptr, s_ptr, out_ptr, B: tl.constexpr):
    s = tl.load(s_ptr) - 1
    r = tl.where(s > 3, tl.log2(s.to(tl.float32)), 1.0)
    offs = tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :]
    v = tl.load(x_ptr + offs)
    v *= r[:, None]
    tl.store(out_ptr + offs, v)


@triton.jit
def double_through_block_pointers(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    p_x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    p_y = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    b = tl.load(p_x, boundary_check=(0, 1)).to(tl.float32) * 2.0
    tl.store(p_y, b.to(p_y.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def libdevice_mix(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    out = (libdevice.fast_expf(x) + libdevice.fast_logf(y) + libdevice.round(4 * x)
           + libdevice.fma(x, y, 1.0) + libdevice.fmin(x, y) + libdevice.cbrt(y)
           + libdevice.llround(3 * y).to(tl.float32) + libdevice.remainder(3 * x, y))
    tl.store(out_ptr + offs, out, mask=mask)


def _interpreted(kernel):
    return tritonc.jit(kernel.fn, interpret=True)


def test_a_scalar_indexed_with_none_is_one_element():
    rng = torch.Generator().manual_seed(5)
    x = torch.randn(16, 16, generator=rng)
    out = torch.full((16, 16), float("nan"))
    _interpreted(scale_rows_by_scalar)[(1,)](x, torch.tensor([9], dtype=torch.int32), out, B=16)
    torch.testing.assert_close(out.double(), x.double() * 3.0)


def test_a_cast_to_a_block_pointers_element_type_casts_to_its_elements():
    rng = torch.Generator().manual_seed(6)
    x = torch.randn(20, 24, generator=rng).to(torch.float16)
    y = torch.full((20, 24), float("nan"), dtype=torch.float16)
    _interpreted(double_through_block_pointers)[(1,)](x, y, 20, 24, BM=32, BN=32)
    torch.testing.assert_close(y, x * 2)


def test_libdevice_rounding_fused_and_fast_functions():
    rng = torch.Generator().manual_seed(7)
    n = 1000
    x = torch.rand(n, generator=rng) * 4 - 2
    y = torch.rand(n, generator=rng) + 0.5
    out = torch.full((n,), float("nan"))
    _interpreted(libdevice_mix)[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    xd, yd = x.double(), y.double()
    rounded = torch.where(4 * xd >= 0, torch.floor(4 * xd + 0.5), torch.ceil(4 * xd - 0.5))
    want = (torch.exp(xd) + torch.log(yd) + rounded + (xd * yd + 1) + torch.minimum(xd, yd)
            + yd ** (1 / 3) + torch.floor(3 * yd + 0.5)
            + (3 * xd - torch.round(3 * xd / yd) * yd))
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("kernel, signature, constexprs", [
    (scale_rows_by_scalar, {"x_ptr": "*fp32", "s_ptr": "*i32", "out_ptr": "*fp32"}, {"B": 16}),
    (double_through_block_pointers, {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32",
                                     "N": "i32"}, {"BM": 32, "BN": 32}),
    (libdevice_mix, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
     {"BLOCK": 256}),
], ids=["scalar_none", "block_pointer_cast", "libdevice"])
def test_compiles_through_ptxas(kernel, signature, constexprs, arch):
    k = tritonc.compile(kernel, signature, constexprs, target=f"cuda:{arch}")
    assert k.asm["cubin"][:4] == b"\x7fELF"


@triton.jit
def plus_one_after_the_previous_grid(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offs, mask=mask)
    tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offs, x + 1, mask=mask)


def test_grid_dependency_controls_and_launch_pdl_in_the_interpreter():
    x = torch.randn(300, generator=torch.Generator().manual_seed(8))
    out = torch.full((300,), float("nan"))
    _interpreted(plus_one_after_the_previous_grid)[(3,)](x, out, 300, BLOCK=128, launch_pdl=True)
    torch.testing.assert_close(out, x + 1)


def test_grid_dependency_controls_stay_in_order_on_sm_90():
    k = tritonc.compile(plus_one_after_the_previous_grid,
                        {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128},
                        target="cuda:90")
    lines = [line.strip() for line in k.asm["ptx"].splitlines()]
    wait = next(i for i, line in enumerate(lines) if line.startswith("griddepcontrol.wait"))
    load = next(i for i, line in enumerate(lines) if "ld.global" in line)
    go = next(i for i, line in enumerate(lines)
              if line.startswith("griddepcontrol.launch_dependents"))
    assert wait < load < go
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_extern_libs_names_the_libdevice_linked(tmp_path):
    from tritonc import knobs

    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    copy = tmp_path / "libdevice.10.bc"
    copy.write_bytes(open(knobs.libdevice_path(), "rb").read())
    found = tritonc.compile(libdevice_mix, sig, {"BLOCK": 256}, target="cuda:90")
    named = tritonc.compile(libdevice_mix, sig, {"BLOCK": 256}, target="cuda:90",
                            options={"extern_libs": {"libdevice": str(copy)}})
    assert named.asm["ptx"] == found.asm["ptx"]
    with pytest.raises(ValueError, match="no file"):
        tritonc.compile(libdevice_mix, sig, {"BLOCK": 256}, target="cuda:90",
                        options={"extern_libs": {"libdevice": str(tmp_path / "missing.bc")}})
    with pytest.raises(ValueError, match="only 'libdevice'"):
        tritonc.compile(libdevice_mix, sig, {"BLOCK": 256}, target="cuda:90",
                        options={"extern_libs": {"libm": str(copy)}})


def test_libdevice_is_reachable_through_extra_cuda():
    from tritonc.language.extra.cuda import libdevice as cuda_libdevice

    assert cuda_libdevice is libdevice

    @triton.jit(interpret=True)
    def rsqrt_in_place(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(x_ptr + offs, tl.extra.cuda.libdevice.rsqrt(x), mask=offs < n)

    x = torch.rand(100, generator=torch.Generator().manual_seed(9)) + 0.5
    want = torch.rsqrt(x.double())
    rsqrt_in_place[(1,)](x, 100, BLOCK=128)
    torch.testing.assert_close(x.double(), want, rtol=1e-6, atol=1e-6)


@triton.jit
def signbit_by_dtype(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Inductor's torch.signbit: the libdevice call when `x.dtype is tl.float32`."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    bit = (libdevice.signbit(x) != 0) if x.dtype is tl.float32 else x < 0
    tl.store(out_ptr + offs, bit, mask=offs < n)


def test_a_loaded_tensors_dtype_is_the_language_dtype():
    import copy
    import pickle

    from tritonc.language.dtypes import dtype

    assert dtype("fp32") is tl.float32 and copy.deepcopy(tl.float16) is tl.float16
    assert pickle.loads(pickle.dumps(tl.bfloat16)) is tl.bfloat16
    x = torch.tensor([-0.0, 0.0, -1.5, 2.0, float("-inf")])
    out = torch.zeros(5, dtype=torch.bool)
    _interpreted(signbit_by_dtype)[(1,)](x, out, 5, BLOCK=8)
    assert out.tolist() == torch.signbit(x).tolist()
    k = tritonc.compile(signbit_by_dtype, {"x_ptr": "*fp32", "out_ptr": "*i1", "n": "i32"},
                        {"BLOCK": 8}, target="cuda:90")
    assert "__nv_signbitf" in k.asm["ttir"] or "signbit" in k.asm["ttir"]
