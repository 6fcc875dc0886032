"""Lowering of reductions and scans.

A reduction of a 1-D tensor to a scalar runs in three steps, following the layout:
combine the registers of each thread, then the lanes of each warp with butterfly
shuffles (`shfl.sync.bfly`) over the lane bits that hold distinct elements, then the
warps through shared memory. A reduction along one axis of an N-D tensor, in any layout,
runs the same steps per row: registers, shuffles over the lane bits along the axis, then
one shared-memory round trip for the warps along the axis, which also leaves the result
in its own layout; with the sliced source layout as the result's (`#ttg.slice`) and no
warp along the axis, it never leaves the registers. Scans go along the lanes with
`shfl.sync.up` (1-D) or through a shared-memory copy.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import inline_function, lowering
from tritonc.passes.to_llvm.shape import _load_scalar, _smem_element_type, _store_scalar, stage
from tritonc.passes.ttgir.layouts import WARP_SIZE, BlockedLayout, SliceLayout


def _combine(ctx: LoweringContext, op, lhs: list, rhs: list) -> list:
    """Apply the op's combine function to two tuples of scalars."""
    symbol = ir.FlatSymbolRefAttr(op.attributes["combine"]).value
    outs = inline_function(ctx, ctx.functions[symbol], [[v] for v in lhs + rhs])
    return [o[0] for o in outs]


def _shuffle(ctx: LoweringContext, value, offset, kind: str = "bfly"):
    """The value of lane `lane ^ offset` ("bfly"), `lane - offset` ("up") or lane `offset`
    ("idx", an int or an i32 value), 32 bits at a time."""
    ty = value.type
    i32 = ir.IntegerType.get_signless(32)
    width = ir.IntegerType(ty).width if isinstance(ty, ir.IntegerType) else (
        64 if isinstance(ty, ir.F64Type) else 32 if isinstance(ty, ir.F32Type) else 16)
    if width == 64:
        vec2 = ir.VectorType.get([2], i32)
        halves = ctx.value("llvm.bitcast", [value], vec2)
        parts = [ctx.value("llvm.extractelement", [halves, ctx.i32(i)], i32) for i in range(2)]
        moved = [_shuffle(ctx, p, offset, kind) for p in parts]
        vec = ctx.value("llvm.mlir.poison", [], vec2)
        for i, p in enumerate(moved):
            vec = ctx.value("llvm.insertelement", [vec, p, ctx.i32(i)], vec2)
        return ctx.value("llvm.bitcast", [vec], ty)
    word = value
    if not isinstance(ty, ir.IntegerType) or width != 32:
        word = ctx.value("llvm.bitcast", [value], ir.IntegerType.get_signless(width)) \
            if width != 32 or not isinstance(ty, ir.IntegerType) else value
        if width < 32:
            word = ctx.value("arith.extui", [word], i32)
    clamp = 0 if kind == "up" else 31
    lane = ctx.i32(offset) if isinstance(offset, int) else offset
    moved = ctx.value("nvvm.shfl.sync", [ctx.i32(-1), word, lane, ctx.i32(clamp)],
                      i32, {"kind": ir.Attribute.parse(f"#nvvm<shfl_kind {kind}>")})
    if width < 32:
        moved = ctx.value("arith.trunci", [moved], ir.IntegerType.get_signless(width))
    if moved.type != ty:
        moved = ctx.value("llvm.bitcast", [moved], ty)
    return moved


