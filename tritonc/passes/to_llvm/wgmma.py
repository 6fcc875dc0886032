"""Lowering of `tt.dot` on Hopper's warpgroup tensor cores (`wgmma`, sm_90a).

A dot qualifies (`warpgroup_dot`) on sm_90 when its accumulator has the mma layout with
the warps along M (passes/ttgir/mma_layouts.py: warp w owns rows 16w .. 16w + 15, so each
group of 4 warps owns 64 rows, the M of one wgmma) and both operands are fp16/bf16 tiles
that a software-pipelined loop (pipeline.py) already put in shared memory.

Before (TTGIR, 8 warps, %a and %b pipelined loads):
    %d = "tt.dot"(%a, %b, %c) : (tensor<128x64xf16, #blocked>, tensor<64x128xf16, #blocked1>,
                                 tensor<128x128xf32, #ttg.mma<[8, 1]>>) -> ...
After (PTX of warpgroup g = warp / 4; one wgmma per 16-deep step kk of K):
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {d0, ..., d63},
        descA(g, kk), descB(kk), 1, 1, 1, 0, 1;
    ...
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;

The accumulator registers d0 .. d(N/2 - 1) are the mma layout's registers in order.

Shared-memory descriptors (PTX ISA, "Matrix Descriptor Format"): bits 0-13 hold the start
address >> 4, bits 16-29 the leading byte offset >> 4, bits 32-45 the stride byte offset
>> 4 and bits 62-63 the swizzle (1: 128 bytes, 2: 64, 3: 32). The tiles are laid out by
`ctx.swizzled_index`: rows of min(2 x columns, 128) bytes swizzled with that period, and
columns beyond 64 in further blocks of 64. So for
  A (M x K, K-major): 8 rows are one swizzle period (stride offset 8 x row bytes); the
    leading offset is unused; step kk starts 32 kk bytes into the row, in column block
    16 kk / 64, blocks M x 128 bytes apart;
  B (K x N, N-major, imm-trans-b = 1): the column blocks are K x 128 bytes apart (leading
    offset), 8 rows of K are one swizzle period (stride offset); step kk starts 16 kk
    rows down.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.ttgir.layouts import MmaLayout
from tritonc.passes.ttgir.mma_layouts import MMA_OPERANDS, warpgroup_shape

_SWIZZLE_MODE = {128: 1, 64: 2, 32: 3}


def _row_bytes(columns: int) -> int | None:
    """The bytes per row of a 16-bit tile with `columns` columns in shared memory, or
    None when no wgmma swizzle mode fits it."""
    size = 2 * columns
    if size in (32, 64):
        return size
    return 128 if size % 128 == 0 else None


def warpgroup_dot(ctx: LoweringContext, dot) -> bool:
    """Whether `dot` lowers to wgmma once both its operands are in shared memory."""
    if ctx.arch < 90 or not isinstance(ctx.layout(dot.results[0].type), MmaLayout):
        return False
    a, _, _ = dot.operands
    m, n = ctx.shape(dot.results[0].type)
    k = ctx.shape(a.type)[1]
    return (ctx.layout(dot.results[0].type).warps_per_cta == (ctx.num_warps, 1)
            and warpgroup_shape(m, n, ctx.num_warps)
            and str(ctx.element_type(a.type)) in MMA_OPERANDS
            and _row_bytes(k) is not None and _row_bytes(n) is not None)


def _descriptor(ctx: LoweringContext, address, leading: int, stride: int, row_bytes: int):
    """The i64 descriptor of the tile at shared-memory `address` (an i32)."""
    i64 = ir.IntegerType.get_signless(64)
    fields = ((leading >> 4) << 16) | ((stride >> 4) << 32) | (_SWIZZLE_MODE[row_bytes] << 62)
    start = ctx.value("arith.extui", [ctx.binop("arith.shrui", address, ctx.i32(4))], i64)
    return ctx.binop("arith.ori", start, ctx.const(fields, i64))


def _asm(ctx: LoweringContext, text: str, operands: list, constraints: list[str],
         results: int = 0) -> list:
    f32 = ir.F32Type.get()
    if results:
        ty = ir.Type.parse(f"!llvm.struct<({', '.join(['f32'] * results)})>")
    else:
        ty = None
    attrs = {"asm_string": ir.StringAttr.get(text),
             "constraints": ir.StringAttr.get(",".join(constraints)),
             "has_side_effects": ir.UnitAttr.get()}
    if ty is None:
        ctx.op("llvm.inline_asm", operands, [], attrs)
        return []
    out = ctx.value("llvm.inline_asm", operands, ty, attrs)
    return [ctx.value("llvm.extractvalue", [out], f32, {"position": ir.DenseI64ArrayAttr.get([q])})
            for q in range(results)]


def lower_warpgroup_dot(ctx: LoweringContext, op) -> list:
    """The accumulator registers after wgmma over every K step of `op` (see above)."""
    a, b, c = op.operands
    m, n = ctx.shape(op.results[0].type)
    k = ctx.shape(a.type)[1]
    kind = str(ctx.element_type(a.type))
    i64 = ir.IntegerType.get_signless(64)
    a_row, b_row = _row_bytes(k), _row_bytes(n)
    group = ctx.binop("arith.shrui", ctx.warp, ctx.i32(2))
    a_start = ctx.smem_address(ctx.binop("arith.muli", group, ctx.i32(64 * a_row)), 1,
                               ctx.smem_operands[a])
    b_start = ctx.smem_address(ctx.i32(0), 1, ctx.smem_operands[b])
    a_desc = _descriptor(ctx, a_start, 16, 8 * a_row, a_row)
    b_desc = _descriptor(ctx, b_start, k * 128, 8 * b_row, b_row)
    ctx.arch_specific = True

    regs = n // 2
    accs = list(ctx.get(c))
    outs = ", ".join(f"${i}" for i in range(regs))
    text = (f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{kind}.{kind} {{{outs}}}, "
            f"${2 * regs}, ${2 * regs + 1}, 1, 1, 1, 0, 1;")
    tied = ["=f"] * regs + [str(i) for i in range(regs)]
    _asm(ctx, "wgmma.fence.sync.aligned;", [], [])
    for kk in range(k // 16):
        column = kk * 16
        a_offset = column // 64 * m * 128 + column % 64 * 2
        descs = [ctx.binop("arith.addi", a_desc, ctx.const(a_offset >> 4, i64)),
                 ctx.binop("arith.addi", b_desc, ctx.const(column * b_row >> 4, i64))]
        accs = _asm(ctx, text, [*accs, *descs], tied + ["l", "l"], regs)
    _asm(ctx, "wgmma.commit_group.sync.aligned;", [], [])
    accs = _asm(ctx, "wgmma.wait_group.sync.aligned 0;", accs, tied, regs)
    return [accs]
