"""The lowering of a software-pipelined loop: the plan software-pipeline wrote on it
(`passes/ttgir/software_pipeline.py`) realised with ring buffers in shared memory.

In: an `scf.for` of TTGIR carrying `ttg.pipeline_stages` S and `ttg.ring_buffers`, its
loads marked `ttg.pipelined`. Out: the loop over registers, each marked load become
`cp.async` copies (TMA copies for the loads also marked `ttg.tma`, tma.py) straight from
global into a ring of shared-memory buffers; the dot reads its operand from the buffer
of the current iteration:

    prologue:   barrier (the ring may overlap memory other threads still read), then
                copy the tiles of iterations 0 .. S-2 into buffers 0 .. S-2
    iteration i: wait until the copies of iteration i have landed (cp.async.wait_group),
                barrier, copy the tiles of iteration i+S-1 into buffer (i+S-1) % S,
                then the dot on buffer i % S
    epilogue:   wait for every copy, barrier

With S-1 buffers (`ttg.ring_buffers`, when that fits one more block on an SM) the copies
of iteration i+S-1 go into buffer i % (S-1) once every thread has read it: after the
last dot reading the ring (for a wgmma, after its wait) and a barrier.

A loop whose one wgmma dot only accumulates into the loop-carried value
(`acc = tl.dot(a, b, acc)`, the loop's `ttg.async_dot`) leaves that dot in flight: it
waits with `wgmma.wait_group 1`
(the previous iteration's dot done, this one running), and the loop is followed by
`wgmma.wait_group 0` before the accumulator is read (`TRITONC_ASYNC_WGMMA=0` waits for
every dot at once instead). Its copies of iteration i+S-1 are issued after the dot, so
the tensor cores start on it first, into one of two rings:
    S + 1 buffers: right after the dot is issued, into buffer (i+S-1) % (S+1), last read
                by the dot of i-2, which every warpgroup waited for before the barrier
                at the top of iteration i;
    S buffers:  after `wgmma.wait_group 1` and a barrier (every dot of i-1 done), into
                buffer (i+S-1) % S, the one the dot of i-1 read.
The spare buffer saves the barrier (software-pipeline takes it unless it costs a block
per SM).

A load marked `ttg.read_back` (a tile converted before its dot: int8 weights to fp16) is
copied into the ring the same way; where it stands in the body its registers are read back
from the buffer of the iteration, as the copies stored them (`memory.read_back`), and the
conversions and the dot take them from there.

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

from tritonc.passes.to_llvm import tma
from tritonc.passes.to_llvm.axis_along import analysis_along
from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.blocks import block_addresses, descriptor_addresses, is_block_pointer
from tritonc.passes.to_llvm.context import LoweringContext, LoweringError, ir
from tritonc.passes.to_llvm.lowering import RULES
from tritonc.passes.to_llvm.memory import ReadBack
from tritonc.passes.to_llvm.tile_index import register_deltas, swizzled_index
from tritonc.passes.to_llvm.wgmma import wait_accumulators, warpgroup_dot
from tritonc.passes.ttgir.software_pipeline import (
    ASYNC_DOT,
    BUFFERS,
    PIPELINED,
    READ_BACK,
    STAGES,
    TMA,
    copies,
    copy_width,
    dot_uses,
    dots_of,
    is_transposed,
    load_inputs,
    loop_slice,
    ring_readers,
    rows_repeat,
    tile_bytes,
    writes_memory,
)


class Plan:
    """The ring of one loop, as software-pipeline planned it: `loads` in body order;
    `wgmma_loads`: the loads whose buffers a wgmma reads (laid out in column blocks, see
    tile_index.swizzled_index); `transposed`: tiles whose contiguous dimension is the
    first (the layout's order is (0, 1)), stored one column per row: a K-major B or an
    M-major A operand (wgmma reads them through its transpose immediates, mma.sync with
    ldmatrix); `trans`: the results of the `tt.trans` ops between a load and its dots,
    operands that read the stored tile transposed; `tma`: the loads TMA copies (tma.py),
    whose bytes in one stage are `tma_bytes`; `ops` / `args`: what the loads' addresses
    need again for a later iteration (`software_pipeline.loop_slice`); `last_reader`: the
    body's last dot reading the ring (None if only nested dots do)."""

    def __init__(self, ctx: LoweringContext, loop) -> None:
        block = loop.regions[0].blocks[0]
        self.loop = loop
        self.loads = [op.operation for op in block.operations if PIPELINED in op.attributes]
        self.stages = ir.IntegerAttr(loop.attributes[STAGES]).value
        self.ring = ir.IntegerAttr(loop.attributes[BUFFERS]).value
        found = loop_slice(loop, [v for load in self.loads for v in load_inputs(load)],
                           not writes_memory(block))
        if found is None:
            raise LoweringError("a pipelined loop's loads need ops that cannot be evaluated "
                                "for a later iteration")
        self.ops, self.args = found
        uses = {load: dot_uses(load) or [] for load in self.loads}
        readers = [dot for load in self.loads for dot in ring_readers(load)]
        self.last_reader = next((d for d in reversed(dots_of(loop))
                                 if any(d == r for r in readers)), None)
        self.wgmma_loads = [load for load in self.loads
                            if uses[load] and warpgroup_dot(ctx, uses[load][0][0])]
        self.read_back = [load for load in self.loads if READ_BACK in load.attributes]
        self.transposed = [load for load in self.loads if is_transposed(ctx, load)]
        self.repeats = {load: rows_repeat(load) for load in self.loads}
        self.trans = {load: list({t.results[0]: None for _, t, _ in uses[load]
                                  if t is not None})
                      for load in self.loads}
        self.tma = [load for load in self.loads if TMA in load.attributes]
        self.tma_bytes = sum(tma.copy_bytes(ctx, load) for load in self.tma)
        self.cp_async = len(self.tma) < len(self.loads)  # loads copied by cp.async
        self.offsets, total = [], 0
        for load in self.loads:
            self.offsets.append(total)
            total += tile_bytes(ctx, load)
        self.stage_bytes = total
        self.barriers = None  # the shared address of the first buffer's mbarrier (TMA)

    def barrier(self, ctx: LoweringContext, buffer) -> ir.Value:
        """The mbarrier of ring buffer `buffer` (an i32)."""
        return ctx.binop("arith.addi", self.barriers, ctx.binop("arith.muli", buffer,
                                                                ctx.i32(8)))


def planned(ctx: LoweringContext, loop) -> Plan | None:
    """The ring software-pipeline gave `loop`, if any."""
    return Plan(ctx, loop) if BUFFERS in loop.attributes else None


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


def _repeats(ctx: LoweringContext, load) -> bool:
    """Whether `load` reads each address more than once (runs of equal pointers along a
    dimension: 4-bit weights packed 8 to a word, `offs_k // 8`). Its copies then go
    through L1 (`cp.async.ca`), where the repeats hit, instead of each to L2."""
    along = analysis_along(ctx)
    return any(along.get(load.operands[0], d).constancy > 1 for d in range(2))


def issue_copies(ctx: LoweringContext, p: Plan, ptrs: list, masks: list, stage, valid) -> None:
    """Copy every pipelined tile of one iteration into buffer `stage` (an i32): TMA
    tiles (their `ptrs` are their coordinates) by one thread (`tma.leader`), the others
    by cp.async."""
    stage_base = ctx.binop("arith.addi", ctx.pipeline_base,
                           ctx.binop("arith.muli", stage, ctx.i32(p.stage_bytes)))
    if p.tma:
        issuer = ctx.binop("arith.andi", valid, tma.leader(ctx))
        barrier = p.barrier(ctx, stage)
        tma.expect_bytes(ctx, barrier, p.tma_bytes, issuer)
    for load, ptr_regs, mask_regs, offset in zip(p.loads, ptrs, masks, p.offsets):
        if load in p.tma:
            dst = ctx.smem_address(ctx.i32(0), 1, ctx.binop("arith.addi", stage_base,
                                                            ctx.i32(offset)))
            tma.copy_tile(ctx, load, ptr_regs, dst, barrier, issuer)
            continue
        ty = load.results[0].type
        rows, row_len = ctx.shape(ty)
        (vec, partial), elem = copies(ctx, load), element_bytes(ctx.scalar_type(ty))
        partial = partial and mask_regs is not None
        nbytes = elem * vec
        base = ctx.binop("arith.addi", stage_base, ctx.i32(offset))
        coords = ctx.coordinates(ty)
        kind = "cg" if nbytes == 16 and not _repeats(ctx, load) else "ca"
        flip = load in p.transposed
        if flip:
            rows, row_len = row_len, rows
        column_blocks = load in p.wgmma_loads
        repeat = p.repeats[load]  # only row r // repeat is stored, copied from row r

        def index(arith, coord, flip=flip, rows=rows // repeat, row_len=row_len,
                  column_blocks=column_blocks, elem=elem, repeat=repeat):
            row, col = coord[::-1] if flip else coord
            if repeat > 1:
                row = arith.binop("arith.divui", row, arith.i32(repeat))
            return swizzled_index(arith, row, col, rows, row_len, column_blocks, elem)

        starts = range(0, len(ptr_regs), vec)
        deltas = register_deltas(ctx.layout(ty), ctx.shape(ty), ctx.num_warps, index, starts)
        first = ctx.smem_address(index(ctx, coords[0]), elem, base) if deltas else None
        for n, start in enumerate(starts):
            if deltas:  # the offset in the instruction, where LLVM cannot hoist it apart
                dst, at = first, f"$0+{elem * deltas[n]}"
            else:
                dst, at = ctx.smem_address(index(ctx, coords[start]), elem, base), "$0"
            if partial:  # the mask's prefix of the copy is read, the rest zero-filled
                size = _masked_bytes(ctx, mask_regs[start:start + vec], elem, valid)
                ctx.asm(f"cp.async.{kind}.shared.global [{at}], [$1], {nbytes}, $2;",
                        [dst, ptr_regs[start], size], "r,l,r")
                continue
            pred = valid if mask_regs is None else ctx.binop("arith.andi", valid,
                                                              mask_regs[start])
            ignore = ctx.binop("arith.xori", pred, ctx.const(True, pred.type))  # zero-fill
            if repeat > 1:  # the first of each run of repeated rows is copied
                first_row = less_than(ctx, ctx.binop("arith.remui", coords[start][0],
                                                     ctx.i32(repeat)), ctx.i32(1))
                ctx.asm(f"@$3 cp.async.{kind}.shared.global [{at}], [$1], {nbytes}, $2;",
                        [dst, ptr_regs[start], ignore, first_row], "r,l,b,b")
                continue
            ctx.asm(f"cp.async.{kind}.shared.global [{at}], [$1], {nbytes}, $2;",
                 [dst, ptr_regs[start], ignore], "r,l,b")
    if p.cp_async:
        ctx.asm("cp.async.commit_group;")


def _masked_bytes(ctx: LoweringContext, mask_regs: list, elem: int, valid) -> ir.Value:
    """The bytes of a copy whose `mask_regs` hold for a prefix of its elements: the
    prefix's length (the count of true ones) times `elem`, 0 where `valid` is false."""
    i32 = ctx.i32_type()
    count = None
    for bit in mask_regs:
        one = ctx.value("arith.extui", [bit], i32)
        count = one if count is None else ctx.binop("arith.addi", count, one)
    size = ctx.binop("arith.muli", count, ctx.i32(elem))
    return ctx.value("arith.select", [valid, size, ctx.i32(0)], i32)


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


def after_barrier(ctx: LoweringContext, issue):
    """`issue`, once every thread of the block is past the reads before it."""

    def run() -> None:
        ctx.barrier()
        issue()

    return run


def less_than(ctx: LoweringContext, a, b) -> ir.Value:
    """a < b on signed i32 values (an i1)."""
    return ctx.value("arith.cmpi", [a, b], ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)})


