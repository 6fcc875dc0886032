"""assign-layouts: give every tensor the default blocked layout for its shape.

Before:
    %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
After (num_warps = 4):
    %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32}
         : () -> tensor<1024xi32, #ttg.blocked<[8], [32], [4], [0]>>

Tensors of one shape share one layout, so elementwise ops never move data. A thread holds
as many consecutive elements along the last dimension as the widest access of that shape
may cover: 16 bytes of its type (4 fp32, 8 fp16) where the axis analysis shows the
addresses aligned to that, fewer for a stored shape where they are not (a row stride that
is not a multiple of 16, a row length of 781), so that the lanes of a warp then write
consecutive elements instead of leaving gaps between scalar stores. Ops that
change the shape (expand_dims, broadcast, reshape, reductions, ...) convert between the
layouts of their operands and results when they are lowered. A tile loaded through a
block pointer whose contiguous dimension is not the last follows the pointer's order
(loads and stores through tensors of pointers are the next pass's, `coalesce.py`).
Option: `num_warps` (threads per program / 32).
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import AxisAnalysis, aligned_width
from tritonc.passes.ttgir.layouts import BlockedLayout

_BYTES = {"i1": 1, "i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "f32": 4, "i64": 8,
          "f64": 8}


def _access_widths(ir, module) -> dict[tuple[int, ...], int]:
    """For each shape, how many elements one thread holds along the last dimension: 16
    bytes of the narrowest type loaded or stored with that shape (4 when nothing is),
    lowered to the widest aligned access of that shape where every access of it goes
    through a tensor of pointers running along the last dimension (`aligned_width`): with
    scalar accesses, one element per thread makes a warp's access one contiguous run.
    Kernels with a `tt.dot` keep 16 bytes (their loads feed the tensor-core pipelines)."""
    widths: dict[tuple[int, ...], int] = {}
    aligned: dict[tuple[int, ...], int | None] = {}
    axis = AxisAnalysis()
    has_dot = False

    def visit(op):
        nonlocal has_dot
        has_dot = has_dot or op.name == "tt.dot"
        if op.name in ("tt.load", "tt.store", "tt.descriptor_load", "tt.descriptor_store"):
            value = op.results[0] if op.name.endswith("load") else op.operands[1]
            if isinstance(value.type, ir.RankedTensorType):
                t = ir.RankedTensorType(value.type)
                nbytes = _BYTES.get(str(t.element_type), 1 if "f8" in str(t.element_type) else 4)
                shape = tuple(t.shape)
                widths[shape] = max(widths.get(shape, 4), 16 // nbytes)
                ptr = op.operands[0]
                width = aligned_width(axis, ptr, nbytes) if op.name in (
                    "tt.load", "tt.store") and isinstance(ptr.type, ir.RankedTensorType) \
                    else None
                if width is None:
                    aligned[shape] = None
                elif aligned.get(shape, 0) is not None:
                    aligned[shape] = max(aligned.get(shape, 1), width)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if not has_dot:
        widths.update({s: w for s, w in aligned.items() if w is not None})
    return widths


def _with_layout(ir, ty, num_warps: int, widths: dict):
    if not isinstance(ty, ir.RankedTensorType):
        return None
    tensor = ir.RankedTensorType(ty)
    if tensor.encoding is not None:
        return None
    shape = tuple(tensor.shape)
    layout = BlockedLayout.default(shape, num_warps, widths.get(shape, 4))
    return ir.RankedTensorType.get(tensor.shape, tensor.element_type,
                                   ir.Attribute.parse(layout.attr_text()))


def assign_layouts(module, num_warps: int) -> None:
    """Set the encoding of every tensor-typed result and block argument in `module`."""
    from mlir import ir

    def visit(op):
        for result in op.results:
            new = _with_layout(ir, result.type, num_warps, widths)
            if new is not None:
                result.set_type(new)
                if op.name == "arith.constant":
                    splat = ir.DenseElementsAttr(op.attributes["value"]).get_splat_value()
                    op.attributes["value"] = ir.DenseElementsAttr.get_splat(new, splat)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    new = _with_layout(ir, arg.type, num_warps, widths)
                    if new is not None:
                        arg.set_type(new)
        return ir.WalkResult.ADVANCE

    with module.context, ir.Location.unknown():
        widths = _access_widths(ir, module)
        module.operation.walk(visit)
        _fix_function_types(ir, module)
        _follow_block_order(ir, module, num_warps, widths)


def _block_order(ir, ptr) -> tuple[int, ...] | None:
    """The `order` of the `tt.make_block_ptr` behind `ptr` (through `tt.advance` and the
    initial values of loop-carried block pointers)."""
    while True:
        owner = ptr.owner
        if isinstance(owner, ir.Block):
            loop = owner.owner
            if loop is None or loop.name != "scf.for" or ptr.arg_number == 0:
                return None
            ptr = loop.operands[3 + ptr.arg_number - 1]
        elif owner.name == "tt.advance":
            ptr = owner.operands[0]
        elif owner.name == "tt.make_block_ptr":
            return tuple(ir.DenseI32ArrayAttr(owner.attributes["order"]))
        else:
            return None


def _follow_block_order(ir, module, num_warps: int, widths: dict) -> None:
    """A tile loaded through a block pointer whose fastest dimension is not the last (a
    transposed operand, `order=(0, 1)`) is loaded in a layout with that order, so its
    accesses are vectors along the contiguous dimension. Users other than `tt.dot`
    operands (which go through shared memory anyway) see the default layout through a
    `ttg.convert_layout`."""
    loads = []

    def visit(op):
        if op.name == "tt.load" and "!tt.ptr<tensor<" in str(op.operands[0].type):
            loads.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for load in loads:
        result = load.results[0]
        tensor = ir.RankedTensorType(result.type)
        order = _block_order(ir, load.operands[0])
        if order is None or order[0] == tensor.rank - 1:
            continue
        shape = tuple(tensor.shape)
        layout = BlockedLayout.default(shape, num_warps, widths.get(shape, 4), order)
        default_ty = result.type
        others = [u for u in result.uses
                  if not (u.owner.name == "tt.dot" and u.operand_number < 2)]
        result.set_type(ir.RankedTensorType.get(tensor.shape, tensor.element_type,
                                                ir.Attribute.parse(layout.attr_text())))
        if others:
            copy = ir.Operation.create("ttg.convert_layout", results=[default_ty],
                                       operands=[result], loc=load.location,
                                       ip=ir.InsertionPoint.after(load)).results[0]
            for use in others:
                use.owner.operands[use.operand_number] = copy


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
