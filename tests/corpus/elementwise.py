"""Elementwise kernels: arithmetic and promotion, casts, comparisons, where, min/max, math."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl
from tritonc.language.extra import libdevice

from .spec import Case, kernel, round_to_bf16, round_to_fp8e5

N = 256
BLOCK = 128
F32 = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def _unary_case(rng: np.random.Generator, lo: float = -2.0, hi: float = 2.0) -> Case:
    x = rng.uniform(lo, hi, N).astype(np.float32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(N, np.float32), "n": N - 3}, (N // BLOCK,),
                ("out_ptr",), rtol=1e-4, atol=1e-5)


def _masked(args, values: np.ndarray, name: str = "out_ptr") -> dict[str, np.ndarray]:
    out = args[name].copy()
    n = args["n"]
    out[:n] = values[:n]
    return {name: out}


# -- arithmetic and implicit promotion -----------------------------------------------------------


@triton.jit
def arith_promotion(a_ptr, b_ptr, c_ptr, out_f_ptr, out_i_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)      # int8
    b = tl.load(b_ptr + offs, mask=mask, other=1)      # int32
    c = tl.load(c_ptr + offs, mask=mask, other=1.0)    # fp16
    i = a + b * 3 - (b // 2) + (b % 5)                  # int8 + int32 -> int32
    i = i ^ (b << 1) | (a & 7)
    f = c * 2.5 + a                                     # fp16 (int and Python float adopt fp16)
    f = f / b                                           # fp16 / int32 -> fp32 (true division)
    tl.store(out_f_ptr + offs, f, mask=mask)
    tl.store(out_i_ptr + offs, -i + (b >> 1), mask=mask)


def _arith_case(rng):
    a = rng.integers(-100, 100, N).astype(np.int8)
    b = rng.integers(1, 1000, N).astype(np.int32)
    c = rng.uniform(-4, 4, N).astype(np.float16)
    return Case({"a_ptr": a, "b_ptr": b, "c_ptr": c, "out_f_ptr": np.zeros(N, np.float32),
                 "out_i_ptr": np.zeros(N, np.int32), "n": N}, (N // BLOCK,),
                ("out_f_ptr", "out_i_ptr"), rtol=2e-3, atol=2e-3)


def _arith_ref(args):
    a = args["a_ptr"].astype(np.int32)
    b = args["b_ptr"]
    c = args["c_ptr"]
    i = a + b * 3 - (b // 2) + (b % 5)  # b > 0: floor and C division agree
    i = (i ^ (b << 1)) | (a & 7)
    f = (c * np.float16(2.5) + a.astype(np.float16)).astype(np.float16)
    f = f.astype(np.float32) / b.astype(np.float32)
    return {"out_f_ptr": f, "out_i_ptr": (-i + (b >> 1)).astype(np.int32)}


ARITH = kernel(
    arith_promotion,
    {"a_ptr": "*i8", "b_ptr": "*i32", "c_ptr": "*fp16", "out_f_ptr": "*fp32", "out_i_ptr": "*i32",
     "n": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK: arith.muli
    CHECK: arith.extsi {{.*}} : tensor<128xi8> to tensor<128xi32>
    CHECK: arith.divsi
    CHECK: arith.remsi
    CHECK: arith.shli
    CHECK: arith.xori
    CHECK: arith.andi {{.*}} : tensor<128xi8>
    CHECK: arith.ori
    CHECK: arith.mulf {{.*}} : tensor<128xf16>
    CHECK: arith.sitofp {{.*}} : tensor<128xi8> to tensor<128xf16>
    CHECK: arith.extf {{.*}} : tensor<128xf16> to tensor<128xf32>
    CHECK: arith.divf {{.*}} : tensor<128xf32>
    CHECK: arith.shrsi
    """,
    make_case=_arith_case, reference=_arith_ref,
)


@triton.jit
def unsigned_arith(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)               # uint32
    y = (x // 3) + (x % 7) + (x >> 4)                   # unsigned division and shift
    y = tl.where(x > 2147483648, y, x * 2)              # unsigned compare
    tl.store(out_ptr + offs, y, mask=mask)


def _unsigned_case(rng):
    x = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(N, np.uint32), "n": N}, (N // BLOCK,),
                ("out_ptr",))


