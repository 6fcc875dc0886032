"""Tensor-core A operands held in registers (`#ttg.dot_op<0, mma>`, see
passes/ttgir/layouts.py): the halves a0..a7 a thread holds per 16 x 16 slice, packed in
pairs into the four 32-bit registers that mma.sync and wgmma take as A."""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext, ir


def register_fragments(ctx: LoweringContext, a) -> list[list]:
    """The A fragments of `a` (in `#ttg.dot_op<0, mma>`), tile i then step kk: each four
    i32 registers packing the pairs (a0, a1), (a2, a3), (a4, a5), (a6, a7)."""
    regs = ctx.get(a)
    i32 = ctx.i32_type()
    pair = ir.VectorType.get([2], ctx.scalar_type(a.type))
    out = []
    for start in range(0, len(regs), 8):
        frag = []
        for q in range(start, start + 8, 2):
            packed = ctx.value("llvm.mlir.poison", [], pair)
            for i in range(2):
                packed = ctx.value("llvm.insertelement", [packed, regs[q + i], ctx.i32(i)], pair)
            frag.append(ctx.value("llvm.bitcast", [packed], i32))
        out.append(frag)
    return out
