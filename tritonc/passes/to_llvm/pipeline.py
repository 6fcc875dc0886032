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

The copies of a later iteration need that iteration's pointers and masks: the ops they
depend on (their backward slice in the loop body, e.g. `offs_k < K - k * BLOCK_K` and
the pointer increments) are evaluated again for iteration i + S - 1, and the loop
carries the pointers of that iteration beside its own. Masked-off elements are filled
with zeros by the copy (src-size 0), so a load may only have `other` = 0.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.blocks import block_addresses, block_vector_width, is_block_pointer
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import RULES
from tritonc.passes.to_llvm.memory import vector_width
from tritonc.passes.to_llvm.wgmma import warpgroup_dot
from tritonc.passes.ttgir.layouts import BlockedLayout, MmaLayout

_PURE = ("arith.", "math.", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.addptr",
         "tt.make_range", "tt.advance")


def loop_stages(ctx: LoweringContext, loop) -> int:
    """The pipelining depth of `loop`: its `tt.num_stages` (from `tl.range(num_stages=)`),
    else the module's num-stages."""
    attrs = loop.attributes
    return ir.IntegerAttr(attrs["tt.num_stages"]).value if "tt.num_stages" in attrs \
        else ctx.num_stages


def backward_slice(block, roots, ops: list, args: set) -> bool:
    """Add to `ops` the body ops `roots` depend on, and to `args` the iteration arguments;
    False when a dependency cannot be evaluated twice (a load, a nested region, ...)."""
    for value in roots:
        owner = value.owner
        if isinstance(owner, ir.Block):
            if owner == block:
                args.add(value.arg_number)
            continue
        op = owner.operation
        if op.block != block or op in ops:
            continue
        if len(op.regions) or not op.name.startswith(_PURE):
            return False
        if not backward_slice(block, list(op.operands), ops, args):
            return False
        ops.append(op)
    return True


def _is_zero_constant(value) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    splat = ir.DenseElementsAttr(owner.attributes["value"]).get_splat_value()
    return str(splat).split(":")[0].strip() in ("0", "0.000000e+00", "-0.000000e+00")


class Plan:
    """What to pipeline in one loop; `wgmma_loads`: the loads whose buffers a wgmma reads
    (laid out in column blocks, see LoweringContext.swizzled_index); `transposed`: block
    pointer tiles whose contiguous dimension is the first, stored one column per row (a
    K-major B operand)."""

    def __init__(self, loop, loads, ops, args, wgmma_loads: list, transposed: list) -> None:
        self.loop, self.loads, self.ops, self.args = loop, loads, ops, sorted(args)
        self.wgmma_loads, self.transposed = wgmma_loads, transposed


def _copy_width(ctx: LoweringContext, load) -> int:
    """Registers of `load`'s tile one cp.async moves."""
    if is_block_pointer(load.operands[0].type):
        return block_vector_width(ctx, load, load.results[0].type)
    segs = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    return vector_width(ctx, load.operands[0], load.operands[1] if segs[1] else None, 2)


def _block_tile_ok(ctx: LoweringContext, load, dot, operand: int) -> bool:
    """A block-pointer tile cp.async can copy: zero padding, and stored transposed only
    as the B operand of a wgmma."""
    if ir.StringAttr(load.attributes["padding"]).value not in ("", "zero"):
        return False
    layout = ctx.layout(load.results[0].type)
    if not isinstance(layout, BlockedLayout):
        return False
    return layout.order[0] == 1 or (operand == 1 and warpgroup_dot(ctx, dot))


