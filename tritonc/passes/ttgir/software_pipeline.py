"""software-pipeline: which loops stream their dot tiles through shared memory, how deep,
and which dot stays in flight across iterations.

In: TTGIR after the layout passes. Out: the same IR with the decisions as attributes,
which the lowering realises (`passes/to_llvm/pipeline.py`, `prefetch.py`):

- on an `scf.for` with `num_stages` S > 1 (its `tt.num_stages`, from
  `tl.range(num_stages=)`, else the module's `ttg.num-stages`) whose loads feed
  tensor-core dots: `ttg.pipeline_stages = S` and `ttg.ring_buffers`: S, or S + 1 when the
  loop's dot stays in flight and one more buffer costs no block per SM, or S - 1 when its
  dots finish within the iteration and one buffer less brings a block more; with a wgmma
  dot left in flight, `ttg.async_dot` = the index of the loop result it yields;
- on each load whose tile is copied into that ring: `ttg.pipelined` (and `ttg.read_back`
  on those read back into registers, below); on a wgmma dot whose wait a later dot's
  covers, `ttg.wait_later` (`_waits_later`); on sm_90 a load
  for a wgmma dot through an aligned host descriptor (its `tt.make_tensor_descriptor`
  names the kernel argument of its CUtensorMap, `tt.tensormap`) whose block TMA copies
  as the ring stores it (`descriptors.tma_box`), also `ttg.tma`: one thread copies it
  with `cp.async.bulk.tensor`, completing an mbarrier per buffer; every other ring load
  is copied by cp.async;
- in a loop with S > 1 that takes no ring: on each tile load only dots read,
  `ttg.prefetch` (issued one iteration early into registers the loop carries).

A load joins the ring (or is prefetched) only when no store of the loop may write what
it reads (`pointer_bases`: they are computed from different kernel arguments). A load
joins the ring when only mma dots read it (directly or through `tt.trans`, one way
or both),
its tile is 2-D, 16-bit (8- and 32-bit tiles only lying along K for wgmma), filled with
zeros where masked, and copied by TMA or at least 4 bytes at a time. A tile of pointers
whose value reaches one mma dot through elementwise ops alone (int8 weights converted and
scaled) joins it too, marked `ttg.read_back`: its registers are read back from the buffer
where it is loaded, and the conversions run on them as before; when its rows repeat in
runs (packed 4-bit weights, `offs_k // 8`), `ttg.repeated_rows` = the run's length: its
buffer holds each distinct row once (`repeated_rows`). The ops computing its
addresses (and what the loop yields for the arguments they read) must be evaluable for a
later iteration: no nested region, no load unless the loop writes no memory. A loop
holding a loop with a ring takes none itself (both rings would use the same shared
memory); its dot tiles may be prefetched.

The dot left in flight (`wgmma.wait_group 1`): the loop's one wgmma dot accumulating into
a loop-carried value nothing else reads, or the last of several wgmma dots that is only
yielded (attention's P @ V), when every dot reads operands no iteration stores again and
the accumulators fit the registers one wgmma may take.

Before (fp16 matmul, 128 x 128 x 64 tiles, 4 warps, num_stages 3, sm_90):
    %r:3 = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero, %pa = %a0, %pb = %b0) {
      %a = "tt.load"(%pa) : (...) -> tensor<128x64xf16, #blocked>
      %b = "tt.load"(%pb) : (...) -> tensor<64x128xf16, #blocked1>
      %d = "tt.dot"(%a, %b, %acc) : (...) -> tensor<128x128xf32, #mma>
      ...
      scf.yield %d, %pa2, %pb2
    }
After:
    %r:3 = scf.for ... {
      %a = "tt.load"(%pa) {ttg.pipelined} : ...
      %b = "tt.load"(%pb) {ttg.pipelined} : ...
      ...
    } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}
"""

from __future__ import annotations

import math
from typing import NamedTuple

