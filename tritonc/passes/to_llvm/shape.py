"""Lowering of index tensors and shape ops, moving data between layouts through shared memory.

`exchange` is the one mechanism: every thread writes the elements it holds to a
row-major scratch copy of the source tensor in shared memory, the CTA synchronises,
and every thread reads the elements its result registers need, at source coordinates
computed from the result coordinates. Broadcast, expand_dims, reshape, trans, join,
split, cat and gather are each a small coordinate map. When the source and result
place every element in the same register of the same thread, no data moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.convert import REMAT_DEPTH, lower_by_plan
from tritonc.passes.to_llvm.lowering import lowering
from tritonc.passes.to_llvm.memory import read_back
from tritonc.passes.ttgir.layouts import BlockedLayout

CoordMap = Callable[[LoweringContext, list], list]


@lowering("tt.make_range")
def lower_make_range(ctx: LoweringContext, op) -> list:
    start = ir.IntegerAttr(op.attributes["start"]).value
    result = op.results[0]
    out = []
    for (c,) in ctx.coordinates(result.type):
        out.append(ctx.binop("arith.addi", c, ctx.i32(start)) if start else c)
    return [out]


def _smem_element_type(ctx: LoweringContext, ty):
    """Elements are stored by value; pointers as i64, i1 as i8."""
    elt = ctx.scalar_type(ty)
    if str(elt).startswith("!llvm.ptr"):
        return ir.IntegerType.get_signless(64), "ptr"
    if str(elt) == "i1":
        return ir.IntegerType.get_signless(8), "bool"
    return elt, None


def _store_scalar(ctx: LoweringContext, value, index, kind, store_ty, offset: int = 0) -> None:
    if kind == "ptr":
        value = ctx.value("llvm.ptrtoint", [value], store_ty)
    elif kind == "bool":
        value = ctx.value("arith.extui", [value], store_ty)
    ctx.op("llvm.store", [value, ctx.smem_ptr(index, store_ty, offset)])


def _load_scalar(ctx: LoweringContext, index, kind, store_ty, out_ty, offset: int = 0):
    value = ctx.value("llvm.load", [ctx.smem_ptr(index, store_ty, offset)], store_ty)
    if kind == "ptr":
        return ctx.value("llvm.inttoptr", [value], out_ty)
    if kind == "bool":
        return ctx.value("arith.trunci", [value], out_ty)
    return value


@dataclass(frozen=True)
class Staged:
    """A tensor copied to shared memory, row-major, at `offset` bytes."""

    store_ty: object
    kind: str | None
    shape: tuple[int, ...]
    offset: int
    out_ty: object
    swizzled: bool = False  # 16-byte chunks XOR-swizzled by row (ctx.swizzled_index)

    def load(self, ctx: LoweringContext, coord):
        return _load_scalar(ctx, ctx.linear_index(coord, self.shape), self.kind, self.store_ty,
                            self.out_ty, self.offset)


def _store_vector_width(ctx: LoweringContext, value, kind, store_ty) -> int:
    """How many consecutive registers can go to shared memory in one store: a blocked
    layout's chunk along the last (row-major contiguous) dimension, up to 16 bytes."""
    if kind is not None or not ctx.is_tensor(value.type):
        return 1
    layout, shape = ctx.layout(value.type), ctx.shape(value.type)
    if not isinstance(layout, BlockedLayout) or layout.order[0] != len(shape) - 1:
        return 1
    last = len(shape) - 1
    if layout.tile(last) > shape[last]:
        return 1
    vec = layout.vector_width
    while vec > 1 and (vec * element_bytes(store_ty) > 16 or shape[last] % vec):
        vec //= 2
    return vec


def _store_registers(ctx: LoweringContext, regs: list, coords: list, shape, kind, store_ty,
                     offset: int, vec: int) -> None:
    for start in range(0, len(regs), vec):
        index = ctx.linear_index(coords[start], shape)
        if vec == 1:
            _store_scalar(ctx, regs[start], index, kind, store_ty, offset)
        else:
            store_vector(ctx, regs[start:start + vec], ctx.smem_ptr(index, store_ty, offset))


