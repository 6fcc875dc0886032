"""Software pipelining of loops whose loads feed a tensor-core dot (`num_stages`).

A load inside an `scf.for` whose only user is an mma `tt.dot` becomes `cp.async` copies
straight from global into a ring of `num_stages` shared-memory buffers; the dot reads its
operand from the buffer of the current iteration:

    prologue:   barrier (the ring may overlap memory other threads still read), then
                copy the tiles of iterations 0 .. S-2 into buffers 0 .. S-2
    iteration i: wait until the copies of iteration i have landed (cp.async.wait_group),
                barrier, copy the tiles of iteration i+S-1 into buffer (i+S-1) % S,
                then the dot on buffer i % S
    epilogue:   wait for every copy, barrier

A loop whose one wgmma dot only accumulates into the loop-carried value
(`acc = tl.dot(a, b, acc)`), and reads no operand an iteration stores again (B from the
ring, A from it, from registers or from before the loop: `_unstaged`), leaves that dot
in flight: it waits with `wgmma.wait_group 1`
(the previous iteration's dot done, this one running), and the loop is followed by
`wgmma.wait_group 0` before the accumulator is read (`TRITONC_ASYNC_WGMMA=0` waits for
every dot at once instead). Its copies of iteration i+S-1 are issued after the dot, so
the tensor cores start on it first, into one of two rings:
    S + 1 buffers: right after the dot is issued, into buffer (i+S-1) % (S+1), last read
                by the dot of i-2, which every warpgroup waited for before the barrier
                at the top of iteration i;
    S buffers:  after `wgmma.wait_group 1` and a barrier (every dot of i-1 done), into
                buffer (i+S-1) % S, the one the dot of i-1 read.
The spare buffer saves the barrier; it is taken unless it costs a block per SM
(`_spare_buffer`): a 128 x 128 x 64 fp16 tile in 3 stages is 96 KB, two blocks on an
H100's 228 KB, and 128 KB with the spare, one.

In a loop of several wgmma dots, the last, if only yielded (attention's
`acc = tl.dot(p, v, acc * alpha)`), does not wait at all: the next iteration's first
`wgmma.wait_group 0` (after Q @ K^T) settles it too, so it runs beside the next loads,
barrier and product. The copies follow that first dot, by the same two rings: into the
spare buffer right after it is issued, else after its wait (which also settles the dot
left in flight) and a barrier.

The copies of a later iteration need that iteration's pointers and masks: the ops they
depend on (their backward slice in the loop body, e.g. `offs_k < K - k * BLOCK_K` and
the pointer increments) are evaluated again for iteration i + S - 1, and the loop
carries the pointers of that iteration beside its own. In a loop that writes no memory
the slice may hold loads (the index table flex attention finds its next key block in):
evaluated for iteration j, each is predicated on j < ub, so none reads for an iteration
that does not run. Masked-off elements are filled with zeros by the copy (src-size 0),
so a load may only have `other` = 0.
"""

from __future__ import annotations

from typing import NamedTuple

from tritonc.aot.occupancy import RESERVED_SMEM_PER_BLOCK, sm_limits
from tritonc.backends.cuda.options import async_wgmma
from tritonc.passes.to_llvm.axis_along import analysis_along
from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.blocks import (
    block_addresses,
    block_vector_width,
    descriptor_addresses,
    descriptor_padding,
    descriptor_vector_width,
    is_block_pointer,
)
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import RULES
from tritonc.passes.to_llvm.memory import vector_width
from tritonc.passes.to_llvm.tile_index import register_deltas, swizzled_index
from tritonc.passes.to_llvm.wgmma import wait_accumulators, warpgroup_dot
from tritonc.passes.ttgir import defining_block
from tritonc.passes.ttgir.layouts import BlockedLayout, DotOperandLayout, MmaLayout
from tritonc.passes.ttgir.mma_layouts import WGMMA_ACCUMULATORS

ASYNC_WGMMA = async_wgmma()
_RING_BUDGET = 200 * 1024  # bytes of ring buffers an extra buffer may bring the loop to
_PURE = ("arith.", "math.", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.addptr",
         "tt.make_range", "tt.advance")