from tritonc.aot.occupancy import RESERVED_SMEM_PER_BLOCK, sm_limits
from tritonc.backends.cuda.options import async_wgmma, tma_copies
from tritonc.passes.to_llvm.axis_along import analysis_along, prefix_along
from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.blocks import (
    block_vector_width,
    descriptor_padding,
    descriptor_vector_width,
    is_block_pointer,
)
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.memory import vector_width
from tritonc.passes.to_llvm.wgmma import WAIT_LATER, imprecise_chunk, warpgroup_dot
from tritonc.passes.ttgir import defining_block, ops_named
from tritonc.passes.ttgir.layouts import BlockedLayout, DotOperandLayout, MmaLayout
from tritonc.passes.ttgir.mma_layouts import WGMMA_ACCUMULATORS
from tritonc.passes.ttgir.pointer_bases import may_overlap, pointer_bases, stored_bases
from tritonc.passes.ttir.combine import is_zero_splat
from tritonc.runtime import descriptors

STAGES, BUFFERS, ASYNC_DOT = "ttg.pipeline_stages", "ttg.ring_buffers", "ttg.async_dot"
PIPELINED, TMA, PREFETCH = "ttg.pipelined", "ttg.tma", "ttg.prefetch"
READ_BACK, REPEATED_ROWS = "ttg.read_back", "ttg.repeated_rows"

_RING_BUDGET = 200 * 1024  # bytes of ring buffers an extra buffer may bring the loop to
# 32-bit registers per thread the prefetched tiles and their dots' accumulators may hold
# together; past it the loop loads in place (prefetching would spill: fp32 tiles of a
# 128 x 128 tf32 dot with 4 warps hold 64 registers beside 128 of accumulator)
REGISTER_BUDGET = 160
_PURE = ("arith.", "math.", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.addptr",
         "tt.make_range", "tt.advance")
_CONVERSIONS = ("arith.", "math.", "tt.fp_to_fp", "tt.bitcast", "ttg.convert_layout")
_CHAIN = 8  # elementwise ops a read-back tile may pass through on its way to a dot
_WRITES = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_store",
           "tt.descriptor_reduce", "tt.call", "tt.extern_elementwise", "tt.elementwise_inline_asm")


def software_pipeline(module) -> None:
    """Annotate every loop of `module` with its pipelining plan (see above)."""
    from tritonc.passes.ttgir.convert_to_ttgir import module_options

    options = module_options(module)
    ctx = LoweringContext(options.num_warps, None, None)
    ctx.arch, ctx.num_stages = options.arch, options.num_stages
    with module.context:
        for loop in sorted(ops_named(module, "scf.for"), key=_depth, reverse=True):
            _annotate(ctx, loop)


def _depth(op) -> int:
    depth = 0
    while op.parent is not None and op.parent.name != "func.func":
        op, depth = op.parent, depth + 1
    return depth


def _holds_ring(block) -> bool:
    """Whether a loop nested in `block` has a ring (annotated first: deepest loops go
    first); the rings of nested loops would share shared memory."""
    for op in block.operations:
        op = op.operation
        if BUFFERS in op.attributes:
            return True
        if any(_holds_ring(b) for region in op.regions for b in region.blocks):
            return True
    return False


def _loop_stages(loop, default: int) -> int:
    """The pipelining depth of `loop`: its `tt.num_stages`, else `default`."""
    attrs = loop.attributes
    return ir.IntegerAttr(attrs["tt.num_stages"]).value if "tt.num_stages" in attrs \
        else default


