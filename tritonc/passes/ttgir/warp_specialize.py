"""warp-specialize: a loop the kernel asks to warp-specialize (`tl.range(...,
warp_specialize=True)`) gets a producer warpgroup that copies its ring's tiles (sm_90).

The kernel then runs `num_warps` consumer warps and 4 more, the producer, which walk
the same loops: the producer computes only the scalars the TMA copies need (tile
coordinates, loop bounds), waits for a ring buffer to be free and copies the tiles of
the next iteration into it, running ahead of the consumers by up to the ring's depth,
across the iterations of the loops around the ring (a persistent kernel's tiles); the
consumers wait for each buffer's tiles, multiply, and give the buffer back once the
wgmma reading it is done (`passes/to_llvm/warp_roles.py`). Neither waits at a barrier
of the whole block inside the loops.

Taken on cuda:90 when the loop marked `tt.warp_specialize` holds (or is) the kernel's
one ring loop (software-pipeline's `ttg.ring_buffers`), every load of that ring is
copied by TMA (`ttg.tma`) for the one wgmma dot of the loop (which accumulates in
place: no fp8 chunks added in fp32), and everything the copies
need outside the ring loop's own address ops is a scalar made without reading memory,
in loops (`scf.for`) only: `producer_slice` finds it. Otherwise the loop runs as before,
as every such loop does with `TRITONC_WARP_SPECIALIZE=0`.

In: TTGIR after software-pipeline. Out: the same, with the decision as attributes:
`ttg.producer_warps = 4` on the kernel and `ttg.warp_specialized` on the ring loop. That
attribute keeps software-pipeline's plan for the loop, which the lowering returns to
when the specialized kernel's shared memory does not fit a block (`without_producer`).
The ring then has `ttg.pipeline_stages` buffers (no spare one: the producer fills a
buffer as soon as its wgmma is done; the ring sits apart from the scratch area, which a
spare buffer would push past the shared memory of a 128 x 256 tile). With two consumer
warpgroups or more (8 warps), the dot no longer stays in flight (`ttg.async_dot` is
dropped): each warpgroup waits for its wgmma within the iteration and gives the buffer
back at once, while the other warpgroup's wgmma keeps the tensor cores busy. One
warpgroup alone keeps its dot in flight, as without warp specialization.

Before (8 warps):
    scf.for %tile = %pid to %tiles step %sms {                  {tt.warp_specialize}
      scf.for %k = %c0 to %kt step %c1 iter_args(%acc = %zero) {
        %a = "tt.descriptor_load"(%da, %m, %k64) {ttg.pipelined, ttg.tma}
        ...
      } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 4 : i32}
After:
      scf.for %k = ... {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32,
                        ttg.warp_specialized = {ttg.async_dot = 0 : i32,
                                                ttg.ring_buffers = 4 : i32}}
    func.func public @k(...) attributes {ttg.producer_warps = 4 : i32, ...}
"""

from __future__ import annotations

from typing import NamedTuple

from tritonc.backends.cuda.options import tma_copies, warp_specialization
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.wgmma import imprecise_chunk, warpgroup_dot
from tritonc.passes.ttgir import ops_named
from tritonc.passes.ttgir.mma_layouts import WGMMA_ACCUMULATORS, wgmma_kinds
from tritonc.passes.ttgir.software_pipeline import (
    ASYNC_DOT,
    BUFFERS,
    PIPELINED,
    READ_BACK,
    STAGES,
    TMA,
    dots_of,
    load_inputs,
    loop_slice,
)

PRODUCER_WARPS = "ttg.producer_warps"
SPECIALIZED = "ttg.warp_specialized"
REQUESTED = "tt.warp_specialize"
_PLAN = (BUFFERS, ASYNC_DOT)  # what the producer changes in software-pipeline's plan
WARPGROUP = 4  # warps; the producer is one warpgroup
# ops the producer may evaluate: scalar arithmetic, the program's place in the grid and
# descriptors (whose maps the launch made)
_SCALAR_OPS = ("arith.", "tt.get_program_id", "tt.get_num_programs",
               "tt.make_tensor_descriptor")


class ProducerSlice(NamedTuple):
    """What the producer evaluates: `ring`, the ring loop; `ops`, the ops outside it (the
    loops around it among them) in the kernel; `carried`, for each loop around the ring,
    the numbers of the iteration arguments the producer carries (the induction variable
    left out)."""

    ring: object
    ops: set
    carried: dict


def warp_specialize(module) -> None:
    """Give a producer warpgroup to each kernel of `module` that qualifies (see above)."""
    from tritonc.passes.ttgir.convert_to_ttgir import module_options

    options = module_options(module)
    if options.arch != 90 or options.num_warps % WARPGROUP or not warp_specialization():
        return
    ctx = LoweringContext(options.num_warps, None, None)
    ctx.arch = options.arch
    with module.context:
        for func in ops_named(module, "func.func"):
            found = producer_slice(ctx, func)
            if found is None:
                continue
            ring = found.ring
            ring.attributes[SPECIALIZED] = ir.DictAttr.get(
                {name: ring.attributes[name] for name in _PLAN if name in ring.attributes})
            ring.attributes[BUFFERS] = ring.attributes[STAGES]
            if options.num_warps >= 2 * WARPGROUP and ASYNC_DOT in ring.attributes:
                del ring.attributes[ASYNC_DOT]
            func.attributes[PRODUCER_WARPS] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), WARPGROUP)


