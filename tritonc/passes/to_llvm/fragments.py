"""Tensor-core A operands held in registers (`#ttg.dot_op<0, mma>`, see
passes/ttgir/layouts.py): the halves a0..a7 a thread holds per 16 x 16 slice, packed in
pairs into the four 32-bit registers that mma.sync and wgmma take as A."""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext


def register_fragments(ctx: LoweringContext, a) -> list[list]:
    """The A fragments of `a` (in `#ttg.dot_op<0, mma>`), tile i then step kk: each four
    i32 registers packing the pairs (a0, a1), (a2, a3), (a4, a5), (a6, a7)."""
    regs = ctx.get(a)
    return [[ctx.pack(regs[q:q + 2], ctx.i32_type()) for q in range(start, start + 8, 2)]
            for start in range(0, len(regs), 8)]