def _annotate(ctx: LoweringContext, loop) -> None:
    stages = _loop_stages(loop, ctx.num_stages)
    if stages < 2:
        return
    i32 = ir.IntegerType.get_signless(32)
    loads = [] if _holds_ring(loop.regions[0].blocks[0]) else _ring_loads(ctx, loop)
    if loads:
        for load in loads:
            repeat = repeated_rows(ctx, load)
            if repeat > 1:
                load.attributes[REPEATED_ROWS] = ir.IntegerAttr.get(i32, repeat)
        index = _async_dot(ctx, loop, loads)
        stage_bytes = sum(tile_bytes(ctx, load) for load in loads)
        if index is not None:
            buffers = stages + 1 if _spare_buffer(ctx, loop, stage_bytes, stages) \
                else stages
        else:
            buffers = stages - 1 if _short_ring(ctx, loop, loads, stage_bytes, stages) \
                else stages
        loop.attributes[STAGES] = ir.IntegerAttr.get(i32, stages)
        loop.attributes[BUFFERS] = ir.IntegerAttr.get(i32, buffers)
        if index is not None:
            loop.attributes[ASYNC_DOT] = ir.IntegerAttr.get(i32, index)
        for dot in _waits_later(ctx, loop, loads, index, buffers < stages):
            dot.attributes[WAIT_LATER] = ir.UnitAttr.get()
        for load in loads:
            load.attributes[PIPELINED] = ir.UnitAttr.get()
            if dot_uses(load) is None:
                load.attributes[READ_BACK] = ir.UnitAttr.get()
            if _by_tma(ctx, load):
                load.attributes[TMA] = ir.UnitAttr.get()
        return
    for load in _prefetch_loads(ctx, loop):
        load.attributes[PREFETCH] = ir.UnitAttr.get()


class Slice(NamedTuple):
    """The body ops the loads of a loop need again for a later iteration, in body order,
    and the iteration arguments (body argument numbers, the induction variable left out)
    those ops read."""

    ops: list
    args: list


def loop_slice(loop, roots: list, with_loads: bool) -> Slice | None:
    """The body ops the values `roots` depend on, closed over what the loop yields for
    the arguments they read; None when one cannot be evaluated for another iteration
    (loads among them only with `with_loads`)."""
    block = loop.regions[0].blocks[0]
    ops: list = []
    args: set = set()
    if not _backward_slice(block, roots, ops, args, with_loads):
        return None
    terminator = list(block.operations)[-1]
    done: set = set()
    while args - done:  # the next iteration's arguments need the values yielded for them
        index = min(args - done)
        done.add(index)
        if index and not _backward_slice(block, [terminator.operands[index - 1]], ops, args,
                                        with_loads):
            return None
    order = {op: i for i, op in enumerate(block.operations)}
    ops.sort(key=lambda o: order[o])
    return Slice(ops, sorted(args - {0}))


def _backward_slice(block, roots, ops: list, args: set, loads: bool = False) -> bool:
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
        if not _backward_slice(block, list(op.operands), ops, args, loads):
            return False
        ops.append(op)
    return True


def writes_memory(block) -> bool:
    """Whether an op of `block` (or of a region inside it) may write memory."""
    for op in block.operations:
        op = op.operation
        if op.name in _WRITES:
            return True
        if any(writes_memory(b) for region in op.regions for b in region.blocks):
            return True
    return False


def _plain_load(op) -> bool:
    """A `tt.load` through a tensor or scalar of pointers that is not volatile: in a loop
    that writes no memory, evaluating it for a later iteration reads what that iteration
    will read (the lowering makes it only when that iteration runs)."""
    return (op.name == "tt.load" and not is_block_pointer(op.operands[0].type)
            and not ("is_volatile" in op.attributes
                     and ir.BoolAttr(op.attributes["is_volatile"]).value))


def load_inputs(load) -> list:
    """The operands of `load` its copies need: pointers and mask, or descriptor and
    coordinates."""
    if load.name == "tt.descriptor_load":
        return list(load.operands)
    segs = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    return [load.operands[0]] + ([load.operands[1]] if segs[1] else [])


def is_transposed(ctx: LoweringContext, load) -> bool:
    """Whether `load`'s tile runs along its first dimension (layout order (0, 1))."""
    layout = ctx.layout(load.results[0].type)
    return isinstance(layout, BlockedLayout) and layout.order[0] == 0