def loop_stages(ctx: LoweringContext, loop) -> int:
    """The pipelining depth of `loop`: its `tt.num_stages` (from `tl.range(num_stages=)`),
    else the module's num-stages."""
    attrs = loop.attributes
    return ir.IntegerAttr(attrs["tt.num_stages"]).value if "tt.num_stages" in attrs \
        else ctx.num_stages


def backward_slice(block, roots, ops: list, args: set, loads: bool = False) -> bool:
    """Add to `ops` the body ops `roots` depend on, and to `args` the iteration arguments;
    False when a dependency cannot be evaluated twice (a nested region, a load unless
    `loads`, ...)."""
    for value in roots:
        owner = value.owner
        if isinstance(owner, ir.Block):
            if owner == block:
                args.add(value.arg_number)
            continue
        op = owner.operation
        if op.block != block or op in ops:
            continue
        if len(op.regions) or not (op.name.startswith(_PURE) or loads and _plain_load(op)):
            return False
        if not backward_slice(block, list(op.operands), ops, args, loads):
            return False
        ops.append(op)
    return True


_WRITES = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_store",
           "tt.descriptor_reduce", "tt.call", "tt.extern_elementwise", "tt.elementwise_inline_asm")


def _writes_memory(block) -> bool:
    """Whether an op of `block` (or of a region inside it) may write memory."""
    for op in block.operations:
        op = op.operation
        if op.name in _WRITES:
            return True
        if any(_writes_memory(b) for region in op.regions for b in region.blocks):
            return True
    return False


def _plain_load(op) -> bool:
    """A `tt.load` through a tensor or scalar of pointers that is not volatile: in a loop
    that writes no memory, evaluating it for a later iteration reads what that iteration
    will read (pipeline.py makes it only when that iteration runs)."""
    return (op.name == "tt.load" and not is_block_pointer(op.operands[0].type)
            and not ("is_volatile" in op.attributes
                     and ir.BoolAttr(op.attributes["is_volatile"]).value))


def _is_zero_constant(value) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    splat = ir.DenseElementsAttr(owner.attributes["value"]).get_splat_value()
    return str(splat).split(":")[0].strip() in ("0", "0.000000e+00", "-0.000000e+00")


class Plan:
    """What to pipeline in one loop; `wgmma_loads`: the loads whose buffers a wgmma reads
    (laid out in column blocks, see tile_index.swizzled_index); `transposed`: tiles
    whose contiguous dimension is the first (the layout's order is (0, 1)), stored one
    column per row: a K-major B or an M-major A operand (wgmma reads them through its
    transpose immediates, mma.sync with ldmatrix); `trans`: the `tt.trans` between a load
    and its dot, whose operand is then the stored tile read transposed."""

    def __init__(self, loop, loads, ops, args, wgmma_loads: list, transposed: list,
                 trans: dict) -> None:
        self.loop, self.loads, self.ops, self.args = loop, loads, ops, sorted(args)
        self.wgmma_loads, self.transposed, self.trans = wgmma_loads, transposed, trans


def _is_transposed(ctx: LoweringContext, load) -> bool:
    layout = ctx.layout(load.results[0].type)
    return isinstance(layout, BlockedLayout) and layout.order[0] == 0


def _elem_bytes(ctx: LoweringContext, load) -> int:
    return element_bytes(ctx.scalar_type(load.results[0].type))


def _copy_width(ctx: LoweringContext, load) -> int:
    """Registers of `load`'s tile one cp.async moves."""
    if load.name == "tt.descriptor_load":
        return descriptor_vector_width(ctx, load, load.results[0].type)
    if is_block_pointer(load.operands[0].type):
        return block_vector_width(ctx, load, load.results[0].type)
    segs = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    mask = load.operands[1] if segs[1] else None
    nbytes = _elem_bytes(ctx, load)
    if _is_transposed(ctx, load):  # registers run along the first dimension
        layout = ctx.layout(load.results[0].type)
        return analysis_along(ctx).vector_width(load.operands[0], mask, 0, nbytes,
                                                layout.size_per_thread[0])
    return vector_width(ctx, load.operands[0], mask, nbytes)


