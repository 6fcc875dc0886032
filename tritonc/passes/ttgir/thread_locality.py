"""thread-locality: a reduction accumulated across loop iterations stays in each thread.

Takes TTGIR with its layouts assigned; gives TTGIR in which a loop-carried row statistic
`acc = combine(acc, tt.reduce(x, axis))` (`local + tl.sum(x, 1)`,
`tl.maximum(local, tl.max(x, 1))`), whose reduction combines with the same op as the
loop (add, max or min, float or integer), accumulates each thread's own elements inside
the loop and crosses threads once, after it. With `k` the elements a thread holds
consecutively along the axis in x's blocked layout (`size_per_thread[axis]`), x
[M, N] is viewed as [M, N/k, k] in the layout that keeps every element in its register
(the split dimension's lanes and warps stay on N/k, the k run on the new dimension),
the loop reduces the new dimension (in registers: no shuffles, no shared memory) and
carries an [M, N/k] accumulator in that reduction's sliced layout; after the loop one
reduction along the axis gives the row statistic in the loop result's layout.

Before (4 warps):
    %r = scf.for ... iter_args(%acc = %zero) -> (tensor<32xf32, #b1>) {
      %x = "tt.load"(...) : (...) -> tensor<32x64xf32, #b>
      %s = "tt.reduce"(%x) {axis = 1, combine = @add} : (...) -> tensor<32xf32, #b1>
      %n = arith.addf %acc, %s : tensor<32xf32, #b1>
      scf.yield %n
    }
After:
    %r2 = scf.for ... iter_args(%acc = %zero2) -> (tensor<32x16xf32, #s>) {
      %x = "tt.load"(...) : (...) -> tensor<32x64xf32, #b>
      %v = "tt.reshape"(%x) : (...) -> tensor<32x16x4xf32, #b3>
      %s = "tt.reduce"(%v) {axis = 2, combine = @add} : (...) -> tensor<32x16xf32, #s>
      %n = arith.addf %acc, %s : tensor<32x16xf32, #s>
      scf.yield %n
    }
    %r = "tt.reduce"(%r2) {axis = 1, combine = @add} : (...) -> tensor<32xf32, #b1>
with #b = #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>,
#b3 = #ttg.blocked<[1, 1, 4], [2, 16, 1], [4, 1, 1], [2, 1, 0]> and
#s = #ttg.slice<2, #b3>.

The accumulator starts from the loop's initial value where that is right for every
element (a splat for max and min, a splat zero for add), else from the op's identity
(-0.0, -inf, +inf, 0, the integer bounds), and the initial value is combined once after
the loop. A tile converted to another layout only to be reduced (a load along the
columns, converted to the default layout) is reduced as it was loaded, without the
conversion. Sums are reassociated (each thread's partial sums, then across threads);
max and min are exact. Loops are left as they are unless the pattern is exact: the
reduction and the combine in the loop body itself, each result used only by the next
step, the iteration argument used only by the combine, a blocked layout with k > 1 that
divides the axis.
"""

from __future__ import annotations

from dataclasses import dataclass

from tritonc.passes.ttgir import combine_op, ops_named
from tritonc.passes.ttgir.layouts import BlockedLayout, SliceLayout, parse_layout

_IDEMPOTENT = ("arith.maxnumf", "arith.maximumf", "arith.minnumf", "arith.minimumf",
               "arith.maxsi", "arith.maxui", "arith.minsi", "arith.minui")
COMBINES = ("arith.addf", "arith.addi", *_IDEMPOTENT)


@dataclass
class _Carried:
    """One loop-carried reduction: the loop, the position of its iteration argument, the
    in-loop `tt.reduce`, the combine op that feeds the yield, and the tile reduced (in
    a blocked layout holding k > 1 consecutive elements along the axis per thread)."""

    loop: object
    index: int
    reduce: object
    combine: object
    source: object
    layout: BlockedLayout
    axis: int
    k: int