def plan(ctx: LoweringContext, loop) -> Plan | None:
    """The loads of `loop` to pipeline, with the ops and iteration arguments they need."""
    block = loop.regions[0].blocks[0]
    loads = []
    for op in block.operations:
        op = op.operation
        if op.name != "tt.load" or len(list(op.results[0].uses)) != 1:
            continue
        use = next(iter(op.results[0].uses))
        dot = use.owner
        if dot.name != "tt.dot" or use.operand_number > 1:
            continue
        if not isinstance(ctx.layout(dot.results[0].type), MmaLayout):
            continue
        if element_bytes(ctx.scalar_type(op.results[0].type)) != 2:
            continue
        if len(ctx.shape(op.results[0].type)) != 2:
            continue
        if is_block_pointer(op.operands[0].type):
            if not _block_tile_ok(ctx, op, dot, use.operand_number):
                continue
        else:
            segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
            if segs[2] and not _is_zero_constant(op.operands[1 + segs[1]]):
                continue
        if _copy_width(ctx, op) < 2:
            continue  # cp.async moves at least 4 bytes
        loads.append(op)
    if not loads:
        return None
    ops: list = []
    args: set = set()
    roots = [v for load in loads for v in list(load.operands)[:2]]
    if not backward_slice(block, roots, ops, args):
        return None
    terminator = list(block.operations)[-1]
    done: set = set()
    while args - done:
        index = min(args - done)
        done.add(index)
        if index == 0:
            continue
        if not backward_slice(block, [terminator.operands[index - 1]], ops, args):
            return None
    order = {op: i for i, op in enumerate(block.operations)}
    ops.sort(key=lambda o: order[o])
    wgmma_loads = [load for load in loads
                   if warpgroup_dot(ctx, next(iter(load.results[0].uses)).owner)]
    transposed = [load for load in loads if is_block_pointer(load.operands[0].type)
                  and ctx.layout(load.results[0].type).order[0] == 0]
    return Plan(loop, loads, ops, args - {0}, wgmma_loads, transposed)


def evaluate(ctx: LoweringContext, ops, bindings: dict, wanted) -> list:
    """Lower `ops` with `bindings` in place of some values; return the lowered `wanted`."""
    saved = dict(ctx.values)
    ctx.values.update(bindings)
    for op in ops:
        for old, regs in zip(op.results, RULES[op.name](ctx, op) or []):
            ctx.values[old] = list(regs)
    out = [ctx.get(v) for v in wanted]
    ctx.values = saved
    return out


def _asm(ctx: LoweringContext, text: str, operands=(), constraints: str = "") -> None:
    ctx.op("llvm.inline_asm", list(operands), [], {
        "asm_string": ir.StringAttr.get(text), "constraints": ir.StringAttr.get(constraints),
        "has_side_effects": ir.UnitAttr.get()})


def _tile_bytes(ctx: LoweringContext, load) -> int:
    shape = ctx.shape(load.results[0].type)
    n = 1
    for s in shape:
        n *= s
    return (n * 2 + 1023) // 1024 * 1024  # the 128-byte swizzle repeats every 1024 bytes


def _issue(ctx: LoweringContext, p: Plan, ptrs: list, masks: list, stage, valid) -> None:
    """cp.async every pipelined tile of one iteration into buffer `stage` (an i32)."""
    i32 = ctx.i32_type()
    stage_base = ctx.binop("arith.addi", ctx.pipeline_base,
                           ctx.binop("arith.muli", stage, ctx.i32(p.stage_bytes)))
    for load, ptr_regs, mask_regs, offset in zip(p.loads, ptrs, masks, p.offsets):
        ty = load.results[0].type
        rows, row_len = ctx.shape(ty)
        vec = _copy_width(ctx, load)
        nbytes = 2 * vec
        base = ctx.binop("arith.addi", stage_base, ctx.i32(offset))
        coords = ctx.coordinates(ty)
        kind = "cg" if nbytes == 16 else "ca"
        flip = load in p.transposed
        if flip:
            rows, row_len = row_len, rows
        for start in range(0, len(ptr_regs), vec):
            row, col = coords[start][::-1] if flip else coords[start]
            index = ctx.swizzled_index(row, col, rows, row_len, load in p.wgmma_loads)
            dst = ctx.smem_address(index, 2, base)
            pred = valid if mask_regs is None else ctx.binop("arith.andi", valid,
                                                              mask_regs[start])
            size = ctx.value("arith.select", [pred, ctx.i32(nbytes), ctx.i32(0)], i32)
            _asm(ctx, f"cp.async.{kind}.shared.global [$0], [$1], {nbytes}, $2;",
                 [dst, ptr_regs[start], size], "r,l,r")
    _asm(ctx, "cp.async.commit_group;")