def _block_tile_ok(ctx: LoweringContext, load) -> bool:
    """A block-pointer tile cp.async can copy: zero padding, a blocked layout."""
    if ir.StringAttr(load.attributes["padding"]).value not in ("", "zero"):
        return False
    return isinstance(ctx.layout(load.results[0].type), BlockedLayout)


def _dot_use(load):
    """(the dot reading `load`'s tile, the `tt.trans` between them or None), or None when
    the tile has another user."""
    uses = list(load.results[0].uses)
    if len(uses) != 1:
        return None
    trans = None
    if uses[0].owner.name == "tt.trans":
        trans = uses[0].owner
        uses = list(trans.results[0].uses)
        if len(uses) != 1:
            return None
    if uses[0].owner.name != "tt.dot" or uses[0].operand_number > 1:
        return None
    return uses[0].owner, trans


def _along_k(ctx: LoweringContext, load, dot, trans) -> bool:
    """Whether `load`'s tile lies K-major as it is copied: A along its rows, B along its
    columns or as an N x K tile along its rows that the dot reads transposed."""
    if (trans or load).results[0] == dot.operands[0]:
        return trans is None and not _is_transposed(ctx, load)
    return _is_transposed(ctx, load) != (trans is not None)


def plan(ctx: LoweringContext, loop) -> Plan | None:
    """The loads of `loop` to pipeline, with the ops and iteration arguments they need."""
    block = loop.regions[0].blocks[0]
    loads = []
    for op in block.operations:
        op = op.operation
        found = _dot_use(op) if op.name in ("tt.load", "tt.descriptor_load") else None
        if found is None:
            continue
        dot, trans = found
        if trans is not None and (is_block_pointer(op.operands[0].type)
                                  or _is_transposed(ctx, op)):
            continue
        if not isinstance(ctx.layout(dot.results[0].type), MmaLayout):
            continue
        if _elem_bytes(ctx, op) != 2 and not (warpgroup_dot(ctx, dot)
                                               and _along_k(ctx, op, dot, trans)):
            continue  # tf32 and fp8 tiles: wgmma reads them K-major, else they are staged
        if len(ctx.shape(op.results[0].type)) != 2:
            continue
        if op.name == "tt.descriptor_load":
            if _is_transposed(ctx, op) or descriptor_padding(op.operands[0]) != "zero":
                continue  # cp.async fills with zeros
        elif is_block_pointer(op.operands[0].type):
            if not _block_tile_ok(ctx, op):
                continue
        else:
            segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
            if segs[2] and not _is_zero_constant(op.operands[1 + segs[1]]):
                continue
        if _copy_width(ctx, op) * _elem_bytes(ctx, op) < 4:
            continue  # cp.async moves at least 4 bytes
        loads.append(op)
    if not loads:
        return None
    ops: list = []
    args: set = set()
    roots = [v for load in loads for v in _load_inputs(load)]
    read_only = not _writes_memory(block)
    if not backward_slice(block, roots, ops, args, read_only):
        return None
    terminator = list(block.operations)[-1]
    done: set = set()
    while args - done:
        index = min(args - done)
        done.add(index)
        if index == 0:
            continue
        if not backward_slice(block, [terminator.operands[index - 1]], ops, args, read_only):
            return None
    if any(op in loads for op in ops):
        return None  # a pipelined tile would feed its own address
    order = {op: i for i, op in enumerate(block.operations)}
    ops.sort(key=lambda o: order[o])
    p_trans: dict = {}
    wgmma_loads = [load for load in loads if warpgroup_dot(ctx, _dot_use(load)[0])]
    transposed = [load for load in loads if _is_transposed(ctx, load)]
    for load in loads:
        if _dot_use(load)[1] is not None:
            p_trans[load] = _dot_use(load)[1]
    return Plan(loop, loads, ops, args - {0}, wgmma_loads, transposed, p_trans)


def evaluate(ctx: LoweringContext, ops, bindings: dict, wanted, guard=None) -> list:
    """Lower `ops` with `bindings` in place of some values; return the lowered `wanted`.
    With `guard` (an i1), the loads among `ops` read only where it holds."""
    saved = dict(ctx.values)
    ctx.values.update(bindings)
    ctx.load_guard = guard
    for op in ops:
        for old, regs in zip(op.results, RULES[op.name](ctx, op) or []):
            ctx.values[old] = list(regs)
    ctx.load_guard = None
    out = [ctx.get(v) for v in wanted]
    ctx.values = saved
    return out