def split_layout(layout: BlockedLayout, axis: int, k: int) -> BlockedLayout:
    """`layout` with dimension `axis` split into (axis, axis + 1): the lanes and warps stay
    on `axis`, the `k` consecutive elements of each thread move to the new dimension
    `axis + 1`, which comes just before `axis` in the order. A reshape of `[.., N, ..]` to
    `[.., N / k, k, ..]` between the two places every element in the same register of
    the same thread."""
    def insert(values: tuple[int, ...], at_axis: int, new: int) -> tuple[int, ...]:
        out = list(values)
        out[axis] = at_axis
        out.insert(axis + 1, new)
        return tuple(out)

    order: list[int] = []
    for d in layout.order:
        if d == axis:
            order += [axis + 1, axis]
        else:
            order.append(d + (d > axis))
    return BlockedLayout(insert(layout.size_per_thread, 1, k),
                         insert(layout.threads_per_warp, layout.threads_per_warp[axis], 1),
                         insert(layout.warps_per_cta, layout.warps_per_cta[axis], 1),
                         tuple(order))


def _yield_of(loop):
    ops = loop.regions[0].blocks[0].operations
    return ops[len(ops) - 1]


def _only_use(value):
    """The one op using `value`, or None."""
    uses = list(value.uses)
    return uses[0].owner if len(uses) == 1 else None


def _used_only_by(value, op) -> bool:
    user = _only_use(value)
    return user is not None and user == op


def _match(ir, module, reduce) -> _Carried | None:
    """The loop-carried reduction `reduce` belongs to, when the pattern is exact."""
    if len(reduce.operands) != 1 or len(reduce.results) != 1:
        return None
    combine = _only_use(reduce.results[0])
    body = reduce.operation.block
    loop = body.owner
    if combine is None or loop is None or loop.name != "scf.for" or \
            combine.operation.block != body or len(combine.results) != 1:
        return None
    terminator = _yield_of(loop)
    if not _used_only_by(combine.results[0], terminator):
        return None
    index = next(u.operand_number for u in combine.results[0].uses)
    arg = body.arguments[1 + index]
    if set(combine.operands) != {arg, reduce.results[0]} or not _used_only_by(arg, combine) or \
            combine_op(module, reduce) != combine.name or combine.name not in COMBINES:
        return None
    axis = ir.IntegerAttr(reduce.attributes["axis"]).value
    for source in _sources(ir, reduce):
        src = ir.RankedTensorType(source.type)
        layout = parse_layout(str(src.encoding)) if src.encoding is not None else None
        if src.rank < 2 or not isinstance(layout, BlockedLayout):
            continue
        k = layout.size_per_thread[axis]
        if k > 1 and src.shape[axis] % k == 0:
            return _Carried(loop, index, reduce, combine, source, layout, axis, k)
    return None


def _sources(ir, reduce) -> list:
    """The tiles `reduce` may read: the one converted for it alone (a load in the layout
    its addresses run along, converted to the default layout), then its operand."""
    operand = reduce.operands[0]
    owner = operand.owner
    if not isinstance(owner, ir.Block) and owner.name == "ttg.convert_layout" and \
            _used_only_by(operand, reduce):
        return [owner.operands[0], operand]
    return [operand]


def _start_value(ir, elem, name: str, init):
    """The splat value the accumulator starts from: `init`'s own (a scalar attribute) when
    starting every element from it is right (a splat for max and min, a zero for add),
    else None."""
    owner = init.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    value = ir.DenseElementsAttr(owner.attributes["value"])
    if not value.is_splat:
        return None
    scalar = value.get_splat_value()
    if name in _IDEMPOTENT:
        return scalar
    zero = ir.FloatAttr(scalar).value == 0.0 if isinstance(elem, ir.FloatType) else \
        ir.IntegerAttr(scalar).value == 0
    return scalar if zero else None


