"""assign-layouts: give every tensor the default blocked layout for its shape.

Before:
    %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
After (num_warps = 4):
    %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32}
         : () -> tensor<1024xi32, #ttg.blocked<[8], [32], [4], [0]>>

Tensors of one shape share one layout, so elementwise ops never move data; ops that
change the shape (expand_dims, broadcast, reshape, reductions, ...) convert between the
layouts of their operands and results when they are lowered.
Option: `num_warps` (threads per program / 32).
"""

from __future__ import annotations

from tritonc.passes.ttgir.layouts import BlockedLayout


def _with_layout(ir, ty, num_warps: int):
    if not isinstance(ty, ir.RankedTensorType):
        return None
    tensor = ir.RankedTensorType(ty)
    if tensor.encoding is not None:
        return None
    layout = BlockedLayout.default(tuple(tensor.shape), num_warps)
    return ir.RankedTensorType.get(tensor.shape, tensor.element_type,
                                   ir.Attribute.parse(layout.attr_text()))


def assign_layouts(module, num_warps: int) -> None:
    """Set the encoding of every tensor-typed result and block argument in `module`."""
    from mlir import ir

    def visit(op):
        for result in op.results:
            new = _with_layout(ir, result.type, num_warps)
            if new is not None:
                result.set_type(new)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    new = _with_layout(ir, arg.type, num_warps)
                    if new is not None:
                        arg.set_type(new)
        return ir.WalkResult.ADVANCE

    with module.context, ir.Location.unknown():
        module.operation.walk(visit)
        _fix_function_types(ir, module)


def _fix_function_types(ir, module) -> None:
    """func.func signatures follow their entry blocks' (now encoded) argument types."""
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        region = op.regions[0]
        if not region.blocks:
            continue
        block = region.blocks[0]
        ret_types = []
        for inner in block.operations:
            if inner.operation.name == "func.return":
                ret_types = [v.type for v in inner.operands]
        fn_type = ir.FunctionType.get([a.type for a in block.arguments], ret_types)
        op.attributes["function_type"] = ir.TypeAttr.get(fn_type)