def _elem_bytes(ctx: LoweringContext, load) -> int:
    return element_bytes(ctx.scalar_type(load.results[0].type))


def copy_width(ctx: LoweringContext, load) -> int:
    """Registers of `load`'s tile one cp.async moves."""
    return copies(ctx, load)[0]


def copies(ctx: LoweringContext, load) -> tuple[int, bool]:
    """(registers of `load`'s tile one cp.async moves, whether a copy may be partly
    masked: its mask holds for a prefix of each copy's elements, `offs_k < K - k` with K
    not a multiple of the copy, which cp.async reads (src-size) and zero-fills beyond)."""
    if load.name == "tt.descriptor_load":
        return descriptor_vector_width(ctx, load, load.results[0].type), False
    if is_block_pointer(load.operands[0].type):
        return block_vector_width(ctx, load, load.results[0].type), False
    segs = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    ptr, mask = load.operands[0], load.operands[1] if segs[1] else None
    nbytes = _elem_bytes(ctx, load)
    layout = ctx.layout(load.results[0].type)
    along = analysis_along(ctx)
    if is_transposed(ctx, load):  # registers run along the first dimension
        dim = 0

        def width(m):
            return along.vector_width(ptr, m, 0, nbytes, layout.size_per_thread[0])
    else:
        dim = getattr(layout, "order", (len(ctx.shape(ptr.type)) - 1,))[0]

        def width(m):
            return vector_width(ctx, ptr, m, nbytes)
    uniform = width(mask)
    if mask is None:
        return uniform, False
    whole = width(None)
    if whole > uniform and prefix_along(along, mask, dim, whole):
        return whole, True
    return uniform, False


def tile_bytes(ctx: LoweringContext, load) -> int:
    """Bytes of `load`'s tile in one ring buffer (each distinct row once, see
    `repeated_rows`)."""
    n = _elem_bytes(ctx, load)
    for s in ctx.shape(load.results[0].type):
        n *= s
    n //= rows_repeat(load)
    return (n + 1023) // 1024 * 1024  # the 128-byte swizzle repeats every 1024 bytes


def rows_repeat(load) -> int:
    """The `ttg.repeated_rows` of a ring load: its buffer holds row r at r // that."""
    attrs = load.attributes
    return ir.IntegerAttr(attrs[REPEATED_ROWS]).value if REPEATED_ROWS in attrs else 1


def repeated_rows(ctx: LoweringContext, load) -> int:
    """How many consecutive rows of `load`'s tile repeat one row, when it is read back
    into registers (not read by a dot directly) through a tensor of pointers that, with
    its mask, the axis analysis finds constant along the rows in runs of that many: 4-bit
    weights packed eight to an int32 along K (`b_ptr + (offs_k[:, None] // 8) * ...`).
    Its ring buffer holds each distinct row once (the copies of the other rows are not
    made, and the reads of row r read row r // repeat). 1 for any other tile."""
    if load.name != "tt.load" or is_block_pointer(load.operands[0].type) or \
            dot_uses(load) is not None or is_transposed(ctx, load):
        return 1
    along = analysis_along(ctx)
    inputs = load_inputs(load)
    run = min(along.get(v, 0).constancy for v in inputs)
    rows = ctx.shape(load.results[0].type)[0]
    repeat = 1
    while run % (repeat * 2) == 0 and rows % (repeat * 2) == 0:
        repeat *= 2
    return repeat


def dot_uses(load) -> list | None:
    """[(dot, the `tt.trans` between them or None, the dot's operand number: 0 for A, 1 for
    B)] for every dot reading `load`'s tile, directly or through a `tt.trans` only dots
    read (attention's backward reads one tile both ways); None when anything else reads
    it."""
    found = []
    for use in load.results[0].uses:
        owner = use.owner
        if owner.name == "tt.trans":
            readers = list(owner.results[0].uses)
            if not readers or any(u.owner.name != "tt.dot" or u.operand_number > 1
                                  for u in readers):
                return None
            found += [(u.owner, owner, u.operand_number) for u in readers]
        elif owner.name == "tt.dot" and use.operand_number <= 1:
            found.append((owner, None, use.operand_number))
        else:
            return None
    return found or None