def _unsigned_ref(args):
    x = args["x_ptr"]
    y = (x // np.uint32(3)) + (x % np.uint32(7)) + (x >> np.uint32(4))
    return {"out_ptr": np.where(x > np.uint32(2147483648), y, x * np.uint32(2)).astype(np.uint32)}


UNSIGNED = kernel(
    unsigned_arith, {"x_ptr": "*u32", "out_ptr": "*u32", "n": "i32"}, {"BLOCK": BLOCK},
    """
    CHECK: arith.divui
    CHECK: arith.remui
    CHECK: arith.shrui
    CHECK: arith.cmpi ugt
    CHECK: arith.select
    """,
    make_case=_unsigned_case, reference=_unsigned_ref,
)


# -- casts -------------------------------------------------------------------------------------


@triton.jit
def casts(x_ptr, out_bf16_ptr, out_fp8_ptr, out_bits_ptr, out_int_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    as_bf16 = x.to(tl.bfloat16)
    tl.store(out_bf16_ptr + offs, as_bf16.to(tl.float32), mask=mask)
    as_fp8 = x.to(tl.float8e5)
    tl.store(out_fp8_ptr + offs, as_fp8.to(tl.float32), mask=mask)
    bits = x.to(tl.int32, bitcast=True)
    tl.store(out_bits_ptr + offs, bits, mask=mask)
    tl.store(out_int_ptr + offs, tl.cast(x, tl.int16).to(tl.int64), mask=mask)


def _casts_case(rng):
    x = rng.uniform(-100, 100, N).astype(np.float32)
    return Case({"x_ptr": x, "out_bf16_ptr": np.zeros(N, np.float32),
                 "out_fp8_ptr": np.zeros(N, np.float32), "out_bits_ptr": np.zeros(N, np.int32),
                 "out_int_ptr": np.zeros(N, np.int64), "n": N}, (N // BLOCK,),
                ("out_bf16_ptr", "out_fp8_ptr", "out_bits_ptr", "out_int_ptr"), rtol=0, atol=0)


def _casts_ref(args):
    x = args["x_ptr"]
    return {"out_bf16_ptr": round_to_bf16(x), "out_fp8_ptr": round_to_fp8e5(x),
            "out_bits_ptr": x.view(np.int32), "out_int_ptr": np.trunc(x).astype(np.int64)}


CASTS = kernel(
    casts,
    {"x_ptr": "*fp32", "out_bf16_ptr": "*fp32", "out_fp8_ptr": "*fp32", "out_bits_ptr": "*i32",
     "out_int_ptr": "*i64", "n": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK: arith.truncf {{.*}} : tensor<128xf32> to tensor<128xbf16>
    CHECK: arith.extf {{.*}} : tensor<128xbf16> to tensor<128xf32>
    CHECK: "tt.fp_to_fp"({{.*}}) {rounding = "rtne"} : (tensor<128xf32>) -> tensor<128xf8E5M2>
    CHECK: "tt.fp_to_fp"({{.*}}) {rounding = ""} : (tensor<128xf8E5M2>) -> tensor<128xf32>
    CHECK: arith.bitcast {{.*}} : tensor<128xf32> to tensor<128xi32>
    CHECK: arith.fptosi {{.*}} : tensor<128xf32> to tensor<128xi16>
    CHECK: arith.extsi {{.*}} : tensor<128xi16> to tensor<128xi64>
    """,
    make_case=_casts_case, reference=_casts_ref,
)


@triton.jit
def fp8_roundtrip(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)     # fp16
    y = x.to(tl.float8e4nv).to(tl.float16) + x.to(tl.bfloat16, fp_downcast_rounding="rtz").to(tl.float16)
    tl.store(out_ptr + offs, y, mask=mask)


FP8 = kernel(
    fp8_roundtrip, {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"}, {"BLOCK": BLOCK},
    """
    CHECK: "tt.fp_to_fp"({{.*}}) {rounding = "rtne"} : (tensor<128xf16>) -> tensor<128xf8E4M3FN>
    CHECK: "tt.fp_to_fp"({{.*}}) {rounding = ""} : (tensor<128xf8E4M3FN>) -> tensor<128xf16>
    CHECK: "tt.fp_to_fp"({{.*}}) {rounding = "rtz"} : (tensor<128xf16>) -> tensor<128xbf16>
    """,
)


# -- comparisons, where, min/max/clamp ---------------------------------------------------------


@triton.jit
def compare_select(x_ptr, y_ptr, out_ptr, n, lo, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = (offs < n) & (offs >= 0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    big = (x > y) | (x == 1.0)
    out = tl.where(big, x, y)
    out = tl.where(x != x, 0.0, out)
    out = tl.minimum(out, 3.0) + tl.maximum(x, y, propagate_nan=True)
    out = tl.clamp(out, lo, 5.0)
    out = min(out, 4.5)
    tl.store(out_ptr + offs, out, mask=mask)


def _compare_case(rng):
    x = rng.uniform(-3, 3, N).astype(np.float32)
    y = rng.uniform(-3, 3, N).astype(np.float32)
    return Case({"x_ptr": x, "y_ptr": y, "out_ptr": np.zeros(N, np.float32), "n": N - 5,
                 "lo": -1.5}, (N // BLOCK,), ("out_ptr",))


def _compare_ref(args):
    x, y = args["x_ptr"], args["y_ptr"]
    out = np.where((x > y) | (x == 1.0), x, y)
    out = np.minimum(out, 3.0) + np.maximum(x, y)
    out = np.minimum(np.clip(out, args["lo"], 5.0), 4.5).astype(np.float32)
    return _masked(args, out)


COMPARE = kernel(
    compare_select, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                     "lo": "fp32"},
    {"BLOCK": BLOCK},
    """
    CHECK: arith.cmpi slt
    CHECK: arith.cmpi sge
    CHECK: arith.andi
    CHECK: arith.cmpf ogt
    CHECK: arith.cmpf oeq
    CHECK: arith.select
    CHECK: arith.cmpf une
    CHECK: arith.minnumf
    CHECK: arith.maximumf
    CHECK: "tt.clampf"({{.*}}) {propagate_nan = false}
    CHECK: arith.minnumf
    """,
    make_case=_compare_case, reference=_compare_ref,
)


@triton.jit
def int_minmax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.clamp(x, -10, 10) + tl.maximum(x, 0) + tl.minimum(x.to(tl.uint32), 7).to(tl.int32)
    tl.store(out_ptr + offs, y, mask=mask)


def _int_minmax_case(rng):
    x = rng.integers(-50, 50, N).astype(np.int32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(N, np.int32), "n": N}, (N // BLOCK,),
                ("out_ptr",))


def _int_minmax_ref(args):
    x = args["x_ptr"]
    y = np.clip(x, -10, 10) + np.maximum(x, 0) + np.minimum(x.view(np.uint32), 7).astype(np.int32)
    return {"out_ptr": y.astype(np.int32)}


INT_MINMAX = kernel(
    int_minmax, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}, {"BLOCK": BLOCK},
    """
    CHECK: arith.maxsi
    CHECK: arith.minsi
    CHECK: arith.maxsi
    CHECK: arith.minui
    """,
    make_case=_int_minmax_case, reference=_int_minmax_ref,
)


# -- math --------------------------------------------------------------------------------------


@triton.jit
def math_funcs(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.abs(x) + 0.5
    y = tl.exp(x) + tl.exp2(x) + tl.log(a) + tl.log2(a) + tl.sin(x) + tl.cos(x)
    y += tl.sqrt(a) + tl.rsqrt(a) + tl.floor(x) + tl.ceil(x) + tl.erf(x)
    y += tl.fma(x, a, 1.0) + tl.sigmoid(x) + tl.math.sqrt_rn(a) + tl.math.div_rn(x, a)
    y += tl.fdiv(x, a) + x.exp()
    tl.store(out_ptr + offs, y, mask=mask)


def _math_ref(args):
    from math import erf

    x = args["x_ptr"].astype(np.float64)
    a = np.abs(x) + 0.5
    y = np.exp(x) + np.exp2(x) + np.log(a) + np.log2(a) + np.sin(x) + np.cos(x)
    y += np.sqrt(a) + 1 / np.sqrt(a) + np.floor(x) + np.ceil(x) + np.vectorize(erf)(x)
    y += x * a + 1.0 + 1 / (1 + np.exp(-x)) + np.sqrt(a) + x / a + x / a + np.exp(x)
    return _masked(args, y.astype(np.float32))


MATH = kernel(
    math_funcs, F32, {"BLOCK": BLOCK},
    """
    CHECK: math.absf
    CHECK: math.exp
    CHECK: math.exp2
    CHECK: math.log
    CHECK: math.log2
    CHECK: math.sin
    CHECK: math.cos
    CHECK: math.sqrt
    CHECK: math.rsqrt
    CHECK: math.floor
    CHECK: math.ceil
    CHECK: math.erf
    CHECK: math.fma
    CHECK: "tt.precise_sqrt"
    CHECK: "tt.precise_divf"
    CHECK: arith.divf
    """,
    make_case=_unary_case, reference=_math_ref,
)


@triton.jit
def math_fp16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.exp(x) * tl.umulhi(offs, offs).to(tl.float16)
    tl.store(out_ptr + offs, y, mask=mask)


MATH_FP16 = kernel(
    math_fp16, {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"}, {"BLOCK": BLOCK},
    """
    CHECK: arith.extf {{.*}} : tensor<128xf16> to tensor<128xf32>
    CHECK: math.exp {{.*}} : tensor<128xf32>
    CHECK: arith.truncf {{.*}} : tensor<128xf32> to tensor<128xf16>
    CHECK: "tt.mulhiu"
    """,
)


@triton.jit
def libdevice_funcs(x_ptr, out_ptr, out_i_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    a = libdevice.abs(x) + 1.0
    y = libdevice.tanh(x) + libdevice.pow(a, 1.5) + libdevice.log1p(a) + libdevice.expm1(x)
    y += libdevice.atan2(x, a) + libdevice.erfinv(x * 0.5) + libdevice.lgamma(a)
    y += libdevice.trunc(x) + libdevice.nearbyint(x) + libdevice.fmod(x, 0.75)
    y += libdevice.copysign(a, x) + libdevice.hypot(x, a) + libdevice.log10(a)
    y += libdevice.sinh(x) + libdevice.cosh(x) + libdevice.asinh(x) + libdevice.acosh(a)
    y += libdevice.atanh(x * 0.5) + libdevice.asin(x * 0.5) + libdevice.acos(x * 0.5)
    y += libdevice.atan(x) + libdevice.tan(x) + libdevice.erfc(x)
    y += libdevice.rsqrt(a) + libdevice.sqrt(a) + libdevice.exp2(x) + libdevice.floor(x)
    tl.store(out_ptr + offs, y, mask=mask)
    flags = libdevice.isnan(x) + libdevice.isinf(x) + libdevice.signbit(x)
    tl.store(out_i_ptr + offs, flags + libdevice.llrint(x).to(tl.int32), mask=mask)


def _libdevice_case(rng):
    case = _unary_case(rng, -1.0, 1.0)
    case.args["out_i_ptr"] = np.zeros(N, np.int32)
    case.outputs = ("out_ptr", "out_i_ptr")
    return case


def _libdevice_ref(args):
    from math import erfc, lgamma

    from numpy import arcsinh, arctan2
    x = args["x_ptr"].astype(np.float64)
    a = np.abs(x) + 1.0
    h = x * 0.5
    erfinv = np.vectorize(_erfinv)
    y = np.tanh(x) + a ** 1.5 + np.log1p(a) + np.expm1(x) + arctan2(x, a) + erfinv(h)
    y += np.vectorize(lgamma)(a) + np.trunc(x) + np.rint(x) + np.fmod(x, 0.75)
    y += np.copysign(a, x) + np.hypot(x, a) + np.log10(a) + np.sinh(x) + np.cosh(x)
    y += arcsinh(x) + np.arccosh(a) + np.arctanh(h) + np.arcsin(h) + np.arccos(h)
    y += np.arctan(x) + np.tan(x) + np.vectorize(erfc)(x) + 1 / np.sqrt(a) + np.sqrt(a)
    y += np.exp2(x) + np.floor(x)
    flags = np.signbit(args["x_ptr"]).astype(np.int32) + np.rint(x).astype(np.int32)
    out = _masked(args, y.astype(np.float32))
    out.update(_masked(args, flags, "out_i_ptr"))
    return out


def _erfinv(y: float) -> float:
    """Inverse error function by Newton's method (for the reference only)."""
    from math import erf, exp, pi, sqrt

    x = 0.0
    for _ in range(60):
        x -= (erf(x) - y) / (2 / sqrt(pi) * exp(-x * x))
    return x


LIBDEVICE = kernel(
    libdevice_funcs, {"x_ptr": "*fp32", "out_ptr": "*fp32", "out_i_ptr": "*i32", "n": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK: symbol = "__nv_fabsf"
    CHECK: symbol = "__nv_tanhf"
    CHECK: symbol = "__nv_powf"
    CHECK: symbol = "__nv_log1pf"
    CHECK: symbol = "__nv_erfinvf"
    CHECK: symbol = "__nv_lgammaf"
    CHECK: symbol = "__nv_nearbyintf"
    CHECK: symbol = "__nv_isnanf"
    CHECK: symbol = "__nv_llrintf"
    CHECK-SAME: -> tensor<128xi64>
    """,
    make_case=_libdevice_case, reference=_libdevice_ref,
)


@triton.jit
def libdevice_fp64(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    tl.store(out_ptr + offs, libdevice.exp(x) + libdevice.sin(x), mask=mask)


LIBDEVICE_FP64 = kernel(
    libdevice_fp64, {"x_ptr": "*fp64", "out_ptr": "*fp64", "n": "i32"}, {"BLOCK": BLOCK},
    """
    CHECK: symbol = "__nv_exp"
    CHECK-SAME: (tensor<128xf64>) -> tensor<128xf64>
    CHECK: symbol = "__nv_sin"
    """,
)

KERNELS = [ARITH, UNSIGNED, CASTS, FP8, COMPARE, INT_MINMAX, MATH, MATH_FP16, LIBDEVICE,
           LIBDEVICE_FP64]