class InFlight(NamedTuple):
    """The dot of a loop left in flight across iterations (`ttg.async_dot`)."""

    dot: object
    index: int  # of the loop result it yields
    carried: bool  # settled by the next iteration's first wait, not by its own
    issuer: object  # the dot after which the next copies are issued: the loop's first


def _in_flight(loop) -> InFlight | None:
    """The dot software-pipeline left in flight in `loop`: the one yielded at
    `ttg.async_dot`; when the loop has several dots (attention's P @ V last), the next
    iteration's first dot settles it."""
    if ASYNC_DOT not in loop.attributes:
        return None
    index = ir.IntegerAttr(loop.attributes[ASYNC_DOT]).value
    dots = dots_of(loop)
    terminator = list(loop.regions[0].blocks[0].operations)[-1]
    dot = terminator.operands[index].owner.operation
    if len(dots) > 1:
        return InFlight(dot, index, True, dots[0])
    return InFlight(dot, index, False, dot)


def _bindings(p: Plan, iv, ahead: list) -> dict:
    block = p.loop.regions[0].blocks[0]
    bindings = {block.arguments[0]: [iv]}
    bindings.update({block.arguments[i]: regs for i, regs in zip(p.args, ahead)})
    return bindings


def _guard(ctx: LoweringContext, p: Plan, iv, ub):
    """The loads among the address ops of iteration `iv` are made only if it runs."""
    return less_than(ctx, iv, ub) if any(op.name == "tt.load" for op in p.ops) else None