def store_vector(ctx: LoweringContext, values: list, ptr) -> None:
    """Store `values` (of one type) to consecutive elements at `ptr` in shared memory: one
    vector store, aligned to its size, when there are several."""
    if len(values) == 1:
        ctx.op("llvm.store", [values[0], ptr])
        return
    vec_ty = ir.VectorType.get([len(values)], values[0].type)
    packed = ctx.value("llvm.mlir.poison", [], vec_ty)
    for i, v in enumerate(values):
        packed = ctx.value("llvm.insertelement", [packed, v, ctx.i32(i)], vec_ty)
    ctx.op("llvm.store", [packed, ptr], [], {"alignment": ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64), len(values) * element_bytes(values[0].type))})


def stage(ctx: LoweringContext, values, transposed: tuple = ()) -> list[Staged]:
    """Barrier, every thread writes its registers of each value, barrier. A 2-D value in
    `transposed` is written with its dimensions swapped (its `Staged` shape too)."""
    ctx.guard_barrier()
    staged, offset = [], 0
    for value in values:
        store_ty, kind = _smem_element_type(ctx, value.type)
        shape = ctx.shape(value.type) if ctx.is_tensor(value.type) else ()
        numel = 1
        for s in shape:
            numel *= s
        coords = ctx.coordinates(value.type) if shape else [[]]
        vec = _store_vector_width(ctx, value, kind, store_ty)
        if any(value == t for t in transposed):
            shape, coords, vec = shape[::-1], [c[::-1] for c in coords], 1
        _store_registers(ctx, ctx.get(value), coords, shape, kind, store_ty, offset, vec)
        staged.append(Staged(store_ty, kind, shape, offset, ctx.scalar_type(value.type)))
        offset += (numel * element_bytes(store_ty) + 15) // 16 * 16
    ctx.reserve_smem(offset)
    ctx.barrier()
    return staged


def write_to_smem(ctx: LoweringContext, value) -> tuple:
    """Stage one value; (storage type, kind, shape) for `_load_scalar`."""
    s = stage(ctx, [value])[0]
    return s.store_ty, s.kind, s.shape


def exchange(ctx: LoweringContext, src, dst_ty, coord_map: CoordMap,
             static_map: Callable[[tuple], tuple] | None = None) -> list:
    """The registers of a `dst_ty` tensor whose element at coordinate c is the source
    element at `coord_map(ctx, c)`. With `static_map` (the same map on Python integers),
    the scratch copy is swizzled for the reads (`_read_swizzle`)."""
    swizzle = _read_swizzle(ctx, src.type, dst_ty, static_map) if static_map else None
    if swizzle is None:
        store_ty, kind, src_shape = write_to_smem(ctx, src)
        out_ty = ctx.scalar_type(dst_ty)
        out = []
        for coord in ctx.coordinates(dst_ty):
            index = ctx.linear_index(coord_map(ctx, coord), src_shape)
            out.append(_load_scalar(ctx, index, kind, store_ty, out_ty))
        return out
    store_ty, kind = _smem_element_type(ctx, src.type)
    src_shape = ctx.shape(src.type)
    numel = 1
    for n in src_shape:
        numel *= n
    ctx.guard_barrier()
    coords = ctx.coordinates(src.type)
    regs = ctx.get(src)
    vec = _store_vector_width(ctx, src, kind, store_ty)
    for start in range(0, len(regs), vec):
        index = _swizzled_index(ctx, coords[start], src_shape, swizzle)
        if vec == 1:
            _store_scalar(ctx, regs[start], index, kind, store_ty)
        else:
            store_vector(ctx, regs[start:start + vec], ctx.smem_ptr(index, store_ty))
    ctx.reserve_smem(numel * element_bytes(store_ty))
    ctx.barrier()
    out_ty = ctx.scalar_type(dst_ty)
    return [_load_scalar(ctx, _swizzled_index(ctx, coord_map(ctx, coord), src_shape, swizzle),
                         kind, store_ty, out_ty) for coord in ctx.coordinates(dst_ty)]


