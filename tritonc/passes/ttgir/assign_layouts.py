"""assign-layouts: give every tensor the default blocked layout for its shape.

Before:
    %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
After (num_warps = 4):
    %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32}
         : () -> tensor<1024xi32, #ttg.blocked<[8], [32], [4], [0]>>

Tensors of one shape share one layout, so elementwise ops never move data. A thread holds
16 bytes' worth of the narrowest type loaded or stored with that shape (4 fp32, 8 fp16)
along the last dimension, so its accesses can be 128 bits wide. Ops that
change the shape (expand_dims, broadcast, reshape, reductions, ...) convert between the
layouts of their operands and results when they are lowered. A tile loaded through a
block pointer whose contiguous dimension is not the last follows the pointer's order, and
so does any load or store whose pointers run along another dimension (`coalesce.py`). A
reduction whose results are only expanded back along its axis takes the sliced source
layout (`#ttg.slice<axis, src>`), and the values computed from it follow.
Option: `num_warps` (threads per program / 32).
"""

from __future__ import annotations

from tritonc.passes.ttgir.coalesce import coalesce
from tritonc.passes.ttgir.layouts import BlockedLayout, SliceLayout, parse_layout
from tritonc.passes.ttgir.propagate_mma import _is_elementwise, _remade, apply_growth

_BYTES = {"i1": 1, "i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "f32": 4, "i64": 8,
          "f64": 8}