def converted_chain(load) -> tuple | None:
    """(dot, operand number: 0 for A, 1 for B, the values from the first conversion to the
    operand) when `load`'s tile reaches an operand of a dot only through elementwise ops
    and layout conversions of its shape, each the one user of the one before (a weight
    dequantized: `tl.dot(a, w.to(tl.float16) * scale)`); else None."""
    value = load.results[0]
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    shape = ir.RankedTensorType(value.type).shape
    chain = []
    for _ in range(_CHAIN):
        uses = list(value.uses)
        if len(uses) != 1:
            return None
        user, number = uses[0].owner, uses[0].operand_number
        if user.name == "tt.dot":
            return (user, number, chain) if number <= 1 and chain else None
        if len(user.results) != 1 or not user.name.startswith(_CONVERSIONS) or \
                not isinstance(user.results[0].type, ir.RankedTensorType) or \
                ir.RankedTensorType(user.results[0].type).shape != shape:
            return None
        value = user.results[0]
        chain.append(value)
    return None


def converted_dot(load) -> tuple | None:
    """(dot, operand number) of `converted_chain`."""
    found = converted_chain(load)
    return found[:2] if found is not None else None


def ring_readers(load) -> list:
    """The dots that read `load`'s ring buffer: those `dot_uses` finds, else the dot its
    tile reaches read back into registers (`converted_dot`)."""
    uses = dot_uses(load)
    if uses is not None:
        return [dot for dot, _, _ in uses]
    found = converted_dot(load)
    return [found[0]] if found is not None else []


def _along_k(ctx: LoweringContext, load, trans, operand: int) -> bool:
    """Whether `load`'s tile, as it is copied, lies K-major for the dot operand it is
    (`operand` 0: A, 1: B): A along its rows (or along its columns, read transposed), B
    along its columns (or along its rows, read transposed)."""
    flipped = is_transposed(ctx, load) != (trans is not None)
    return flipped == (operand == 1)


def _zero_other(op) -> bool:
    """Whether a pointer `tt.load` fills masked elements with zeros (or has no mask): its
    `other` a zero splat, or a layout conversion of one."""
    segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    if not segs[2]:
        return True
    other = op.operands[1 + segs[1]]
    while not isinstance(other.owner, ir.Block) and other.owner.name == "ttg.convert_layout":
        other = other.owner.operands[0]
    return is_zero_splat(other)


def _read_back_candidate(ctx: LoweringContext, op) -> bool:
    """A tile of pointers that reaches an mma dot through conversions: copied into the
    ring like the others, read back into its registers where it is loaded."""
    found = converted_dot(op) if op.name == "tt.load" else None
    if found is None or is_block_pointer(op.operands[0].type):
        return False
    return (isinstance(ctx.layout(found[0].results[0].type), MmaLayout)
            and len(ctx.shape(op.results[0].type)) == 2
            and isinstance(ctx.layout(op.results[0].type), BlockedLayout)
            and _zero_other(op) and copy_width(ctx, op) * _elem_bytes(ctx, op) >= 4)