def _read_swizzle(ctx: LoweringContext, src_ty, dst_ty,
                  static_map: Callable[[tuple], tuple]) -> tuple[int, list[int]] | None:
    """(chunk elements, row bits) of an XOR swizzle for a scratch copy that the threads
    of `dst_ty` read down its columns (a transpose, a change of the fastest dimension):
    the row-major copy is cut into 16-byte chunks, and chunk k of row r is stored at
    k ^ phase(r), where bit i of phase(r) is bit `row_bits[i]` of r. The row bits are
    those the lanes of a reading warp step along, so that lanes reading one column land
    in different banks; chunks stay whole, so vector writes stay vectors. None when the
    reads go along rows already or the rows are shorter than two chunks."""
    src_shape = ctx.shape(src_ty)
    if len(src_shape) < 2 or not isinstance(ctx.layout(src_ty), BlockedLayout):
        return None
    store_ty, kind = _smem_element_type(ctx, src_ty)
    vec = max(1, 16 // element_bytes(store_ty))
    chunks = src_shape[-1] // vec
    if kind is not None or src_shape[-1] % vec or chunks < 2:
        return None
    dst_shape = ctx.shape(dst_ty)
    row_bits: list[int] = []
    limit = min(chunks, 8).bit_length() - 1  # 8 chunks of 16 bytes span the 32 banks
    for d, stride in ctx.layout(dst_ty).lane_strides():
        if not 0 < stride < dst_shape[d]:
            continue
        unit = [0] * len(dst_shape)
        unit[d] = stride
        moved = static_map(tuple(unit))
        step = moved[-2] % src_shape[-2]
        if any(moved[i] for i in range(len(moved)) if i != len(moved) - 2) or step == 0:
            continue
        bit = step.bit_length() - 1
        if step == 1 << bit and bit not in row_bits and len(row_bits) < limit:
            row_bits.append(bit)
    return (vec, row_bits) if row_bits else None


def _swizzled_index(ctx: LoweringContext, coord, shape, swizzle: tuple[int, list[int]]):
    """The row-major index of `coord` with its 16-byte chunk XOR-swizzled by its row."""
    vec, row_bits = swizzle
    row, col = coord[-2], coord[-1]
    phase = None
    for k, bit in enumerate(row_bits):
        on = ctx.binop("arith.andi", ctx.binop("arith.shrui", row, ctx.i32(bit)), ctx.i32(1))
        term = ctx.binop("arith.shli", on, ctx.i32(k)) if k else on
        phase = term if phase is None else ctx.binop("arith.ori", phase, term)
    shift = vec.bit_length() - 1
    chunk = ctx.binop("arith.xori", ctx.binop("arith.shrui", col, ctx.i32(shift)), phase)
    col = ctx.binop("arith.ori", ctx.binop("arith.shli", chunk, ctx.i32(shift)),
                    ctx.binop("arith.andi", col, ctx.i32(vec - 1)))
    return ctx.linear_index([*coord[:-1], col], shape)


def same_placement(ctx: LoweringContext, src_ty, dst_ty) -> bool:
    """Whether register i of every thread holds the same row-major element in both."""
    if ctx.num_registers(src_ty) != ctx.num_registers(dst_ty):
        return False
    src_l, dst_l = ctx.layout(src_ty), ctx.layout(dst_ty)
    src_s, dst_s = ctx.shape(src_ty), ctx.shape(dst_ty)

    def placement(layout, shape):
        # linear index of each register offset and of each lane / warp bit
        def lin(coord):
            index, stride = 0, 1
            for d in range(len(shape) - 1, -1, -1):
                index += (coord[d] % shape[d]) * stride
                stride *= shape[d]
            return index

        regs = [lin(o) for o in layout.register_offsets(shape)]
        bits = []
        for d, s in layout.lane_strides() + layout.warp_strides(shape):
            c = [0] * len(shape)
            c[d] = s
            bits.append(lin(c) if 0 < s < shape[d] else None)
        return regs, bits

    return placement(src_l, src_s) == placement(dst_l, dst_s)


def local_registers(ctx: LoweringContext, src_ty, dst_ty,
                    to_src: Callable[[tuple], tuple]) -> list[int] | None:
    """For each register of a `dst_ty` tensor, the register of this same thread that holds
    the source element at `to_src(coordinate)`; None when some element must come from
    another thread. `to_src` is a linear map of coordinates (drop an axis, zero the
    broadcast dimensions), so it is enough that it carries every lane and warp bit of
    the result onto the same bit of the source, and every register offset onto one."""
    src_l, dst_l = ctx.layout(src_ty), ctx.layout(dst_ty)
    src_s, dst_s = ctx.shape(src_ty), ctx.shape(dst_ty)

    def wrap(coord, shape) -> tuple:
        return tuple(c % s for c, s in zip(coord, shape))

    def unit(d: int, stride: int, rank: int) -> tuple:
        return tuple(stride if i == d else 0 for i in range(rank))

    src_bits = [wrap(unit(d, s, len(src_s)), src_s)
                for d, s in src_l.lane_strides() + src_l.warp_strides(src_s)]
    dst_bits = [wrap(to_src(wrap(unit(d, s, len(dst_s)), dst_s)), src_s)
                for d, s in dst_l.lane_strides() + dst_l.warp_strides(dst_s)]
    if src_bits != dst_bits:
        return None
    index: dict[tuple, int] = {}
    for i, o in enumerate(src_l.register_offsets(src_s)):
        index.setdefault(wrap(o, src_s), i)
    out = []
    for o in dst_l.register_offsets(dst_s):
        i = index.get(wrap(to_src(wrap(o, dst_s)), src_s))
        if i is None:
            return None
        out.append(i)
    return out


def _gather_local(ctx: LoweringContext, src, dst_ty, to_src) -> list | None:
    picks = local_registers(ctx, src.type, dst_ty, to_src)
    if picks is None:
        return None
    regs = ctx.get(src)
    return [regs[i] for i in picks]


def rematerialize(ctx: LoweringContext, value, coords: list, depth: int = 0) -> list | None:
    """The values of tensor `value` at the given coordinates, recomputed from its
    definition (index ranges, splats, constants and elementwise ops on them) in whatever
    layout asks: no data moves. None when the definition cannot be recomputed."""
    if not ctx.is_tensor(value.type):
        return [ctx.get(value)[0]] * len(coords)
    owner = value.owner
    if isinstance(owner, ir.Block) or depth > REMAT_DEPTH:
        return None
    op = owner.operation
    name = op.name
    if name == "tt.make_range":
        start = ir.IntegerAttr(op.attributes["start"]).value
        return [ctx.binop("arith.addi", c[0], ctx.i32(start)) if start else c[0]
                for c in coords]
    if name in ("arith.constant", "tt.splat"):
        return [ctx.get(value)[0]] * len(coords)
    if name == "tt.expand_dims":
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        return rematerialize(ctx, op.operands[0], [c[:axis] + c[axis + 1:] for c in coords],
                             depth + 1)
    if name == "tt.broadcast":
        src_shape = ctx.shape(op.operands[0].type)
        return rematerialize(ctx, op.operands[0], [
            [ctx.i32(0) if s == 1 else x for x, s in zip(c, src_shape)] for c in coords],
            depth + 1)
    if not (name.startswith("arith.") or name == "tt.addptr") or len(op.results) != 1:
        return None
    operands = []
    for v in op.operands:
        regs = rematerialize(ctx, v, coords, depth + 1)
        if regs is None:
            return None
        operands.append(regs)
    if name == "tt.addptr":
        from tritonc.passes.to_llvm.memory import gep

        return [gep(ctx, p, o, value.type) for p, o in zip(*operands)]
    ty = ctx.scalar_type(value.type)
    attrs = {n: op.attributes[n] for n in op.attributes}
    return [ctx.value(name, list(args), ty, attrs) for args in zip(*operands)]


def _reshape_like(ctx: LoweringContext, op) -> list:
    src, result = op.operands[0], op.results[0]
    if same_placement(ctx, src.type, result.type):
        return [ctx.get(src)]
    src_shape = ctx.shape(src.type)
    dst_shape = ctx.shape(result.type)

    def coord_map(ctx, coord):
        index = ctx.linear_index(coord, dst_shape)
        out = []
        for d in range(len(src_shape) - 1, -1, -1):
            out.append(ctx.binop("arith.remui", index, ctx.i32(src_shape[d])))
            index = ctx.binop("arith.divui", index, ctx.i32(src_shape[d]))
        return out[::-1]

    src_l, dst_l = ctx.layout(src.type), ctx.layout(result.type)
    turns = isinstance(src_l, BlockedLayout) and isinstance(dst_l, BlockedLayout) and \
        src_l.order[0] != dst_l.order[0]  # the fastest dimension changes: reads go down columns
    identity = (lambda c: c) if src_shape == dst_shape and turns else None
    return [exchange(ctx, src, result.type, coord_map, identity)]


lowering("tt.reshape")(_reshape_like)


@lowering("tt.expand_dims")
def lower_expand_dims(ctx: LoweringContext, op) -> list:
    src, result = op.operands[0], op.results[0]
    if not same_placement(ctx, src.type, result.type):
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        regs = _gather_local(ctx, src, result.type, lambda c: c[:axis] + c[axis + 1:])
        if regs is not None:
            return [regs]
        coords = [c[:axis] + c[axis + 1:] for c in ctx.coordinates(result.type)]
        regs = rematerialize(ctx, src, coords)
        if regs is not None:
            return [regs]
    return _reshape_like(ctx, op)


@lowering("ttg.convert_layout")
def lower_convert_layout(ctx: LoweringContext, op) -> list:
    src, result = op.operands[0], op.results[0]
    if src in ctx.read_back:  # a tile in a ring buffer, read straight into this layout
        return [read_back(ctx, result.type, ctx.read_back[src])]
    regs = lower_by_plan(ctx, src, result.type)
    if regs is None:
        regs = _gather_local(ctx, src, result.type, lambda c: c)
    if regs is None:
        regs = rematerialize(ctx, src, ctx.coordinates(result.type))
    return [regs] if regs is not None else _reshape_like(ctx, op)


@lowering("tt.broadcast")
def lower_broadcast(ctx: LoweringContext, op) -> list:
    src, result = op.operands[0], op.results[0]
    src_shape = ctx.shape(src.type)

    def coord_map(ctx, coord):
        return [ctx.i32(0) if s == 1 else c for c, s in zip(coord, src_shape)]

    regs = _gather_local(ctx, src, result.type,
                         lambda c: tuple(0 if s == 1 else x for x, s in zip(c, src_shape)))
    if regs is not None:
        return [regs]
    regs = rematerialize(ctx, src, [coord_map(ctx, c) for c in ctx.coordinates(result.type)])
    if regs is not None:
        return [regs]
    return [exchange(ctx, src, result.type, coord_map)]


@lowering("tt.trans")
def lower_trans(ctx: LoweringContext, op) -> list:
    src, result = op.operands[0], op.results[0]
    if result in ctx.smem_operands:
        return [[]]  # a pipelined tile a wgmma reads transposed (pipeline.py)
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))

    def coord_map(ctx, coord):
        src_coord = [None] * len(order)
        for dst_dim, src_dim in enumerate(order):
            src_coord[src_dim] = coord[dst_dim]
        return src_coord

    def static_map(coord):
        src_coord = [0] * len(order)
        for dst_dim, src_dim in enumerate(order):
            src_coord[src_dim] = coord[dst_dim]
        return tuple(src_coord)

    regs = _gather_local(ctx, src, result.type, static_map)
    if regs is None:
        regs = lower_by_plan(ctx, src, result.type, order)
    return [regs if regs is not None else exchange(ctx, src, result.type, coord_map, static_map)]