def _access_widths(ir, module) -> dict[tuple[int, ...], int]:
    """For each shape, how many elements make 16 bytes of the narrowest type that is
    loaded or stored with that shape (4 when nothing is)."""
    widths: dict[tuple[int, ...], int] = {}

    def visit(op):
        if op.name in ("tt.load", "tt.store", "tt.descriptor_load", "tt.descriptor_store"):
            value = op.results[0] if op.name.endswith("load") else op.operands[1]
            if isinstance(value.type, ir.RankedTensorType):
                t = ir.RankedTensorType(value.type)
                nbytes = _BYTES.get(str(t.element_type), 1 if "f8" in str(t.element_type) else 4)
                shape = tuple(t.shape)
                widths[shape] = max(widths.get(shape, 4), 16 // nbytes)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
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
        coalesce(module, num_warps)
        _slice_reductions(ir, module)
        _slice_expanded_loads(ir, module)


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


def _slice_reductions(ir, module) -> None:
    """A reduction along one axis of an N-D tensor whose results are only expanded back
    along that axis (`tl.sum(x, 1)[:, None]`, as Inductor and norms write it) gives its
    results the source layout sliced at the axis (`#ttg.slice<axis, src>`); the
    expand_dims then gives back the source layout, so the row statistic broadcasts onto
    its rows in registers. An elementwise op on such values takes their layout when its
    other operands are constants, splats or ranges (made again in it); any other user
    gets a convert back. Applied only where the values reach a broadcast (a statistic
    stored without meeting its rows gains nothing); modules with a `tt.dot` are left
    to propagate-mma."""
    reduces, has_dot = [], False

    def visit(op):
        nonlocal has_dot
        has_dot = has_dot or op.name == "tt.dot"
        if op.name == "tt.reduce":
            reduces.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if has_dot:
        return
    want: dict = {}
    for op in reduces:
        src = ir.RankedTensorType(op.operands[0].type)
        axis = ir.IntegerAttr(op.attributes["axis"]).value
        uses = [u.owner for r in op.results for u in r.uses]
        if src.rank < 2 or not uses or any(
                u.name != "tt.expand_dims" or
                ir.IntegerAttr(u.attributes["axis"]).value != axis for u in uses):
            continue
        text = SliceLayout(axis, parse_layout(str(src.encoding))).attr_text()
        grown = _grow_slice(ir, {r: text for r in op.results})
        if any(u.owner.name == "tt.broadcast" for v in grown for u in v.uses):
            want.update(grown)  # worth it only where the statistic meets its rows
    apply_growth(ir, module, want)
    _broadcast_in_place(ir, module)


def _grow_slice(ir, seeds: dict) -> dict:
    """`seeds` (value -> layout text) and what follows them: expand_dims of a slice
    along its axis takes the parent layout; an elementwise op whose other operands are
    constants, splats or ranges takes its operand's."""
    want = dict(seeds)
    work = list(seeds)
    while work:
        value = work.pop()
        layout = parse_layout(want[value])
        for use in value.uses:
            user = use.owner
            if user.name == "tt.expand_dims" and isinstance(layout, SliceLayout) and \
                    layout.dim == ir.IntegerAttr(user.attributes["axis"]).value:
                result, text = user.results[0], layout.parent.attr_text()
            elif _is_elementwise(ir, user) and all(
                    v in want or _remade(ir, v) or not isinstance(v.type, ir.RankedTensorType)
                    for v in user.operands):
                result, text = user.results[0], want[value]
            else:
                continue
            if result not in want:
                want[result] = text
                work.append(result)
    return want


def _broadcast_in_place(ir, module) -> None:
    """A broadcast whose operand is converted from the broadcast's own result layout, or
    an expand_dims whose operand is converted from the result layout sliced at its axis,
    takes the unconverted value: the lowering repeats or keeps registers, nothing moves."""
    found = []

    def visit(op):
        if op.name in ("tt.broadcast", "tt.expand_dims"):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in found:
        convert = op.operands[0].owner
        if isinstance(convert, ir.Block) or convert.name != "ttg.convert_layout":
            continue
        source = convert.operands[0]
        wanted = ir.RankedTensorType(op.results[0].type).encoding
        if op.name == "tt.expand_dims":
            parent = parse_layout(str(wanted))
            wanted = SliceLayout(ir.IntegerAttr(op.attributes["axis"]).value,
                                 parent).attr_text() if isinstance(parent, BlockedLayout) else None
            wanted = ir.Attribute.parse(wanted) if wanted else None
        if wanted is not None and ir.RankedTensorType(source.type).encoding == wanted:
            op.operands[0] = source
            if not list(convert.results[0].uses):
                convert.erase()


def _load_chain(ir, value, chain: list, loads: list) -> bool:
    """Collect into `chain` the values computing `value` from loads through elementwise
    ops (constants, splats and ranges are made again where they are needed); False when
    something else computes it."""
    if value in chain or _remade(ir, value):
        return True
    owner = value.owner
    if isinstance(owner, ir.Block):
        return False
    if owner.name == "tt.load" and isinstance(owner.operands[0].type, ir.RankedTensorType):
        chain.append(value)
        loads.append(owner)
        return True
    if not _is_elementwise(ir, owner) or len(owner.results) != 1:
        return False
    chain.append(value)
    return all(_load_chain(ir, v, chain, loads) for v in owner.operands
               if isinstance(v.type, ir.RankedTensorType))


def _slice_expanded_loads(ir, module) -> None:
    """A value loaded (and computed elementwise) only to be expanded into a tile,
    `idx = tl.load(...)` then `idx[:, None]`, is loaded in the tile's layout sliced at the
    new axis, so the expand_dims moves nothing; the load's pointers and mask are made in
    that layout. Modules with a `tt.dot` are left as they are."""
    expands, has_dot = [], False

    def visit(op):
        nonlocal has_dot
        has_dot = has_dot or op.name == "tt.dot"
        if op.name == "tt.expand_dims":
            expands.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if has_dot:
        return
    want: dict = {}
    loads_of: dict = {}
    for op in expands:
        parent = parse_layout(str(ir.RankedTensorType(op.results[0].type).encoding))
        source = op.operands[0]
        if not isinstance(parent, BlockedLayout) or not isinstance(
                parse_layout(str(ir.RankedTensorType(source.type).encoding)), BlockedLayout):
            continue
        chain, loads = [], []
        if not _load_chain(ir, source, chain, loads) or not loads:
            continue
        text = SliceLayout(ir.IntegerAttr(op.attributes["axis"]).value, parent).attr_text()
        if any(want.get(v, text) != text for v in chain):
            continue  # already asked for in another layout
        for v in chain:
            want[v] = text
        for load in loads:
            loads_of[load] = text
    if not want:
        return
    apply_growth(ir, module, want)
    for load, text in loads_of.items():
        for i, value in enumerate(list(load.operands)):
            if isinstance(value.type, ir.RankedTensorType) and \
                    str(ir.RankedTensorType(value.type).encoding) != text:
                t = ir.RankedTensorType(value.type)
                ty = ir.RankedTensorType.get(t.shape, t.element_type, ir.Attribute.parse(text))
                load.operands[i] = ir.Operation.create(
                    "ttg.convert_layout", results=[ty], operands=[value], loc=load.location,
                    ip=ir.InsertionPoint(load)).results[0]
    _broadcast_in_place(ir, module)
