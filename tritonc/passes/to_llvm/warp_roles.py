"""The two roles of a warp-specialized kernel (`passes/ttgir/warp_specialize.py`): a
producer warpgroup that copies the ring's tiles by TMA, and the kernel's own warps, the
consumers, that multiply them.

In: a TTGIR kernel carrying `ttg.producer_warps` P and its ring loop
`ttg.warp_specialized`. Out: the kernel for 32 * (num_warps + P) threads:

    entry:      thread 0: mbarrier.init full[b] (one arrival and the stage's bytes) and
                empty[b] (one arrival per consumer warp) for every buffer b;
                bar.sync 0 (every warp, the last time all meet)
    producer (warps num_warps ..): setmaxnreg.dec; its first warp (the others are
                done) walks the loops around the ring loop with only the scalars the
                copies need (`producer_slice`); for iteration k of
                the ring loop, counted over the whole kernel, buffer b = k % S:
                wait for phase ((k / S) & 1) ^ 1 of empty[b] (a buffer no consumer has
                given back yet passes at once), then its first thread arrives on
                full[b] expecting the stage's bytes and copies the tiles
    consumers:  setmaxnreg.inc; the kernel as it is, its barriers named
                (`bar.sync 1, 32 * num_warps`); at iteration k of the ring loop: wait for
                phase (k / S) & 1 of full[b]; the dot reads buffer b; once the wgmma
                reading a buffer is done (its own wait in the iteration, or, for a dot
                left in flight, `wgmma.wait_group 1` of the next iteration and the wait
                after the loop for the last), lane 0 of every consumer warp arrives on
                its empty barrier

The ring and its barriers sit after every other use of shared memory: the producer
fills the next tiles' buffers while the consumers store the last tile's results. When
the block's threads would share fewer than 248 registers each (168 for 8 consumer warps
beside the producer), the producer gives registers up to the consumers (`setmaxnreg`:
40 and 232).
"""

from __future__ import annotations

from tritonc.passes.to_llvm import tma
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import RULES, lower_block
from tritonc.passes.to_llvm.pipeline import (
    Plan,
    advanced,
    issue_copies,
    less_than,
    map_operands,
    tiles,
)
from tritonc.passes.to_llvm.wgmma import wait_accumulators
from tritonc.passes.ttgir.software_pipeline import dots_of
from tritonc.passes.ttgir.warp_specialize import ProducerSlice

_REGISTERS = 64 * 1024  # per SM, shared by the block's threads
_PRODUCER_REGISTERS = 40


def register_split(num_warps: int, producer_warps: int) -> tuple[int, int] | None:
    """(producer, consumer) registers per thread `setmaxnreg` sets, or None when the
    consumers already have as many as a thread may hold (255, rounded down to 8)."""
    share = _REGISTERS // (32 * (num_warps + producer_warps)) // 8 * 8
    if share >= 248:
        return None
    consumers = (_REGISTERS - 32 * producer_warps * _PRODUCER_REGISTERS) // (32 * num_warps)
    return _PRODUCER_REGISTERS, min(240, consumers // 8 * 8)


def lower_roles(ctx: LoweringContext, block, found: ProducerSlice, producer_warps: int) -> None:
    """Lower the kernel body `block` as the two roles (see above)."""
    p = Plan(ctx, found.ring)
    ring_bytes = p.stage_bytes * p.ring
    ctx.pipeline_bytes = max(ctx.pipeline_bytes, ring_bytes + 16 * p.ring)
    ctx.scratch_in_pipeline = True
    ctx.ws_counter = _counter(ctx)
    barriers = p.barriers = _barriers(ctx, p)
    tma.init_barriers(ctx, barriers, p.ring)
    text = "".join(f"@$1 mbarrier.init.shared::cta.b64 [$0+{8 * b}], {ctx.num_warps};\n"
                   for b in range(p.ring, 2 * p.ring))
    ctx.asm(text + "@$1 fence.mbarrier_init.release.cluster;", [barriers, tma.leader(ctx)],
            "r,b")
    ctx.op("gpu.barrier", [])
    split = register_split(ctx.num_warps, producer_warps)
    producer, consumers = _if(ctx, _compare(ctx, ctx.warp, ctx.num_warps, 9))
    saved = ctx.ip
    ctx.ip = producer
    if split:
        ctx.asm(f"setmaxnreg.dec.sync.aligned.u32 {split[0]};")
    ctx.ip, _ = _if(ctx, _compare(ctx, ctx.warp, ctx.num_warps, 0))  # its first warp
    ctx.first_thread = 32 * ctx.num_warps
    _produce_block(ctx, block, found, p)
    ctx.first_thread = 0
    ctx.ip = consumers
    if split:
        ctx.asm(f"setmaxnreg.inc.sync.aligned.u32 {split[1]};")
    ctx.role_threads = 32 * ctx.num_warps
    lower_block(ctx, block)
    ctx.role_threads = None
    ctx.ip = saved
    ctx.arch_specific = True


def _compare(ctx: LoweringContext, value, other, predicate: int) -> ir.Value:
    """`arith.cmpi` of i32 `value` and `other` (an i32, or an int made one), the
    predicate as arith numbers them (0 eq, 1 ne, 9 uge)."""
    i64 = ir.IntegerType.get_signless(64)
    other = ctx.i32(other) if isinstance(other, int) else other
    return ctx.value("arith.cmpi", [value, other], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(i64, predicate)})


