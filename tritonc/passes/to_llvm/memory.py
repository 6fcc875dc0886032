"""Lowering of pointer arithmetic, loads, stores and atomics.

A load or store moves `vec` consecutive registers at once when the axis analysis shows
their addresses are contiguous and aligned and the mask is uniform over them: fp32 with
vec = 4 becomes `ld.global.v4.b32`. The access is predicated PTX (`@p ld...`) written as
inline assembly, as the mask and the cache modifier need. Atomics are predicated PTX too,
with their order and scope; on sm_90 a floating-point add over contiguous, aligned
registers is one vector `atom` (`atom.global.gpu.relaxed.v4.f32.add`).
"""

from __future__ import annotations

from typing import NamedTuple

from tritonc.passes.to_llvm.access import emit_loads, emit_stores
from tritonc.passes.to_llvm.axis_along import analysis_along
from tritonc.passes.to_llvm.axis_info import analysis, element_bytes
from tritonc.passes.to_llvm.blocks import is_block_pointer, load_block, store_block
from tritonc.passes.to_llvm.context import LoweringContext, ir, pointee_text
from tritonc.passes.to_llvm.convert import linear_of
from tritonc.passes.to_llvm.lowering import lowering
from tritonc.passes.to_llvm.tile_index import swizzled_index

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
    last = len(ctx.shape(ptr.type)) - 1
    fastest = getattr(layout, "order", (last,))[0]
    if fastest != last:  # a tile read along another dimension
        return analysis_along(ctx).vector_width(ptr, mask, fastest, elt_bytes,
                                                layout.vector_width)
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


class ReadBack(NamedTuple):
    """Where a pipelined load's tile lies in its ring buffer (pipeline.py `issue_copies`): the
    buffer's byte offset `at`, `vector` registers stored together, stored one column a row
    when `flipped`, row r as row r // `repeat` (software_pipeline.repeated_rows)."""

    at: object
    vector: int
    flipped: bool
    repeat: int = 1


def _width(ctx: LoweringContext, ty, where: ReadBack) -> int:
    """How many consecutive registers of layout `ty` one shared-memory load reads from a
    ring buffer stored `where.vector` elements at a time: consecutive registers holding
    consecutive elements along the stored rows, every thread's and register group's
    first element aligned to the width (so no group crosses a stored vector)."""
    ll = linear_of(ctx.layout(ty), tuple(ctx.shape(ty)))
    if ll is None:
        return 1
    d = 0 if where.flipped else 1
    width = min(ll.num_contiguous(ll.out_dims[d]), where.vector)
    while width > 1:
        skip = width.bit_length() - 1  # the register bits inside one group
        rest = [*ll.bases("register")[skip:], *ll.bases("lane"), *ll.bases("warp")]
        if all(b[d] % width == 0 for b in rest):
            return width
        width //= 2
    return 1


def read_back(ctx: LoweringContext, ty, where: ReadBack) -> list:
    """The registers of a tile of type `ty` (its load's layout, or any other a conversion
    of it asks for) read from its ring buffer, as many at a time as `_width` allows."""
    vector = _width(ctx, ty, where)
    elt = ctx.scalar_type(ty)
    elem = element_bytes(elt)
    rows, row_len = ctx.shape(ty)
    if where.flipped:
        rows, row_len = row_len, rows
    rows //= where.repeat
    coords = ctx.coordinates(ty)
    align = {"alignment": ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                             vector * elem)}
    out = []
    for start in range(0, len(coords), vector):
        row, col = coords[start][::-1] if where.flipped else coords[start]
        if where.repeat > 1:
            row = ctx.binop("arith.divui", row, ctx.i32(where.repeat))
        ptr = ctx.smem_ptr(swizzled_index(ctx, row, col, rows, row_len, False, elem), elt,
                           where.at)
        if vector == 1:
            out.append(ctx.value("llvm.load", [ptr], elt, align))
            continue
        packed = ctx.value("llvm.load", [ptr], ir.VectorType.get([vector], elt), align)
        out += [ctx.value("llvm.extractelement", [packed, ctx.i32(i)], elt)
                for i in range(vector)]
    return out