def _asm(ctx: LoweringContext, text: str, operands=(), constraints: str = "") -> None:
    ctx.op("llvm.inline_asm", list(operands), [], {
        "asm_string": ir.StringAttr.get(text), "constraints": ir.StringAttr.get(constraints),
        "has_side_effects": ir.UnitAttr.get()})


def _tile_bytes(ctx: LoweringContext, load) -> int:
    shape = ctx.shape(load.results[0].type)
    n = _elem_bytes(ctx, load)
    for s in shape:
        n *= s
    return (n + 1023) // 1024 * 1024  # the 128-byte swizzle repeats every 1024 bytes


def _issue(ctx: LoweringContext, p: Plan, ptrs: list, masks: list, stage, valid) -> None:
    """cp.async every pipelined tile of one iteration into buffer `stage` (an i32)."""
    stage_base = ctx.binop("arith.addi", ctx.pipeline_base,
                           ctx.binop("arith.muli", stage, ctx.i32(p.stage_bytes)))
    for load, ptr_regs, mask_regs, offset in zip(p.loads, ptrs, masks, p.offsets):
        ty = load.results[0].type
        rows, row_len = ctx.shape(ty)
        vec, elem = _copy_width(ctx, load), _elem_bytes(ctx, load)
        nbytes = elem * vec
        base = ctx.binop("arith.addi", stage_base, ctx.i32(offset))
        coords = ctx.coordinates(ty)
        kind = "cg" if nbytes == 16 else "ca"
        flip = load in p.transposed
        if flip:
            rows, row_len = row_len, rows
        column_blocks = load in p.wgmma_loads

        def index(arith, coord, flip=flip, rows=rows, row_len=row_len,
                  column_blocks=column_blocks, elem=elem):
            row, col = coord[::-1] if flip else coord
            return swizzled_index(arith, row, col, rows, row_len, column_blocks, elem)

        starts = range(0, len(ptr_regs), vec)
        deltas = register_deltas(ctx.layout(ty), ctx.shape(ty), ctx.num_warps, index, starts)
        first = ctx.smem_address(index(ctx, coords[0]), elem, base) if deltas else None
        for n, start in enumerate(starts):
            if deltas:  # the offset in the instruction, where LLVM cannot hoist it apart
                dst, at = first, f"$0+{elem * deltas[n]}"
            else:
                dst, at = ctx.smem_address(index(ctx, coords[start]), elem, base), "$0"
            pred = valid if mask_regs is None else ctx.binop("arith.andi", valid,
                                                              mask_regs[start])
            ignore = ctx.binop("arith.xori", pred, ctx.const(True, pred.type))  # zero-fill
            _asm(ctx, f"cp.async.{kind}.shared.global [{at}], [$1], {nbytes}, $2;",
                 [dst, ptr_regs[start], ignore], "r,l,b")
    _asm(ctx, "cp.async.commit_group;")


def _opaque(ctx: LoweringContext, value) -> ir.Value:
    """`value`, through an identity LLVM cannot see into when it is a global pointer.

    The next iteration's ahead pointer is this one advanced, as it was in the prologue;
    with both incoming values `getelementptr p, step`, LLVM takes the getelementptr out
    of the loop's phi and so computes each copy's pointer at the top of the iteration,
    live across its dot: 32 more registers for a 128 x 64 fp16 tile on 128 threads."""
    if str(value.type) != "!llvm.ptr<1>":
        return value
    attrs = {"asm_string": ir.StringAttr.get("mov.b64 $0, $1;"),
             "constraints": ir.StringAttr.get("=l,l")}
    return ctx.value("llvm.inline_asm", [value], value.type, attrs)


def less_than(ctx: LoweringContext, a, b) -> ir.Value:
    """a < b on signed i32 values (an i1)."""
    return ctx.value("arith.cmpi", [a, b], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)})


class InFlight(NamedTuple):
    """The dot of a loop left in flight across iterations (`_async_dot`)."""

    dot: object
    index: int  # of the loop result it yields
    carried: bool  # settled by the next iteration's first wait, not by its own
    issuer: object  # the dot after which the next copies are issued: the loop's first


