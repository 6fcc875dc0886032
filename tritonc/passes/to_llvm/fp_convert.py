"""Lowering of `tt.fp_to_fp`: conversions to and from fp8, and round-toward-zero narrowing.

fp8 values are carried as i8 per thread (LLVM has no fp8 types). Conversions are done
with integer arithmetic on the IEEE bit patterns, the same on sm_80 and sm_90, and
round once, to nearest-even ("rtne") or toward zero ("rtz"). Out-of-range values follow
the conversions Triton emits on sm_90 (`cvt.rn.satfinite.{e4m3,e5m2}x2.f32` to nearest,
truncation through fp16 toward zero), as the interpreter does, on every target:

- fp8e4nv (e4m3fn, bias 7), fp8e4b15 (e4m3, bias 15): no infinities; overflow and
  infinities give the largest finite value; 0x7f is NaN.
- fp8e5 (e5m2, bias 15): to nearest, overflow and infinities give the largest finite
  value (`satfinite`); toward zero, finite overflow gives the largest finite value and
  infinities stay infinite.
- bf16 and fp16 from fp32 toward zero: overflow gives the largest finite value.

An fp64 source is first rounded toward zero to fp32 when the result is rounded toward
zero (the two truncations make one); fp64 never meets fp8 here (the language converts
through fp32). fp8 constants become their bits (`constant_bits`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import lowering


@dataclass(frozen=True)
class Format:
    ebits: int
    mbits: int
    bias: int
    has_inf: bool

    @property
    def width(self) -> int:
        return 1 + self.ebits + self.mbits

    @property
    def exp_max(self) -> int:
        return (1 << self.ebits) - 1

    @property
    def nan_bits(self) -> int:
        return (self.exp_max << self.mbits) | ((1 << self.mbits) - 1)

    @property
    def inf_bits(self) -> int:
        return self.exp_max << self.mbits

    @property
    def max_bits(self) -> int:
        return self.inf_bits - 1 if self.has_inf else self.nan_bits - 1


FORMATS = {"f8E4M3FN": Format(4, 3, 7, False), "f8E4M3B11FNUZ": Format(4, 3, 15, False),
           "f8E5M2": Format(5, 2, 15, True), "f16": Format(5, 10, 15, True),
           "bf16": Format(8, 7, 127, True)}
_PRED = {"eq": 0, "ne": 1, "ult": 6, "ule": 7, "ugt": 8, "uge": 9}


def _cmp(ctx: LoweringContext, pred: str, a, b):
    return ctx.value("arith.cmpi", [a, b], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                      _PRED[pred])})


def _select(ctx: LoweringContext, cond, a, b):
    return ctx.value("arith.select", [cond, a, b], a.type)


def encode(ctx: LoweringContext, value, fmt: Format, rounding: str):
    """f32 `value` -> the bits of `fmt` (an integer of fmt.width bits)."""
    i32 = ctx.i32_type()
    c = ctx.i32
    bits = ctx.value("arith.bitcast", [value], i32)
    sign = ctx.binop("arith.shli", ctx.binop("arith.shrui", bits, c(31)), c(fmt.width - 1))
    mag = ctx.binop("arith.andi", bits, c(0x7FFFFFFF))
    shift = 23 - fmt.mbits
    # normal results: rebias the exponent in place, then drop `shift` mantissa bits
    rebased = ctx.binop("arith.subi", mag, c((127 - fmt.bias) << 23))
    if rounding == "rtz":
        normal = ctx.binop("arith.shrui", rebased, c(shift))
    else:
        odd = ctx.binop("arith.andi", ctx.binop("arith.shrui", rebased, c(shift)), c(1))
        bump = ctx.binop("arith.addi", c((1 << (shift - 1)) - 1), odd)
        normal = ctx.binop("arith.shrui", ctx.binop("arith.addi", rebased, bump), c(shift))
    # subnormal results: scale so one unit is the smallest subnormal, round to an integer
    absval = ctx.value("math.absf", [value], value.type)
    scale = fmt.bias - 1 + fmt.mbits  # may exceed fp32's range: scale in two steps
    scaled = ctx.binop("arith.mulf", absval, ctx.const(2.0 ** (scale // 2), value.type))
    scaled = ctx.binop("arith.mulf", scaled, ctx.const(2.0 ** (scale - scale // 2), value.type))
    rounded = ctx.call_extern("__nv_truncf" if rounding == "rtz" else "__nv_rintf", [scaled],
                              value.type)
    sub = ctx.value("arith.fptoui", [rounded], i32)
    is_sub = _cmp(ctx, "ult", mag, c((128 - fmt.bias) << 23))
    out = _select(ctx, is_sub, sub, normal)
    # overflow, infinities and NaN
    too_big = _cmp(ctx, "ugt", out, c(fmt.max_bits))
    is_inf = _cmp(ctx, "eq", mag, c(0x7F800000))
    is_nan = _cmp(ctx, "ugt", mag, c(0x7F800000))
    saturate = not fmt.has_inf or rounding == "rtz" or fmt.width == 8
    out = _select(ctx, too_big, c(fmt.max_bits if saturate else fmt.inf_bits), out)
    if fmt.has_inf and (fmt.width != 8 or rounding == "rtz"):
        out = _select(ctx, is_inf, c(fmt.inf_bits), out)
    out = _select(ctx, is_nan, c(fmt.nan_bits), out)
    out = ctx.binop("arith.ori", out, sign)
    return ctx.value("arith.trunci", [out], ir.IntegerType.get_signless(fmt.width))


def decode(ctx: LoweringContext, bits, fmt: Format):
    """The bits of `fmt` (an integer) -> the f32 value (exact)."""
    i32, f32 = ctx.i32_type(), ir.F32Type.get()
    c = ctx.i32
    b = ctx.value("arith.extui", [bits], i32)
    sign = ctx.binop("arith.shli", ctx.binop("arith.shrui", b, c(fmt.width - 1)), c(31))
    exp = ctx.binop("arith.andi", ctx.binop("arith.shrui", b, c(fmt.mbits)), c(fmt.exp_max))
    man = ctx.binop("arith.andi", b, c((1 << fmt.mbits) - 1))
    normal = ctx.binop("arith.ori", ctx.binop("arith.shli", ctx.binop(
        "arith.addi", exp, c(127 - fmt.bias)), c(23)), ctx.binop("arith.shli", man,
                                                                  c(23 - fmt.mbits)))
    sub = ctx.binop("arith.mulf", ctx.value("arith.uitofp", [man], f32),
                    ctx.const(2.0 ** (1 - fmt.bias - fmt.mbits), f32))
    sub = ctx.value("arith.bitcast", [sub], i32)
    out = _select(ctx, _cmp(ctx, "eq", exp, c(0)), sub, normal)
    if fmt.has_inf:
        special = ctx.binop("arith.ori", c(0x7F800000),
                            ctx.binop("arith.shli", man, c(23 - fmt.mbits)))
        out = _select(ctx, _cmp(ctx, "eq", exp, c(fmt.exp_max)), special, out)
    else:
        is_nan = _cmp(ctx, "eq", ctx.binop("arith.andi", b, c(0x7F)), c(fmt.nan_bits))
        out = _select(ctx, is_nan, c(0x7FC00000), out)
    return ctx.value("arith.bitcast", [ctx.binop("arith.ori", out, sign)], f32)


FP8_NAMES = ("f8E4M3FN", "f8E4M3B11FNUZ", "f8E5M2")


def is_fp8(ty) -> bool:
    """Whether the MLIR type `ty` is one of the fp8 element types tritonc computes on."""
    return str(ty) in FP8_NAMES


def decode_bits(bits: int, fmt: Format) -> float:
    """The value of the bit pattern `bits` of `fmt` (a Python float; NaN for NaN)."""
    sign = -1.0 if bits >> (fmt.width - 1) & 1 else 1.0
    exp = bits >> fmt.mbits & fmt.exp_max
    man = bits & ((1 << fmt.mbits) - 1)
    magnitude = bits & ((1 << (fmt.width - 1)) - 1)
    if magnitude == fmt.nan_bits or (fmt.has_inf and exp == fmt.exp_max and man):
        return float("nan")
    if fmt.has_inf and exp == fmt.exp_max:
        return sign * float("inf")
    if exp == 0:
        return sign * man * 2.0 ** (1 - fmt.bias - fmt.mbits)
    return sign * (man + (1 << fmt.mbits)) * 2.0 ** (exp - fmt.bias - fmt.mbits)


def constant_bits(value: float, name: str) -> int:
    """The bits of the fp8 value `value` (exactly representable in format `name`, as the
    constant attributes of an fp8 type are)."""
    fmt = FORMATS[name]
    if value != value:
        return fmt.nan_bits
    for bits in range(1 << fmt.width):
        decoded = decode_bits(bits, fmt)
        if decoded == value and math.copysign(1.0, decoded) == math.copysign(1.0, value):
            return bits
    raise ValueError(f"{value!r} is not a value of {name}")


def _to_f32(ctx: LoweringContext, value, name: str, rounding: str = "rtne"):
    if name in FP8_NAMES:
        return decode(ctx, value, FORMATS[name])
    if name == "f32":
        return value
    if name == "f64":
        if rounding == "rtz":
            return ctx.call_extern("__nv_double2float_rz", [value], ir.F32Type.get())
        return ctx.value("arith.truncf", [value], ir.F32Type.get())
    return ctx.value("arith.extf", [value], ir.F32Type.get())


def to_f32(ctx: LoweringContext, value, ty):
    """The f32 value of the register `value` of element type `ty` (fp8 as its bits)."""
    return _to_f32(ctx, value, str(ty))


def from_f32(ctx: LoweringContext, value, ty):
    """The f32 `value` rounded to nearest-even into element type `ty` (fp8: its bits)."""
    name = str(ty)
    if name in FP8_NAMES:
        return encode(ctx, value, FORMATS[name], "rtne")
    if name == "f32":
        return value
    if name == "f64":
        return ctx.value("arith.extf", [value], ty)
    return ctx.value("arith.truncf", [value], ty)


# Formats with conversion instructions from sm_89 on (PTX `cvt` with `.e4m3x2`/`.e5m2x2`).
NATIVE = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
NATIVE_ARCH = 89


def _asm(ctx: LoweringContext, text: str, args: list, constraints: str, ty):
    return ctx.value("llvm.inline_asm", args, ty, {
        "asm_string": ir.StringAttr.get(text), "constraints": ir.StringAttr.get(constraints)})


def _pairs(values: list) -> list[tuple]:
    """Consecutive registers two by two (the last one twice when their number is odd)."""
    return [(values[i], values[min(i + 1, len(values) - 1)]) for i in range(0, len(values), 2)]


def native_encode(ctx: LoweringContext, values: list, kind: str) -> list:
    """f32 `values` -> fp8 bits with `cvt.rn.satfinite.<kind>x2.f32`, two per instruction
    (the first of a pair in the low byte)."""
    i8, i16 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(16)
    out = []
    for lo, hi in _pairs(values):
        packed = _asm(ctx, f"cvt.rn.satfinite.{kind}x2.f32 $0, $2, $1;", [lo, hi], "=h,f,f", i16)
        out.append(ctx.value("arith.trunci", [packed], i8))
        high = ctx.binop("arith.shrui", packed, ctx.const(8, i16))
        out.append(ctx.value("arith.trunci", [high], i8))
    return out[:len(values)]


def native_decode(ctx: LoweringContext, bits: list, kind: str) -> list:
    """fp8 `bits` -> f16 values (exact) with `cvt.rn.f16x2.<kind>x2`, two per instruction."""
    i16, i32, f16 = (ir.IntegerType.get_signless(16), ctx.i32_type(), ir.F16Type.get())
    out = []
    for lo, hi in _pairs(bits):
        high = ctx.binop("arith.shli", ctx.value("arith.extui", [hi], i16), ctx.const(8, i16))
        packed = ctx.binop("arith.ori", ctx.value("arith.extui", [lo], i16), high)
        halves = _asm(ctx, f"cvt.rn.f16x2.{kind}x2 $0, $1;", [packed], "=r,h", i32)
        for word in (halves, ctx.binop("arith.shrui", halves, ctx.i32(16))):
            out.append(ctx.value("arith.bitcast", [ctx.value("arith.trunci", [word], i16)], f16))
    return out[:len(bits)]


def _from_f16(ctx: LoweringContext, value, dst_name: str, dst_ty):
    if dst_name == "f16":
        return value
    wide = ctx.value("arith.extf", [value], ir.F32Type.get())
    if dst_name == "bf16":
        return ctx.value("arith.truncf", [wide], dst_ty)  # exact: fp8 values fit bf16
    return wide if dst_name == "f32" else ctx.value("arith.extf", [wide], dst_ty)


@lowering("tt.fp_to_fp")
def lower_fp_to_fp(ctx: LoweringContext, op) -> list:
    """Conversions from and to fp8 of the formats in `NATIVE` use the hardware's from
    sm_89 on (`NATIVE_ARCH`), which round as `encode` does; others go through f32 bits."""
    src, result = op.operands[0], op.results[0]
    src_name = str(ctx.element_type(src.type))
    dst_name = str(ctx.element_type(result.type))
    rounding = ir.StringAttr(op.attributes["rounding"]).value or "rtne"
    dst_ty = ctx.scalar_type(result.type)
    regs = ctx.get(src)
    wide = ("f16", "bf16", "f32")
    if ctx.arch >= NATIVE_ARCH and src_name in NATIVE and dst_name in (*wide, "f64"):
        halves = native_decode(ctx, regs, NATIVE[src_name])
        return [[_from_f16(ctx, h, dst_name, dst_ty) for h in halves]]
    if ctx.arch >= NATIVE_ARCH and dst_name in NATIVE and src_name in wide and rounding == "rtne":
        return [native_encode(ctx, [_to_f32(ctx, r, src_name) for r in regs], NATIVE[dst_name])]
    out = []
    for reg in regs:
        value = _to_f32(ctx, reg, src_name, rounding)
        if dst_name in FORMATS and (dst_name.startswith("f8") or rounding == "rtz"):
            encoded = encode(ctx, value, FORMATS[dst_name], rounding)
            if not dst_name.startswith("f8"):
                encoded = ctx.value("arith.bitcast", [encoded], dst_ty)
            out.append(encoded)
        elif dst_name == "f32":
            out.append(value)
        elif dst_name == "f64":
            out.append(ctx.value("arith.extf", [value], dst_ty))
        else:
            out.append(ctx.value("arith.truncf", [value], dst_ty))
    return [out]
