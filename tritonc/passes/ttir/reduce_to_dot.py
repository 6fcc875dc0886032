"""reduce-to-dot: a matrix product written as a broadcast multiply and a sum becomes a dot.

Takes TTIR; gives TTIR in which every fp32 `tt.reduce` summing (its combine function one
`arith.addf`) along axis 1 the product of `a` (M x K) expanded at axis 2 and `b` (K x N)
expanded at axis 0, both broadcast to M x K x N, is `tt.dot(a, b, zeros)` with IEEE input
precision, when M and N are at least 16 (as Triton's combine). Written
`tl.sum(a[:, :, None] * b[None, :, :], axis=1)`, the product is an M x K x N tensor in
registers (128 x 32 x 32 fp32 is 256 registers a thread on 4 warps, and spills); as a dot
it is the M x N accumulator alone. The sum's terms are added in another order, so the
result differs in rounding only. Runs before `combine`, which then folds an `acc += `
around it into the dot's accumulator.

Before:
    %ea = "tt.expand_dims"(%a) {axis = 2 : i32} : (tensor<128x32xf32>) -> tensor<128x32x1xf32>
    %eb = "tt.expand_dims"(%b) {axis = 0 : i32} : (tensor<32x64xf32>) -> tensor<1x32x64xf32>
    %ba = "tt.broadcast"(%ea) : (tensor<128x32x1xf32>) -> tensor<128x32x64xf32>
    %bb = "tt.broadcast"(%eb) : (tensor<1x32x64xf32>) -> tensor<128x32x64xf32>
    %p = arith.mulf %ba, %bb : tensor<128x32x64xf32>
    %s = "tt.reduce"(%p) {axis = 1 : i32, combine = @sum} : (...) -> tensor<128x64xf32>
After:
    %z = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
    %s = "tt.dot"(%a, %b, %z) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32}
        : (tensor<128x32xf32>, tensor<32x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
"""

from __future__ import annotations

from tritonc.passes.ttgir import combine_op, ops_named
from tritonc.passes.ttgir.cleanup import erase_unused

_MIN_SIDE = 16  # M and N below this stay a reduction


def reduce_to_dot(module) -> None:
    """Rewrite every sum of a broadcast product that is a matrix product (see above)."""
    from mlir import ir

    with module.context:
        rewritten = False
        for reduce in ops_named(module, "tt.reduce"):
            operands = _product_of(ir, module, reduce)
            if operands is not None:
                _rewrite(ir, reduce, *operands)
                rewritten = True
        if rewritten:  # the products' broadcasts and multiplies
            erase_unused(module)


def _owner(ir, value, name: str):
    """The op named `name` defining `value`, else None."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) or owner.name != name else owner


def _expanded(ir, value, axis: int):
    """The 2-D tensor `value` broadcasts after a unit dimension was inserted at `axis`
    (by `tt.expand_dims` or a `tt.reshape` that only inserts it), else None."""
    broadcast = _owner(ir, value, "tt.broadcast")
    if broadcast is None:
        return None
    inner = broadcast.operands[0]
    shape = ir.RankedTensorType(inner.type).shape
    if len(shape) != 3 or shape[axis] != 1:
        return None
    for name in ("tt.expand_dims", "tt.reshape"):
        op = _owner(ir, inner, name)
        if op is None:
            continue
        source = op.operands[0]
        src = ir.RankedTensorType(source.type).shape
        if name == "tt.expand_dims" and ir.IntegerAttr(op.attributes["axis"]).value != axis:
            return None
        return source if src == [d for i, d in enumerate(shape) if i != axis] else None
    return None


def _product_of(ir, module, reduce) -> tuple | None:
    """(a, b) when `reduce` sums a @ b written as a broadcast product (see above)."""
    if len(reduce.operands) != 1 or len(reduce.results) != 1 or \
            ir.IntegerAttr(reduce.attributes["axis"]).value != 1 or \
            combine_op(module, reduce) != "arith.addf":
        return None
    product = _owner(ir, reduce.operands[0], "arith.mulf")
    if product is None or len(list(product.results[0].uses)) != 1:
        return None
    ty = ir.RankedTensorType(product.results[0].type)
    if len(ty.shape) != 3 or ty.element_type != ir.F32Type.get():
        return None
    m, _, n = ty.shape
    if m < _MIN_SIDE or n < _MIN_SIDE:
        return None
    x, y = product.operands
    for lhs, rhs in ((x, y), (y, x)):
        a, b = _expanded(ir, lhs, 2), _expanded(ir, rhs, 0)
        if a is not None and b is not None:
            return a, b
    return None


def _rewrite(ir, reduce, a, b) -> None:
    result_type = reduce.results[0].type
    with ir.InsertionPoint(reduce), reduce.location:
        zero = ir.FloatAttr.get(ir.F32Type.get(), 0.0)
        zeros = ir.Operation.create(
            "arith.constant", results=[result_type],
            attributes={"value": ir.DenseElementsAttr.get_splat(result_type, zero)})
        dot = ir.Operation.create(
            "tt.dot", results=[result_type], operands=[a, b, zeros.results[0]],
            attributes={"input_precision": ir.StringAttr.get("ieee"),
                        "max_num_imprecise_acc": ir.IntegerAttr.get(
                            ir.IntegerType.get_signless(32), 0)})
    reduce.results[0].replace_all_uses_with(dot.results[0])
    reduce.erase()
