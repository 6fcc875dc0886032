"""Register prefetching of the tiles a loop loads for its dots (`num_stages` > 1).

In: an `scf.for` of TTGIR whose loads software-pipeline marked `ttg.prefetch` (in a loop
with num_stages > 1 it gives no cp.async ring, the tiles loaded only for dot operands,
such as flash attention's block-pointer keys and values, while they fit its register
budget). Out: the loop over registers, the marked loads issued one iteration early into
registers the loop carries, so each is in flight while the previous iteration computes:

    prologue:    if lb < ub: tiles(lb)
    iteration i: take tiles(i) from the loop-carried registers;
                 if i + step < ub: issue tiles(i + step), yielded for the next iteration
                 the body, with each prefetched load replaced by its registers

tiles(i) evaluates again, for iteration i, the ops the loads' operands depend on (their
backward slice in the body, e.g. the `tt.advance` of a block pointer), starting from the
iteration arguments of iteration i: for i + step, those the body would yield.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext, LoweringError, ir
from tritonc.passes.to_llvm.pipeline import evaluate, less_than
from tritonc.passes.ttgir.software_pipeline import PREFETCH, loop_slice


class Plan:
    """The loads of one loop to prefetch (marked `ttg.prefetch`), the ops their operands
    need, and the iteration arguments those ops read (`args`, body argument numbers)."""

    def __init__(self, loop, loads: list, ops: list, args: list) -> None:
        self.loop, self.loads, self.ops, self.args = loop, loads, ops, args


def planned(loop) -> Plan | None:
    """The prefetch software-pipeline gave `loop`, if any."""
    block = loop.regions[0].blocks[0]
    loads = [op.operation for op in block.operations if PREFETCH in op.attributes]
    if not loads:
        return None
    found = loop_slice(loop, [v for load in loads for v in load.operands], False)
    if found is None:
        raise LoweringError("a prefetching loop's loads need ops that cannot be evaluated "
                            "for the next iteration")
    return Plan(loop, loads, *found)


def _tiles(ctx: LoweringContext, p: Plan, iv, arg_regs: list, valid) -> list:
    """The registers of every prefetched tile of iteration `iv` (zeros unless `valid`)."""
    block = p.loop.regions[0].blocks[0]
    types = [t for load in p.loads for t in ctx.register_types(load.results[0].type)]
    branch = ir.Operation.create("scf.if", results=types, operands=[valid], regions=2,
                                 loc=ctx.loc, ip=ctx.ip)
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
    bindings = {block.arguments[0]: [iv]}
    bindings.update({block.arguments[i]: regs for i, regs in zip(p.args, arg_regs)})
    loaded = evaluate(ctx, p.ops + p.loads, bindings, [load.results[0] for load in p.loads])
    ctx.op("scf.yield", [r for regs in loaded for r in regs])
    ctx.ip = ir.InsertionPoint(branch.regions[1].blocks.append())
    ctx.op("scf.yield", [ctx.const(0, t) for t in types])
    ctx.ip = saved
    return list(branch.results)


def lower_prefetched(ctx: LoweringContext, p: Plan, lower_body) -> list:
    """The loop with its plan applied; `lower_body(extra, top)` lowers the original body
    into a loop carrying `extra` more values (the tiles of the next iteration)."""
    block = p.loop.regions[0].blocks[0]
    terminator = list(block.operations)[-1]
    lb, ub, step = (ctx.get(v)[0] for v in list(p.loop.operands)[:3])
    inits = [ctx.get(p.loop.operands[3 + i - 1]) for i in p.args]
    first = _tiles(ctx, p, lb, inits, less_than(ctx, lb, ub))

    def top(iv, carried: list) -> list:
        at = 0
        for load in p.loads:
            n = ctx.num_registers(load.results[0].type)
            ctx.set(load.results[0], carried[at:at + n])
            at += n
        current = {block.arguments[0]: [iv]}
        current.update({block.arguments[i]: ctx.get(block.arguments[i]) for i in p.args})
        following = evaluate(ctx, p.ops, current, [terminator.operands[i - 1] for i in p.args])
        nxt = ctx.binop("arith.addi", iv, step)
        tiles = _tiles(ctx, p, nxt, following, less_than(ctx, nxt, ub))
        ctx.prefetched.update(p.loads)
        return tiles

    results = lower_body(first, top)
    ctx.prefetched.difference_update(p.loads)
    return results