def tiles(ctx: LoweringContext, p: Plan, iv, ahead: list, ub) -> tuple[list, list]:
    """The pointers and masks (coordinates and None for a TMA tile) of every ring load of
    iteration `iv`, whose loop arguments the addresses read are `ahead`."""
    wanted = [v for load in p.loads for v in load_inputs(load)]
    got = iter(evaluate(ctx, p.ops, _bindings(p, iv, ahead), wanted, _guard(ctx, p, iv, ub)))
    ptrs, masks = [], []
    for load in p.loads:
        if load.name == "tt.descriptor_load":
            parts = next(got)
            coords = [next(got)[0] for _ in range(len(list(load.operands)) - 1)]
            if load in p.tma:
                ptrs.append(coords)
                masks.append(None)
                continue
            addresses, preds = descriptor_addresses(ctx, parts, coords, load.results[0].type)
            ptrs.append(addresses)
            masks.append(preds)
            continue
        if is_block_pointer(load.operands[0].type):
            addresses, preds = block_addresses(ctx, load, next(got), load.results[0].type)
            ptrs.append(addresses)
            masks.append(preds)
            continue
        ptrs.append(next(got))
        masks.append(next(got) if len(load_inputs(load)) > 1 else None)
    return ptrs, masks


def advanced(ctx: LoweringContext, p: Plan, iv, ahead: list, ub) -> list:
    """What iteration `iv` yields for the loop arguments the addresses read."""
    terminator = list(p.loop.regions[0].blocks[0].operations)[-1]
    return evaluate(ctx, p.ops, _bindings(p, iv, ahead),
                    [terminator.operands[i - 1] for i in p.args], _guard(ctx, p, iv, ub))