@lowering("tt.join")
def lower_join(ctx: LoweringContext, op) -> list:
    """Register by register where the result holds each pair where its operands hold the
    halves (`view_layouts.joined`), the pair in registers; where lanes or warps split
    the pair (two scalars joined into a `tensor<2>`), each thread selects its half by its
    coordinate; else each half through a scratch copy."""
    lhs, rhs = op.operands
    result = op.results[0]
    layout, shape = ctx.layout(result.type), ctx.shape(result.type)
    halves = [local_registers(ctx, src.type, result.type, lambda c: c[:-1]) for src in (lhs, rhs)]
    if None not in halves:
        regs = [ctx.get(lhs), ctx.get(rhs)]
        last = len(shape) - 1
        if not any(d == last and 0 < stride % shape[d] for d, stride in
                   layout.lane_strides() + layout.warp_strides(shape)):
            return [[regs[o[-1] % 2][i] for o, i in zip(layout.register_offsets(shape),
                                                        halves[0])]]
        parts = [[regs[0][i] for i in halves[0]], [regs[1][i] for i in halves[1]]]
    else:
        parts = [exchange(ctx, src, result.type, lambda ctx, c: c[:-1]) for src in (lhs, rhs)]
    out = []
    for a, b, coord in zip(parts[0], parts[1], ctx.coordinates(result.type)):
        is_rhs = ctx.value("arith.cmpi", [coord[-1], ctx.i32(1)], ir.IntegerType.get_signless(1),
                           {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
        out.append(ctx.value("arith.select", [is_rhs, b, a], a.type))
    return [out]


@lowering("tt.split")
def lower_split(ctx: LoweringContext, op) -> list:
    """Each half from the registers of this thread where it holds both halves (the last
    dimension a register bit); else through a scratch copy. A `tensor<2>` split into two
    scalars is read back whole by every thread."""
    src = op.operands[0]
    if not ctx.is_tensor(op.results[0].type):
        store_ty, kind, _ = write_to_smem(ctx, src)
        out_ty = ctx.scalar_type(op.results[0].type)
        return [[_load_scalar(ctx, ctx.i32(half), kind, store_ty, out_ty)] for half in (0, 1)]
    firsts = local_registers(ctx, src.type, op.results[0].type, lambda c: (*c, 0))
    if firsts is not None:
        src_shape = ctx.shape(src.type)
        offsets = [tuple(x % n for x, n in zip(o, src_shape))
                   for o in ctx.layout(src.type).register_offsets(src_shape)]
        where = {o: i for i, o in reversed(list(enumerate(offsets)))}
        seconds = [where.get((*offsets[i][:-1], 1)) for i in firsts]
        if None not in seconds:
            regs = ctx.get(src)
            return [[regs[i] for i in firsts], [regs[i] for i in seconds]]
    outs = []
    for half in (0, 1):
        outs.append(exchange(ctx, src, op.results[half].type,
                             lambda ctx, c, half=half: [*c, ctx.i32(half)]))
    return outs


@lowering("tt.cat")
def lower_cat(ctx: LoweringContext, op) -> list:
    lhs, rhs = op.operands
    result = op.results[0]
    n = ctx.shape(lhs.type)[0]
    parts = [exchange(ctx, src, result.type,
                      lambda ctx, c: [ctx.binop("arith.andi", c[0], ctx.i32(n - 1))])
             for src in (lhs, rhs)]
    out = []
    for a, b, (c,) in zip(parts[0], parts[1], ctx.coordinates(result.type)):
        upper = ctx.value("arith.cmpi", [c, ctx.i32(n)], ir.IntegerType.get_signless(1),
                          {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 9)})
        out.append(ctx.value("arith.select", [upper, b, a], a.type))
    return [out]


@lowering("tt.gather")
def lower_gather(ctx: LoweringContext, op) -> list:
    src, index = op.operands
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    result = op.results[0]
    idx = ctx.get(index)
    if ctx.layout(index.type) != ctx.layout(result.type):
        idx = exchange(ctx, index, result.type, lambda ctx, c: c)
    store_ty, kind, src_shape = write_to_smem(ctx, src)
    out_ty = ctx.scalar_type(result.type)
    out = []
    for reg, coord in zip(idx, ctx.coordinates(result.type)):
        coord = list(coord)
        i32 = ir.IntegerType.get_signless(32)
        coord[axis] = reg if reg.type == i32 else ctx.value("arith.trunci", [reg], i32)
        out.append(_load_scalar(ctx, ctx.linear_index(coord, src_shape), kind, store_ty, out_ty))
    return [out]