def _if(ctx: LoweringContext, cond) -> tuple:
    """An `scf.if` on `cond` at the insertion point: insertion points before the
    `scf.yield` ending each of its two regions."""
    op = ir.Operation.create("scf.if", results=[], operands=[cond], regions=2, loc=ctx.loc,
                             ip=ctx.ip)
    points = []
    for region in op.regions:
        yielded = ir.Operation.create("scf.yield", results=[], operands=[], loc=ctx.loc,
                                      ip=ir.InsertionPoint(region.blocks.append()))
        points.append(ir.InsertionPoint(yielded))
    return tuple(points)


def _counter(ctx: LoweringContext) -> ir.Value:
    """A thread-local i32 at the kernel's entry, 0: the ring iterations done so far (LLVM
    keeps it in a register)."""
    i32 = ctx.i32_type()
    ptr = ctx.value("llvm.alloca", [ctx.i32(1)], ir.Type.parse("!llvm.ptr"),
                    {"elem_type": ir.TypeAttr.get(i32)})
    ctx.op("llvm.store", [ctx.i32(0), ptr])
    return ptr


def _next_count(ctx: LoweringContext) -> ir.Value:
    """The ring iteration this one is (over the whole kernel); counts it."""
    count = ctx.value("llvm.load", [ctx.ws_counter], ctx.i32_type())
    ctx.op("llvm.store", [ctx.binop("arith.addi", count, ctx.i32(1)), ctx.ws_counter])
    return count


def _barriers(ctx: LoweringContext, p: Plan) -> ir.Value:
    """The shared address of full[0]; full[b] and then empty[b] follow at 8 bytes each."""
    return ctx.smem_address(ctx.i32(0), 1, ctx.binop(
        "arith.addi", ctx.pipeline_base, ctx.i32(p.stage_bytes * p.ring)))


def _buffer_phase(ctx: LoweringContext, p: Plan, count) -> tuple:
    """(buffer, phase parity) of ring iteration `count`."""
    ring = ctx.i32(p.ring)
    return (ctx.binop("arith.remui", count, ring),
            ctx.binop("arith.andi", ctx.binop("arith.divui", count, ring), ctx.i32(1)))


def _empty(ctx: LoweringContext, p: Plan, buffer) -> ir.Value:
    return ctx.binop("arith.addi", p.barriers,
                     ctx.binop("arith.muli", ctx.binop("arith.addi", buffer,
                                                       ctx.i32(p.ring)), ctx.i32(8)))


# -- producer ------------------------------------------------------------------------------


def _produce_block(ctx: LoweringContext, block, found: ProducerSlice, p: Plan) -> None:
    """The producer's share of `block`; `p`: the ring loop's plan."""
    for op in block.operations:
        op = op.operation
        if op == found.ring:
            _produce_ring(ctx, p)
        elif op in found.ops and op.name == "scf.for":
            _produce_loop(ctx, op, found, p)
        elif op in found.ops:
            for old, regs in zip(op.results, RULES[op.name](ctx, op) or []):
                ctx.set(old, regs)


