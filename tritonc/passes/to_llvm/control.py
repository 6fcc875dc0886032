"""Lowering of structured control flow, calls and program identity.

Loop-carried and yielded tensors become their registers: an `scf.for` carrying one
`tensor<256xf32>` in a layout with 2 registers per thread carries two f32 values.
"""

from __future__ import annotations

from tritonc.passes.to_llvm import pipeline, prefetch, warp_roles, wgmma
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import inline_function, lower_block, lowering
from tritonc.passes.ttgir.warp_specialize import SPECIALIZED


def _flat(ctx: LoweringContext, values) -> list:
    return [r for v in values for r in ctx.get(v)]


def _flat_types(ctx: LoweringContext, values) -> list:
    return [t for v in values for t in ctx.register_types(v.type)]


def _regroup(ctx: LoweringContext, olds, news) -> list[list]:
    out, i = [], 0
    for v in olds:
        n = ctx.num_registers(v.type)
        out.append(list(news[i:i + n]))
        i += n
    return out


def _lower_region_block(ctx: LoweringContext, old_block, new_block) -> None:
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(new_block)
    _bind_block_args(ctx, old_block, list(new_block.arguments))
    lower_block(ctx, old_block)
    ctx.ip = saved


def _bind_block_args(ctx, old_block, new_args) -> None:
    for old, regs in zip(old_block.arguments, _regroup(ctx, old_block.arguments, new_args)):
        ctx.set(old, regs)


def _keep_loop_annotation(old, new) -> None:
    """The loop's `loop_annotation` (an `#llvm.loop_annotation`, from `disable_licm=True`)
    on its lowered form: convert-scf-to-cf moves it to the loop's back edge."""
    if "loop_annotation" in old.attributes:
        new.attributes["loop_annotation"] = old.attributes["loop_annotation"]


@lowering("scf.for")
def lower_for(ctx: LoweringContext, op) -> list:
    if ctx.arch >= 90:
        wgmma.stage_invariant_operands(ctx, op)
    def body(extra: list, top) -> list:
        return _lower_for(ctx, op, extra, top)

    ring = pipeline.planned(ctx, op)
    if ring is not None:
        return pipeline.lower_pipelined(
            ctx, ring, body, warp_roles.consume if SPECIALIZED in op.attributes else None)
    early = prefetch.planned(op)
    if early is not None:
        return prefetch.lower_prefetched(ctx, early, body)
    return _lower_for(ctx, op, [], None)


def _lower_for(ctx: LoweringContext, op, extra: list, top) -> list:
    """The loop, carrying `extra` values after its own; `top(iv, extra_args)` runs first in
    the body and returns the values the body yields for them."""
    lb, ub, step, *inits = op.operands
    n_own = len(_flat_types(ctx, op.results))
    new = ir.Operation.create(
        "scf.for", results=_flat_types(ctx, op.results) + [v.type for v in extra],
        operands=[ctx.get(lb)[0], ctx.get(ub)[0], ctx.get(step)[0], *_flat(ctx, inits),
                  *extra],
        regions=1, loc=ctx.loc, ip=ctx.ip)
    old_block = op.regions[0].blocks[0]
    arg_types = [old_block.arguments[0].type] + _flat_types(ctx, list(old_block.arguments)[1:])
    new_block = new.regions[0].blocks.append(*arg_types, *[v.type for v in extra])
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(new_block)
    ctx.set(old_block.arguments[0], [new_block.arguments[0]])
    olds = list(old_block.arguments)[1:]
    own_args = list(new_block.arguments)[1:1 + n_own]
    for old, regs in zip(olds, _regroup(ctx, olds, own_args)):
        ctx.set(old, regs)
    _keep_loop_annotation(op, new)
    ctx.loop_depth += 1
    if top is not None:
        ctx.extra_yields[list(old_block.operations)[-1]] = top(
            new_block.arguments[0], list(new_block.arguments)[1 + n_own:])
    lower_block(ctx, old_block)
    ctx.loop_depth -= 1
    ctx.ip = saved
    return _regroup(ctx, op.results, list(new.results)[:n_own])


@lowering("scf.yield")
def lower_yield(ctx: LoweringContext, op) -> list:
    ctx.op("scf.yield", _flat(ctx, op.operands) + ctx.extra_yields.pop(op, []))
    return []


@lowering("scf.condition")
def lower_condition(ctx: LoweringContext, op) -> list:
    cond, *rest = op.operands
    ctx.op("scf.condition", [ctx.get(cond)[0], *_flat(ctx, rest)])
    return []


@lowering("scf.if")
def lower_if(ctx: LoweringContext, op) -> list:
    new = ir.Operation.create("scf.if", results=_flat_types(ctx, op.results),
                              operands=[ctx.get(op.operands[0])[0]], regions=2, loc=ctx.loc,
                              ip=ctx.ip)
    for old_region, new_region in zip(op.regions, new.regions):
        if not old_region.blocks:
            continue
        _lower_region_block(ctx, old_region.blocks[0], new_region.blocks.append())
    return _regroup(ctx, op.results, list(new.results))


@lowering("scf.while")
def lower_while(ctx: LoweringContext, op) -> list:
    before_old = op.regions[0].blocks[0]
    after_old = op.regions[1].blocks[0]
    new = ir.Operation.create("scf.while", results=_flat_types(ctx, op.results),
                              operands=_flat(ctx, op.operands), regions=2, loc=ctx.loc, ip=ctx.ip)
    _keep_loop_annotation(op, new)
    before = new.regions[0].blocks.append(*_flat_types(ctx, before_old.arguments))
    after = new.regions[1].blocks.append(*_flat_types(ctx, after_old.arguments))
    ctx.loop_depth += 1
    _lower_region_block(ctx, before_old, before)
    _lower_region_block(ctx, after_old, after)
    ctx.loop_depth -= 1
    return _regroup(ctx, op.results, list(new.results))


@lowering("func.return")
def lower_return(ctx: LoweringContext, op) -> list:
    return []


@lowering("func.call")
def lower_call(ctx: LoweringContext, op) -> list:
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    return inline_function(ctx, ctx.functions[callee], [ctx.get(v) for v in op.operands])


def _grid_value(ctx: LoweringContext, op, name: str) -> list:
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    dim = ir.Attribute.parse(f"#gpu<dim {'xyz'[axis]}>")
    value = ctx.value(name, [], ir.IndexType.get(), {"dimension": dim})
    return [[ctx.value("arith.index_cast", [value], ctx.i32_type())]]


@lowering("tt.get_program_id")
def lower_program_id(ctx: LoweringContext, op) -> list:
    return _grid_value(ctx, op, "gpu.block_id")


@lowering("tt.get_num_programs")
def lower_num_programs(ctx: LoweringContext, op) -> list:
    return _grid_value(ctx, op, "gpu.grid_dim")


@lowering("tt.barrier")
def lower_barrier(ctx: LoweringContext, op) -> list:
    ctx.barrier()
    return []


@lowering("nvvm.read.ptx.sreg.globaltimer", "nvvm.read.ptx.sreg.smid")
def lower_special_register(ctx: LoweringContext, op) -> list:
    return [[ctx.value(op.name, [], op.results[0].type)]]


@lowering("tt.assume", "llvm.intr.assume")
def lower_assume(ctx: LoweringContext, op) -> list:
    """`llvm.intr.assume` of each register of the condition this thread holds."""
    for cond in ctx.get(op.operands[0]):
        ctx.op("llvm.intr.assume", [cond], [], {"op_bundle_sizes": ir.DenseI32ArrayAttr.get([])})
    return []
