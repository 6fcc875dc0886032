"""Register prefetching of the tiles a loop loads for its dots (`num_stages` > 1).

In a loop the cp.async pipeliner (pipeline.py) does not take, the tiles loaded only for
dot operands (block-pointer tiles such as the keys and values of flash attention) are
issued one iteration early into registers the loop carries, so each is in flight while
the previous iteration computes:

    prologue:    if lb < ub: tiles(lb)
    iteration i: take tiles(i) from the loop-carried registers;
                 if i + step < ub: issue tiles(i + step), yielded for the next iteration
                 the body, with each prefetched load replaced by its registers

tiles(i) evaluates again, for iteration i, the ops the loads' operands depend on (their
backward slice in the body, e.g. the `tt.advance` of a block pointer), starting from the
iteration arguments of iteration i: for i + step, those the body would yield.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.pipeline import backward_slice, evaluate, less_than


class Plan:
    """The loads of one loop to prefetch, the ops their operands need, and the iteration
    arguments those ops read (`args`, body argument numbers)."""

    def __init__(self, loop, loads: list, ops: list, args: list) -> None:
        self.loop, self.loads, self.ops, self.args = loop, loads, ops, args


# 32-bit registers per thread the prefetched tiles and their dots' accumulators may hold
# together; past it the loop loads in place (prefetching would spill: fp32 tiles of a
# 128 x 128 tf32 dot with 4 warps hold 64 registers beside 128 of accumulator)
REGISTER_BUDGET = 160


def _registers(ctx: LoweringContext, loads: list) -> int:
    tiles = sum(-(-ctx.num_registers(op.results[0].type)
                  * element_bytes(ctx.scalar_type(op.results[0].type)) // 4) for op in loads)
    dots = {u.owner for op in loads for u in op.results[0].uses}
    return tiles + max(ctx.num_registers(d.results[0].type) for d in dots)


def plan(ctx: LoweringContext, loop) -> Plan | None:
    """The tile loads of `loop` whose only users are `tt.dot` operands, if their operands
    (and the values the loop yields for the arguments they read) can be evaluated early."""
    block = loop.regions[0].blocks[0]
    loads = []
    for op in block.operations:
        op = op.operation
        if op.name != "tt.load" or not ctx.is_tensor(op.results[0].type):
            continue
        uses = list(op.results[0].uses)
        if uses and all(u.owner.name == "tt.dot" and u.operand_number < 2 for u in uses):
            loads.append(op)
    if not loads or _registers(ctx, loads) > REGISTER_BUDGET:
        return None
    ops: list = []
    args: set = set()
    if not backward_slice(block, [v for load in loads for v in load.operands], ops, args):
        return None
    terminator = list(block.operations)[-1]
    done: set = set()
    while args - done:  # the next iteration's arguments need the values yielded for them
        index = min(args - done)
        done.add(index)
        if index and not backward_slice(block, [terminator.operands[index - 1]], ops, args):
            return None
    order = {op: i for i, op in enumerate(block.operations)}
    ops.sort(key=lambda o: order[o])
    return Plan(loop, loads, ops, sorted(args - {0}))


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