def lower_pipelined(ctx: LoweringContext, p: Plan, lower_body, consume=None) -> list:
    """The loop with its plan applied; `lower_body(new_loop, extra)` lowers the original
    body into the new loop, which carries `extra` more values (the ahead pointers).
    `consume(ctx, p, in_flight, lower_body)`, when given, lowers the loop instead, as
    the consumers of a warp-specialized kernel run it (warp_roles.py)."""
    loop = p.loop
    block = loop.regions[0].blocks[0]
    lb, ub, step = (ctx.get(v)[0] for v in list(loop.operands)[:3])
    inits = list(loop.operands)[3:]
    stages, ring = p.stages, p.ring
    in_flight = _in_flight(loop)
    carried = in_flight is not None and in_flight.carried
    issuer = None if in_flight is None else in_flight.issuer
    after_reads = ring == stages if in_flight is not None else ring < stages
    if in_flight is None and ring < stages:
        issuer = p.last_reader
    if in_flight is not None:
        (ctx.carried_dots if carried else ctx.async_dots).add(in_flight.dot.results[0])
    ring_bytes = p.stage_bytes * ring
    ctx.pipeline_bytes = max(ctx.pipeline_bytes, ring_bytes + (8 * ring if p.tma else 0))
    if p.tma:
        p.barriers = ctx.smem_address(ctx.i32(0), 1, ctx.binop(
            "arith.addi", ctx.pipeline_base, ctx.i32(ring_bytes)))
    arg_values = [block.arguments[i] for i in p.args]
    # an ahead pointer tensor that a pipelined load reads directly only needs the first
    # register of each vector the copy moves: carry those alone
    p.vecs = []
    for arg in arg_values:
        vec = 1
        for load in p.loads:
            if load.operands[0] == arg and not is_block_pointer(arg.type):
                vec = copy_width(ctx, load)
        p.vecs.append(vec)
    p.sizes = [ctx.num_registers(a.type) for a in arg_values]

    def tiles_for(iv, ahead):
        return tiles(ctx, p, iv, ahead, ub)

    def advance(iv, ahead):
        return advanced(ctx, p, iv, ahead, ub)

    def lower() -> list:
        # prologue: iterations 0 .. S-2, once every thread is done with what the ring
        # overlaps (the scratch area, the ring of an earlier loop), whose writes TMA's
        # (the async proxy's) then follow
        if p.tma:
            ctx.asm("fence.proxy.async.shared::cta;")
        ctx.barrier()
        if p.tma:
            tma.init_barriers(ctx, p.barriers, ring)
            ctx.barrier()
        ahead = [ctx.get(inits[i - 1]) for i in p.args]
        iv = lb
        for s in range(stages - 1):
            ptrs, masks = tiles_for(iv, ahead)
            issue_copies(ctx, p, ptrs, masks, ctx.i32(s), less_than(ctx, iv, ub))
            ahead = advance(iv, ahead)
            iv = ctx.binop("arith.addi", iv, step)
        flat_ahead = [r for regs, vec in zip(ahead, p.vecs) for r in regs[::vec]]
        ctx.pipelining += 1

        def top(new_iv, ahead_flat):
            if carried:  # the previous iteration's dot may still write the carried value
                ctx.in_flight.add(block.arguments[in_flight.index + 1])
                ctx.settle = lambda: wait_accumulators(ctx, [], 0)
            return _in_loop(ctx, p, (stages, ring, issuer, after_reads), new_iv, ahead_flat,
                            lb, ub, step, tiles_for, advance)

        results = lower_body(flat_ahead, top)
        ctx.in_flight.clear()
        ctx.pipelining -= 1
        if in_flight is not None:
            index = in_flight.index
            results[index] = wait_accumulators(ctx, list(results[index]), 0)
        if p.cp_async:
            ctx.asm("cp.async.wait_group 0;")
        ctx.barrier()  # the ring is free for whatever uses the memory next
        if p.tma:
            tma.invalidate_barriers(ctx, p.barriers, ring)
            ctx.barrier()
        return results

    run = lower if consume is None else (lambda: consume(ctx, p, in_flight, lower_body))
    if in_flight is None:
        return run()
    return _if_iterates(ctx, loop, run)


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


