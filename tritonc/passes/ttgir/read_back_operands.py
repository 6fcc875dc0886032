"""read-back-operands: a tile the ring reads back for an mma.sync dot is read straight into
the registers the dot takes.

In: TTGIR after software-pipeline, whose `ttg.read_back` loads (tiles converted on their
way to a dot: int8 weights to fp16) are read from their ring buffer into the load's
blocked layout, converted, and staged through shared memory again for the dot. Out: where
the dot is an mma.sync, the conversions between the load and it compute in the dot
operand's layout (`#ttg.dot_op<idx, mma>`) and the tile is converted to it right after
the load; the lowering reads that conversion from the ring buffer directly
(`memory.read_back`), so the tile leaves shared memory once, into the registers mma.sync
reads, and the dot stages nothing. What the conversions read besides the tile follows
back to where it is made (propagate-mma's `Growth`, backward only): constants and
ranges are made again in that layout, broadcasts and expand_dims take it, and a loaded
row of scales gets one conversion to its slice (which rematerialize-loads folds into the
load when the row is small).

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
from tritonc.passes.ttgir.propagate_mma import Growth, _ops, apply_growth
from tritonc.passes.ttgir.software_pipeline import READ_BACK, converted_chain

_HALVES = ("f16", "bf16")


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
            growth = Growth(ir)
            for value in chain:
                growth.assign(value, DotOperandLayout(index, layout).attr_text())
            want.update(growth.grow(forward=False))
        if want:
            apply_growth(ir, module, want)