def _ring_candidate(ctx: LoweringContext, op) -> bool:
    uses = dot_uses(op) if op.name in ("tt.load", "tt.descriptor_load") else None
    if uses is None:
        return _read_back_candidate(ctx, op)
    if any(trans is not None for _, trans, _ in uses) and \
            is_block_pointer(op.operands[0].type):
        return False
    if not all(isinstance(ctx.layout(dot.results[0].type), MmaLayout) for dot, _, _ in uses):
        return False
    if len({warpgroup_dot(ctx, dot) for dot, _, _ in uses}) != 1:
        return False  # wgmma and mma.sync lay their buffers out differently
    if _elem_bytes(ctx, op) != 2 and not all(warpgroup_dot(ctx, dot) and
                                             _along_k(ctx, op, trans, operand)
                                             for dot, trans, operand in uses):
        return False  # tf32 and fp8 tiles: wgmma reads them K-major, else they are staged
    if len(ctx.shape(op.results[0].type)) != 2:
        return False
    if op.name == "tt.descriptor_load":
        if is_transposed(ctx, op) or descriptor_padding(op.operands[0]) != "zero":
            return False  # cp.async fills with zeros
    elif is_block_pointer(op.operands[0].type):
        if ir.StringAttr(op.attributes["padding"]).value not in ("", "zero") or \
                not isinstance(ctx.layout(op.results[0].type), BlockedLayout):
            return False
    elif not _zero_other(op):
        return False
    # cp.async moves 4 bytes or more; TMA copies whole boxes, bounds checked
    return _by_tma(ctx, op) or copy_width(ctx, op) * _elem_bytes(ctx, op) >= 4


def _ring_loads(ctx: LoweringContext, loop) -> list:
    """The loads of `loop` its ring takes, or [] when their addresses cannot be made for
    a later iteration."""
    block = loop.regions[0].blocks[0]
    loads = _unwritten(loop, [op.operation for op in block.operations
                              if _ring_candidate(ctx, op.operation)])
    if not loads:
        return []
    roots = [v for load in loads for v in load_inputs(load)]
    found = loop_slice(loop, roots, not writes_memory(block))
    if found is None or any(op in loads for op in found.ops):
        return []  # a pipelined tile would feed its own address
    return loads


def _unwritten(loop, loads: list) -> list:
    """The `loads` of `loop` no store of the loop may write, which a later iteration can
    make early: a loop that stores the tile its next iteration loads (a running product,
    `x[i + 1] = x[i] @ w`) loads that tile where it stands."""
    stored = stored_bases(loop.regions[0].blocks[0])
    return [load for load in loads
            if not may_overlap(pointer_bases(load.operands[0]), stored)]


def _by_tma(ctx: LoweringContext, load) -> bool:
    """Whether the ring load `load` is copied by TMA (see above)."""
    if not tma_copies() or ctx.arch != 90 or load.name != "tt.descriptor_load" or \
            not all(warpgroup_dot(ctx, dot) for dot, _, _ in dot_uses(load)):
        return False
    owner = load.operands[0].owner
    if isinstance(owner, ir.Block) or owner.name != "tt.make_tensor_descriptor" or \
            descriptors.TENSORMAP_ATTR not in owner.attributes:
        return False
    shape = list(ctx.shape(load.results[0].type))
    return shape[0] % 8 == 0 and descriptors.tma_box(_elem_bytes(ctx, load), shape) is not None


def dots_of(loop) -> list:
    """The `tt.dot` ops of `loop`'s body, in order."""
    block = loop.regions[0].blocks[0]
    return [op.operation for op in block.operations if op.operation.name == "tt.dot"]


def _async_dot(ctx: LoweringContext, loop, loads: list) -> int | None:
    """The index of the loop result yielded by the wgmma dot that may stay in flight:
    - the one dot of the loop, accumulating into a loop-carried value that nothing else
      reads (it waits for the previous iteration's with `wait_group 1`);
    - the last of several wgmma dots (attention's P @ V): it does not wait; the next
      iteration's first `wait_group 0` (of Q @ K^T), or else its first read of the
      carried value, settles it. So no op in a nested region may read that value (a wait
      there would not cover what follows), and its accumulator and that first dot's, in
      flight together, must fit the registers wgmma may take (`_overlap_fits`).
    None when a dot adds fp8 partial sums in fp32 (`wgmma.imprecise_chunk`): it waits for
    them within the iteration."""
    if not async_wgmma():
        return None
    dots = dots_of(loop)
    if not dots or not all(warpgroup_dot(ctx, d) and _unstaged(ctx, loop, loads, d)
                           and imprecise_chunk(ctx, d) is None for d in dots):
        return None
    block = loop.regions[0].blocks[0]
    dot = dots[-1]
    acc, uses = dot.operands[2], list(dot.results[0].uses)
    if len(uses) != 1 or uses[0].owner != list(block.operations)[-1]:
        return None
    index = uses[0].operand_number
    if len(dots) > 1:  # while it runs, the next iteration's first dot is issued
        carried = block.arguments[index + 1]
        top_level = all(use.owner.operation.block == block for use in carried.uses)
        return index if _overlap_fits(ctx, [dot, dots[0]]) and top_level else None
    single = len(list(acc.uses)) == 1 and block.arguments[index + 1] == acc
    return index if single else None