@lowering("tt.load")
def lower_load(ctx: LoweringContext, op) -> list:
    if op.results[0] in ctx.read_back:  # pipelined, read from its ring buffer
        return [read_back(ctx, op.results[0].type, ctx.read_back[op.results[0]])]
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
    masks = ctx.get(mask) if mask is not None else None
    if ctx.load_guard is not None:  # a later iteration's load, made only if it runs
        masks = [_and(ctx, m, ctx.load_guard) for m in (masks or [None] * len(ctx.get(ptr)))]
    out = emit_loads(ctx, ctx.get(ptr), masks,
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
    masks = ctx.get(mask) if mask is not None else None
    if not ctx.is_tensor(value.type):
        # every thread holds a scalar: thread 0 stores it, so a thread that reads the
        # address after another thread's store cannot store again what it computed from it
        masks = [_and(ctx, masks[0] if masks is not None else None, _thread0(ctx))]
    emit_stores(ctx, ctx.get(ptr), ctx.get(value), masks,
                elt_ty, vec, CACHE.get(_attr_str(op, "cache"), ""),
                EVICT.get(_attr_str(op, "evict"), ""))
    return []


def _and(ctx: LoweringContext, a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ctx.binop("arith.andi", a, b)


def _thread0(ctx: LoweringContext):
    return ctx.value("arith.cmpi", [ctx.tid, ctx.i32(0)], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})


def _asm(ctx: LoweringContext, text: str, constraints: str, operands: list, result=None):
    attrs = {"asm_string": ir.StringAttr.get(text), "constraints": ir.StringAttr.get(constraints),
             "has_side_effects": ir.UnitAttr.get()}
    op = ctx.op("llvm.inline_asm", operands, [result] if result is not None else [], attrs)
    return op.results[0] if result is not None else None


def _share(ctx: LoweringContext, words: list, writers: list, slots: list) -> list:
    """Each register's value as its writer holds it, read back by every thread: the writer
    stores it to its shared-memory slot, all threads load the slot. The stores are
    predicated PTX, not branches: a branch on the thread id would let LLVM unswitch a
    loop on that id and leave the threads of a warp at different `bar.sync`s."""
    ctx.guard_barrier()
    for word, writer, slot in zip(words, writers, slots, strict=True):
        bits = ir.IntegerType(word.type).width
        _asm(ctx, f"@$0 st.shared.b{bits} [$1], $2;", f"b,l,{_REG[bits]}",
             [writer, slot, word])
    ctx.barrier()
    return [ctx.value("llvm.load", [slot], word.type) for word, slot in zip(words, slots,
                                                                            strict=True)]


def _old_values(ctx: LoweringContext, words: list, ty, owners: list | None, used: bool,
                elt_ty) -> list:
    """The old values of an atomic, `words` as the threads that performed it hold them, for
    every thread holding a copy of the element: a scalar from thread 0, a tensor element
    from its owner (when the layout holds copies). An unused result is not shared."""
    if used and not ctx.is_tensor(ty):
        ctx.reserve_smem(8)
        words = _share(ctx, words, [_thread0(ctx)], [ctx.smem_ptr(ctx.i32(0), words[0].type)])
    elif used and owners is not None:
        shape = ctx.shape(ty)
        numel = 1
        for n in shape:
            numel *= n
        ctx.reserve_smem(numel * element_bytes(elt_ty))
        slots = [ctx.smem_ptr(ctx.linear_index(c, shape), words[0].type)
                 for c in ctx.coordinates(ty)]
        words = _share(ctx, words, owners, slots)
    return [_from_bits(ctx, w, elt_ty) for w in words]


_REG = {16: "h", 32: "r", 64: "l"}
_PTX_SEM = {"acq_rel": ".acq_rel", "acquire": ".acquire", "release": ".release",
            "relaxed": ".relaxed"}
_PTX_SCOPE = {"gpu": ".gpu", "cta": ".cta", "sys": ".sys"}


def _bits(ctx: LoweringContext, value, bits: int):
    """`value` as an integer of `bits` bits (floats bitcast), the register PTX takes."""
    word = ir.IntegerType.get_signless(bits)
    if str(value.type).startswith("!llvm.ptr"):
        return ctx.value("llvm.ptrtoint", [value], word)
    return value if value.type == word else ctx.value("arith.bitcast", [value], word)


def _atom_parts(kind: str, elt_ty, bits: int, arch: int) -> list[str] | None:
    """The `op.type` of each predicated `atom` a read-modify-write needs (float
    max/min take two: by the sign of the value, a signed max/min of the bits or an
    unsigned min/max), or None when PTX has no such atom (a CAS loop does it)."""
    is_float = isinstance(elt_ty, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))
    if kind == "fadd":
        if isinstance(elt_ty, ir.F16Type):
            return ["add.noftz.f16"]
        if isinstance(elt_ty, ir.BF16Type):
            return ["add.noftz.bf16"] if arch >= 90 else None
        return [f"add.f{bits}"]
    if kind == "xchg":
        return [f"exch.b{bits}"] if bits >= 32 else None
    if kind in ("fmax", "fmin") or (kind in ("max", "min") and is_float):
        if bits == 16:
            return None
        op = kind.lstrip("f")
        return [f"{op}.s{bits}", f"{'min' if op == 'max' else 'max'}.u{bits}"]
    if kind == "add":
        return [f"add.u{bits}"]
    if kind in ("max", "min"):
        return [f"{kind}.s{bits}"]
    if kind in ("umax", "umin"):
        return [f"{kind[1:]}.u{bits}"]
    return [f"{kind}.b{bits}"]  # and, or, xor


