"""Tensor-core operands held in registers (`#ttg.dot_op<idx, mma>`, see
passes/ttgir/layouts.py): the halves a0..a7 a thread holds per 16 x 16 slice of A, packed
in pairs into the four 32-bit registers that mma.sync and wgmma take as A; the halves
b0..b3 per 16 x 8 slice of B, into the two that mma.sync takes as B."""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext


def register_fragments(ctx: LoweringContext, operand) -> list[list]:
    """The fragments of `operand` (in `#ttg.dot_op<idx, mma>`), tile then step kk: for A
    four i32 registers packing the pairs (a0, a1), (a2, a3), (a4, a5), (a6, a7); for B two
    packing (b0, b1), (b2, b3)."""
    regs = ctx.get(operand)
    halves = 8 if ctx.layout(operand.type).op_idx == 0 else 4
    return [[ctx.pack(regs[q:q + 2], ctx.i32_type()) for q in range(start, start + halves, 2)]
            for start in range(0, len(regs), halves)]