def _overlap_fits(ctx: LoweringContext, dots: list) -> bool:
    """Whether wgmma `dots` may be in flight together: their accumulators fit the
    registers wgmma may take (WGMMA_ACCUMULATORS), else ptxas serializes every wgmma of
    the kernel (flex attention's 128 x 128 scores on 4 warps issued while P @ V, 128 x 64,
    runs)."""
    return sum(ctx.num_registers(d.results[0].type) for d in dots) <= WGMMA_ACCUMULATORS


def _waits_later(ctx: LoweringContext, loop, loads: list, async_index: int | None,
                 short_ring: bool) -> list:
    """The wgmma dots of `loop` whose wait a later dot's covers: a later wgmma dot that
    waits (`wait_group 0`) comes before anything reads the accumulator, every reader is
    an op of the body itself (not of a nested region), the operands are ones no
    iteration stores again (`_unstaged`), and the accumulators of the dots from it to that
    one fit together (`_overlap_fits`). Attention's backward issues dV += P^T dO and
    then dP^T = V dO^T: both are waited for once, before dP^T is read. The last dot
    reading a short ring waits itself (the next copies go into its buffer after it)."""
    if not async_wgmma():
        return []
    block = loop.regions[0].blocks[0]
    order = {op.operation: i for i, op in enumerate(block.operations)}
    terminator = list(block.operations)[-1]
    # the dot left in flight neither waits nor is covered; the short ring's last reader waits
    in_flight = None if async_index is None else \
        terminator.operands[async_index].owner.operation
    readers = [dot.operation for load in loads for dot in ring_readers(load)]
    last_reader = max(readers, key=order.get) if short_ring and readers else None
    dots = dots_of(loop)
    waiting, later = [], []
    for dot in reversed(dots):
        if not warpgroup_dot(ctx, dot) or imprecise_chunk(ctx, dot) is not None or \
                in_flight is not None and dot == in_flight:
            continue
        users = [use.owner.operation for use in dot.results[0].uses]
        first_read = min((order.get(u, -1) for u in users), default=len(order))
        cover = next((d for d in reversed(waiting) if order[dot] < order[d] < first_read),
                     None)
        covered = (cover is not None and not (last_reader is not None and dot == last_reader)
                   and _unstaged(ctx, loop, loads, dot)
                   and _overlap_fits(ctx, [d for d in dots
                                           if order[dot] <= order[d] <= order[cover]]))
        (later if covered else waiting).append(dot)
    return later


def _unstaged(ctx: LoweringContext, loop, loads: list, dot) -> bool:
    """Whether `dot`'s wgmma reads operands no iteration stores again: tiles of the ring,
    A in registers, or an A the loop does not compute (stored once before it). An operand
    staged in the scratch area by every iteration would be overwritten while the dot
    left in flight still reads it."""
    block = loop.regions[0].blocks[0]
    tiles = {load.results[0] for load in loads}
    tiles |= {trans.results[0] for load in loads for _, trans, _ in dot_uses(load) or []
              if trans is not None}
    a, b = dot.operands[0], dot.operands[1]
    outside = defining_block(a) != block
    return b in tiles and (a in tiles or isinstance(ctx.layout(a.type), DotOperandLayout)
                           or outside and isinstance(ctx.layout(a.type), BlockedLayout))


