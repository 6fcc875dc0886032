"""Lowering of pointer arithmetic, loads, stores and atomics.

A load or store moves `vec` consecutive registers at once when the axis analysis shows
their addresses are contiguous and aligned and the mask is uniform over them: fp32 with
vec = 4 becomes `ld.global.v4.b32`. The access is predicated PTX (`@p ld...`) written as
inline assembly, as the mask and the cache modifier need.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import AxisAnalysis, element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir, pointee_text
from tritonc.passes.to_llvm.lowering import lowering

CACHE = {"": "", ".ca": ".ca", ".cg": ".cg", ".cv": ".cv", ".cs": ".cs", ".wb": ".wb",
         ".wt": ".wt"}
EVICT = {"": "", "evict_normal": "", "evict_first": ".L1::evict_first",
         "evict_last": ".L1::evict_last"}


def _analysis(ctx: LoweringContext) -> AxisAnalysis:
    if not hasattr(ctx, "axis"):
        ctx.axis = AxisAnalysis()
    return ctx.axis


@lowering("tt.addptr")
def lower_addptr(ctx: LoweringContext, op) -> list:
    ptr, offset = op.operands
    result = op.results[0]
    elt = ctx.element_type(result.type)
    pointee = ir.Type.parse(pointee_text(elt)[0])
    ptr_ty = ctx.scalar_type(result.type)
    ptrs, offs = ctx.get(ptr), ctx.get(offset)
    out = []
    for i in range(ctx.num_registers(result.type)):
        p = ptrs[i] if len(ptrs) > 1 else ptrs[0]
        o = offs[i] if len(offs) > 1 else offs[0]
        out.append(ctx.value("llvm.getelementptr", [p, o], ptr_ty, {
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
            "elem_type": ir.TypeAttr.get(pointee)}))
    return [out]


def vector_width(ctx: LoweringContext, ptr, mask, elt_bytes: int) -> int:
    """How many consecutive registers one access may cover."""
    if not ctx.is_tensor(ptr.type):
        return 1
    layout = ctx.layout(ptr.type)
    info = _analysis(ctx).get(ptr)
    vec = min(layout.vector_width, info.contiguity,
              max(1, info.divisibility // elt_bytes), max(1, 16 // elt_bytes))
    if mask is not None:
        vec = min(vec, _analysis(ctx).get(mask).constancy)
    width = 1
    while width * 2 <= vec:
        width *= 2
    return width


def _word(elt_bytes: int, vec: int) -> tuple[int, int]:
    """(bits per PTX register, number of registers) for `vec` elements."""
    total = elt_bytes * vec * 8
    bits = 64 if elt_bytes == 8 else min(32, total)
    return bits, total // bits


_CONSTRAINT = {8: "c", 16: "h", 32: "r", 64: "l"}


def _attr_str(op, name: str) -> str:
    return ir.StringAttr(op.attributes[name]).value if name in op.attributes else ""


def _pack(ctx: LoweringContext, values: list, elt_ty, bits: int, count: int) -> list:
    """Scalar elements as `count` integers of `bits` bits (bit-exact)."""
    word = ir.IntegerType.get_signless(bits)
    if len(values) == count and isinstance(elt_ty, ir.IntegerType) and \
            ir.IntegerType(elt_ty).width == bits:
        return values
    vec_ty = ir.VectorType.get([len(values)], elt_ty)
    vec = ctx.value("llvm.mlir.poison", [], vec_ty)
    for i, v in enumerate(values):
        vec = ctx.value("llvm.insertelement", [vec, v, ctx.i32(i)], vec_ty)
    words = ctx.value("llvm.bitcast", [vec], ir.VectorType.get([count], word))
    return [ctx.value("llvm.extractelement", [words, ctx.i32(i)], word) for i in range(count)]


def _unpack(ctx: LoweringContext, words: list, elt_ty, vec: int) -> list:
    bits = ir.IntegerType(words[0].type).width
    if len(words) == vec and str(elt_ty) == f"i{bits}":
        return words
    wvec_ty = ir.VectorType.get([len(words)], words[0].type)
    wvec = ctx.value("llvm.mlir.poison", [], wvec_ty)
    for i, w in enumerate(words):
        wvec = ctx.value("llvm.insertelement", [wvec, w, ctx.i32(i)], wvec_ty)
    evec = ctx.value("llvm.bitcast", [wvec], ir.VectorType.get([vec], elt_ty))
    return [ctx.value("llvm.extractelement", [evec, ctx.i32(i)], elt_ty) for i in range(vec)]


def _true(ctx: LoweringContext):
    return ctx.const(1, ir.IntegerType.get_signless(1))


def _memory_type(elt_ty):
    """i1 lives in memory as a byte; the semantic layer already loads int1 as int8."""
    return elt_ty


@lowering("tt.load")
def lower_load(ctx: LoweringContext, op) -> list:
    segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    operands = list(op.operands)
    ptr = operands[0]
    mask = operands[1] if segs[1] else None
    other = operands[1 + segs[1]] if segs[2] else None
    result = op.results[0]
    elt_ty = ctx.scalar_type(result.type)
    nbytes = element_bytes(elt_ty)
    vec = vector_width(ctx, ptr, mask, nbytes)
    bits, count = _word(nbytes, vec)
    ptrs = ctx.get(ptr)
    masks = ctx.get(mask) if mask is not None else None
    others = ctx.get(other) if other is not None else None
    n = ctx.num_registers(result.type)
    cache = CACHE.get(_attr_str(op, "cache"), "")
    evict = "" if cache else EVICT.get(_attr_str(op, "evict"), "")
    volatile = "is_volatile" in op.attributes and ir.BoolAttr(op.attributes["is_volatile"]).value
    word = ir.IntegerType.get_signless(bits)
    out = []
    for start in range(0, n, vec):
        pred = masks[start] if masks is not None else _true(ctx)
        regs = ", ".join(f"${i}" for i in range(count))
        vec_suffix = f".v{count}" if count > 1 else ""
        instr = "ld.volatile.global" if volatile else f"ld.global{cache}{evict}"
        asm = f"@${count} {instr}{vec_suffix}.b{bits} {{{regs}}}, [${count + 1}];"
        if count == 1:
            asm = f"@${count} {instr}.b{bits} {regs}, [${count + 1}];"
        constraints = ",".join([f"={_CONSTRAINT[bits]}"] * count + ["b", "l"])
        res_ty = word if count == 1 else ir.Type.parse(
            f"!llvm.struct<({', '.join([str(word)] * count)})>")
        call = ctx.op("llvm.inline_asm", [pred, ptrs[start]], [res_ty], {
            "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get(constraints),
            "has_side_effects": ir.UnitAttr.get() if volatile else ir.UnitAttr.get()})
        raw = call.results[0]
        words = [raw] if count == 1 else [
            ctx.value("llvm.extractvalue", [raw], word,
                      {"position": ir.DenseI64ArrayAttr.get([i])}) for i in range(count)]
        values = _unpack(ctx, words, elt_ty, vec)
        if others is not None:
            values = [ctx.value("arith.select", [pred, v, others[start + i]], elt_ty)
                      for i, v in enumerate(values)]
        out.extend(values)
    return [out]


@lowering("tt.store")
def lower_store(ctx: LoweringContext, op) -> list:
    segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    ptr, value = op.operands[0], op.operands[1]
    mask = op.operands[2] if segs[2] else None
    elt_ty = ctx.scalar_type(value.type)
    nbytes = element_bytes(elt_ty)
    vec = vector_width(ctx, ptr, mask, nbytes)
    bits, count = _word(nbytes, vec)
    ptrs, values = ctx.get(ptr), ctx.get(value)
    masks = ctx.get(mask) if mask is not None else None
    cache = CACHE.get(_attr_str(op, "cache"), "")
    evict = "" if cache else EVICT.get(_attr_str(op, "evict"), "")
    for start in range(0, len(values), vec):
        pred = masks[start] if masks is not None else _true(ctx)
        words = _pack(ctx, values[start:start + vec], elt_ty, bits, count)
        regs = ", ".join(f"${i + 2}" for i in range(count))
        body = f"{{{regs}}}" if count > 1 else regs
        suffix = f".v{count}" if count > 1 else ""
        asm = f"@$0 st.global{cache}{evict}{suffix}.b{bits} [$1], {body};"
        constraints = ",".join(["b", "l"] + [_CONSTRAINT[bits]] * count)
        ctx.op("llvm.inline_asm", [pred, ptrs[start], *words], [], {
            "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get(constraints),
            "has_side_effects": ir.UnitAttr.get()})
    return []


_ATOMIC = {"and": "_and", "or": "_or", "xor": "_xor"}
_ORDER = {"acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
          "relaxed": "monotonic"}
_SCOPE = {"gpu": "", "cta": "block", "sys": None}


def _float_minmax(kind: str, elt_ty) -> str:
    if kind in ("max", "min") and isinstance(elt_ty, (ir.F32Type, ir.F64Type)):
        return "fmax" if kind == "max" else "fmin"
    return kind


def _guarded(ctx: LoweringContext, pred, elt_ty, build):
    """`build()` under `if pred`, yielding 0 when the lane is off."""
    if pred is None:
        return build()
    branch = ir.Operation.create("scf.if", results=[elt_ty], operands=[pred], regions=2,
                                 loc=ctx.loc, ip=ctx.ip)
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
    ctx.op("scf.yield", [build()])
    ctx.ip = ir.InsertionPoint(branch.regions[1].blocks.append())
    ctx.op("scf.yield", [ctx.const(0, elt_ty)])
    ctx.ip = saved
    return branch.results[0]


def _and(ctx: LoweringContext, a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ctx.binop("arith.andi", a, b)


@lowering("tt.atomic_rmw")
def lower_atomic_rmw(ctx: LoweringContext, op) -> list:
    from mlir.dialects import llvm

    segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    ptr, val = op.operands[0], op.operands[1]
    mask = op.operands[2] if segs[2] else None
    result = op.results[0]
    elt_ty = ctx.scalar_type(result.type)
    kind = _float_minmax(_attr_str(op, "kind"), elt_ty)
    bin_op = getattr(llvm.AtomicBinOp, _ATOMIC.get(kind, kind))
    ordering = getattr(llvm.AtomicOrdering, _ORDER[_attr_str(op, "sem") or "acq_rel"])
    scope = _SCOPE.get(_attr_str(op, "scope") or "gpu")
    ptrs, vals = ctx.get(ptr), ctx.get(val)
    masks = ctx.get(mask) if mask is not None else None
    owners = ctx.owner_predicates(result.type) if ctx.is_tensor(result.type) else None
    out = []
    for i in range(len(vals)):
        pred = _and(ctx, masks[i] if masks is not None else None, owners[i] if owners else None)

        def build(i=i):
            return llvm.AtomicRMWOp(bin_op, ptrs[i], vals[i], ordering, syncscope=scope or None,
                                    loc=ctx.loc, ip=ctx.ip).result

        out.append(_guarded(ctx, pred, elt_ty, build))
    return [out]


@lowering("tt.atomic_cas")
def lower_atomic_cas(ctx: LoweringContext, op) -> list:
    from mlir.dialects import llvm

    ptr, cmp, val = op.operands
    order = _ORDER[_attr_str(op, "sem") or "acq_rel"]
    failure = "acquire" if order in ("acq_rel", "acquire") else "monotonic"
    scope = _SCOPE.get(_attr_str(op, "scope") or "gpu")
    result = op.results[0]
    elt_ty = ctx.scalar_type(result.type)
    owners = ctx.owner_predicates(result.type) if ctx.is_tensor(result.type) else None
    out = []
    for i, (p, c, v) in enumerate(zip(ctx.get(ptr), ctx.get(cmp), ctx.get(val))):
        def build(p=p, c=c, v=v):
            pair = llvm.AtomicCmpXchgOp(p, c, v, getattr(llvm.AtomicOrdering, order),
                                        getattr(llvm.AtomicOrdering, failure),
                                        syncscope=scope or None, loc=ctx.loc, ip=ctx.ip).result
            return ctx.value("llvm.extractvalue", [pair], elt_ty,
                             {"position": ir.DenseI64ArrayAttr.get([0])})

        out.append(_guarded(ctx, owners[i] if owners else None, elt_ty, build))
    return [out]
