"""Lowering of elementwise ops: arith, math and the tt ops that act per element.

Operands and results of an elementwise op share one layout, so register i of the result
is the op applied to register i of each operand: the upstream op on scalars.
`tt.map_elementwise` inlines its scalar function once per `pack` registers; `ub.poison`
(the value of a path that returns none) is LLVM's poison.

fp8 values travel as their bits (i8): a float op on fp8 operands decodes them to f32,
computes there and rounds the result back to nearest-even (as the interpreter does);
`select` and the bitcasts move the bits; an fp8 constant is the constant of its bits.
"""

from __future__ import annotations

import functools

from tritonc.passes.to_llvm.axis_along import analysis_along
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.fp_convert import constant_bits, from_f32, is_fp8, to_f32
from tritonc.passes.to_llvm.lowering import inline_function, lowering
from tritonc.passes.ttgir.layouts import parse_layout

ARITH = """addi addf subi subf muli mulf divsi divui divf remsi remui remf andi ori xori shli shrsi
shrui maxsi minsi maxui minui maximumf minimumf maxnumf minnumf negf cmpi cmpf select extsi extui
trunci extf truncf sitofp uitofp fptosi fptoui bitcast""".split()
MATH = """exp exp2 log log2 sin cos tan sqrt rsqrt absf floor ceil trunc roundeven erf tanh fma
powf""".split()


_BITS_OPS = ("arith.select", "arith.bitcast", "tt.bitcast")


def per_register(ctx: LoweringContext, op, name: str | None = None, attrs=None) -> list:
    """Apply the scalar form of `op` (or of `name`) register by register; float ops on
    fp8 operands or results compute in f32 (`_via_f32`)."""
    result = op.results[0]
    types = ctx.register_types(result.type)  # a descriptor or block pointer: its parts
    n = len(types)
    operands = [ctx.get(v) for v in op.operands]
    if attrs is None:
        attrs = {name: op.attributes[name] for name in op.attributes}
    name = name or op.name
    elements = [ctx.element_type(v.type) for v in (*op.operands, result)]
    if name not in _BITS_OPS and any(is_fp8(t) for t in elements):
        return [_via_f32(ctx, op, name, operands, attrs, n)]
    same = equal_registers(ctx, result)
    out = []
    for i in range(n):
        if same is not None and same[i] != i:
            out.append(out[same[i]])
            continue
        args = [regs[i] if len(regs) > 1 else regs[0] for regs in operands]
        out.append(ctx.value(name, args, types[i], attrs))
    return [out]


def equal_registers(ctx: LoweringContext, result) -> list[int] | None:
    """For each register of `result`, the first register the axis analysis proves holds
    the same value (None when no two are): a value constant over aligned runs of `c_d`
    elements along each dimension d (a quotient `x // 3136`, a row mask `rows < M` with M
    a multiple of the rows of a block, a load through such an index) is equal in every
    register whose coordinate, divided by `c_d`, is the same along every d. A thread's
    coordinates are those of its registers combined with its lane's and warp's (bits of
    power-of-two sizes that do not overlap), so the registers' offsets alone decide it.
    The op is then computed once per group."""
    if not ctx.is_tensor(result.type):
        return None
    shape = ctx.shape(result.type)
    along = analysis_along(ctx)
    shifts = tuple(_log2_floor(along.get(result, d).constancy) for d in range(len(shape)))
    if not any(shifts):
        return None
    return _groups(str(ir.RankedTensorType(result.type).encoding), shape, shifts)


def _log2_floor(n: int) -> int:
    return max(n, 1).bit_length() - 1


@functools.lru_cache(maxsize=1024)
def _groups(encoding: str, shape: tuple[int, ...], shifts: tuple[int, ...]) -> list[int] | None:
    first: dict[tuple[int, ...], int] = {}
    groups = []
    for i, offset in enumerate(parse_layout(encoding).register_offsets(shape)):
        key = tuple((o % n) >> s for o, n, s in zip(offset, shape, shifts))
        groups.append(first.setdefault(key, i))
    return groups if len(first) < len(groups) else None


