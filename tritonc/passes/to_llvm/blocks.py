"""Lowering of block pointers (`tt.make_block_ptr`, `tt.advance`) and tensor descriptors.

A block pointer is carried as its parts: the base pointer, then the shape (i64), the
strides (i64) and the offsets (i32) of each dimension. A descriptor is the base, the
shape (i32) and the strides (i64). A load through either computes each register's
address from its coordinate in the result layout, masks the coordinates outside the
tensor (the dimensions named by `boundary_check`, or every dimension for a descriptor)
and fills them with zero (or NaN with `padding = "nan"`). Accesses are vectors of up to
16 bytes along the layout's fastest dimension when the block pointer's parts prove them
aligned (`block_vector_width`). A descriptor reduction (`tt.descriptor_reduce`) is one
predicated atomic per element inside the tensor. A descriptor gather or scatter reads its
row indices back from shared memory, each element's own (`_gathered_addresses`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import gcd

from tritonc.passes.to_llvm.access import emit_loads, emit_stores
from tritonc.passes.to_llvm.axis_info import AxisInfo, analysis, element_bytes, meet
from tritonc.passes.to_llvm.context import LoweringContext, LoweringError, ir, pointee_text
from tritonc.passes.to_llvm.lowering import lowering
from tritonc.passes.ttgir.layouts import BlockedLayout

_BLOCK = re.compile(r"tensor<((?:\d+x)+)([^,>]+)")


def is_block_pointer(ty) -> bool:
    ptr = pointee_text(ty)
    return ptr is not None and ptr[0].startswith("tensor<")


def block_rank(ty) -> int:
    return len(re.findall(r"(\d+)x", _block_text(ty)))


def _block_text(ty) -> str:
    text = str(ty)
    return text[text.index("tensor<"):]


def _i64(ctx: LoweringContext, value):
    i64 = ir.IntegerType.get_signless(64)
    return value if value.type == i64 else ctx.value("arith.extsi", [value], i64)


def _cmp(ctx: LoweringContext, pred: int, a, b):
    return ctx.value("arith.cmpi", [a, b], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pred)})


@lowering("tt.make_block_ptr")
def lower_make_block_ptr(ctx: LoweringContext, op) -> list:
    return [[r for v in op.operands for r in ctx.get(v)]]


@lowering("tt.advance")
def lower_advance(ctx: LoweringContext, op) -> list:
    parts = ctx.get(op.operands[0])
    rank = block_rank(op.operands[0].type)
    deltas = [ctx.get(v)[0] for v in list(op.operands)[1:]]
    offsets = [ctx.binop("arith.addi", o, d) for o, d in zip(parts[1 + 2 * rank:], deltas)]
    return [parts[:1 + 2 * rank] + offsets]


@lowering("tt.make_tensor_descriptor")
def lower_make_descriptor(ctx: LoweringContext, op) -> list:
    return [[r for v in op.operands for r in ctx.get(v)]]


def _addresses(ctx: LoweringContext, base, shape, strides, offsets, result_ty, checked):
    """(pointer, in-bounds predicate or None) for every register of `result_ty`.

    The element's position along dimension d is off_d + c_d, c_d its coordinate in the
    tile. The offsets' part of the address (sum of off_d stride_d, 64 bits) is computed
    once per access and each register's part (sum of c_d stride_d, 64 bits) from its
    coordinates alone, so that in a loop advancing the offsets LLVM keeps one invariant
    offset per register and adds it to one changing base. The bounds
    -off_d <= c_d < shape_d - off_d, clamped to the tile, are i32 limits computed once
    per access, and each register compares its i32 coordinates with them."""
    elt = ir.Type.parse(str(ctx.element_type(result_ty)).replace("f8E4M3FN", "i8")
                        .replace("f8E5M2", "i8").replace("f8E4M3B11FNUZ", "i8"))
    i64 = ir.IntegerType.get_signless(64)
    wide = [_i64(ctx, o) for o in offsets]
    moved = None
    for off, stride in zip(wide, strides):
        term = ctx.binop("arith.muli", off, stride)
        moved = term if moved is None else ctx.binop("arith.addi", moved, term)

    def advance(ptr, index):
        return ctx.value("llvm.getelementptr", [ptr, index], base.type, {
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
            "elem_type": ir.TypeAttr.get(elt)})

    start = advance(base, moved)
    tile = ctx.shape(result_ty)
    bounds = {}
    for d in checked:
        low = _tile_limit(ctx, ctx.binop("arith.subi", ctx.const(0, i64), wide[d]), tile[d])
        high = _tile_limit(ctx, ctx.binop("arith.subi", _i64(ctx, shape[d]), wide[d]), tile[d])
        bounds[d] = low, ctx.binop("arith.maxsi", ctx.binop("arith.subi", high, low), ctx.i32(0))
    ptrs, preds = [], []
    for coord in ctx.coordinates(result_ty):
        index, pred = None, None
        for d, c in enumerate(coord):
            term = ctx.binop("arith.muli", _i64(ctx, c), strides[d])
            index = term if index is None else ctx.binop("arith.addi", index, term)
            if d in checked:
                low, width = bounds[d]  # low <= c < low + width, as one unsigned compare
                inside = _cmp(ctx, 6, ctx.binop("arith.subi", c, low), width)
                pred = inside if pred is None else ctx.binop("arith.andi", pred, inside)
        ptrs.append(advance(start, index))
        preds.append(pred)
    return ptrs, (preds if checked else None)


def _tile_limit(ctx: LoweringContext, limit, size: int):
    """`limit` (i64) clamped to [0, size], as i32: a coordinate c in [0, size) compares
    with it as with `limit`."""
    i64 = ir.IntegerType.get_signless(64)
    clamped = ctx.binop("arith.maxsi", ctx.binop("arith.minsi", limit, ctx.const(size, i64)),
                        ctx.const(0, i64))
    return ctx.value("arith.trunci", [clamped], ctx.i32_type())


def _fill(ctx: LoweringContext, elt_ty, padding: str):
    if padding == "nan" and not isinstance(elt_ty, ir.IntegerType):
        return ctx.const(float("nan"), elt_ty)
    return ctx.const(0, elt_ty)


def block_addresses(ctx: LoweringContext, op, parts: list, tile_type) -> tuple[list, list | None]:
    """Addresses and in-bounds predicates (None without `boundary_check`) of the tile
    that `op` accesses through the block pointer whose lowered parts are `parts`."""
    rank = block_rank(op.operands[0].type)
    base, shape = parts[0], parts[1:1 + rank]
    strides, offsets = parts[1 + rank:1 + 2 * rank], parts[1 + 2 * rank:]
    checked = set(ir.DenseI32ArrayAttr(op.attributes["boundary_check"]))
    return _addresses(ctx, base, shape, strides, offsets, tile_type, checked)


@dataclass(frozen=True)
class _PartsInfo:
    """What is known of a block pointer's parts on every path to a use: the byte
    divisibility of its base, its strides, the divisibility of its offsets and of its
    shape."""

    base: int
    strides: tuple[AxisInfo, ...]
    offsets: tuple[int, ...]
    shape: tuple[int, ...]

    def meet(self, other: _PartsInfo) -> _PartsInfo:
        return _PartsInfo(gcd(self.base, other.base),
                          tuple(meet(a, b) for a, b in zip(self.strides, other.strides)),
                          tuple(gcd(a, b) for a, b in zip(self.offsets, other.offsets)),
                          tuple(gcd(a, b) for a, b in zip(self.shape, other.shape)))


def _parts_info(ctx: LoweringContext, ptr) -> _PartsInfo | None:
    """Trace `ptr` to its `tt.make_block_ptr` through `tt.advance` and loop-carried values."""
    memo = ctx.__dict__.setdefault("block_parts", {})
    if ptr in memo:
        return memo[ptr]
    axis = analysis(ctx)
    owner = ptr.owner
    info = None
    if isinstance(owner, ir.Block):
        loop = owner.owner
        if loop is not None and loop.name == "scf.for" and ptr.arg_number > 0:
            index = ptr.arg_number - 1
            info = memo[ptr] = _parts_info(ctx, loop.operands[3 + index])
            terminator = list(loop.regions[0].blocks[0].operations)[-1]
            later = _parts_info(ctx, terminator.operands[index])
            info = info.meet(later) if info is not None and later is not None else None
    elif owner.name == "tt.make_block_ptr":
        rank = block_rank(ptr.type)
        parts = list(owner.operands)
        info = _PartsInfo(axis.get(parts[0]).divisibility,
                          tuple(axis.get(v) for v in parts[1 + rank:1 + 2 * rank]),
                          tuple(axis.get(v).divisibility for v in parts[1 + 2 * rank:]),
                          tuple(axis.get(v).divisibility for v in parts[1:1 + rank]))
    elif owner.name == "tt.advance":
        before = _parts_info(ctx, owner.operands[0])
        if before is not None:
            deltas = [axis.get(v).divisibility for v in list(owner.operands)[1:]]
            info = _PartsInfo(before.base, before.strides,
                              tuple(gcd(o, d) for o, d in zip(before.offsets, deltas)),
                              before.shape)
    memo[ptr] = info
    return info


def block_vector_width(ctx: LoweringContext, op, tile_ty) -> int:
    """How many consecutive registers of a block-pointer tile one access may cover: along
    the layout's fastest dimension f, when the stride of f is the constant 1, and the
    base, the other strides and the offset of f keep every vector aligned to its size;
    when f is bounds-checked, its size too, so a vector lies wholly inside or outside."""
    layout, shape = ctx.layout(tile_ty), ctx.shape(tile_ty)
    info = _parts_info(ctx, op.operands[0])
    if info is None or not isinstance(layout, BlockedLayout):
        return 1
    f = layout.order[0]
    nbytes = element_bytes(ctx.scalar_type(tile_ty))
    checked = set(ir.DenseI32ArrayAttr(op.attributes["boundary_check"]))
    if info.strides[f].value != 1:
        return 1
    vec = min(layout.vector_width, shape[f], max(1, 16 // nbytes))
    while vec > 1 and not (info.base % (vec * nbytes) == 0 and info.offsets[f] % vec == 0
                           and all(s.divisibility % vec == 0 for d, s in enumerate(info.strides)
                                   if d != f)
                           and (f not in checked or info.shape[f] % vec == 0)):
        vec //= 2
    return vec


def load_block(ctx: LoweringContext, op) -> list:
    """tt.load through a block pointer."""
    ptr, result = op.operands[0], op.results[0]
    ptrs, preds = block_addresses(ctx, op, ctx.get(ptr), result.type)
    elt_ty = ctx.scalar_type(result.type)
    padding = ir.StringAttr(op.attributes["padding"]).value
    others = [_fill(ctx, elt_ty, padding)] * len(ptrs) if preds else None
    return emit_loads(ctx, ptrs, preds, others, elt_ty,
                      block_vector_width(ctx, op, result.type))


def store_block(ctx: LoweringContext, op) -> None:
    """tt.store through a block pointer."""
    ptr, value = op.operands[0], op.operands[1]
    ptrs, preds = block_addresses(ctx, op, ctx.get(ptr), value.type)
    emit_stores(ctx, ptrs, ctx.get(value), preds, ctx.scalar_type(value.type),
                block_vector_width(ctx, op, value.type))


def _descriptor_info(ctx: LoweringContext, desc) -> _PartsInfo | None:
    """What is known of the parts of the descriptor `desc`, made in the kernel (its
    offsets are those of each access: empty here)."""
    owner = desc.owner
    if isinstance(owner, ir.Block) or owner.name != "tt.make_tensor_descriptor":
        return None
    axis = analysis(ctx)
    parts = list(owner.operands)
    rank = (len(parts) - 1) // 2
    return _PartsInfo(axis.get(parts[0]).divisibility,
                      tuple(axis.get(v) for v in parts[1 + rank:]), (),
                      tuple(axis.get(v).divisibility for v in parts[1:1 + rank]))


def descriptor_vector_width(ctx: LoweringContext, op, tile_ty) -> int:
    """How many consecutive registers of a descriptor tile one access may cover: as
    `block_vector_width`, with every dimension bounds-checked and the offsets of this
    access (`op`'s coordinates)."""
    layout, shape = ctx.layout(tile_ty), ctx.shape(tile_ty)
    info = _descriptor_info(ctx, op.operands[0])
    if info is None or not isinstance(layout, BlockedLayout):
        return 1
    f = layout.order[0]
    if info.strides[f].value != 1:
        return 1
    nbytes = element_bytes(ctx.scalar_type(tile_ty))
    coords = list(op.operands)[1:] if op.name == "tt.descriptor_load" else \
        list(op.operands)[2:]
    offset = analysis(ctx).get(coords[f]).divisibility
    vec = min(layout.vector_width, shape[f], max(1, 16 // nbytes))
    while vec > 1 and not (info.base % (vec * nbytes) == 0 and offset % vec == 0
                           and info.shape[f] % vec == 0
                           and all(s.divisibility % vec == 0 for d, s in enumerate(info.strides)
                                   if d != f)):
        vec //= 2
    return vec


def descriptor_addresses(ctx: LoweringContext, parts: list, coords: list,
                         tile_type) -> tuple[list, list]:
    """Addresses and in-bounds predicates of the tile at `coords` (i32 values) of the
    descriptor whose lowered parts are `parts`."""
    rank = (len(parts) - 1) // 2
    base, shape = parts[0], parts[1:1 + rank]
    strides = [_i64(ctx, s) for s in parts[1 + rank:]]
    return _addresses(ctx, base, shape, strides, coords, tile_type, set(range(rank)))


def _descriptor_parts(ctx: LoweringContext, desc):
    parts = ctx.get(desc)
    rank = (len(parts) - 1) // 2
    return parts[0], parts[1:1 + rank], [_i64(ctx, s) for s in parts[1 + rank:]], rank


def descriptor_padding(desc) -> str:
    """"nan" or "zero": what the descriptor `desc` reads outside its tensor, from the
    `tt.make_tensor_descriptor`s that may have made it (through the loops and branches
    that carry it); LoweringError where they differ."""
    found = {_padding(op) for op in _descriptor_origins(desc, set())}
    if len(found) > 1:
        raise LoweringError("a descriptor carried by a loop or branch is made with both "
                            "zero and NaN padding")
    return found.pop() if found else "zero"


def _padding(make) -> str:
    attrs = make.attributes
    return (ir.StringAttr(attrs["padding"]).value if "padding" in attrs else "") or "zero"


def _descriptor_origins(value, seen: set) -> list:
    """The `tt.make_tensor_descriptor` ops whose result `value` may be: itself, or through
    the iteration arguments and results of loops and the results of branches."""
    if value in seen:
        return []
    seen.add(value)
    owner = value.owner
    if isinstance(owner, ir.Block):
        sources = _argument_sources(owner, value.arg_number)
    elif owner.name == "tt.make_tensor_descriptor":
        return [owner]
    else:
        sources = _result_sources(owner, ir.OpResult(value).result_number)
    return [m for v in sources for m in _descriptor_origins(v, seen)]


def _terminator(region):
    return list(region.blocks[0].operations)[-1]


def _argument_sources(block, n: int) -> list:
    """The values argument `n` of a loop's `block` takes: its init and what is yielded."""
    loop = block.owner
    if loop.name == "scf.for":
        return [] if n == 0 else [list(loop.operands)[3 + n - 1],
                                  _terminator(loop.regions[0]).operands[n - 1]]
    if loop.name == "scf.while":
        if block == loop.regions[0].blocks[0]:
            return [list(loop.operands)[n], _terminator(loop.regions[1]).operands[n]]
        return [_terminator(loop.regions[0]).operands[1 + n]]
    return []


def _result_sources(op, n: int) -> list:
    """The values result `n` of a loop or branch may be."""
    if op.name == "scf.if":
        return [_terminator(r).operands[n] for r in op.regions if len(r.blocks)]
    if op.name == "scf.for":
        return [list(op.operands)[3 + n], _terminator(op.regions[0]).operands[n]]
    if op.name == "scf.while":
        return [_terminator(op.regions[0]).operands[1 + n]]
    return []


@lowering("tt.descriptor_load")
def lower_descriptor_load(ctx: LoweringContext, op) -> list:
    result = op.results[0]
    if result in ctx.smem_operands:
        return [[]]  # pipelined: the tile arrives in shared memory by cp.async
    offsets = [ctx.get(v)[0] for v in list(op.operands)[1:]]
    ptrs, preds = descriptor_addresses(ctx, ctx.get(op.operands[0]), offsets, result.type)
    elt_ty = ctx.scalar_type(result.type)
    fill = _fill(ctx, elt_ty, descriptor_padding(op.operands[0]))
    return [emit_loads(ctx, ptrs, preds, [fill] * len(ptrs), elt_ty,
                       descriptor_vector_width(ctx, op, result.type))]


@lowering("tt.descriptor_store")
def lower_descriptor_store(ctx: LoweringContext, op) -> list:
    base, shape, strides, rank = _descriptor_parts(ctx, op.operands[0])
    value = op.operands[1]
    offsets = [ctx.get(v)[0] for v in list(op.operands)[2:]]
    ptrs, preds = _addresses(ctx, base, shape, strides, offsets, value.type, set(range(rank)))
    emit_stores(ctx, ptrs, ctx.get(value), preds, ctx.scalar_type(value.type),
                descriptor_vector_width(ctx, op, value.type))
    return []


@lowering("tt.descriptor_reduce")
def lower_descriptor_reduce(ctx: LoweringContext, op) -> list:
    """Each element of the block inside the tensor as one relaxed, gpu-scoped atomic of
    `kind`, the PTX a `tt.atomic_rmw` takes, done by the one thread that owns it."""
    # here, not at the top: memory.py imports this module
    from tritonc.passes.to_llvm.memory import _actors, _atom_word, _predicate

    base, shape, strides, rank = _descriptor_parts(ctx, op.operands[0])
    value = op.operands[1]
    offsets = [ctx.get(v)[0] for v in list(op.operands)[2:]]
    ptrs, preds = _addresses(ctx, base, shape, strides, offsets, value.type, set(range(rank)))
    vals = ctx.get(value)
    kind = ir.StringAttr(op.attributes["kind"]).value
    elt_ty = ctx.scalar_type(value.type)
    owners = _actors(ctx, value.type, len(vals))
    for ptr, val, pred, owner in zip(ptrs, vals, preds, owners, strict=True):
        _atom_word(ctx, kind, elt_ty, ptr, val, _predicate(ctx, pred, owner), "relaxed", "gpu")
    return []


def _gathered_addresses(ctx: LoweringContext, desc, x_offsets, y_offset, tile_ty):
    """(pointer, in-bounds predicate) for every register of the [rows, columns] tile
    `tile_ty` of a gather or scatter: element (i, j) is at row `x_offsets[i]`, column
    `y_offset + j` of the descriptor's tensor. The row indices, in whatever layout they
    come, pass through shared memory so that each register finds its own."""
    base, shape, strides, _ = _descriptor_parts(ctx, desc)
    rows = ctx.shape(x_offsets.type)[0]
    i32 = ir.IntegerType.get_signless(32)
    ctx.reserve_smem(rows * 4)
    ctx.guard_barrier()
    for index, (coord,) in zip(ctx.get(x_offsets), ctx.coordinates(x_offsets.type),
                               strict=True):
        ctx.op("llvm.store", [index, ctx.smem_ptr(coord, i32)])
    ctx.barrier()
    column0 = ctx.get(y_offset)[0]
    elt = ctx.scalar_type(tile_ty)
    ptrs, preds = [], []
    for i, j in ctx.coordinates(tile_ty):
        row = ctx.value("llvm.load", [ctx.smem_ptr(i, i32)], i32)
        col = ctx.binop("arith.addi", column0, j)
        index = ctx.binop("arith.addi", ctx.binop("arith.muli", _i64(ctx, row), strides[0]),
                          ctx.binop("arith.muli", _i64(ctx, col), strides[1]))
        pred = None
        for pos, size in ((row, shape[0]), (col, shape[1])):
            inside = ctx.binop("arith.andi", _cmp(ctx, 5, pos, ctx.i32(0)),
                               _cmp(ctx, 2, _i64(ctx, pos), _i64(ctx, size)))
            pred = inside if pred is None else ctx.binop("arith.andi", pred, inside)
        ptrs.append(ctx.value("llvm.getelementptr", [base, index], base.type, {
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
            "elem_type": ir.TypeAttr.get(elt)}))
        preds.append(pred)
    return ptrs, preds


@lowering("tt.descriptor_gather")
def lower_descriptor_gather(ctx: LoweringContext, op) -> list:
    desc, x_offsets, y_offset = op.operands
    result = op.results[0]
    ptrs, preds = _gathered_addresses(ctx, desc, x_offsets, y_offset, result.type)
    elt_ty = ctx.scalar_type(result.type)
    fill = _fill(ctx, elt_ty, descriptor_padding(desc))
    return [emit_loads(ctx, ptrs, preds, [fill] * len(ptrs), elt_ty, 1)]


@lowering("tt.descriptor_scatter")
def lower_descriptor_scatter(ctx: LoweringContext, op) -> list:
    desc, value, x_offsets, y_offset = op.operands
    ptrs, preds = _gathered_addresses(ctx, desc, x_offsets, y_offset, value.type)
    emit_stores(ctx, ptrs, ctx.get(value), preds, ctx.scalar_type(value.type), 1)
    return []