def _async_dot(ctx: LoweringContext, p: Plan) -> InFlight | None:
    """The wgmma dot of the loop that may stay in flight across iterations, its result
    only yielded:
    - the one dot of the loop, accumulating into a loop-carried value that nothing else
      reads (carried False: it waits for the previous iteration's with `wait_group 1`);
    - the last of several wgmma dots (attention's P @ V; carried True): it does not wait;
      the next iteration's first `wait_group 0` (of Q @ K^T), or else its first read of
      the carried value, settles it (`ctx.in_flight`). So no op in a nested region may
      read that value (a wait there would not cover what follows), and the accumulators
      of all the dots must fit the registers one wgmma may take (WGMMA_ACCUMULATORS),
      else ptxas serializes the wgmmas (flex attention's 128 x 128 scores on 4 warps)."""
    if not ASYNC_WGMMA or not p.wgmma_loads:
        return None
    block = p.loop.regions[0].blocks[0]
    dots = [op.operation for op in block.operations if op.operation.name == "tt.dot"]
    if not dots or not all(warpgroup_dot(ctx, d) and _unstaged(ctx, p, d) for d in dots):
        return None
    dot = dots[-1]
    acc, uses = dot.operands[2], list(dot.results[0].uses)
    terminator = list(block.operations)[-1]
    if len(uses) != 1 or uses[0].owner != terminator:
        return None
    index = uses[0].operand_number
    if len(dots) > 1:  # while it runs, the next dots' accumulators must fit beside its own
        held = sum(ctx.num_registers(d.results[0].type) for d in dots)
        carried = block.arguments[index + 1]
        top_level = all(use.owner.operation.block == block for use in carried.uses)
        if held <= WGMMA_ACCUMULATORS and top_level:
            return InFlight(dot, index, True, dots[0])
        return None
    single = len(list(acc.uses)) == 1 and block.arguments[index + 1] == acc
    return InFlight(dot, index, False, dot) if single else None


def _unstaged(ctx: LoweringContext, p: Plan, dot) -> bool:
    """Whether `dot`'s wgmma reads operands no iteration stores again: tiles of the ring,
    A in registers, or an A the loop does not compute (stored once before it). An operand
    staged in the scratch area by every iteration would be overwritten while the dot
    left in flight still reads it."""
    block = p.loop.regions[0].blocks[0]
    tiles = {load.results[0] for load in p.loads} | {t.results[0] for t in p.trans.values()}
    a, b = dot.operands[0], dot.operands[1]
    outside = defining_block(a) != block
    return b in tiles and (a in tiles or isinstance(ctx.layout(a.type), DotOperandLayout)
                           or outside and isinstance(ctx.layout(a.type), BlockedLayout))


