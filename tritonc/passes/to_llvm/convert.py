"""Layout conversions lowered mechanically from a plan (`passes.ttgir.layout_conversion`).

Takes a TTGIR tensor value in one distributed layout and the type it must have (a
`ttg.convert_layout` result, or a `tt.trans` result seen as a layout of the source
tensor); gives the registers of the result, emitted from the cheapest plan between the
two layouts' linear forms:

- identity: the source registers themselves;
- register permutation: a selection of the source registers, no instruction;
- warp shuffles: one `shfl.sync.idx` per round (per 32-bit word), the source lane and,
  in transposing rounds, the sent and received registers a few XORs of the lane id;
- shared-memory exchange: a barrier, every thread stores its registers at the plan's
  swizzled offsets (vectors of the plan's width, or `stmatrix` rows on sm_90), a barrier,
  every thread loads its result registers the same way (or by `ldmatrix` rows).

Offsets and lane indices are linear in the bits of the register, lane and warp ids: the
lane and warp part is computed once per conversion, each register adds a constant
(XOR). The emission is written against a small `Emitter` interface, so the same code that
builds the IR can be run on a model of a thread block (the tests do).

`lower_by_plan` returns None (the caller keeps its own path) for what no plan covers:
pointers and i1 tensors, layouts whose register numbering is not their linear layout's,
and conversions the caller does more cheaply by recomputing the source. Setting
`TRITONC_PLANNED_CONVERSIONS=0` in the environment (read once, at import) turns the
planned path off.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

from tritonc.backends.cuda.options import planned_conversions
from tritonc.passes.to_llvm.context import LoweringContext, bit_fields, ir
from tritonc.passes.ttgir.layout_conversion import (
    BARRIER_COST,
    Plan,
    RegisterPermutation,
    SharedAccess,
    SharedMemoryExchange,
    ShuffleRound,
    WarpShuffle,
    candidate_plans,
    matrix_address_columns,
)
from tritonc.passes.ttgir.linear_layout import LinearLayout

ENABLED = planned_conversions()

REMAT_DEPTH = 12  # how deep `shape.rematerialize` recomputes a definition rather than moving it


class Emitter(Protocol):
    """The per-thread operations a planned conversion is made of. Values are opaque; ids
    and offsets are 32-bit integers, conditions booleans."""

    def thread_xor(self, lane_cols: Sequence[int], warp_cols: Sequence[int]):
        """XOR of `lane_cols[k]` over the set bits k of the lane id and of `warp_cols[k]`
        over those of the warp id."""

    def xor(self, value, constant: int):
        """value ^ constant."""

    def equals(self, value, constant: int):
        """value == constant."""

    def lane_bit(self, k: int):
        """Whether bit k of the lane id is set."""

    def select(self, cond, if_true, if_false):
        """cond ? if_true : if_false."""

    def shuffle(self, value, src_lane):
        """The `value` of lane `src_lane` of this warp (every lane takes part)."""

    def store(self, base, constant: int, values: list) -> None:
        """Store `values` at element offsets base + constant .. + len - 1 of the buffer,
        one access (aligned to its size); `constant` shares no bit with any `base`."""

    def load(self, base, constant: int, count: int) -> list:
        """`count` elements from base + constant .. + count - 1, one access."""

    def ldmatrix(self, base, constant: int, count: int) -> list:
        """`ldmatrix.x{count}` of 16-bit elements, lane 8 m + r giving the row of matrix m
        at base + constant: per matrix, the two elements of the word the lane receives."""

    def stmatrix(self, base, constant: int, values: list) -> None:
        """`stmatrix.x{len(values) // 2}` of 16-bit elements, lane 8 m + r giving the row
        of matrix m at base + constant: per matrix, the two elements of the lane's word."""

    def barrier(self) -> None:
        """Synchronise the thread block."""

    def guard_barrier(self) -> None:
        """Synchronise the thread block, unless no earlier reader of the buffer can exist."""


# -- choosing ----------------------------------------------------------------------------
def _span(bases: Sequence[int]) -> list[int]:
    span = {0}
    for b in bases:
        span |= {x ^ b for x in span}
    return sorted(span)


def _round_extra(r: ShuffleRound) -> int:
    """Instructions a round needs beyond its shuffle: the selects that pick the sent
    register and place the received one when they depend on the lane, or keep it."""
    sends = 1 << sum(1 for b in r.src_register_bases if b)
    extra = sends - 1
    if any(r.dst_register_bases):
        extra += len(_span(r.dst_register_bases))
    elif any(r.select_bases):
        extra += 1
    return extra