def consumer_warps(module, num_warps: int) -> int:
    """The warps that run the kernels of `module` (TTIR, cuda:90) besides a producer:
    twice `num_warps` when it is one warpgroup and a loop asking for warp specialization
    multiplies, in its one dot, tiles of 128 rows or more that tensor descriptors copy (the
    TMA ring a producer fills), so that each consumer warpgroup computes 64 of the rows
    (one wgmma per K step where one warpgroup would issue two, and half the epilogue), as
    Triton partitions such a tile on Hopper; else `num_warps`. A kernel whose loop then
    does not qualify for a producer (see above) runs on the doubled warps without one."""
    if num_warps != WARPGROUP or not (warp_specialization() and tma_copies()):
        return num_warps
    for loop in ops_named(module, "scf.for"):
        if REQUESTED not in loop.attributes:
            continue
        dots = ops_named(loop, "tt.dot")
        if len(dots) != 1 or wgmma_kinds(ir, dots[0]) is None:
            continue
        shape = ir.RankedTensorType(dots[0].results[0].type).shape
        if len(shape) != 2 or shape[0] % (2 * 64) or \
                shape[0] * shape[1] // (32 * 2 * num_warps) > WGMMA_ACCUMULATORS:
            continue
        if all(_descriptor_tile(v) for v in list(dots[0].operands)[:2]):
            return 2 * num_warps
    return num_warps


def _descriptor_tile(value) -> bool:
    """Whether `value` is a `tt.descriptor_load`, or one taken through `tt.trans`."""
    owner = value.owner
    if not isinstance(owner, ir.Block) and owner.name == "tt.trans":
        owner = owner.operands[0].owner
    return not isinstance(owner, ir.Block) and owner.name == "tt.descriptor_load"


def without_producer(func) -> None:
    """Return `func` to the plan software-pipeline gave it: its ring loop's own buffers and
    dot in flight (kept in `ttg.warp_specialized`), no producer warpgroup. The lowering
    does so when the specialized kernel's ring, apart from its scratch area, takes more
    shared memory than a block may have."""
    for ring in ops_named(func, "scf.for"):
        if SPECIALIZED not in ring.attributes:
            continue
        plan = ir.DictAttr(ring.attributes[SPECIALIZED])
        for name in _PLAN:
            if name in ring.attributes:
                del ring.attributes[name]
            if name in plan:
                ring.attributes[name] = plan[name]
        del ring.attributes[SPECIALIZED]
    del func.attributes[PRODUCER_WARPS]


def producer_slice(ctx: LoweringContext, func) -> ProducerSlice | None:
    """The producer's share of `func` when a loop of it asks for warp specialization and
    qualifies (see above), else None."""
    rings = [op for op in ops_named(func, "scf.for") if BUFFERS in op.attributes]
    requested = [op for op in ops_named(func, "scf.for") if REQUESTED in op.attributes]
    if len(rings) != 1 or not requested:
        return None
    ring = rings[0]
    around = _loops_around(ring)
    if around is None or not any(loop in requested for loop in [*around, ring]):
        return None
    block = ring.regions[0].blocks[0]
    loads = [op.operation for op in block.operations if PIPELINED in op.attributes]
    dots = dots_of(ring)
    if len(dots) != 1 or not warpgroup_dot(ctx, dots[0]) or \
            imprecise_chunk(ctx, dots[0]) is not None or any(
            TMA not in load.attributes or READ_BACK in load.attributes for load in loads):
        return None
    found = loop_slice(ring, [v for load in loads for v in load_inputs(load)], False)
    if found is None or any(op.name == "tt.load" for op in found.ops):
        return None
    roots = [v for loop in [*around, ring] for v in list(loop.operands)[:3]]
    roots += [ring.operands[2 + i] for i in found.args]
    roots += [v for op in found.ops for v in op.operands if not _inside(v, ring)]
    roots += [v for load in loads for v in load_inputs(load) if not _inside(v, ring)]
    ops: set = set()
    carried: dict = {loop: set() for loop in around}
    if not all(_needs(v, ops, carried) for v in roots):
        return None
    ops.update(around)
    return ProducerSlice(ring, ops, {loop: sorted(args) for loop, args in carried.items()})


def _loops_around(op) -> list | None:
    """The `scf.for` loops `op` is nested in, outermost first; None when another kind of
    region holds it."""
    loops = []
    parent = op.parent
    while parent.name != "func.func":
        if parent.name != "scf.for":
            return None
        loops.insert(0, parent)
        parent = parent.parent
    return loops


def _inside(value, loop) -> bool:
    """Whether `value` is defined in `loop`'s body (or a region within it)."""
    owner = value.owner
    op = owner.owner.operation if isinstance(owner, ir.Block) else owner.operation
    while op is not None:
        if op == loop:
            return True
        op = op.parent
    return False


def _scalar(value) -> bool:
    text = str(value.type)
    return not text.startswith(("tensor<", "!tt.ptr<tensor"))


def _needs(value, ops: set, carried: dict) -> bool:
    """Add to `ops` the ops outside the ring that `value` depends on, and to `carried`
    the iteration arguments of the loops around it; False when one is not a scalar
    made without reading memory."""
    if not _scalar(value):
        return False
    owner = value.owner
    if isinstance(owner, ir.Block):
        loop = owner.owner.operation
        if loop.name == "func.func" or value.arg_number == 0:
            return True
        if loop not in carried:
            return False
        index = value.arg_number - 1
        if index in carried[loop]:
            return True
        carried[loop].add(index)
        yielded = list(owner.operations)[-1].operands[index]
        return _needs(loop.operands[3 + index], ops, carried) and \
            _needs(yielded, ops, carried)
    op = owner.operation
    if op in ops:
        return True
    if op.regions or not op.name.startswith(_SCALAR_OPS):
        return False
    ops.add(op)
    return all(_needs(v, ops, carried) for v in op.operands)