def _via_f32(ctx: LoweringContext, op, name: str, operands: list, attrs, n: int) -> list:
    """`name` on the f32 values of fp8 operands, the result rounded back to fp8."""
    f32 = ir.F32Type.get()
    result_elt = ctx.element_type(op.results[0].type)
    ty = f32 if is_fp8(result_elt) else ctx.scalar_type(op.results[0].type)
    elts = [ctx.element_type(v.type) for v in op.operands]
    out = []
    for i in range(n):
        args = [to_f32(ctx, regs[i] if len(regs) > 1 else regs[0], elt) if is_fp8(elt) else
                (regs[i] if len(regs) > 1 else regs[0]) for regs, elt in zip(operands, elts)]
        value = ctx.value(name, args, ty, attrs)
        out.append(from_f32(ctx, value, result_elt) if is_fp8(result_elt) else value)
    return out


@lowering("arith.bitcast")
def lower_arith_bitcast(ctx: LoweringContext, op) -> list:
    """fp8 values are already their bits: a bitcast between fp8 and i8 moves nothing."""
    result = op.results[0]
    regs = ctx.get(op.operands[0])
    ty = ctx.scalar_type(result.type)
    if regs[0].type == ty:
        return [regs]
    return [[ctx.value("arith.bitcast", [r], ty) for r in regs]]


@lowering("arith.divf")
def lower_divf(ctx: LoweringContext, op) -> list:
    """fp32 `/` is `div.full.f32` (about 2 ulp), as in Triton; `tl.div_rn` stays IEEE."""
    if str(ctx.scalar_type(op.results[0].type)) != "f32":
        return per_register(ctx, op)
    lhs, rhs = (ctx.get(v) for v in op.operands)
    out = []
    for i in range(max(len(lhs), len(rhs))):
        a, b = lhs[i % len(lhs)], rhs[i % len(rhs)]
        out.append(ctx.value("llvm.inline_asm", [a, b], a.type, {
            "asm_string": ir.StringAttr.get("div.full.f32 $0, $1, $2;"),
            "constraints": ir.StringAttr.get("=r,r,r")}))
    return [out]


def _unary_ptx(ctx: LoweringContext, instr: str, value):
    return ctx.value("llvm.inline_asm", [value], value.type, {
        "asm_string": ir.StringAttr.get(f"{instr} $0, $1;"),
        "constraints": ir.StringAttr.get("=r,r")})


LOG2_E = 1.4426950408889634
LN_2 = 0.6931471805599453


@lowering("math.exp", "math.exp2", "math.log", "math.log2")
def lower_exp_log(ctx: LoweringContext, op) -> list:
    """fp32 exp/exp2/log/log2 use the hardware's `ex2.approx` / `lg2.approx`, as Triton does
    (exp(x) = 2^(x log2 e); exp2 flushes subnormal results to zero, `.ftz`, which spares
    the instructions that scale them); other types go through the precise libdevice
    functions."""
    if str(ctx.scalar_type(op.results[0].type)) != "f32":
        return per_register(ctx, op)
    out = []
    for x in ctx.get(op.operands[0]):
        if op.name == "math.exp":
            out.append(_unary_ptx(ctx, "ex2.approx.f32",
                               ctx.binop("arith.mulf", x, ctx.const(LOG2_E, x.type))))
        elif op.name == "math.exp2":  # flushing subnormal results, as Triton's exp2 does
            out.append(_unary_ptx(ctx, "ex2.approx.ftz.f32", x))
        elif op.name == "math.log2":
            out.append(_unary_ptx(ctx, "lg2.approx.f32", x))
        else:
            out.append(ctx.binop("arith.mulf", _unary_ptx(ctx, "lg2.approx.f32", x),
                                 ctx.const(LN_2, x.type)))
    return [out]


@lowering("math.absi")
def lower_absi(ctx: LoweringContext, op) -> list:
    """|x| on integers: max(x, 0 - x), signed (math.absi has no LLVM translation)."""
    out = []
    for x in ctx.get(op.operands[0]):
        negated = ctx.binop("arith.subi", ctx.const(0, x.type), x)
        out.append(ctx.binop("arith.maxsi", x, negated))
    return [out]


def _register_upstream() -> None:
    for short in ARITH:
        if short in ("bitcast", "divf"):
            continue
        lowering(f"arith.{short}")(per_register)
    for short in MATH:
        if short not in ("exp", "exp2", "log", "log2"):
            lowering(f"math.{short}")(per_register)


_register_upstream()


