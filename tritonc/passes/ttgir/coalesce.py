"""coalesce: each global load and store goes along the dimension its addresses run along.

Takes TTGIR in which every tensor has the default blocked layout of its shape (the last
dimension fastest); gives TTGIR in which a `tt.load` or `tt.store` through a tensor of
pointers that is contiguous along another dimension (a transposed read, a store down
the columns of the output) has a layout with that dimension fastest, each thread holding
as many consecutive elements along it as one aligned access covers (up to 16 bytes: a
column-major fp32 store is `st.global.v4`), so a warp touches consecutive elements. Its operands
are converted to that layout (`ttg.convert_layout`: pointers, masks and index
arithmetic are recomputed in it when lowered, the stored values move through shared
memory) and a load's result is converted back for its users.

Before (a transposing copy, 4 warps, `y + rn * M + rm` contiguous along dimension 0):
    "tt.store"(%yptrs, %x, %mask) : (tensor<32x32x!tt.ptr<f32>, #blocked>, ...)
After:
    %p = "ttg.convert_layout"(%yptrs) : (... #blocked>) -> tensor<32x32x!tt.ptr<f32>, #col>
    %v = "ttg.convert_layout"(%x) : ...
    %m = "ttg.convert_layout"(%mask) : ...
    "tt.store"(%p, %v, %m) : (tensor<32x32x!tt.ptr<f32>, #col>, ...)
with #blocked = #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]> and
#col = #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]> (M divisible by 16).

A store whose addresses run along the fastest dimension but are not aligned for the
vector its layout gives each thread (a row stride that is not a multiple of 16 bytes:
eight fp16 per thread, then stored one by one with gaps between the lanes) takes the
layout with as many elements per thread as its aligned width (`aligned_width`), so the
lanes of a warp write consecutive elements; its operands are converted the same way.
Loads keep their layout: the gaps between their scalar accesses are served from L1.

Which dimension a pointer runs along comes from its strides: per dimension, how many
elements the address moves per step of the index (`_strides`), known through ranges,
splats, expand_dims, broadcasts, adds, and products with constants (a remainder or
quotient by a uniform value, `(start + arange) % N`, keeps the dimensions it does not
vary along; along the others its stride is unknown); the width an access
may take, from the per-dimension axis analysis (`AxisAlong`). Loads that feed a `tt.dot`
(directly or through `tt.trans`) are left to operand-order and the pipeliner.
Option: `num_warps`.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_along import AxisAlong
from tritonc.passes.to_llvm.axis_info import AxisAnalysis, aligned_width, element_bytes
from tritonc.passes.ttgir.layouts import BlockedLayout, parse_layout

UNKNOWN = -1  # a stride that is not zero but not known either (a runtime row stride)

_SAME = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast")
_PIECEWISE = ("arith.remsi", "arith.remui", "arith.divsi", "arith.divui")  # by a uniform value


def _splat_constant(ir, value) -> int | None:
    """The integer a uniform value is known to be, if any."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    if owner.name == "tt.splat":
        return _splat_constant(ir, owner.operands[0])
    if owner.name == "arith.constant":
        attr = owner.attributes["value"]
        if isinstance(value.type, ir.RankedTensorType):
            attr = ir.DenseElementsAttr(attr).get_splat_value()
        if isinstance(attr, ir.IntegerAttr):
            return ir.IntegerAttr(attr).value
    return None


def _add(a: tuple | None, b: tuple | None, sign: int = 1) -> tuple | None:
    if a is None or b is None:
        return None
    out = []
    for x, y in zip(a, b):
        if y == 0:
            out.append(x)
        elif x == 0:
            out.append(UNKNOWN if y == UNKNOWN else sign * y)
        elif UNKNOWN in (x, y):
            out.append(UNKNOWN)
        else:
            out.append(x + sign * y)
    return tuple(out)


def _strides(ir, value, memo: dict) -> tuple | None:
    """Per dimension of the tensor `value`, the stride of its elements along it (0 for a
    uniform dimension, UNKNOWN for a nonzero runtime one); None when the value is not
    an affine function of the indices (a load, a quotient, a remainder, ...)."""
    if value in memo:
        return memo[value]
    memo[value] = None  # a cycle through a loop argument is not affine until shown
    memo[value] = result = _compute(ir, value, memo)
    return result


def _compute(ir, value, memo: dict) -> tuple | None:
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    rank = ir.RankedTensorType(value.type).rank
    owner = value.owner
    if isinstance(owner, ir.Block):
        loop = owner.owner
        if loop is None or loop.name != "scf.for" or value.arg_number == 0:
            return None
        index = value.arg_number - 1
        init = _strides(ir, loop.operands[3 + index], memo)
        memo[value] = init
        body = loop.regions[0].blocks[0]
        step = _strides(ir, list(body.operations)[-1].operands[index], memo)
        return init if step == init else None
    name = owner.name
    ops = list(owner.operands)
    if name == "tt.make_range":
        return (1,)
    if name in ("tt.splat", "arith.constant"):
        return (0,) * rank
    if name == "tt.expand_dims":
        src = _strides(ir, ops[0], memo)
        axis = ir.IntegerAttr(owner.attributes["axis"]).value
        return None if src is None else (*src[:axis], 0, *src[axis:])
    if name == "tt.broadcast":
        src = _strides(ir, ops[0], memo)
        shape = ir.RankedTensorType(ops[0].type).shape
        return None if src is None else tuple(0 if n == 1 else s for s, n in zip(src, shape))
    if name in ("arith.addi", "tt.addptr"):
        return _add(_strides(ir, ops[0], memo), _strides(ir, ops[1], memo))
    if name == "arith.subi":
        return _add(_strides(ir, ops[0], memo), _strides(ir, ops[1], memo), -1)
    if name == "arith.muli":
        a, b = (_strides(ir, v, memo) for v in ops)
        if a is None or b is None:
            return None
        for x, y, other in ((a, b, ops[1]), (b, a, ops[0])):
            if all(s == 0 for s in y):
                k = _splat_constant(ir, other)
                return tuple(s * k if k is not None and s != UNKNOWN else
                             (0 if s == 0 or k == 0 else UNKNOWN) for s in x)
        return None
    if name in _SAME:
        return _strides(ir, ops[0], memo)
    if name in _PIECEWISE:  # `(start + arange) % N`: still uniform where it was, else not
        a, b = (_strides(ir, v, memo) for v in ops)  # known to run along any dimension
        if a is None or b is None or any(b):
            return None
        return tuple(0 if s == 0 else UNKNOWN for s in a)
    return None