def _atom_word(ctx: LoweringContext, kind: str, elt_ty, ptr, val, pred, sem: str,
               scope: str):
    """A read-modify-write as predicated PTX: the old value (as an integer of the element's
    width) where `pred`, 0 elsewhere."""
    bits = element_bytes(elt_ty) * 8
    word = ir.IntegerType.get_signless(bits)
    qual = f".global{_PTX_SCOPE[scope]}{_PTX_SEM[sem]}"
    parts = _atom_parts(kind, elt_ty, bits, ctx.arch)
    value = _bits(ctx, val, bits)
    reg = _REG[bits]
    if parts is None:
        return _cas_loop(ctx, kind, elt_ty, f"{_PTX_SEM[sem]}{_PTX_SCOPE[scope]}.global", pred,
                         ptr, value)
    if len(parts) == 1:
        return _asm(ctx, f"mov.b{bits} $0, 0;\n@$1 atom{qual}.{parts[0]} $0, [$2], $3;",
                    f"={reg},b,l,{reg}", [pred, ptr, value], word)
    # float max/min: by the sign bit of the value
    negative = ctx.value("arith.cmpi", [value, ctx.const(0, word)],
                         ir.IntegerType.get_signless(1),
                         {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)})
    positive = ctx.value("arith.xori", [negative, ctx.const(1, negative.type)], negative.type)
    text = (f"mov.b{bits} $0, 0;\n@$1 atom{qual}.{parts[0]} $0, [$3], $4;\n"
            f"@$2 atom{qual}.{parts[1]} $0, [$3], $4;")
    return _asm(ctx, text, f"={reg},b,b,l,{reg}",
                [_and(ctx, pred, positive), _and(ctx, pred, negative), ptr, value], word)


