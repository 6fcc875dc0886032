"""Lowering of pointer arithmetic, loads, stores and atomics.

A load or store moves `vec` consecutive registers at once when the axis analysis shows
their addresses are contiguous and aligned and the mask is uniform over them: fp32 with
vec = 4 becomes `ld.global.v4.b32`. The access is predicated PTX (`@p ld...`) written as
inline assembly, as the mask and the cache modifier need.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.access import emit_loads, emit_stores
from tritonc.passes.to_llvm.axis_info import analysis, element_bytes
from tritonc.passes.to_llvm.blocks import is_block_pointer, load_block, store_block
from tritonc.passes.to_llvm.context import LoweringContext, ir, pointee_text
from tritonc.passes.to_llvm.lowering import lowering

CACHE = {"": "", ".ca": ".ca", ".cg": ".cg", ".cv": ".cv", ".cs": ".cs", ".wb": ".wb",
         ".wt": ".wt"}
EVICT = {"": "", "evict_normal": "", "evict_first": ".L1::evict_first",
         "evict_last": ".L1::evict_last"}


def gep(ctx: LoweringContext, ptr, offset, ptr_type):
    """ptr + offset elements of the pointee of `ptr_type` (a tt pointer or tensor of them)."""
    pointee = ctx.scalar_type(ir.Type.parse(pointee_text(ctx.element_type(ptr_type))[0]))
    return ctx.value("llvm.getelementptr", [ptr, offset], ctx.scalar_type(ptr_type), {
        "rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
        "elem_type": ir.TypeAttr.get(pointee)})


@lowering("tt.addptr")
def lower_addptr(ctx: LoweringContext, op) -> list:
    ptr, offset = op.operands
    result = op.results[0]
    ptrs, offs = ctx.get(ptr), ctx.get(offset)
    out = []
    for i in range(ctx.num_registers(result.type)):
        out.append(gep(ctx, ptrs[i] if len(ptrs) > 1 else ptrs[0],
                       offs[i] if len(offs) > 1 else offs[0], result.type))
    return [out]


def vector_width(ctx: LoweringContext, ptr, mask, elt_bytes: int) -> int:
    """How many consecutive registers one access may cover."""
    if not ctx.is_tensor(ptr.type):
        return 1
    layout = ctx.layout(ptr.type)
    info = analysis(ctx).get(ptr)
    vec = min(layout.vector_width, info.contiguity,
              max(1, info.divisibility // elt_bytes), max(1, 16 // elt_bytes))
    if mask is not None:
        vec = min(vec, analysis(ctx).get(mask).constancy)
    width = 1
    while width * 2 <= vec:
        width *= 2
    return width


def _attr_str(op, name: str) -> str:
    return ir.StringAttr(op.attributes[name]).value if name in op.attributes else ""


def _segments(op) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))


@lowering("tt.load")
def lower_load(ctx: LoweringContext, op) -> list:
    if op.results[0] in ctx.smem_operands:
        return [[]]  # pipelined: the tile arrives in shared memory by cp.async
    if op in ctx.prefetched:
        return [ctx.get(op.results[0])]  # loaded one iteration early (prefetch.py)
    segs = _segments(op)
    operands = list(op.operands)
    ptr = operands[0]
    if is_block_pointer(ptr.type):
        return [load_block(ctx, op)]
    mask = operands[1] if segs[1] else None
    other = operands[1 + segs[1]] if segs[2] else None
    result = op.results[0]
    elt_ty = ctx.scalar_type(result.type)
    vec = vector_width(ctx, ptr, mask, element_bytes(elt_ty))
    volatile = "is_volatile" in op.attributes and ir.BoolAttr(op.attributes["is_volatile"]).value
    out = emit_loads(ctx, ctx.get(ptr), ctx.get(mask) if mask is not None else None,
                     ctx.get(other) if other is not None else None, elt_ty, vec,
                     CACHE.get(_attr_str(op, "cache"), ""), EVICT.get(_attr_str(op, "evict"), ""),
                     volatile)
    return [out]


@lowering("tt.store")
def lower_store(ctx: LoweringContext, op) -> list:
    segs = _segments(op)
    ptr, value = op.operands[0], op.operands[1]
    if is_block_pointer(ptr.type):
        store_block(ctx, op)
        return []
    mask = op.operands[2] if segs[2] else None
    elt_ty = ctx.scalar_type(value.type)
    vec = vector_width(ctx, ptr, mask, element_bytes(elt_ty))
    emit_stores(ctx, ctx.get(ptr), ctx.get(value), ctx.get(mask) if mask is not None else None,
                elt_ty, vec, CACHE.get(_attr_str(op, "cache"), ""),
                EVICT.get(_attr_str(op, "evict"), ""))
    return []


_ATOMIC = {"and": "_and", "or": "_or", "xor": "_xor"}
_ORDER = {"acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
          "relaxed": "monotonic"}
_SCOPE = {"gpu": "device", "cta": "block", "sys": None}


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


def _thread0(ctx: LoweringContext):
    return ctx.value("arith.cmpi", [ctx.tid, ctx.i32(0)], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})


def _broadcast(ctx: LoweringContext, value):
    """The value thread 0 holds, given to every thread through shared memory."""
    ctx.reserve_smem(8)
    ctx.barrier()
    branch = ir.Operation.create("scf.if", results=[], operands=[_thread0(ctx)], regions=2,
                                 loc=ctx.loc, ip=ctx.ip)
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
    ctx.op("llvm.store", [value, ctx.smem_ptr(ctx.i32(0), value.type)])
    ctx.op("scf.yield", [])
    ctx.ip = ir.InsertionPoint(branch.regions[1].blocks.append())
    ctx.op("scf.yield", [])
    ctx.ip = saved
    ctx.barrier()
    return ctx.value("llvm.load", [ctx.smem_ptr(ctx.i32(0), value.type)], value.type)


def _actors(ctx: LoweringContext, ty) -> list | None:
    """Which copy of each element performs a side effect: the owner of a tensor element,
    thread 0 for a scalar (every thread holds a scalar)."""
    if ctx.is_tensor(ty):
        return ctx.owner_predicates(ty)
    return [_thread0(ctx)]


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
    sem = _attr_str(op, "sem") or "acq_rel"
    ordering = getattr(llvm.AtomicOrdering, _ORDER[sem])
    scope = _SCOPE.get(_attr_str(op, "scope") or "gpu")
    ptrs, vals = ctx.get(ptr), ctx.get(val)
    masks = ctx.get(mask) if mask is not None else None
    owners = _actors(ctx, result.type)
    out = []
    for i in range(len(vals)):
        pred = _and(ctx, masks[i] if masks is not None else None, owners[i] if owners else None)

        def build(i=i):
            # LLVM emits relaxed `atom`s on NVPTX: the ordering comes from explicit fences
            if sem in ("acq_rel", "release"):
                llvm.FenceOp(llvm.AtomicOrdering.release, syncscope=scope or None, loc=ctx.loc,
                             ip=ctx.ip)
            old = llvm.AtomicRMWOp(bin_op, ptrs[i], vals[i], ordering, syncscope=scope or None,
                                   loc=ctx.loc, ip=ctx.ip).result
            if sem in ("acq_rel", "acquire"):
                llvm.FenceOp(llvm.AtomicOrdering.acquire, syncscope=scope or None, loc=ctx.loc,
                             ip=ctx.ip)
            return old

        out.append(_guarded(ctx, pred, elt_ty, build))
    if not ctx.is_tensor(result.type):
        out = [_broadcast(ctx, out[0])]
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
    owners = _actors(ctx, result.type)
    out = []
    for i, (p, c, v) in enumerate(zip(ctx.get(ptr), ctx.get(cmp), ctx.get(val))):
        def build(p=p, c=c, v=v):
            pair = llvm.AtomicCmpXchgOp(p, c, v, getattr(llvm.AtomicOrdering, order),
                                        getattr(llvm.AtomicOrdering, failure),
                                        syncscope=scope or None, loc=ctx.loc, ip=ctx.ip).result
            return ctx.value("llvm.extractvalue", [pair], elt_ty,
                             {"position": ir.DenseI64ArrayAttr.get([0])})

        out.append(_guarded(ctx, owners[i] if owners else None, elt_ty, build))
    if not ctx.is_tensor(result.type):
        out = [_broadcast(ctx, out[0])]
    return [out]