def _blocks_per_sm(ctx: LoweringContext, smem: int) -> int:
    limits = sm_limits(ctx.arch)
    return min(limits.smem // (smem + RESERVED_SMEM_PER_BLOCK),
               limits.threads // (32 * ctx.num_warps))


def _blocks_by_registers(ctx: LoweringContext, loop) -> int:
    """The blocks per SM the registers of `loop`'s dots allow: their accumulators and a
    few dozen registers for addresses, per thread (an estimate; ptxas allocates later)."""
    threads = 32 * ctx.num_warps
    registers = 40 + sum(math.prod(ir.RankedTensorType(dot.results[0].type).shape)
                         for dot in dots_of(loop)) // threads
    return sm_limits(ctx.arch).regs // (threads * registers)


def _spare_buffer(ctx: LoweringContext, loop, stage_bytes: int, stages: int) -> bool:
    """Whether the ring of a loop with its dot in flight takes an S+1-th buffer: when it
    stays within `_RING_BUDGET` and as many blocks fit on an SM with it as without,
    counting the blocks the registers allow too (a 128 x 128 x 64 fp16 tile in 3 stages
    is 96 KB, two blocks on an H100's 228 KB, and 128 KB with the spare, one; attention's
    128 x 128 accumulator beside 128 x 64 scores on 8 warps allows one block whatever the
    ring)."""
    more, fewer = stage_bytes * (stages + 1), stage_bytes * stages
    by_registers = _blocks_by_registers(ctx, loop)
    return more <= _RING_BUDGET and (min(by_registers, _blocks_per_sm(ctx, more))
                                     >= min(by_registers, _blocks_per_sm(ctx, fewer)))


def _short_ring(ctx: LoweringContext, loop, loads: list, stage_bytes: int,
                stages: int) -> bool:
    """Whether the ring of a loop whose dots finish within the iteration takes S-1
    buffers: the copies of iteration i+S-1 then go, after the last dot reading the ring
    and a barrier, into the buffer iteration i read. One barrier more per iteration, one
    buffer less, taken when that fits another block on an SM (a decode matmul's 16 x 128
    and 128 x 64 fp16 tiles in 4 stages: 80 KB, two blocks on an H100; 60 KB, three)."""
    body = loop.regions[0].blocks[0]
    readers = [dot for load in loads for dot in ring_readers(load)]
    if stages < 3 or any(dot.parent != body.owner for dot in readers):
        return False
    by_registers = _blocks_by_registers(ctx, loop)
    fewer, more = (min(by_registers, _blocks_per_sm(ctx, stage_bytes * n))
                   for n in (stages - 1, stages))
    return fewer > more


def _prefetch_loads(ctx: LoweringContext, loop) -> list:
    """The tile loads of `loop` whose only users are `tt.dot` operands, if they and their
    dots' accumulators fit `REGISTER_BUDGET` and their operands can be evaluated early."""
    block = loop.regions[0].blocks[0]
    loads = []
    for op in block.operations:
        op = op.operation
        if op.name != "tt.load" or not ctx.is_tensor(op.results[0].type):
            continue
        uses = list(op.results[0].uses)
        if uses and all(u.owner.name == "tt.dot" and u.operand_number < 2 for u in uses):
            loads.append(op)
    loads = _unwritten(loop, loads)
    if not loads or _registers(ctx, loads) > REGISTER_BUDGET:
        return []
    roots = [v for load in loads for v in load.operands]
    return loads if loop_slice(loop, roots, False) is not None else []


def _registers(ctx: LoweringContext, loads: list) -> int:
    tiles = sum(-(-ctx.num_registers(op.results[0].type)
                  * element_bytes(ctx.scalar_type(op.results[0].type)) // 4) for op in loads)
    dots = {u.owner for op in loads for u in op.results[0].uses}
    return tiles + max(ctx.num_registers(d.results[0].type) for d in dots)