def _cas_loop(ctx: LoweringContext, kind: str, elt_ty, qual: str, pred, ptr, value):
    """A 16-bit exchange, bf16 add (before sm_90) or fp16/bf16 max/min as a
    compare-and-swap loop, run by the predicated thread inside one piece of PTX (no branch
    LLVM can see)."""
    word = ir.IntegerType.get_signless(16)
    if kind == "xchg":
        update = "mov.b16 %new, $3;"
    elif kind == "fadd":  # bf16 add: fma by one rounds as an add does
        update = "fma.rn.bf16 %new, %old, %one, $3;"
    else:  # max / min
        kind_name = "bf16" if isinstance(elt_ty, ir.BF16Type) else "f16"
        update = f"{kind.lstrip('f')}.{kind_name} %new, %old, $3;"
    text = ("{\n.reg .pred %again;\n.reg .b16 %old, %new, %seen, %one;\n"
            "mov.b16 %one, 0x3F80;\n"
            "mov.b16 $0, 0;\n@!$1 bra done_${:uid};\n"
            "ld.relaxed.gpu.global.b16 %old, [$2];\n"
            "retry_${:uid}:\n"
            f"{update}\n"
            f"atom{qual}.cas.b16 %seen, [$2], %old, %new;\n"
            "setp.ne.b16 %again, %seen, %old;\nmov.b16 %old, %seen;\n"
            "@%again bra retry_${:uid};\nmov.b16 $0, %old;\n"
            "done_${:uid}:\n}")
    return _asm(ctx, text, "=h,b,l,h", [pred, ptr, value], word)


def _from_bits(ctx: LoweringContext, value, elt_ty):
    if str(elt_ty).startswith("!llvm.ptr"):
        return ctx.value("llvm.inttoptr", [value], elt_ty)
    return value if value.type == elt_ty else ctx.value("arith.bitcast", [value], elt_ty)


def _cas_word(ctx: LoweringContext, elt_ty, ptr, cmp, val, pred, sem: str, scope: str):
    """A compare-and-swap as predicated PTX, as `_atom_word`."""
    bits = element_bytes(elt_ty) * 8
    reg = _REG[bits]
    qual = f".global{_PTX_SEM[sem]}{_PTX_SCOPE[scope]}"
    return _asm(ctx, f"mov.b{bits} $0, 0;\n@$1 atom{qual}.cas.b{bits} $0, [$2], $3, $4;",
                f"={reg},b,l,{reg},{reg}", [pred, ptr, _bits(ctx, cmp, bits),
                                            _bits(ctx, val, bits)],
                ir.IntegerType.get_signless(bits))


def _used(value) -> bool:
    return any(True for _ in value.uses)


@lowering("tt.atomic_rmw")
def lower_atomic_rmw(ctx: LoweringContext, op) -> list:
    segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    ptr, val = op.operands[0], op.operands[1]
    mask = op.operands[2] if segs[2] else None
    result = op.results[0]
    elt_ty = ctx.scalar_type(result.type)
    sem, scope = _attr_str(op, "sem") or "acq_rel", _attr_str(op, "scope") or "gpu"
    ptrs, vals = ctx.get(ptr), ctx.get(val)
    masks = ctx.get(mask) if mask is not None else [None] * len(vals)
    owners = _actors(ctx, result.type, len(vals))
    kind = _attr_str(op, "kind")
    vec = _vector_add_width(ctx, kind, elt_ty, ptr, mask)
    words = []
    for i in range(0, len(vals), vec):
        pred = _predicate(ctx, masks[i], owners[i])
        if vec > 1:
            words += _atom_vector_add(ctx, elt_ty, ptrs[i], vals[i:i + vec], pred, sem, scope)
        else:
            words.append(_atom_word(ctx, kind, elt_ty, ptrs[i], vals[i], pred, sem, scope))
    return [_old_values(ctx, words, result.type, _owners(ctx, result.type), _used(result),
                        elt_ty)]