def _memory_ops(ir, module) -> tuple[list, bool]:
    found, has_dot = [], False

    def visit(op):
        nonlocal has_dot
        has_dot = has_dot or op.name == "tt.dot"
        if op.name in ("tt.load", "tt.store") and \
                isinstance(op.operands[0].type, ir.RankedTensorType):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found, has_dot


def _feeds_a_dot(value) -> bool:
    """Whether `value` is used as a `tt.dot` operand, directly or through `tt.trans`
    (operand-order and the pipeliner lay those tiles out)."""
    return any(u.owner.name == "tt.dot" or (u.owner.name == "tt.trans" and
                                           _feeds_a_dot(u.owner.results[0]))
               for u in value.uses)


def _transposed(ir, op, layout: BlockedLayout, num_warps: int, memo: dict, along: AxisAlong):
    """The layout for an access whose addresses run along another dimension than its
    layout's fastest, with as many elements per thread along it as one aligned access
    covers (`AxisAlong.vector_width`, up to 16 bytes); None for every other access."""
    ptr = op.operands[0]
    strides = _strides(ir, ptr, memo)
    shape = tuple(ir.RankedTensorType(ptr.type).shape)
    if len(shape) < 2 or strides is None:
        return None
    contiguous = [d for d, s in enumerate(strides) if s == 1]
    fastest_now = next((d for d in layout.order if shape[d] > 1), layout.order[0])
    if not contiguous or fastest_now in contiguous:
        return None
    fastest = contiguous[0]
    order = (fastest, *(d for d in layout.order if d != fastest))
    store = op.name == "tt.store"
    mask = op.operands[2 if store else 1] if len(op.operands) > (2 if store else 1) else None
    data = op.operands[1] if store else op.results[0]
    elt = element_bytes(ir.RankedTensorType(data.type).element_type)
    width = along.vector_width(ptr, mask, fastest, elt, shape[fastest])
    return BlockedLayout.default(shape, num_warps, width, order)


def _unaligned_store(ir, op, layout: BlockedLayout, num_warps: int, axis: AxisAnalysis):
    """The layout for a store along the last dimension whose aligned width is below the
    elements per thread of its layout, up to one 16-byte vector; None for every other
    access."""
    ptr = op.operands[0]
    tensor = ir.RankedTensorType(ptr.type)
    last = tensor.rank - 1
    if op.name != "tt.store" or layout.order[0] != last:
        return None
    elt = element_bytes(ir.RankedTensorType(op.operands[1].type).element_type)
    width = aligned_width(axis, ptr, elt)
    if width is None or width >= min(layout.size_per_thread[last], max(1, 16 // elt)):
        return None
    return BlockedLayout.default(tuple(tensor.shape), num_warps, width, layout.order)


def _retyped(ir, ty, text: str):
    t = ir.RankedTensorType(ty)
    return ir.RankedTensorType.get(t.shape, t.element_type, ir.Attribute.parse(text))


def coalesce(module, num_warps: int) -> None:
    """Apply the rewrite above to `module` in place."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        ops, has_dot = _memory_ops(ir, module)
        memo: dict = {}
        axis, along = AxisAnalysis(), AxisAlong()
        for op in ops:
            tensor = ir.RankedTensorType(op.operands[0].type)
            layout = parse_layout(str(tensor.encoding))
            if not isinstance(layout, BlockedLayout):
                continue
            if has_dot and op.name == "tt.load" and _feeds_a_dot(op.results[0]):
                continue
            target = _transposed(ir, op, layout, num_warps, memo, along) or \
                _unaligned_store(ir, op, layout, num_warps, axis)
            if target is None:
                continue
            text = target.attr_text()
            for i, value in enumerate(list(op.operands)):
                if isinstance(value.type, ir.RankedTensorType):
                    op.operands[i] = ir.Operation.create(
                        "ttg.convert_layout", results=[_retyped(ir, value.type, text)],
                        operands=[value], loc=op.location,
                        ip=ir.InsertionPoint(op)).results[0]
            if op.name == "tt.load":
                result = op.results[0]
                old = result.type
                uses = [(u.owner, u.operand_number) for u in result.uses]
                result.set_type(_retyped(ir, old, text))
                back = ir.Operation.create("ttg.convert_layout", results=[old],
                                           operands=[result], loc=op.location,
                                           ip=ir.InsertionPoint.after(op)).results[0]
                for user, index in uses:
                    user.operands[index] = back