def _full_reduce_1d(ctx: LoweringContext, op) -> list:
    srcs = list(op.operands)
    src_ty = srcs[0].type
    layout, shape = ctx.layout(src_ty), ctx.shape(src_ty)
    regs = [ctx.get(s) for s in srcs]
    # 1. registers of this thread (distinct elements)
    acc = [r[0] for r in regs]
    for i in range(1, len(regs[0])):
        acc = _combine(ctx, op, acc, [r[i] for r in regs])
    # 2. lanes holding distinct elements
    for bit, (_, stride) in enumerate(layout.lane_strides()):
        if stride >= shape[0]:
            continue
        acc = _combine(ctx, op, acc, [_shuffle(ctx, a, 1 << bit) for a in acc])
    # 3. warps holding distinct elements, through shared memory
    distinct_warps = [bit for bit, (_, s) in enumerate(layout.warp_strides(shape)) if s < shape[0]]
    if not distinct_warps:
        return [[a] for a in acc]
    n_warps = ctx.num_warps
    results = []
    slot_values = []
    ctx.guard_barrier()
    for k, a in enumerate(acc):
        store_ty = a.type
        ctx.reserve_smem((k + 1) * n_warps * 8)
        base = ctx.i32(k * n_warps * 8 // _bytes(store_ty))
        ptr_index = ctx.binop("arith.addi", base, ctx.warp)
        is_lane0 = ctx.value("arith.cmpi", [ctx.lane, ctx.i32(0)], ir.IntegerType.get_signless(1),
                             {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
        branch = ir.Operation.create("scf.if", results=[], operands=[is_lane0], regions=2,
                                     loc=ctx.loc, ip=ctx.ip)
        saved = ctx.ip
        ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
        ctx.op("llvm.store", [a, ctx.smem_ptr(ptr_index, store_ty)])
        ctx.op("scf.yield", [])
        ctx.ip = saved
        slot_values.append((base, store_ty))
    ctx.barrier()
    # combine the warps that hold distinct partial results (warp ids with only those bits)
    warp_ids = [0]
    for bit in distinct_warps:
        warp_ids += [w | (1 << bit) for w in warp_ids]
    if len(warp_ids) == n_warps and not any(isinstance(ty, ir.Type) and "ptr" in str(ty)
                                            for _, ty in slot_values):
        return [[a] for a in _lanes_combine_slots(ctx, op, n_warps, [
            lambda slot, base=base, ty=ty: ctx.value("llvm.load", [ctx.smem_ptr(
                ctx.binop("arith.addi", base, slot), ty)], ty) for base, ty in slot_values])]
    for base, store_ty in slot_values:
        results.append([ctx.value("llvm.load", [ctx.smem_ptr(ctx.binop("arith.addi", base,
                                                                         ctx.i32(w)), store_ty)],
                                  store_ty) for w in range(n_warps)])
    acc = [r[0] for r in results]
    for w in sorted(warp_ids)[1:]:
        acc = _combine(ctx, op, acc, [r[w] for r in results])
    return [[a] for a in acc]


def _lanes_combine_slots(ctx: LoweringContext, op, n_slots: int, loads: list) -> list:
    """The combination of `n_slots` partial results in shared memory, the same in every
    thread: lane l loads slot l % n_slots (`loads[k](slot)` gives operand k), then
    butterfly shuffles over the low lane bits combine the slots in log2(n_slots) steps
    instead of each thread combining all of them in turn."""
    slot = ctx.binop("arith.andi", ctx.lane, ctx.i32(n_slots - 1))
    part = [load(slot) for load in loads]
    bit = 1
    while bit < n_slots:
        part = _combine(ctx, op, part, [_shuffle(ctx, v, bit) for v in part])
        bit *= 2
    return part


def _lanes_combine_rows(ctx: LoweringContext, op, n_slots: int, numel: int,
                        loads: list) -> list:
    """The `n_slots` partials of each of `numel` rows in shared memory (row r, slot w at
    r + w * numel), combined by the lanes of every warp: in chunk j, lane l takes entry
    e = 32 j + l (row e // n_slots, slot e % n_slots) and butterfly shuffles over the
    low lane bits combine each row's slots, leaving row r's total in lane
    (r * n_slots) % 32 of chunk (r * n_slots) // 32 (`_row_total`). Each thread loads a
    few values instead of every slot of every row it holds."""
    log = n_slots.bit_length() - 1
    chunks = []
    for j in range(-(-numel * n_slots // WARP_SIZE)):
        entry = ctx.binop("arith.addi", ctx.lane, ctx.i32(WARP_SIZE * j)) if j else ctx.lane
        row = ctx.binop("arith.shrui", entry, ctx.i32(log))
        row = ctx.value("arith.minui", [row, ctx.i32(numel - 1)], row.type)
        slot = ctx.binop("arith.andi", entry, ctx.i32(n_slots - 1))
        at = ctx.binop("arith.addi", row, ctx.binop("arith.muli", slot, ctx.i32(numel)))
        part = [load(at) for load in loads]
        bit = 1
        while bit < n_slots:
            part = _combine(ctx, op, part, [_shuffle(ctx, v, bit) for v in part])
            bit *= 2
        chunks.append(part)
    return chunks


def _row_total(ctx: LoweringContext, chunks: list, row, n_slots: int) -> list:
    """Row `row`'s total from `_lanes_combine_rows`: read from its lane in each chunk, the
    chunk that holds it selected."""
    entry = ctx.binop("arith.muli", row, ctx.i32(n_slots))
    lane = ctx.binop("arith.andi", entry, ctx.i32(WARP_SIZE - 1))
    total = [_shuffle(ctx, v, lane, "idx") for v in chunks[0]]
    for j, part in enumerate(chunks[1:], start=1):
        here = ctx.value("arith.cmpi", [ctx.binop("arith.divui", entry, ctx.i32(WARP_SIZE)),
                                        ctx.i32(j)], ir.IntegerType.get_signless(1),
                         {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
        total = [ctx.value("arith.select", [here, _shuffle(ctx, v, lane, "idx"), t], t.type)
                 for v, t in zip(part, total)]
    return total


def _bytes(ty) -> int:
    if isinstance(ty, ir.IntegerType):
        return max(1, ir.IntegerType(ty).width // 8)
    return 8 if isinstance(ty, ir.F64Type) else 2 if (isinstance(ty, ir.F16Type) or
                                                      isinstance(ty, ir.BF16Type)) else 4


def _row_partials(ctx: LoweringContext, op, layout, shape, axis: int) -> dict:
    """For each row (source coordinate with `axis` dropped) this thread holds: the
    combination of its registers of that row (each distinct element once), then of the
    lanes of the warp that hold other elements of the row (butterfly shuffles). Keyed by
    the row's register offsets; values are (per-operand partials, first register)."""
    regs = [ctx.get(v) for v in op.operands]
    rows: dict[tuple, tuple[list, int]] = {}
    seen: set[tuple] = set()
    for i, o in enumerate(layout.register_offsets(shape)):
        wrapped = tuple(x % n for x, n in zip(o, shape))
        if wrapped in seen:
            continue  # a copy of an element already counted
        seen.add(wrapped)
        key = wrapped[:axis] + wrapped[axis + 1:]
        values = [r[i] for r in regs]
        rows[key] = (values, i) if key not in rows else (
            _combine(ctx, op, rows[key][0], values), rows[key][1])
    for bit, (d, stride) in enumerate(layout.lane_strides()):
        if d != axis or not 0 < stride < shape[axis]:
            continue
        for key, (values, first) in rows.items():
            moved = [_shuffle(ctx, v, 1 << bit) for v in values]
            rows[key] = (_combine(ctx, op, values, moved), first)
    return rows


def _axis_reduce(ctx: LoweringContext, op, axis: int) -> list:
    """A reduction along `axis` of an N-D tensor, in any layout: registers, then lanes
    (`_row_partials`), then the warps that split the axis. When the result has the source
    layout sliced at `axis` and no warp splits the axis, the rows stay in registers.
    Otherwise each thread writes its rows' partials to shared memory, one row-major copy
    of the result per warp slot along the axis, and each result register combines the
    slots of its element in order: the one shared-memory round trip also moves the result
    into its own layout."""
    srcs = list(op.operands)
    src_ty, result_ty = srcs[0].type, op.results[0].type
    layout, shape = ctx.layout(src_ty), ctx.shape(src_ty)
    out_layout, out_shape = ctx.layout(result_ty), ctx.shape(result_ty)
    rows = _row_partials(ctx, op, layout, shape, axis)
    warp_bits = [bit for bit, (d, s) in enumerate(layout.warp_strides(shape))
                 if d == axis and 0 < s < shape[axis]]
    if not warp_bits and out_layout == SliceLayout(axis, layout):
        picked = [rows[tuple(x % n for x, n in zip(o, out_shape))][0]
                  for o in out_layout.register_offsets(out_shape)]
        return [[row[k] for row in picked] for k in range(len(srcs))]
    slot = None
    for k, bit in enumerate(warp_bits):
        on = ctx.binop("arith.andi", ctx.binop("arith.shrui", ctx.warp, ctx.i32(bit)),
                       ctx.i32(1))
        term = ctx.binop("arith.shli", on, ctx.i32(k)) if k else on
        slot = term if slot is None else ctx.binop("arith.addi", slot, term)
    n_slots = 1 << len(warp_bits)
    numel = 1
    for s in out_shape:
        numel *= s
    kinds = [_smem_element_type(ctx, v.type) for v in op.results]
    offsets, offset = [], 0
    for store_ty, _ in kinds:
        offsets.append(offset)
        offset += (n_slots * numel * element_bytes(store_ty) + 15) // 16 * 16
    ctx.reserve_smem(offset)
    coords = ctx.coordinates(src_ty)
    ctx.guard_barrier()
    for values, first in rows.values():
        coord = coords[first]
        index = ctx.linear_index(coord[:axis] + coord[axis + 1:], out_shape)
        if slot is not None:
            index = ctx.binop("arith.addi", index,
                              ctx.binop("arith.muli", slot, ctx.i32(numel)))
        for v, (store_ty, kind), off in zip(values, kinds, offsets):
            _store_scalar(ctx, v, index, kind, store_ty, off)
    ctx.barrier()
    outs: list[list] = [[] for _ in srcs]
    loads = [lambda at, r=r, k=k, off=off: _load_scalar(ctx, at, k[1], k[0],
                                                        ctx.scalar_type(r.type), off)
             for r, k, off in zip(op.results, kinds, offsets)]
    if numel == 1 and n_slots > 1 and all(kind != "ptr" for _, kind in kinds):
        total = _lanes_combine_slots(ctx, op, n_slots, loads)
        for _ in ctx.coordinates(result_ty):
            for out, a in zip(outs, total):
                out.append(a)
        return outs
    if 1 < n_slots and numel * n_slots <= 4 * WARP_SIZE and all(kind != "ptr" for _, kind in kinds):
        chunks = _lanes_combine_rows(ctx, op, n_slots, numel, loads)
        for coord in ctx.coordinates(result_ty):
            total = _row_total(ctx, chunks, ctx.linear_index(coord, out_shape), n_slots)
            for out, a in zip(outs, total):
                out.append(a)
        return outs
    for coord in ctx.coordinates(result_ty):
        index = ctx.linear_index(coord, out_shape)
        acc = None
        for w in range(n_slots):
            at = ctx.binop("arith.addi", index, ctx.i32(w * numel)) if w else index
            part = [_load_scalar(ctx, at, kind, store_ty, ctx.scalar_type(r.type), off)
                    for r, (store_ty, kind), off in zip(op.results, kinds, offsets)]
            acc = part if acc is None else _combine(ctx, op, acc, part)
        for out, a in zip(outs, acc):
            out.append(a)
    return outs


@lowering("tt.reduce")
def lower_reduce(ctx: LoweringContext, op) -> list:
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    src_ty = op.operands[0].type
    if len(ctx.shape(src_ty)) == 1:
        return _full_reduce_1d(ctx, op)
    return _axis_reduce(ctx, op, axis)


def _fold(ctx: LoweringContext, op, present, earlier: list, later: list) -> list:
    """earlier ⊕ later where `present` (an i1, or True), else later."""
    combined = _combine(ctx, op, earlier, later)
    if present is True:
        return combined
    return [ctx.value("arith.select", [present, c, b], b.type) for c, b in zip(combined, later)]


def _cmp_i32(ctx: LoweringContext, pred: int, a, b):
    return ctx.value("arith.cmpi", [a, b], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pred)})


def scan_1d_applies(ctx: LoweringContext, op) -> bool:
    ty = op.operands[0].type
    layout, shape = ctx.layout(ty), ctx.shape(ty)
    return (len(shape) == 1 and not ir.BoolAttr(op.attributes["reverse"]).value
            and layout.threads_per_warp[0] == 32 and shape[0] >= layout.tile(0))


def _scan_1d(ctx: LoweringContext, op) -> list:
    """Registers, then lanes (shfl.sync.up), then warps (shared memory), one tile at a time,
    carrying the running total from tile to tile."""
    ty = op.operands[0].type
    layout = ctx.layout(ty)
    spt, nw = layout.size_per_thread[0], layout.warps_per_cta[0]
    regs = [ctx.get(v) for v in op.operands]
    n_ops = len(regs)
    lane_has_prefix = {d: _cmp_i32(ctx, 9, ctx.lane, ctx.i32(d)) for d in (1, 2, 4, 8, 16)}
    is_last_lane = _cmp_i32(ctx, 0, ctx.lane, ctx.i32(31))
    warp_has_prefix = _cmp_i32(ctx, 8, ctx.warp, ctx.i32(0))
    outs: list[list] = [[] for _ in range(n_ops)]
    carry = None
    slot = max(8, max(_bytes(r[0].type) for r in regs))
    for rep in range(len(regs[0]) // spt):
        chunk = [[r[rep * spt + k] for r in regs] for k in range(spt)]
        # 1. inside the thread
        for k in range(1, spt):
            chunk[k] = _combine(ctx, op, chunk[k - 1], chunk[k])
        total = chunk[-1]
        # 2. across the lanes of the warp (inclusive), then this lane's exclusive prefix
        scanned = total
        for d in (1, 2, 4, 8, 16):
            moved = [_shuffle(ctx, v, d, "up") for v in scanned]
            scanned = _fold(ctx, op, lane_has_prefix[d], moved, scanned)
        prefix = [_shuffle(ctx, v, 1, "up") for v in scanned]
        # 3. across warps: lane 31 publishes the warp's total
        ctx.reserve_smem(n_ops * nw * slot)
        ctx.guard_barrier()
        branch = ir.Operation.create("scf.if", results=[], operands=[is_last_lane], regions=2,
                                     loc=ctx.loc, ip=ctx.ip)
        saved = ctx.ip
        ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
        for j, v in enumerate(scanned):
            index = ctx.binop("arith.addi", ctx.i32(j * nw * slot // _bytes(v.type)), ctx.warp)
            ctx.op("llvm.store", [v, ctx.smem_ptr(index, v.type)])
        ctx.op("scf.yield", [])
        ctx.ip = ir.InsertionPoint(branch.regions[1].blocks.append())
        ctx.op("scf.yield", [])
        ctx.ip = saved
        ctx.barrier()
        totals = [[ctx.value("llvm.load", [ctx.smem_ptr(ctx.i32(j * nw * slot // _bytes(v.type)
                                                                 + w), v.type)], v.type)
                   for j, v in enumerate(scanned)] for w in range(nw)]
        before_warp = totals[0]
        for w in range(1, nw):
            in_front = _cmp_i32(ctx, 8, ctx.warp, ctx.i32(w))  # ugt: warp w precedes this one
            extended = _combine(ctx, op, before_warp, totals[w])
            before_warp = [ctx.value("arith.select", [in_front, c, b], b.type)
                           for c, b in zip(extended, before_warp)]
        # 4. each element: carry ⊕ earlier warps ⊕ earlier lanes ⊕ own prefix
        for k in range(spt):
            value = _fold(ctx, op, lane_has_prefix[1], prefix, chunk[k])
            value = _fold(ctx, op, warp_has_prefix, before_warp, value)
            if carry is not None:
                value = _combine(ctx, op, carry, value)
            for j in range(n_ops):
                outs[j].append(value[j])
        rep_total = totals[0]
        for w in range(1, nw):
            rep_total = _combine(ctx, op, rep_total, totals[w])
        carry = rep_total if carry is None else _combine(ctx, op, carry, rep_total)
    return outs


def _axis_bits(strides, axis: int, unit: int) -> tuple[int, int] | None:
    """(first bit, count) of the id bits that step along `axis`, when they are
    consecutive and step by unit, 2 unit, 4 unit, ...; None otherwise."""
    bits = [(b, s) for b, (d, s) in enumerate(strides) if d == axis]
    for k, (b, s) in enumerate(bits):
        if b != bits[0][0] + k or s != unit << k:
            return None
    return (bits[0][0] if bits else 0), len(bits)


def _scan_axis_plan(ctx: LoweringContext, op):
    """The lane and warp bits along the scanned axis of an N-D blocked tensor, or None
    when the scan is not one `_scan_axis` takes (reverse, a wrapped axis, a layout whose
    bits along the axis are not consecutive)."""
    ty = op.operands[0].type
    layout, shape = ctx.layout(ty), ctx.shape(ty)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    if len(shape) < 2 or ir.BoolAttr(op.attributes["reverse"]).value or \
            not isinstance(layout, BlockedLayout) or shape[axis] < layout.tile(axis):
        return None
    spt, tpw = layout.size_per_thread[axis], layout.threads_per_warp[axis]
    lanes = _axis_bits(layout.lane_strides(), axis, spt)
    warps = _axis_bits(layout.warp_strides(shape), axis, spt * tpw)
    return None if lanes is None or warps is None else (axis, lanes, warps)


def _scan_axis(ctx: LoweringContext, op, plan) -> list:
    """An inclusive scan along one axis of an N-D tensor, each row as `_scan_1d` scans a
    vector: per tile along the axis, the thread's registers, then the lanes along the
    axis (shfl.sync.up, Hillis-Steele); then, for every tile at once, the last lane of
    each warp publishes its row totals in shared memory (one exchange, two barriers),
    and each element adds the totals of the earlier tiles and of the earlier warps of its
    own tile."""
    axis, (lane0, n_lane), (warp0, n_warp) = plan
    ty = op.operands[0].type
    layout, shape = ctx.layout(ty), ctx.shape(ty)
    spt, tile = layout.size_per_thread[axis], layout.tile(axis)
    regs = [ctx.get(v) for v in op.operands]
    coords = ctx.coordinates(ty)
    rows: dict[tuple, dict[int, int]] = {}
    for i, o in enumerate(layout.register_offsets(shape)):
        wrapped = tuple(x % n for x, n in zip(o, shape))
        rows.setdefault(wrapped[:axis] + wrapped[axis + 1:], {}).setdefault(wrapped[axis], i)
    row_shape = shape[:axis] + shape[axis + 1:]
    n_rows = 1
    for n in row_shape:
        n_rows *= n
    lmask = (1 << n_lane) - 1
    lane_pos = ctx.binop("arith.andi", ctx.binop("arith.shrui", ctx.lane, ctx.i32(lane0)),
                         ctx.i32(lmask))
    warp_slot = ctx.binop("arith.andi", ctx.binop("arith.shrui", ctx.warp, ctx.i32(warp0)),
                          ctx.i32((1 << n_warp) - 1))
    has_prefix = [_cmp_i32(ctx, 9, lane_pos, ctx.i32(1 << k)) for k in range(n_lane)]
    has_lane_before = _cmp_i32(ctx, 9, lane_pos, ctx.i32(1))  # uge
    is_last_lane = _cmp_i32(ctx, 0, lane_pos, ctx.i32(lmask))
    n_slots = 1 << n_warp
    reps = shape[axis] // tile
    kinds = [_smem_element_type(ctx, v.type) for v in op.operands]
    offsets, offset = [], 0
    for store_ty, _ in kinds:
        offsets.append(offset)
        offset += (reps * n_slots * n_rows * element_bytes(store_ty) + 15) // 16 * 16
    outs: list[list] = [list(r) for r in regs]
    chunks: list[dict] = [{} for _ in range(reps)]
    scans: list[dict] = [{} for _ in range(reps)]
    indices: dict[tuple, object] = {}
    for rep in range(reps):
        for key, by_pos in rows.items():
            chunk = [[r[by_pos[rep * tile + s]] for r in regs] for s in range(spt)]
            for s in range(1, spt):
                chunk[s] = _combine(ctx, op, chunk[s - 1], chunk[s])
            scanned = chunk[-1]
            for k in range(n_lane):
                moved = [_shuffle(ctx, v, 1 << (lane0 + k), "up") for v in scanned]
                scanned = _fold(ctx, op, has_prefix[k], moved, scanned)
            chunks[rep][key], scans[rep][key] = chunk, scanned
            if key not in indices:
                coord = coords[by_pos[rep * tile]]
                indices[key] = ctx.linear_index(coord[:axis] + coord[axis + 1:], row_shape)
    if n_warp == 0 and reps == 1:
        _finish_rows(ctx, op, rows, 0, tile, spt, chunks[0], scans[0], lane0, n_lane,
                     has_lane_before, {}, outs)
    else:
        _exchange_totals(ctx, op, rows, (reps, n_slots, n_rows), (kinds, offsets, offset),
                         indices, warp_slot, is_last_lane, scans)
        carry: dict[tuple, list] = {}
        has_warp_before = _cmp_i32(ctx, 8, warp_slot, ctx.i32(0))
        for rep in range(reps):
            for key, by_pos in rows.items():
                scanned = scans[rep][key]
                totals = []
                for w in range(n_slots):
                    at = ctx.binop("arith.addi", indices[key],
                                   ctx.i32((rep * n_slots + w) * n_rows))
                    totals.append([_load_scalar(ctx, at, kind, store_ty, v.type, off)
                                   for v, (store_ty, kind), off in
                                   zip(scanned, kinds, offsets)])
                before = totals[0]
                for w in range(1, n_slots):
                    in_front = _cmp_i32(ctx, 8, warp_slot, ctx.i32(w))  # ugt: w precedes
                    extended = _combine(ctx, op, before, totals[w])
                    before = [ctx.value("arith.select", [in_front, c, b], b.type)
                              for c, b in zip(extended, before)]
                _finish_rows(ctx, op, {key: by_pos}, rep, tile, spt, chunks[rep], scans[rep],
                             lane0, n_lane, has_lane_before, carry, outs,
                             (has_warp_before, before) if n_warp else None)
                total = totals[0]
                for w in range(1, n_slots):
                    total = _combine(ctx, op, total, totals[w])
                carry[key] = total if key not in carry else _combine(ctx, op, carry[key],
                                                                     total)
    # registers that copy an element (a wrapped non-axis dimension) take its value
    for i, o in enumerate(layout.register_offsets(shape)):
        wrapped = tuple(x % n for x, n in zip(o, shape))
        first = rows[wrapped[:axis] + wrapped[axis + 1:]][wrapped[axis]]
        for j in range(len(regs)):
            outs[j][i] = outs[j][first]
    return outs


def _exchange_totals(ctx: LoweringContext, op, rows: dict, dims: tuple, smem: tuple,
                     indices: dict, warp_slot, is_last_lane, scans: list) -> None:
    """The last lane along the axis of each warp stores its row totals of every tile in
    shared memory (slot (tile, warp) of each row), between two barriers."""
    reps, n_slots, n_rows = dims
    kinds, offsets, size = smem
    ctx.reserve_smem(size)
    ctx.guard_barrier()
    branch = ir.Operation.create("scf.if", results=[], operands=[is_last_lane], regions=2,
                                 loc=ctx.loc, ip=ctx.ip)
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
    slot = ctx.binop("arith.muli", warp_slot, ctx.i32(n_rows))
    for rep in range(reps):
        for key in rows:
            at = ctx.binop("arith.addi", ctx.binop("arith.addi", indices[key], slot),
                           ctx.i32(rep * n_slots * n_rows))
            for v, (store_ty, kind), off in zip(scans[rep][key], kinds, offsets):
                _store_scalar(ctx, v, at, kind, store_ty, off)
    ctx.op("scf.yield", [])
    ctx.ip = ir.InsertionPoint(branch.regions[1].blocks.append())
    ctx.op("scf.yield", [])
    ctx.ip = saved
    ctx.barrier()


def _finish_rows(ctx: LoweringContext, op, rows: dict, rep: int, tile: int, spt: int,
                 chunks: dict, scans: dict, lane0: int, n_lane: int, has_lane_before,
                 carry: dict, outs: list, warps=None) -> None:
    """The scanned registers of tile `rep` of each row: carry, then the earlier warps
    (`warps`: whether there are any, and their combined total), then the earlier lanes,
    then the thread's own prefix."""
    for key, by_pos in rows.items():
        prefix = [_shuffle(ctx, v, 1 << lane0, "up") for v in scans[key]] if n_lane else None
        for s in range(spt):
            value = chunks[key][s]
            if n_lane:
                value = _fold(ctx, op, has_lane_before, prefix, value)
            if warps is not None:
                value = _fold(ctx, op, warps[0], warps[1], value)
            if key in carry:
                value = _combine(ctx, op, carry[key], value)
            for j, v in enumerate(value):
                outs[j][by_pos[rep * tile + s]] = v


@lowering("tt.scan")
def lower_scan(ctx: LoweringContext, op) -> list:
    """Inclusive scan: a 1-D vector and the rows of an N-D tensor along the lanes and warps
    (`_scan_1d`, `_scan_axis`); otherwise each element folds the elements from the start
    (or the end) up to itself, in order, from a shared-memory copy."""
    if scan_1d_applies(ctx, op):
        return _scan_1d(ctx, op)
    plan = _scan_axis_plan(ctx, op)
    if plan is not None:
        return _scan_axis(ctx, op, plan)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = ir.BoolAttr(op.attributes["reverse"]).value
    srcs = list(op.operands)
    shape = ctx.shape(srcs[0].type)
    staged = stage(ctx, srcs)
    n = shape[axis]
    outs = [[] for _ in srcs]
    i1 = ir.IntegerType.get_signless(1)
    # sge for a reverse scan (elements at or after this one), sle otherwise
    keep_pred = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 5 if reverse else 3)
    for coord in ctx.coordinates(srcs[0].type):
        def elements(index, coord=coord):
            src_coord = list(coord)
            src_coord[axis] = index
            return [s.load(ctx, src_coord) for s in staged]

        def step(k, acc, position=coord[axis]):
            index = ctx.binop("arith.subi", ctx.i32(n - 1), k) if reverse else k
            values = elements(index)
            # the running value comes first in both directions: a reverse scan is the
            # forward scan of the reversed axis
            combined = _combine(ctx, op, acc, values)
            keep = ctx.value("arith.cmpi", [index, position], i1, {"predicate": keep_pred})
            return [ctx.value("arith.select", [keep, c, a], a.type)
                    for c, a in zip(combined, acc)]

        first = elements(ctx.i32(n - 1 if reverse else 0))
        for out, a in zip(outs, ctx.for_loop(1, n, first, step)):
            out.append(a)
    return outs


@lowering("tt.histogram")
def lower_histogram(ctx: LoweringContext, op) -> list:
    """Counts in shared memory: zero the bins, one atomic add per element (one copy of each
    element, masked lanes skipped), then read the bins the result registers hold."""
    from mlir.dialects import llvm

    src = op.operands[0]
    mask = op.operands[1] if len(op.operands) > 1 else None
    result = op.results[0]
    bins = ctx.shape(result.type)[0]
    i32 = ctx.i32_type()
    i1 = ir.IntegerType.get_signless(1)
    ctx.reserve_smem(bins * 4)
    ctx.guard_barrier()
    for (c,) in ctx.coordinates(result.type):
        ctx.op("llvm.store", [ctx.i32(0), ctx.smem_ptr(c, i32)])
    ctx.barrier()
    owners = ctx.owner_predicates(src.type)
    masks = ctx.get(mask) if mask is not None else None
    for i, v in enumerate(ctx.get(src)):
        v = v if v.type == i32 else ctx.value("arith.trunci", [v], i32)
        inside = ctx.value("arith.cmpi", [v, ctx.i32(bins)], i1,
                           {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 6)})
        for extra in ((masks[i] if masks else None), (owners[i] if owners else None)):
            if extra is not None:
                inside = ctx.binop("arith.andi", inside, extra)
        branch = ir.Operation.create("scf.if", results=[], operands=[inside], regions=2,
                                     loc=ctx.loc, ip=ctx.ip)
        saved = ctx.ip
        ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
        llvm.AtomicRMWOp(llvm.AtomicBinOp.add, ctx.smem_ptr(v, i32), ctx.i32(1),
                         llvm.AtomicOrdering.monotonic, loc=ctx.loc, ip=ctx.ip)
        ctx.op("scf.yield", [])
        ctx.ip = ir.InsertionPoint(branch.regions[1].blocks.append())
        ctx.op("scf.yield", [])
        ctx.ip = saved
    ctx.barrier()
    return [[ctx.value("llvm.load", [ctx.smem_ptr(c, i32)], i32)
             for (c,) in ctx.coordinates(result.type)]]