def _vector_add_width(ctx: LoweringContext, kind: str, elt_ty, ptr, mask) -> int:
    """How many consecutive registers one floating-point `atom.add` covers: on sm_90 a
    vector of up to 16 bytes of fp32, fp16 or bf16 where the addresses are contiguous and
    aligned and the mask uniform over them (`vector_width`); 1 otherwise."""
    if kind != "fadd" or ctx.arch < 90 or not ctx.is_tensor(ptr.type) or \
            not isinstance(elt_ty, (ir.F16Type, ir.BF16Type, ir.F32Type)):
        return 1
    return vector_width(ctx, ptr, mask, element_bytes(elt_ty))


def _atom_vector_add(ctx: LoweringContext, elt_ty, ptr, vals: list, pred, sem: str,
                     scope: str) -> list:
    """`atom.global.<scope>.<sem>.v<n>.<type>.add` of `vals` at `ptr` where `pred`: the old
    values as integers of the element's width (0 elsewhere)."""
    vec, bits = len(vals), element_bytes(elt_ty) * 8
    word = ir.IntegerType.get_signless(bits)
    reg = _REG[bits]
    kind = {16: "f16" if isinstance(elt_ty, ir.F16Type) else "bf16", 32: "f32"}[bits]
    olds = ", ".join(f"${i}" for i in range(vec))
    news = ", ".join(f"${vec + 2 + i}" for i in range(vec))
    text = "".join(f"mov.b{bits} ${i}, 0;\n" for i in range(vec)) + (
        f"@${vec} atom.global{_PTX_SCOPE[scope]}{_PTX_SEM[sem]}.v{vec}.{kind}.add"
        f"{'.noftz' if bits == 16 else ''} {{{olds}}}, [${vec + 1}], {{{news}}};")
    struct = ir.Type.parse(f"!llvm.struct<({', '.join([str(word)] * vec)})>")
    out = _asm(ctx, text, ",".join([f"={reg}"] * vec + ["b", "l"] + [reg] * vec),
               [pred, ptr, *(_bits(ctx, v, bits) for v in vals)], struct)
    return [ctx.value("llvm.extractvalue", [out], word, {"position": ir.DenseI64ArrayAttr.get([i])})
            for i in range(vec)]


@lowering("tt.atomic_cas")
def lower_atomic_cas(ctx: LoweringContext, op) -> list:
    ptr, cmp, val = op.operands
    sem, scope = _attr_str(op, "sem") or "acq_rel", _attr_str(op, "scope") or "gpu"
    result = op.results[0]
    elt_ty = ctx.scalar_type(result.type)
    ptrs, cmps, vals = ctx.get(ptr), ctx.get(cmp), ctx.get(val)
    owners = _actors(ctx, result.type, len(vals))
    words = [_cas_word(ctx, elt_ty, ptrs[i], cmps[i], vals[i],
                       _predicate(ctx, None, owners[i]), sem, scope)
             for i in range(len(vals))]
    return [_old_values(ctx, words, result.type, _owners(ctx, result.type), _used(result),
                        elt_ty)]


def _owners(ctx: LoweringContext, ty) -> list | None:
    return ctx.owner_predicates(ty) if ctx.is_tensor(ty) else None


def _actors(ctx: LoweringContext, ty, count: int) -> list:
    """Which thread performs each element's atomic: a scalar's is thread 0, a tensor
    element's its owner where the layout holds copies of it (None: its only holder).
    Before a scalar's, every thread of the program reaches a barrier: the atomic comes
    after the program's earlier accesses in program order, so no warp still behind may
    read what it writes (a count read under a lock, then set by thread 0)."""
    if not ctx.is_tensor(ty):
        ctx.barrier()
        return [_thread0(ctx)]
    return _owners(ctx, ty) or [None] * count


def _predicate(ctx: LoweringContext, mask, actor):
    pred = _and(ctx, mask, actor)
    return pred if pred is not None else ctx.const(1, ir.IntegerType.get_signless(1))