@lowering("arith.constant")
def lower_constant(ctx: LoweringContext, op) -> list:
    result = op.results[0]
    attr = op.attributes["value"]
    if ctx.is_tensor(result.type):
        attr = ir.DenseElementsAttr(attr).get_splat_value()
    elt = ctx.element_type(result.type)
    if is_fp8(elt):
        value = ctx.const(constant_bits(ir.FloatAttr(attr).value, str(elt)),
                          ir.IntegerType.get_signless(8))
    else:
        value = ctx.value("arith.constant", [], ctx.scalar_type(result.type), {"value": attr})
    return [[value] * ctx.num_registers(result.type)]


@lowering("ub.poison")
def lower_poison(ctx: LoweringContext, op) -> list:
    """What a path that returns no value gives: LLVM's poison in every register."""
    result = op.results[0]
    value = ctx.value("llvm.mlir.poison", [], ctx.scalar_type(result.type))
    return [[value] * ctx.num_registers(result.type)]


@lowering("tt.splat")
def lower_splat(ctx: LoweringContext, op) -> list:
    return [ctx.get(op.operands[0]) * ctx.num_registers(op.results[0].type)]


@lowering("tt.bitcast")
def lower_bitcast(ctx: LoweringContext, op) -> list:
    return per_register(ctx, op, "llvm.bitcast", {})


@lowering("tt.int_to_ptr")
def lower_int_to_ptr(ctx: LoweringContext, op) -> list:
    return per_register(ctx, op, "llvm.inttoptr", {})


@lowering("tt.ptr_to_int")
def lower_ptr_to_int(ctx: LoweringContext, op) -> list:
    return per_register(ctx, op, "llvm.ptrtoint", {})


@lowering("tt.precise_sqrt")
def lower_precise_sqrt(ctx: LoweringContext, op) -> list:
    """`sqrt.rn.f32`, correctly rounded (the LLVM intrinsic may become `sqrt.approx`)."""
    return [[_unary_ptx(ctx, "sqrt.rn.f32", v) for v in ctx.get(op.operands[0])]]


@lowering("tt.precise_divf")
def lower_precise_divf(ctx: LoweringContext, op) -> list:
    return per_register(ctx, op, "arith.divf", {})


@lowering("tt.clampf")
def lower_clampf(ctx: LoweringContext, op) -> list:
    propagate = ir.BoolAttr(op.attributes["propagate_nan"]).value
    lo_name, hi_name = ("arith.maximumf", "arith.minimumf") if propagate else (
        "arith.maxnumf", "arith.minnumf")
    x, lo, hi = (ctx.get(v) for v in op.operands)
    out = []
    for i in range(len(x)):
        v = ctx.binop(lo_name, x[i], lo[i % len(lo)])
        out.append(ctx.binop(hi_name, v, hi[i % len(hi)]))
    return [out]


@lowering("tt.mulhiu")
def lower_mulhiu(ctx: LoweringContext, op) -> list:
    x, y = (ctx.get(v) for v in op.operands)
    out = []
    for a, b in zip(x, y):
        mul = ctx.op("arith.mului_extended", [a, b], [a.type, a.type])
        out.append(mul.results[1])
    return [out]


@lowering("tt.extern_elementwise")
def lower_extern(ctx: LoweringContext, op) -> list:
    symbol = ir.StringAttr(op.attributes["symbol"]).value
    result = op.results[0]
    ret = ctx.scalar_type(result.type)
    args = [ctx.get(v) for v in op.operands]
    out = []
    for i in range(ctx.num_registers(result.type)):
        call_args = [regs[i] if len(regs) > 1 else regs[0] for regs in args]
        out.append(ctx.call_extern(symbol, call_args, ret))
    return [out]


@lowering("tt.map_elementwise")
def lower_map_elementwise(ctx: LoweringContext, op) -> list:
    """The mapped function's body inlined once per `pack` registers of the operands; where
    a thread's count is not a multiple of `pack`, the last group repeats the final
    register and its surplus results are dropped."""
    pack = ir.IntegerAttr(op.attributes["pack"]).value
    fn = ctx.functions[ir.FlatSymbolRefAttr(op.attributes["fn"]).value]
    args = [ctx.get(v) for v in op.operands]
    n = max(map(len, args))
    outs: list[list] = [[] for _ in op.results]
    for start in range(0, n, pack):
        picks = [min(start + k, n - 1) for k in range(pack)]
        values = inline_function(ctx, fn, [[regs[i] if len(regs) > 1 else regs[0]]
                                           for regs in args for i in picks])
        for r, out in enumerate(outs):
            out += [v[0] for v in values[r * pack:r * pack + min(pack, n - start)]]
    return outs