def map_operands(ctx: LoweringContext, p: Plan, buffer) -> None:
    """The ring loads of the iteration, and the dot operands read through them, take
    their tiles from ring buffer `buffer` (an i32)."""
    read_base = ctx.binop("arith.addi", ctx.pipeline_base,
                          ctx.binop("arith.muli", buffer, ctx.i32(p.stage_bytes)))
    for load, offset in zip(p.loads, p.offsets):
        at = ctx.binop("arith.addi", read_base, ctx.i32(offset))
        if load in p.read_back:  # its registers are read where it is loaded
            ctx.read_back[load.results[0]] = ReadBack(at, copy_width(ctx, load),
                                                      load in p.transposed, p.repeats[load])
            continue
        ctx.smem_operands[load.results[0]] = at
        if load in p.transposed:
            ctx.smem_k_major.add(load.results[0])
        for operand in p.trans[load]:  # a dot reads the stored tile transposed
            ctx.smem_operands[operand] = at
            if load not in p.transposed:
                ctx.smem_k_major.add(operand)


def _in_loop(ctx, p, depth, iv, ahead_flat, lb, ub, step, tiles_for, advance):
    """At the top of iteration `iv`: wait for its tiles, map the pipelined loads to their
    buffer and issue iteration iv+(S-1)*step: there, or, with a dot left in flight,
    right after the dot `issuer` is issued, so that the tensor cores start on it first,
    or once it and every thread are done reading (`after_reads`: the buffer to fill is
    the one it read). `depth`: (S, buffers in the ring, issuer or None, after_reads).
    Returns the next ahead values (filled in once issued)."""
    stages, ring, issuer, after_reads = depth

    def position() -> tuple:  # (the iteration's number k, the buffer it reads)
        k = ctx.binop("arith.divsi", ctx.binop("arith.subi", iv, lb), step)
        return k, ctx.binop("arith.remsi", k, ctx.i32(ring))

    if p.cp_async:
        ctx.asm(f"cp.async.wait_group {stages - 2};")
    if p.tma:  # use k // ring of buffer `read`: that phase of its mbarrier
        k, read = position()
        parity = ctx.binop("arith.andi", ctx.binop("arith.divsi", k, ctx.i32(ring)),
                           ctx.i32(1))
        tma.wait_phase(ctx, p.barrier(ctx, read), parity)
    if p.wgmma_loads and p.cp_async:  # cp.async's copies, to wgmma's (async proxy) reads
        ctx.asm("fence.proxy.async.shared::cta;")
    ctx.barrier()
    if not p.tma:
        k, read = position()
    map_operands(ctx, p, read)
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
        issue_copies(ctx, p, ptrs, masks, write, less_than(ctx, iv_ahead, ub))
        for regs, before, vec in zip(advance(iv_ahead, ahead), ahead, p.vecs):
            nxt.extend(r if r == was else _opaque(ctx, r)  # a base the loop keeps stays as is
                       for r, was in zip(regs[::vec], before[::vec]))

    if issuer is not None:
        # in flight, S+1 buffers: (i+S-1) % (S+1) was read by the dot of i-2, done by now;
        # S: once the dot of i-1, which read (i+S-1) % S, is done in every warpgroup;
        # S-1 (dots done in the iteration): once the last dot of i has read i % (S-1)
        ctx.after_dot = (issuer, after_barrier(ctx, issue) if after_reads else issue,
                         after_reads)
    else:
        issue()
    return nxt
