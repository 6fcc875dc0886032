"""TMA copies into a ring buffer and the mbarriers that say they landed (sm_90).

A ring load software-pipeline marked `ttg.tma` reads a host descriptor's CUtensorMap
(`runtime/tensormap.py`, whose box and swizzle are `descriptors.tma_box` of the block):
one thread copies its tile with `cp.async.bulk.tensor`, a box per 128-byte column block,
each landing where the ring's swizzled index puts it (`tile_index.swizzled_index`: TMA's
32-, 64- and 128-byte swizzles), and the buffer's mbarrier completes when all of the
stage's bytes have arrived:

    before the loop:  thread 0: mbarrier.init [bar_b], 1 for every buffer b
    issue stage s:    thread 0: mbarrier.arrive.expect_tx [bar_s], bytes of the stage's
                      TMA tiles; cp.async.bulk.tensor ... [bar_s] per box
    use of buffer b:  every thread waits for phase (use of b) & 1 of bar_b
    after the loop:   thread 0: mbarrier.inval every bar_b, so the memory may serve again

Elements outside the tensor arrive as zeros, counted in the bytes.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.runtime import descriptors


def leader(ctx: LoweringContext) -> ir.Value:
    """An i1 that holds in one thread: thread 0 of the block, or the first of the
    warps lowered now (`ctx.first_thread`, a warp-specialized kernel's producer)."""
    return ctx.value("arith.cmpi", [ctx.tid, ctx.i32(ctx.first_thread)],
                     ir.IntegerType.get_signless(1),
                     {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})


def init_barriers(ctx: LoweringContext, address, count: int) -> None:
    """Thread 0 makes the `count` mbarriers at shared `address` (8 bytes each), each
    completing on one arrival, and fences their initialization."""
    text = "".join(f"@$1 mbarrier.init.shared::cta.b64 [$0+{8 * b}], 1;\n" for b in range(count))
    ctx.asm(text + "@$1 fence.mbarrier_init.release.cluster;", [address, leader(ctx)], "r,b")


def invalidate_barriers(ctx: LoweringContext, address, count: int) -> None:
    """Thread 0 invalidates the `count` mbarriers at `address` (every thread is done
    waiting on them)."""
    text = "".join(f"@$1 mbarrier.inval.shared::cta.b64 [$0+{8 * b}];\n" for b in range(count))
    ctx.asm(text.rstrip("\n"), [address, leader(ctx)], "r,b")


def expect_bytes(ctx: LoweringContext, barrier, nbytes: int, pred) -> None:
    """Where `pred` holds, arrive on `barrier` expecting `nbytes` bytes of copies."""
    ctx.asm(f"@$1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], {nbytes};",
         [barrier, pred], "r,b")


def wait_phase(ctx: LoweringContext, barrier, parity) -> None:
    """Every thread waits until phase `parity` (an i32, 0 or 1) of `barrier` completes."""
    ctx.asm("{\n.reg .pred done;\nwait_tma_${:uid}:\n"
         "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
         "@!done bra.uni wait_tma_${:uid};\n}", [barrier, parity], "r,r")


def tensormap(ctx: LoweringContext, load) -> ir.Value:
    """The generic address (i64) of the CUtensorMap of `load`'s descriptor: the kernel
    argument its `tt.make_tensor_descriptor` names."""
    make = load.operands[0].owner
    index = ir.IntegerAttr(make.attributes[descriptors.TENSORMAP_ATTR]).value
    func = make.operation.parent
    while func.name != "func.func":
        func = func.parent
    pointer = ctx.get(func.regions[0].blocks[0].arguments[index])[0]
    generic = ctx.value("llvm.addrspacecast", [pointer], ir.Type.parse("!llvm.ptr"))
    return ctx.value("llvm.ptrtoint", [generic], ir.IntegerType.get_signless(64))


def copy_bytes(ctx: LoweringContext, load) -> int:
    """Bytes of `load`'s tile as TMA counts them."""
    rows, cols = ctx.shape(load.results[0].type)
    return rows * cols * element_bytes(ctx.scalar_type(load.results[0].type))


def copy_tile(ctx: LoweringContext, load, coords: list, dst, barrier, pred) -> None:
    """Where `pred` holds, copy `load`'s tile at `coords` (row, column: i32) into shared
    `dst`, one box per column block, completing bytes on `barrier`."""
    rows, cols = ctx.shape(load.results[0].type)
    elem = element_bytes(ctx.scalar_type(load.results[0].type))
    (inner, _), span = descriptors.tma_box(elem, [rows, cols])
    row, col = coords
    columns = [ctx.binop("arith.addi", col, ctx.i32(j * inner)) if j else col
               for j in range(cols // inner)]
    text = "\n".join(
        "@$3 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        f" [$0+{j * rows * span}], [$1, {{${5 + j}, $2}}], [$4];" for j in range(len(columns)))
    ctx.asm(text, [dst, tensormap(ctx, load), row, pred, barrier, *columns],
         "r,l,r,b,r" + ",r" * len(columns))