def _blocks_per_sm(ctx: LoweringContext, smem: int) -> int:
    limits = sm_limits(ctx.arch)
    return min(limits.smem // (smem + RESERVED_SMEM_PER_BLOCK),
               limits.threads // (32 * ctx.num_warps))


def _spare_buffer(ctx: LoweringContext, stage_bytes: int, stages: int) -> bool:
    """Whether the ring of a loop with its dot in flight takes an S+1-th buffer: when
    it stays within `_RING_BUDGET` and as many blocks fit on an SM with it as without."""
    more, fewer = stage_bytes * (stages + 1), stage_bytes * stages
    return more <= _RING_BUDGET and _blocks_per_sm(ctx, more) >= _blocks_per_sm(ctx, fewer)


def lower_pipelined(ctx: LoweringContext, p: Plan, stages: int, lower_body) -> list:
    """The loop with its plan applied; `lower_body(new_loop, extra)` lowers the original
    body into the new loop, which carries `extra` more values (the ahead pointers)."""
    loop = p.loop
    block = loop.regions[0].blocks[0]
    lb, ub, step = (ctx.get(v)[0] for v in list(loop.operands)[:3])
    inits = list(loop.operands)[3:]
    terminator = list(block.operations)[-1]
    p.offsets, total = [], 0
    for load in p.loads:
        p.offsets.append(total)
        total += _tile_bytes(ctx, load)
    p.stage_bytes = total
    in_flight = _async_dot(ctx, p)
    spare = in_flight is not None and _spare_buffer(ctx, total, stages)
    ring = stages + 1 if spare else stages
    carried = in_flight is not None and in_flight.carried
    issuer = None if in_flight is None else in_flight.issuer
    if in_flight is not None:
        (ctx.carried_dots if carried else ctx.async_dots).add(in_flight.dot.results[0])
    ctx.pipeline_bytes = max(ctx.pipeline_bytes, total * ring)
    arg_values = [block.arguments[i] for i in p.args]
    # an ahead pointer tensor that a pipelined load reads directly only needs the first
    # register of each vector the copy moves: carry those alone
    p.vecs = []
    for arg in arg_values:
        vec = 1
        for load in p.loads:
            if load.operands[0] == arg and not is_block_pointer(arg.type):
                vec = _copy_width(ctx, load)
        p.vecs.append(vec)
    p.sizes = [ctx.num_registers(a.type) for a in arg_values]

    reads = any(op.name == "tt.load" for op in p.ops)

    def guard(iv):  # the loads of iteration iv's addresses are made only if it runs
        return less_than(ctx, iv, ub) if reads else None

    def tiles_for(iv, ahead):
        bindings = {block.arguments[0]: [iv]}
        bindings.update({a: regs for a, regs in zip(arg_values, ahead)})
        wanted = [v for load in p.loads for v in _load_inputs(load)]
        got = iter(evaluate(ctx, p.ops, bindings, wanted, guard(iv)))
        ptrs, masks = [], []
        for load in p.loads:
            if load.name == "tt.descriptor_load":
                parts = next(got)
                coords = [next(got)[0] for _ in range(len(list(load.operands)) - 1)]
                addresses, preds = descriptor_addresses(ctx, parts, coords,
                                                        load.results[0].type)
                ptrs.append(addresses)
                masks.append(preds)
                continue
            if is_block_pointer(load.operands[0].type):
                addresses, preds = block_addresses(ctx, load, next(got), load.results[0].type)
                ptrs.append(addresses)
                masks.append(preds)
                continue
            ptrs.append(next(got))
            masks.append(next(got) if len(_load_inputs(load)) > 1 else None)
        return ptrs, masks

    def advance(iv, ahead):
        bindings = {block.arguments[0]: [iv]}
        bindings.update({a: regs for a, regs in zip(arg_values, ahead)})
        return evaluate(ctx, p.ops, bindings, [terminator.operands[i - 1] for i in p.args],
                        guard(iv))

    def lower() -> list:
        # prologue: iterations 0 .. S-2, once every thread is done with what the ring
        # overlaps (the scratch area, the ring of an earlier loop)
        ctx.barrier()
        ahead = [ctx.get(inits[i - 1]) for i in p.args]
        iv = lb
        for s in range(stages - 1):
            ptrs, masks = tiles_for(iv, ahead)
            _issue(ctx, p, ptrs, masks, ctx.i32(s), less_than(ctx, iv, ub))
            ahead = advance(iv, ahead)
            iv = ctx.binop("arith.addi", iv, step)
        flat_ahead = [r for regs, vec in zip(ahead, p.vecs) for r in regs[::vec]]
        ctx.pipelining += 1

        def top(new_iv, ahead_flat):
            if carried:  # the previous iteration's dot may still write the carried value
                ctx.in_flight.add(block.arguments[in_flight.index + 1])
                ctx.settle = lambda: wait_accumulators(ctx, [], 0)
            return _in_loop(ctx, p, (stages, ring, issuer), new_iv, ahead_flat, lb, ub,
                            step, tiles_for, advance)

        results = lower_body(flat_ahead, top)
        ctx.in_flight.clear()
        ctx.pipelining -= 1
        if in_flight is not None:
            index = in_flight.index
            results[index] = wait_accumulators(ctx, list(results[index]), 0)
        _asm(ctx, "cp.async.wait_group 0;")
        ctx.barrier()  # the ring is free for whatever uses the memory next
        return results

    if in_flight is None:
        return lower()
    return _if_iterates(ctx, loop, lower)


def _if_iterates(ctx: LoweringContext, loop, lower) -> list:
    """`lower()`'s results (the registers of `loop`'s results) inside an `scf.if` on the
    loop running at least once, the loop's initial values where it does not. Left to the
    loop's own zero-trip edge, the copies of those initial values into the accumulator's
    registers may be placed between the in-flight wgmma and the `wgmma.wait_group 0`
    after the loop, where ptxas then serializes every wgmma of the kernel."""
    lb, ub = (ctx.get(v)[0] for v in list(loop.operands)[:2])
    inits = [r for v in list(loop.operands)[3:] for r in ctx.get(v)]
    new = ir.Operation.create("scf.if", results=[r.type for r in inits],
                              operands=[less_than(ctx, lb, ub)], regions=2, loc=ctx.loc,
                              ip=ctx.ip)
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(new.regions[0].blocks.append())
    results = lower()
    ctx.op("scf.yield", [r for regs in results for r in regs])
    ctx.ip = ir.InsertionPoint(new.regions[1].blocks.append())
    ctx.op("scf.yield", inits)
    ctx.ip = saved
    out, i = [], 0
    for regs in results:
        out.append(list(new.results)[i:i + len(regs)])
        i += len(regs)
    return out


def _load_inputs(load) -> list:
    if load.name == "tt.descriptor_load":
        return list(load.operands)
    segs = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    return [load.operands[0]] + ([load.operands[1]] if segs[1] else [])


def _in_loop(ctx, p, depth, iv, ahead_flat, lb, ub, step, tiles_for, advance):
    """At the top of iteration `iv`: wait for its tiles, map the pipelined loads to their
    buffer and issue iteration iv+(S-1)*step: there, or, with a dot left in flight,
    right after the dot `issuer` is issued, so that the tensor cores start on it first.
    `depth`: (S, buffers in the ring, issuer or None). Returns the next ahead values
    (filled in once issued)."""
    stages, ring, issuer = depth
    _asm(ctx, f"cp.async.wait_group {stages - 2};")
    if p.wgmma_loads:  # make the copies visible to wgmma's (async proxy) reads
        _asm(ctx, "fence.proxy.async.shared::cta;")
    ctx.barrier()
    k = ctx.binop("arith.divsi", ctx.binop("arith.subi", iv, lb), step)
    read = ctx.binop("arith.remsi", k, ctx.i32(ring))
    read_base = ctx.binop("arith.addi", ctx.pipeline_base,
                          ctx.binop("arith.muli", read, ctx.i32(p.stage_bytes)))
    for load, offset in zip(p.loads, p.offsets):
        at = ctx.binop("arith.addi", read_base, ctx.i32(offset))
        ctx.smem_operands[load.results[0]] = at
        if load in p.transposed:
            ctx.smem_k_major.add(load.results[0])
        if load in p.trans:  # the dot reads the stored tile transposed
            operand = p.trans[load].results[0]
            ctx.smem_operands[operand] = at
            ctx.smem_k_major.add(operand)
    nxt: list = []

    def issue() -> None:
        # regroup the carried ahead values per argument, every register restored
        ahead, i = [], 0
        for size, vec in zip(p.sizes, p.vecs):
            kept = ahead_flat[i:i + size // vec]
            ahead.append([kept[r // vec] for r in range(size)])
            i += size // vec
        iv_ahead = ctx.binop("arith.addi", iv,
                             ctx.binop("arith.muli", step, ctx.i32(stages - 1)))
        write = ctx.binop("arith.remsi", ctx.binop("arith.addi", k, ctx.i32(stages - 1)),
                          ctx.i32(ring))
        ptrs, masks = tiles_for(iv_ahead, ahead)
        _issue(ctx, p, ptrs, masks, write, less_than(ctx, iv_ahead, ub))
        for regs, before, vec in zip(advance(iv_ahead, ahead), ahead, p.vecs):
            nxt.extend(r if r == was else _opaque(ctx, r)  # a base the loop keeps stays as is
                       for r, was in zip(regs[::vec], before[::vec]))

    if issuer is not None:
        # S+1 buffers: (i+S-1) % (S+1) was read by the dot of i-2, done by now; S: once
        # the dot of i-1, which read (i+S-1) % S, is done in every warpgroup
        ctx.after_async_dot = (issuer, issue, ring == stages)
    else:
        issue()
    return nxt