def less_than(ctx: LoweringContext, a, b) -> ir.Value:
    """a < b on signed i32 values (an i1)."""
    return ctx.value("arith.cmpi", [a, b], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)})


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
    ctx.pipeline_bytes = max(ctx.pipeline_bytes, total * stages)
    arg_values = [block.arguments[i] for i in p.args]
    # an ahead pointer tensor that a pipelined load reads directly only needs the first
    # register of each vector the copy moves: carry those alone
    p.vecs = []
    for arg in arg_values:
        vec = 1
        for load in p.loads:
            if load.operands[0] == arg:
                inputs = _load_inputs(load)
                vec = vector_width(ctx, arg, inputs[1] if len(inputs) > 1 else None, 2)
        p.vecs.append(vec)
    p.sizes = [ctx.num_registers(a.type) for a in arg_values]

    def tiles_for(iv, ahead):
        bindings = {block.arguments[0]: [iv]}
        bindings.update({a: regs for a, regs in zip(arg_values, ahead)})
        wanted = [v for load in p.loads for v in _load_inputs(load)]
        got = iter(evaluate(ctx, p.ops, bindings, wanted))
        ptrs, masks = [], []
        for load in p.loads:
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
        return evaluate(ctx, p.ops, bindings,
                         [terminator.operands[i - 1] for i in p.args])

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
    results = lower_body(flat_ahead, lambda new_iv, ahead_flat: _in_loop(
        ctx, p, stages, new_iv, ahead_flat, lb, ub, step, tiles_for, advance))
    ctx.pipelining -= 1
    _asm(ctx, "cp.async.wait_group 0;")
    ctx.barrier()  # the ring is free for whatever uses the memory next
    return results


def _load_inputs(load) -> list:
    segs = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    return [load.operands[0]] + ([load.operands[1]] if segs[1] else [])


def _in_loop(ctx, p, stages, iv, ahead_flat, lb, ub, step, tiles_for, advance):
    """At the top of iteration `iv`: wait for its tiles, issue iteration iv+(S-1)*step,
    and map the pipelined loads to their buffer. Returns the next ahead values."""
    _asm(ctx, f"cp.async.wait_group {stages - 2};")
    if p.wgmma_loads:  # make the copies visible to wgmma's (async proxy) reads
        _asm(ctx, "fence.proxy.async.shared::cta;")
    ctx.barrier()
    k = ctx.binop("arith.divsi", ctx.binop("arith.subi", iv, lb), step)
    read = ctx.binop("arith.remsi", k, ctx.i32(stages))
    write = ctx.binop("arith.remsi", ctx.binop("arith.addi", k, ctx.i32(stages - 1)),
                      ctx.i32(stages))
    # regroup the carried ahead values per argument, every register restored
    ahead, i = [], 0
    for size, vec in zip(p.sizes, p.vecs):
        kept = ahead_flat[i:i + size // vec]
        ahead.append([kept[r // vec] for r in range(size)])
        i += size // vec
    iv_ahead = ctx.binop("arith.addi", iv, ctx.binop("arith.muli", step, ctx.i32(stages - 1)))
    ptrs, masks = tiles_for(iv_ahead, ahead)
    _issue(ctx, p, ptrs, masks, write, less_than(ctx, iv_ahead, ub))
    nxt = advance(iv_ahead, ahead)
    read_base = ctx.binop("arith.addi", ctx.pipeline_base,
                          ctx.binop("arith.muli", read, ctx.i32(p.stage_bytes)))
    for load, offset in zip(p.loads, p.offsets):
        ctx.smem_operands[load.results[0]] = ctx.binop("arith.addi", read_base, ctx.i32(offset))
        if load in p.transposed:
            ctx.smem_k_major.add(load.results[0])
    return [r for regs, vec in zip(nxt, p.vecs) for r in regs[::vec]]