def identity(ir, elem, name: str):
    """The identity of the combine op `name` on scalars of type `elem`, as an attribute."""
    if isinstance(elem, ir.FloatType):
        value = {"arith.addf": -0.0, "arith.maxnumf": float("-inf"),
                 "arith.maximumf": float("-inf")}.get(name, float("inf"))
        return ir.FloatAttr.get(elem, value)
    width = ir.IntegerType(elem).width
    value = {"arith.addi": 0, "arith.maxui": 0, "arith.minui": -1,
             "arith.maxsi": -(1 << (width - 1)), "arith.minsi": (1 << (width - 1)) - 1}[name]
    return ir.IntegerAttr.get(elem, value)


def _create(ir, name: str, result_type, operands: list, attributes: dict, loc, ip):
    return ir.Operation.create(name, results=[result_type], operands=operands,
                               attributes=attributes, loc=loc, ip=ip).results[0]


def _axis_attr(ir, axis: int):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), axis)


def _rewrite(ir, c: _Carried) -> None:
    """Carry the per-thread partials of `c` through its loop and reduce them after it."""
    loop, reduce, combine, axis, k = c.loop, c.reduce, c.combine, c.axis, c.k
    name = combine.name
    src = c.source
    src_ty = ir.RankedTensorType(src.type)
    convert = reduce.operands[0].owner if reduce.operands[0] != src else None
    elem, shape = src_ty.element_type, list(src_ty.shape)
    split = split_layout(c.layout, axis, k)
    view_ty = ir.RankedTensorType.get(shape[:axis] + [shape[axis] // k, k] + shape[axis + 1:],
                                      elem, ir.Attribute.parse(split.attr_text()))
    partial_ty = ir.RankedTensorType.get(
        shape[:axis] + [shape[axis] // k] + shape[axis + 1:], elem,
        ir.Attribute.parse(SliceLayout(axis + 1, split).attr_text()))
    arg = reduce.operation.block.arguments[1 + c.index]
    result, init = loop.results[c.index], loop.operands[3 + c.index]
    out_ty, users = result.type, list(result.uses)
    reduce_attrs = {n: reduce.attributes[n] for n in reduce.attributes}
    combine_attrs = {n: combine.attributes[n] for n in combine.attributes}
    arg_first = combine.operands[0] == arg

    def combined(acc, value, loc, ip):
        operands = [acc, value] if arg_first else [value, acc]
        return _create(ir, name, value.type, operands, combine_attrs, loc, ip)

    here = ir.InsertionPoint(reduce)
    view = _create(ir, "tt.reshape", view_ty, [src], {"allow_reorder": ir.BoolAttr.get(False)},
                   reduce.location, here)
    part = _create(ir, "tt.reduce", partial_ty, [view],
                   {**reduce_attrs, "axis": _axis_attr(ir, axis + 1)}, reduce.location, here)
    arg.set_type(partial_ty)
    _yield_of(loop).operands[c.index] = combined(arg, part, combine.location,
                                                 ir.InsertionPoint(combine))
    combine.erase()
    reduce.erase()
    if convert is not None:
        convert.erase()

    start = _start_value(ir, elem, name, init)
    splat = ir.DenseElementsAttr.get_splat(
        partial_ty, start if start is not None else identity(ir, elem, name))
    loop.operands[3 + c.index] = _create(ir, "arith.constant", partial_ty, [],
                                         {"value": splat}, loop.location,
                                         ir.InsertionPoint(loop))
    result.set_type(partial_ty)
    if start is not None and not list(init.uses):
        init.owner.erase()
    if not users:
        return
    total = _create(ir, "tt.reduce", out_ty, [result],
                    {**reduce_attrs, "axis": _axis_attr(ir, axis)}, loop.location,
                    ir.InsertionPoint.after(loop))
    if start is None:
        total = combined(init, total, loop.location, ir.InsertionPoint.after(total.owner))
    for use in users:
        use.owner.operands[use.operand_number] = total


def thread_locality(module) -> None:
    """Apply the rewrite above to every loop-carried reduction of `module` that fits."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        for c in [m for m in (_match(ir, module, r) for r in ops_named(module, "tt.reduce"))
                  if m is not None]:
            _rewrite(ir, c)