def _produce_loop(ctx: LoweringContext, loop, found: ProducerSlice, p: Plan) -> None:
    """A loop around the ring loop, carrying only what the producer needs."""
    carried = found.carried[loop]
    operands = list(loop.operands)
    inits = [ctx.get(operands[3 + i])[0] for i in carried]
    new = ir.Operation.create(
        "scf.for", results=[v.type for v in inits],
        operands=[ctx.get(v)[0] for v in operands[:3]] + inits, regions=1, loc=ctx.loc,
        ip=ctx.ip)
    old_block = loop.regions[0].blocks[0]
    body = new.regions[0].blocks.append(old_block.arguments[0].type,
                                        *[v.type for v in inits])
    ctx.set(old_block.arguments[0], [body.arguments[0]])
    for i, arg in zip(carried, list(body.arguments)[1:]):
        ctx.set(old_block.arguments[1 + i], [arg])
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(body)
    _produce_block(ctx, old_block, found, p)
    terminator = list(old_block.operations)[-1]
    ctx.op("scf.yield", [ctx.get(terminator.operands[i])[0] for i in carried])
    ctx.ip = saved
    for i, result in zip(carried, new.results):
        ctx.set(loop.results[i], [result])


def _produce_ring(ctx: LoweringContext, p: Plan) -> None:
    """The ring loop as the producer runs it: each iteration's tiles into the next free
    buffer."""
    loop = p.loop
    operands = list(loop.operands)
    lb, ub, step = (ctx.get(v)[0] for v in operands[:3])
    inits = [ctx.get(operands[2 + i]) for i in p.args]
    sizes = [len(regs) for regs in inits]
    flat = [r for regs in inits for r in regs]
    new = ir.Operation.create("scf.for", results=[r.type for r in flat],
                              operands=[lb, ub, step, *flat], regions=1, loc=ctx.loc,
                              ip=ctx.ip)
    body = new.regions[0].blocks.append(lb.type, *[r.type for r in flat])
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(body)
    iv, args = body.arguments[0], list(body.arguments)[1:]
    ahead, at = [], 0
    for n in sizes:
        ahead.append(args[at:at + n])
        at += n
    ptrs, masks = tiles(ctx, p, iv, ahead, ub)
    buffer, parity = _buffer_phase(ctx, p, _next_count(ctx))
    tma.wait_phase(ctx, _empty(ctx, p, buffer),
                   ctx.binop("arith.xori", parity, ctx.i32(1)))
    issue_copies(ctx, p, ptrs, masks, buffer, less_than(ctx, iv, ub))
    ctx.op("scf.yield", [r for regs in advanced(ctx, p, iv, ahead, ub) for r in regs])
    ctx.ip = saved


# -- consumers -----------------------------------------------------------------------------


def consume(ctx: LoweringContext, p: Plan, in_flight, lower_body) -> list:
    """The ring loop as the consumers run it (see above); `in_flight`: the dot left in
    flight across iterations, or None. Returns the loop's results."""
    loop = p.loop  # lower_pipelined set p.barriers: full[0], the empty ones after
    lb = ctx.get(loop.operands[0])[0]
    dot = dots_of(loop)[0]
    lane0 = _compare(ctx, ctx.lane, 0, 0)

    def top(iv, _extra) -> list:
        count = _next_count(ctx)
        buffer, parity = _buffer_phase(ctx, p, count)
        tma.wait_phase(ctx, p.barrier(ctx, buffer), parity)
        map_operands(ctx, p, buffer)
        if in_flight is None:  # the dot waits in the iteration: this buffer is free then
            ctx.after_dot = (dot, lambda: _give_back(ctx, p, buffer, lane0), True)
            return []
        # `wait_group 1` after the dot: the previous iteration's, if any, is done
        before = ctx.binop("arith.remui", ctx.binop("arith.addi", count,
                                                    ctx.i32(p.ring - 1)), ctx.i32(p.ring))
        later = _compare(ctx, iv, lb, 1)
        ctx.after_dot = (dot, lambda: _give_back(
            ctx, p, before, ctx.binop("arith.andi", lane0, later)), True)
        return []

    ctx.pipelining += 1
    results = lower_body([], top)
    ctx.pipelining -= 1
    if in_flight is not None:
        results[in_flight.index] = wait_accumulators(ctx, list(results[in_flight.index]), 0)
        last = ctx.binop("arith.remui", ctx.binop(
            "arith.addi", ctx.value("llvm.load", [ctx.ws_counter], ctx.i32_type()),
            ctx.i32(p.ring - 1)), ctx.i32(p.ring))
        _give_back(ctx, p, last, lane0)
    return results


def _give_back(ctx: LoweringContext, p: Plan, buffer, pred) -> None:
    """Where `pred` holds, arrive on empty[buffer]: this warp is done reading it."""
    ctx.asm("@$1 mbarrier.arrive.shared::cta.b64 _, [$0];", [_empty(ctx, p, buffer), pred],
            "r,b")
