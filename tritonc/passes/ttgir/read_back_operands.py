"""read-back-operands: a tile the ring reads back for an mma.sync dot is read straight into
the registers the dot takes.

In: TTGIR after software-pipeline, whose `ttg.read_back` loads (tiles converted on their
way to a dot: int8 weights to fp16) are read from their ring buffer into the load's
blocked layout, converted, and staged through shared memory again for the dot. Out: where
the dot is an mma.sync, the conversions between the load and it compute in the dot
operand's layout (`#ttg.dot_op<idx, mma>`) and the tile is converted to it right after
the load; the lowering reads that conversion from the ring buffer directly
(`memory.read_back`), so the tile leaves shared memory once, into the registers mma.sync
reads, and the dot stages nothing. Conversions that read other tensors than constants
are taken where the operand holds at most 128 elements a thread; what they read follows
back to where it is made (propagate-mma's `Growth`, backward only): constants and
ranges are made again in that layout, broadcasts and expand_dims take it, and a loaded
row of scales gets one conversion to its slice (before the loop when it is loaded
before it; rematerialize-loads folds one in the loop into the load when the row is
small).

Before (decode: 16 x 128 fp16 activations, 128 x 64 int8 weights, 4 warps, sm_90):
    %w = "tt.load"(...) {ttg.pipelined, ttg.read_back} : (...) -> tensor<128x64xi8, #blocked>
    %h = arith.sitofp %w : tensor<128x64xi8, #blocked> to tensor<128x64xf16, #blocked>
    %d = "tt.dot"(%a, %h, %acc) : (..., tensor<128x64xf16, #blocked>, ...) -> ...
After:
    %w = "tt.load"(...) {ttg.pipelined, ttg.read_back} : (...) -> tensor<128x64xi8, #blocked>
    %r = "ttg.convert_layout"(%w) : (...) -> tensor<128x64xi8, #ttg.dot_op<1 : i64, #mma>>
    %h = arith.sitofp %r : tensor<128x64xi8, #ttg.dot_op<1 : i64, #mma>> to ...
    %d = "tt.dot"(%a, %h, %acc) : (..., tensor<128x64xf16, #ttg.dot_op<1 : i64, #mma>>, ...)
with #mma = #ttg.mma<[1, 4]>.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext
from tritonc.passes.to_llvm.wgmma import warpgroup_dot
from tritonc.passes.ttgir.layouts import DotOperandLayout, MmaLayout
from tritonc.passes.ttgir.propagate_mma import (
    Growth,
    _ops,
    _remade,
    apply_growth,
)
from tritonc.passes.ttgir.software_pipeline import READ_BACK, converted_chain

_HALVES = ("f16", "bf16")
# the operand elements a thread may hold when the conversions also read other tensors
# (their values stay live beside the tile: past this, a 128 x 128 x 64 tile on 8 warps,
# whose every warp holds all of B, spills)
_SPARE = 128


def _constants_besides(ir, load, chain: list) -> bool:
    """Whether the conversions along `chain` read no other tensor than constants."""
    for before, value in zip([load.results[0], *chain], chain):
        if not all(_remade(ir, v) for v in value.owner.operands
                   if v != before and isinstance(v.type, ir.RankedTensorType)):
            return False
    return True


def read_back_operands(module) -> None:
    """Apply the rewrite above to `module` in place."""
    from mlir import ir

    from tritonc.passes.ttgir.convert_to_ttgir import module_options

    options = module_options(module)
    ctx = LoweringContext(options.num_warps, None, None)
    ctx.arch = options.arch
    with module.context, ir.Location.unknown():
        want = {}
        for op in _ops(ir, module):
            if op.name != "tt.load" or READ_BACK not in op.attributes:
                continue
            found = converted_chain(op)
            if found is None:
                continue
            dot, index, chain = found
            layout = ctx.layout(dot.results[0].type)
            operand = dot.operands[index]
            if not isinstance(layout, MmaLayout) or warpgroup_dot(ctx, dot) or \
                    str(ir.RankedTensorType(operand.type).element_type) not in _HALVES:
                continue
            target = DotOperandLayout(index, layout)
            shape = tuple(ir.RankedTensorType(operand.type).shape)
            if target.num_registers(shape) > _SPARE and not _constants_besides(ir, op, chain):
                continue
            growth = Growth(ir)
            for value in chain:
                growth.assign(value, target.attr_text())
            want.update(growth.grow(forward=False))
        if want:
            apply_growth(ir, module, want, hoist_invariants=True)