def lowering_cost(plan: Plan) -> int:
    """The plan's cost with the selects its emission needs counted one each."""
    if isinstance(plan, WarpShuffle):
        return plan.cost + sum(_round_extra(r) for r in plan.rounds)
    return plan.cost


@functools.lru_cache(maxsize=1024)
def choose_plan(src: LinearLayout, dst: LinearLayout, shape: tuple[int, ...],
                elem_bits: int, matrix_stores: bool = False) -> tuple[Plan, int]:
    """The candidate plan of lowest `lowering_cost`, with that cost (`matrix_stores`:
    the target has `stmatrix`)."""
    plans = candidate_plans(src, dst, shape, elem_bits, matrix_stores)
    best = min(plans, key=lowering_cost)
    return best, lowering_cost(best)


def exchange_cost(src: LinearLayout, dst: LinearLayout, elem_bits: int) -> int:
    """What `shape.exchange` costs in the plan's units: scalar stores and loads of every
    register to a row-major copy (address arithmetic three instructions each), two
    barriers."""
    words = max(1, elem_bits // 32)
    accesses = src.in_size("register") + dst.in_size("register")
    return accesses * (words + 3) + 2 * BARRIER_COST


# -- emission ------------------------------------------------------------------------------
def emit_plan(em: Emitter, plan: Plan, regs: list) -> list:
    """The result registers of `plan` applied to the source registers `regs`."""
    if plan.kind == "identity":
        return list(regs)
    if isinstance(plan, RegisterPermutation):
        return [regs[i] for i in plan.sources_of_registers]
    if isinstance(plan, WarpShuffle):
        return _emit_shuffles(em, plan, regs)
    if isinstance(plan, SharedMemoryExchange):
        return _emit_shared(em, plan, regs)
    raise ValueError(f"no lowering for a {plan.kind} plan")


def _sent_value(em: Emitter, regs: list, r: ShuffleRound, lane_bits: dict):
    """Register `r.sent_register(lane)` of this lane: a select per combination of the
    lane bits it depends on."""
    bits = [k for k, b in enumerate(r.src_register_bases) if b]

    def mux(i: int, acc: int):
        if i == len(bits):
            return regs[r.src_register ^ acc]
        k = bits[i]
        if k not in lane_bits:
            lane_bits[k] = em.lane_bit(k)
        return em.select(lane_bits[k], mux(i + 1, acc ^ r.src_register_bases[k]),
                         mux(i + 1, acc))

    return mux(0, 0)


def _emit_shuffles(em: Emitter, plan: WarpShuffle, regs: list) -> list:
    num = 1 << len(plan.sources.bases("register"))
    out: list = [None] * num
    lane_bits: dict[int, object] = {}
    patterns: dict[tuple, object] = {}  # lane bases -> XOR of them over the lane id
    tests: dict[tuple, object] = {}  # (lane bases, value) -> whether the XOR equals it

    def pattern(bases: tuple[int, ...]):
        if bases not in patterns:
            patterns[bases] = em.thread_xor(bases, ())
        return patterns[bases]

    def test(bases: tuple[int, ...], value: int):
        if (bases, value) not in tests:
            tests[bases, value] = em.equals(pattern(bases), value)
        return tests[bases, value]

    def place(index: int, value, cond) -> None:
        out[index] = value if cond is None or out[index] is None else \
            em.select(cond, value, out[index])

    for r in plan.rounds:
        value = _sent_value(em, regs, r, lane_bits)
        if r.shuffle:
            value = em.shuffle(value, em.xor(pattern(r.src_lane_bases), r.src_lane_offset))
        keep = test(r.select_bases, r.select_value) if any(r.select_bases) else None
        if any(r.dst_register_bases):
            if keep is not None:
                raise ValueError("a round with lane-dependent registers must keep every lane")
            for x in _span(r.dst_register_bases):
                place(r.dst_register ^ x, value, test(r.dst_register_bases, x))
        else:
            place(r.dst_register, value, keep)
    if any(v is None for v in out):
        raise ValueError("the shuffle rounds leave a result register unset")
    return out


def _emit_shared(em: Emitter, plan: SharedMemoryExchange, regs: list) -> list:
    em.guard_barrier()  # earlier readers of the scratch buffer are done
    _access(em, plan.store_map, plan.store, regs)
    em.barrier()
    return _access(em, plan.load_map, plan.load, None)


def _access(em: Emitter, access: LinearLayout, side: SharedAccess, regs: list | None) -> list:
    """Store `regs` (or load, when None) through `access`: (register, lane, warp) ->
    element offset, `side.vector` registers per access, taken in `side.registers` order."""
    lane_cols = [v[0] for v in access.bases("lane")]
    warp_cols = [v[0] for v in access.bases("warp")]
    if side.matrices:
        lane_cols = matrix_address_columns(access, side)
    varying = 0  # the offset bits the lane and warp ids can set
    for c in lane_cols + warp_cols:
        varying |= c
    base = em.thread_xor(lane_cols, warp_cols)
    bases = {0: base}  # the register constant's bits in `varying` -> base ^ them
    order = [sum(1 << side.registers[k] for k in range(len(side.registers)) if i >> k & 1)
             for i in range(access.in_size("register"))]  # access order -> register
    out: list = []
    for start in range(0, len(order), side.vector):
        group = order[start:start + side.vector]
        constant = access.apply(register=group[0])[0]
        mixed = constant & varying
        if mixed not in bases:
            bases[mixed] = em.xor(base, mixed)
        if side.matrices and regs is None:
            out += em.ldmatrix(bases[mixed], constant ^ mixed, side.vector // 2)
        elif side.matrices:
            em.stmatrix(bases[mixed], constant ^ mixed, [regs[r] for r in group])
        elif regs is None:
            out += em.load(bases[mixed], constant ^ mixed, side.vector)
        else:
            em.store(bases[mixed], constant ^ mixed, [regs[r] for r in group])
    result: list = [None] * len(order)
    for r, value in zip(order, out):
        result[r] = value
    return result


# -- the IR --------------------------------------------------------------------------------
class IrEmitter:
    """`Emitter` building per-thread LLVM-dialect code through a `LoweringContext`, for
    elements of type `elem_type` (stored by value in the scratch buffer)."""

    def __init__(self, ctx: LoweringContext, elem_type) -> None:
        self.ctx = ctx
        self.elem_type = elem_type
        self.elem_bytes = max(1, _bits(elem_type) // 8)
        self.i32 = ir.IntegerType.get_signless(32)
        self.i1 = ir.IntegerType.get_signless(1)
        self._pointers: dict = {}

    def _field(self, ident, low: int, count: int, stride: int):
        ctx = self.ctx
        value = ctx.binop("arith.shrui", ident, ctx.i32(low)) if low else ident
        if low + count < 5 or ident is not ctx.lane:
            value = ctx.binop("arith.andi", value, ctx.i32((1 << count) - 1))
        shift = stride.bit_length() - 1
        return ctx.binop("arith.shli", value, ctx.i32(shift)) if shift else value

    def _bit(self, ident, k: int, column: int):
        ctx = self.ctx
        on = ctx.binop("arith.andi", ctx.binop("arith.shrui", ident, ctx.i32(k)), ctx.i32(1))
        return ctx.binop("arith.muli", on, ctx.i32(column))

    def thread_xor(self, lane_cols: Sequence[int], warp_cols: Sequence[int]):
        ctx = self.ctx
        terms = []
        for ident, cols in ((ctx.lane, lane_cols), (ctx.warp, warp_cols)):
            for k, n, c in bit_fields(cols):
                if c & (c - 1):  # not a power of two: a field would carry, one bit at a time
                    terms += [self._bit(ident, k + i, c << i) for i in range(n)]
                else:
                    terms.append(self._field(ident, k, n, c))
        if not terms:
            return ctx.i32(0)
        value = terms[0]
        for t in terms[1:]:
            value = ctx.binop("arith.xori", value, t)
        return value

    def xor(self, value, constant: int):
        return self.ctx.binop("arith.xori", value, self.ctx.i32(constant)) if constant else value

    def equals(self, value, constant: int):
        return self.ctx.value("arith.cmpi", [value, self.ctx.i32(constant)], self.i1,
                              {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                               0)})

    def lane_bit(self, k: int):
        ctx = self.ctx
        return self.equals(ctx.binop("arith.andi", ctx.lane, ctx.i32(1 << k)), 1 << k)

    def select(self, cond, if_true, if_false):
        return self.ctx.value("arith.select", [cond, if_true, if_false], if_true.type)

    def shuffle(self, value, src_lane):
        ctx, ty = self.ctx, value.type
        bits = _bits(ty)
        if bits == 64:
            vec2 = ir.VectorType.get([2], self.i32)
            halves = ctx.value("llvm.bitcast", [value], vec2)
            packed = ctx.value("llvm.mlir.poison", [], vec2)
            for i in range(2):
                part = ctx.value("llvm.extractelement", [halves, ctx.i32(i)], self.i32)
                part = self._shuffle_word(part, src_lane)
                packed = ctx.value("llvm.insertelement", [packed, part, ctx.i32(i)], vec2)
            return ctx.value("llvm.bitcast", [packed], ty)
        word = value
        if not isinstance(ty, ir.IntegerType):
            word = ctx.value("llvm.bitcast", [value], ir.IntegerType.get_signless(bits))
        if bits < 32:
            word = ctx.value("arith.extui", [word], self.i32)
        moved = self._shuffle_word(word, src_lane)
        if bits < 32:
            moved = ctx.value("arith.trunci", [moved], ir.IntegerType.get_signless(bits))
        if moved.type != ty:
            moved = ctx.value("llvm.bitcast", [moved], ty)
        return moved

    def _shuffle_word(self, word, src_lane):
        ctx = self.ctx
        return ctx.value("nvvm.shfl.sync", [ctx.i32(-1), word, src_lane, ctx.i32(31)], self.i32,
                         {"kind": ir.Attribute.parse("#nvvm<shfl_kind idx>")})

    def _pointer(self, base, constant: int):
        """&buffer[base + constant]: one address computation per base, the constant an
        immediate offset."""
        if base not in self._pointers:
            self._pointers[base] = self.ctx.smem_ptr(base, self.elem_type)
        ptr = self._pointers[base]
        if not constant:
            return ptr
        return self.ctx.value("llvm.getelementptr", [ptr], ptr.type, {
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([constant]),
            "elem_type": ir.TypeAttr.get(self.elem_type)})

    def _alignment(self, count: int) -> dict:
        return {"alignment": ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                count * self.elem_bytes)}

    def store(self, base, constant: int, values: list) -> None:
        ctx = self.ctx
        if len(values) == 1:
            ctx.op("llvm.store", [values[0], self._pointer(base, constant)], [],
                   self._alignment(1))
            return
        vec_ty = ir.VectorType.get([len(values)], self.elem_type)
        packed = ctx.value("llvm.mlir.poison", [], vec_ty)
        for i, v in enumerate(values):
            packed = ctx.value("llvm.insertelement", [packed, v, ctx.i32(i)], vec_ty)
        ctx.op("llvm.store", [packed, self._pointer(base, constant)], [],
               self._alignment(len(values)))

    def load(self, base, constant: int, count: int) -> list:
        ctx = self.ctx
        ptr = self._pointer(base, constant)
        if count == 1:
            return [ctx.value("llvm.load", [ptr], self.elem_type, self._alignment(1))]
        vec_ty = ir.VectorType.get([count], self.elem_type)
        packed = ctx.value("llvm.load", [ptr], vec_ty, self._alignment(count))
        return [ctx.value("llvm.extractelement", [packed, ctx.i32(i)], self.elem_type)
                for i in range(count)]

    def ldmatrix(self, base, constant: int, count: int) -> list:
        ctx = self.ctx
        index = ctx.binop("arith.addi", base, ctx.i32(constant)) if constant else base
        pair = ir.VectorType.get([2], self.elem_type)
        out = []
        for word in ctx.ldmatrix(ctx.smem_address(index, 2, 0), count):
            halves = ctx.value("llvm.bitcast", [word], pair)
            out += [ctx.value("llvm.extractelement", [halves, ctx.i32(i)], self.elem_type)
                    for i in range(2)]
        return out

    def stmatrix(self, base, constant: int, values: list) -> None:
        ctx = self.ctx
        index = ctx.binop("arith.addi", base, ctx.i32(constant)) if constant else base
        pair = ir.VectorType.get([2], self.elem_type)
        words = []
        for i in range(0, len(values), 2):
            packed = ctx.value("llvm.mlir.poison", [], pair)
            for j in range(2):
                packed = ctx.value("llvm.insertelement", [packed, values[i + j], ctx.i32(j)],
                                   pair)
            words.append(ctx.value("llvm.bitcast", [packed], self.i32))
        ctx.stmatrix(ctx.smem_address(index, 2, 0), words)

    def barrier(self) -> None:
        self.ctx.barrier()

    def guard_barrier(self) -> None:
        self.ctx.guard_barrier()


def _bits(ty) -> int:
    if isinstance(ty, ir.IntegerType):
        return ir.IntegerType(ty).width
    if isinstance(ty, ir.F64Type):
        return 64
    if isinstance(ty, ir.F32Type):
        return 32
    if isinstance(ty, ir.F16Type | ir.BF16Type):
        return 16
    return 0


# -- the entry point -----------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)
def linear_of(layout, shape: tuple[int, ...]) -> LinearLayout | None:
    """`layout.to_linear(shape)` when it places every register, lane and warp bit where the
    lowering's own description of the layout does (`register_offsets`, `lane_strides`,
    `warp_strides`, coordinates taken modulo the shape); None otherwise."""
    try:
        ll = layout.to_linear(shape)
        offsets = layout.register_offsets(shape)
        strides = (("lane", layout.lane_strides()), ("warp", layout.warp_strides(shape)))
    except (AttributeError, ValueError, ZeroDivisionError):
        return None
    if len(offsets) != ll.in_size("register") or ll.in_size("block") != 1:
        return None
    for r, o in enumerate(offsets):
        if tuple(x % s for x, s in zip(o, shape)) != ll.apply(register=r):
            return None
    for name, pairs in strides:
        bases = ll.bases(name)
        if len(pairs) != len(bases):
            return None
        for (d, stride), basis in zip(pairs, bases):
            want = tuple((stride if i == d else 0) % s for i, s in enumerate(shape))
            if want != basis:
                return None
    return ll


def _remat_cost(ctx: LoweringContext, value, depth: int = 0) -> int | None:
    """Instructions per register `shape.rematerialize` spends recomputing `value`; None
    when it cannot."""
    if not ctx.is_tensor(value.type):
        return 0
    owner = value.owner
    if isinstance(owner, ir.Block) or depth > REMAT_DEPTH:
        return None
    op = owner.operation
    name = op.name
    if name == "tt.make_range":
        return 1 if ir.IntegerAttr(op.attributes["start"]).value else 0
    if name in ("arith.constant", "tt.splat"):
        return 0
    if name in ("tt.expand_dims", "tt.broadcast"):
        return _remat_cost(ctx, op.operands[0], depth + 1)
    if not (name.startswith("arith.") or name == "tt.addptr") or len(op.results) != 1:
        return None
    total = 1
    for v in op.operands:
        cost = _remat_cost(ctx, v, depth + 1)
        if cost is None:
            return None
        total += cost
    return total


def lower_by_plan(ctx: LoweringContext, src_value, result_type,
                  order: Sequence[int] | None = None) -> list | None:
    """The registers of `src_value` moved into the layout of `result_type` by the cheapest
    plan, or None when no plan covers the conversion or the caller's path costs less.
    With `order` the result is `tt.trans(src_value, order)`: result dimension i is source
    dimension order[i]."""
    if not ENABLED or not ctx.is_tensor(src_value.type):
        return None
    elem_type = ctx.scalar_type(src_value.type)
    elem_bits = _bits(elem_type)
    if elem_bits < 8 or elem_type != ctx.scalar_type(result_type):
        return None
    shape, dst_shape = ctx.shape(src_value.type), ctx.shape(result_type)
    src = linear_of(ctx.layout(src_value.type), shape)
    dst = linear_of(ctx.layout(result_type), dst_shape)
    if src is None or dst is None:
        return None
    if order is not None:
        inverse = [0] * len(order)
        for i, o in enumerate(order):
            inverse[o] = i
        dst = dst.transpose_outs(inverse)
    if dst.out_shape != shape:
        return None
    try:
        plan, cost = choose_plan(src, dst, shape, elem_bits, ctx.arch >= 90)
    except ValueError:
        return None
    if order is None and cost > 0:
        remat = _remat_cost(ctx, src_value)
        existing = exchange_cost(src, dst, elem_bits) if remat is None else \
            remat * dst.in_size("register")
        if cost > existing:
            return None
    if isinstance(plan, SharedMemoryExchange):
        ctx.reserve_smem(plan.buffer_bytes)
    return emit_plan(IrEmitter(ctx, elem_type), plan, ctx.get(src_value))
