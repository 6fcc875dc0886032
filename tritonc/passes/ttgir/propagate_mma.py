"""propagate-mma-layouts: compute on a dot's result where the mma layout put it.

After mma-layouts, every user of a dot result sees it through a `ttg.convert_layout` to
the blocked layout, a trip through shared memory. This pass grows the set of values that
take the mma layout instead, from those converts outward: through elementwise ops, row
reductions (whose results take `#ttg.slice<axis, mma>`), `tt.expand_dims` of such a slice
(back to the mma layout), `tt.broadcast`, the iteration arguments of `scf.for` and the
values an `scf.while` carries (from one iteration to the next and from its condition to
its body), and the
view ops reshape, trans, split and join, whose results take the `#ttg.linear` layout
that keeps every element where it was (`view_layouts.py`; a linear layout spreads only
through elementwise ops, views and loops).
Values that cross into the set get one convert; constants, splats and ranges are made
again in the layout that asks for them, and so, for users inside a loop, are values made
from them by expand_dims, broadcast and elementwise ops (an offset tile the epilogue's
store index shares with a loop's loads: converted, it would stand in the loop between
the loads and their addresses, and the pipeliner could not copy those tiles ahead).

Before (the online softmax of flash attention, 8 warps):
    %qk = "tt.dot"(%q, %k, %zero) : (...) -> tensor<128x64xf32, #mma>
    %cvt = "ttg.convert_layout"(%qk) : (...) -> tensor<128x64xf32, #blocked>
    %max = "tt.reduce"(%cvt) {axis = 1} : (...) -> tensor<128xf32, #blocked1>
    %m = "tt.expand_dims"(%max) {axis = 1} : (...) -> tensor<128x1xf32, #blocked>
    %b = "tt.broadcast"(%m) : (...) -> tensor<128x64xf32, #blocked>
    %p = arith.subf %cvt, %b : tensor<128x64xf32, #blocked>
After:
    %qk = "tt.dot"(%q, %k, %zero) : (...) -> tensor<128x64xf32, #mma>
    %max = "tt.reduce"(%qk) {axis = 1} : (...) -> tensor<128xf32, #ttg.slice<1 : i64, #mma>>
    %m = "tt.expand_dims"(%max) {axis = 1} : (...) -> tensor<128x1xf32, #mma>
    %b = "tt.broadcast"(%m) : (...) -> tensor<128x64xf32, #mma>
    %p = arith.subf %qk, %b : tensor<128x64xf32, #mma>

with #mma = #ttg.mma<[8, 1]>: the reduction is register adds and two shuffles, the
broadcast moves nothing.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.convert import linear_of
from tritonc.passes.ttgir import defined_in, view_layouts
from tritonc.passes.ttgir.layouts import LinearEncoding, MmaLayout, SliceLayout, parse_layout
from tritonc.passes.ttgir.view_layouts import VIEW_OPS

_ELEMENTWISE = {"tt.fp_to_fp", "tt.bitcast", "tt.clampf", "tt.precise_sqrt",
                "tt.precise_divf", "tt.mulhiu", "tt.extern_elementwise", "tt.addptr"}
_REMADE = ("arith.constant", "tt.splat", "tt.make_range")


def _encoding(ir, value) -> str | None:
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    enc = ir.RankedTensorType(value.type).encoding
    return None if enc is None else str(enc)


def _with_encoding(ir, ty, text: str):
    t = ir.RankedTensorType(ty)
    return ir.RankedTensorType.get(t.shape, t.element_type, ir.Attribute.parse(text))


def _is_elementwise(ir, op) -> bool:
    name = op.name
    if name == "arith.constant" or not (name.startswith(("arith.", "math."))
                                        or name in _ELEMENTWISE):
        return False
    values = [*op.operands, *op.results]
    if any(not isinstance(r.type, ir.RankedTensorType) for r in op.results):
        return False
    shapes = {tuple(ir.RankedTensorType(v.type).shape) for v in values
              if isinstance(v.type, ir.RankedTensorType)}
    return len(shapes) == 1


def _remade(ir, value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name in _REMADE and (
        owner.name != "arith.constant" or ir.DenseElementsAttr(
            owner.attributes["value"]).is_splat)


def _retypable(ir, value) -> bool:
    """Whether `value` may take another layout by changing its type alone: what the rules
    above rewrite (and converts). Other results (a load, a dot) keep theirs; their users
    get a convert instead."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return _loop_of(ir, value) is not None
    return (owner.name in ("tt.reduce", "tt.expand_dims", "tt.broadcast", "scf.for",
                           "scf.while", "ttg.convert_layout", *VIEW_OPS)
            or _is_elementwise(ir, owner))


def _loop_of(ir, block_arg):
    """The scf.for or scf.while whose regions define `block_arg`, or None."""
    block = block_arg.owner
    op = block.owner
    return op if op is not None and op.name in ("scf.for", "scf.while") else None


def _yield_of(loop, region: int = 0):
    """The terminator of `loop`'s region (an scf.while's condition in region 0)."""
    ops = loop.regions[region].blocks[0].operations
    return ops[len(ops) - 1]


def _axis(ir, op) -> int:
    return ir.IntegerAttr(op.attributes["axis"]).value


_SHAPED = ("tt.reduce", "tt.expand_dims", "tt.broadcast")  # results of another shape


def _view_layout(ir, op, text: str, forward: bool) -> LinearEncoding | None:
    """The layout of view op `op`'s results when its operands are in `text` (forward), or
    of its operands when its results are."""
    src_shape = tuple(ir.RankedTensorType(op.operands[0].type).shape)
    dst_shape = tuple(ir.RankedTensorType(op.results[0].type).shape)
    infer = view_layouts.result_layout if forward else view_layouts.operand_layout
    return infer(ir, op, parse_layout(text), src_shape, dst_shape)


class Growth:
    """The values that take a new layout, grown from seeds along the rules above; the
    results of `loads` may take one too (loaded again in it: their pointers, masks and
    other values follow)."""

    def __init__(self, ir, loads: frozenset = frozenset()) -> None:
        self.ir = ir
        self.loads = loads
        self.want: dict = {}
        self.work: list = []

    def assign(self, value, text: str) -> None:
        ir = self.ir
        if not isinstance(value.type, ir.RankedTensorType) or _remade(ir, value):
            return
        if value in self.want or not (_retypable(ir, value) or value in self.loads):
            return
        owner = value.owner
        if not isinstance(owner, ir.Block):
            if owner.name in VIEW_OPS and _view_layout(ir, owner, text, forward=False) is None:
                return  # its operand could not take a layout from which it moves no data
            if owner.name in _SHAPED and text.startswith("#ttg.linear"):
                return  # a linear layout spreads through elementwise ops, views and loops
        self.want[value] = text
        self.work.append(value)

    def grow(self, forward: bool = True) -> dict:
        """The values grown from the seeds: along both directions, or with `forward`
        False only back through what the seeds are made from."""
        while self.work:
            value = self.work.pop()
            text = self.want[value]
            if forward:
                self._forward(value, text)
            self._backward(value, text)
        return self.want

    def _loop_slot(self, loop, index: int, text: str) -> None:
        """Iteration argument `index` of `loop`: its init, body argument, yield, result."""
        self.assign(loop.regions[0].blocks[0].arguments[index + 1], text)
        self.assign(loop.results[index], text)
        self.assign(loop.operands[3 + index], text)
        self.assign(_yield_of(loop).operands[index], text)

    def _while_slot(self, loop, region: int, index: int, text: str) -> None:
        """Value `index` of an scf.while's `region`: region 0's argument with its init and
        the body's yield, or region 1's argument with the condition's value and the result."""
        self.assign(loop.regions[region].blocks[0].arguments[index], text)
        if region == 0:
            self.assign(loop.operands[index], text)
            self.assign(_yield_of(loop, 1).operands[index], text)
        else:
            self.assign(_yield_of(loop).operands[index + 1], text)
            self.assign(loop.results[index], text)

    def _view(self, op, text: str, forward: bool) -> None:
        """Through a view op: its results from an operand's layout, or its operands from a
        result's (`view_layouts`)."""
        layout = _view_layout(self.ir, op, text, forward)
        if layout is not None:
            for v in (op.results if forward else op.operands):
                self.assign(v, layout.attr_text())

    def _forward(self, value, text: str) -> None:
        ir = self.ir
        layout = parse_layout(text)
        for use in value.uses:
            user = use.owner
            if _is_elementwise(ir, user):
                for v in [*user.results, *user.operands]:
                    self.assign(v, text)
            elif user.name in VIEW_OPS:
                self._view(user, text, forward=True)
            elif user.name == "scf.yield" and user.parent.name == "scf.for":
                self._loop_slot(user.parent, use.operand_number, text)
            elif user.name == "scf.yield" and user.parent.name == "scf.while":
                self._while_slot(user.parent, 0, use.operand_number, text)
            elif user.name == "scf.condition" and use.operand_number > 0:
                self._while_slot(user.parent, 1, use.operand_number - 1, text)
            elif user.name == "scf.while":
                self._while_slot(user, 0, use.operand_number, text)
            elif isinstance(layout, LinearEncoding):
                continue  # not into reductions, expand_dims or broadcasts
            elif user.name == "tt.reduce":
                for r in user.results:
                    self.assign(r, SliceLayout(_axis(ir, user), layout).attr_text())
            elif user.name == "tt.expand_dims":
                if isinstance(layout, SliceLayout) and layout.dim == _axis(ir, user):
                    self.assign(user.results[0], layout.parent.attr_text())
            elif user.name == "tt.broadcast":
                self.assign(user.results[0], text)

    def _backward(self, value, text: str) -> None:
        ir = self.ir
        owner = value.owner
        if isinstance(owner, ir.Block):
            loop = _loop_of(ir, value)
            number = ir.BlockArgument(value).arg_number
            if loop is not None and loop.name == "scf.while":
                region = 0 if value.owner == loop.regions[0].blocks[0] else 1
                self._while_slot(loop, region, number, text)
            elif loop is not None and number > 0:
                self._loop_slot(loop, number - 1, text)
            return
        layout = parse_layout(text)
        if _is_elementwise(ir, owner):
            for v in [*owner.operands, *owner.results]:
                self.assign(v, text)
        elif owner.name == "tt.load":
            for v in owner.operands:
                self.assign(v, text)
        elif owner.name in VIEW_OPS:
            self._view(owner, text, forward=False)
        elif owner.name == "scf.for":
            self._loop_slot(owner, ir.OpResult(value).result_number, text)
        elif owner.name == "scf.while":
            self._while_slot(owner, 1, ir.OpResult(value).result_number, text)
        elif owner.name == "tt.reduce":
            if isinstance(layout, SliceLayout) and layout.dim == _axis(ir, owner):
                for v in owner.operands:
                    self.assign(v, layout.parent.attr_text())
        elif owner.name == "tt.expand_dims":
            self.assign(owner.operands[0], SliceLayout(_axis(ir, owner), layout).attr_text())
        elif owner.name == "tt.broadcast":
            self.assign(owner.operands[0], text)


def _same_place(ir, a, b, value) -> bool:
    """Whether layouts `a` and `b` place `value`'s tensor alike (equal, or the same linear
    layout)."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    shape = tuple(ir.RankedTensorType(value.type).shape)
    ll = linear_of(a, shape)
    return ll is not None and ll == linear_of(b, shape)


def _expected_operands(ir, op, old_types: dict) -> list:
    """The type each operand of `op` must have once the layouts changed (None: any)."""
    operands = list(op.operands)
    if op.name in ("ttg.convert_layout", "tt.dot"):
        return [None] * len(operands) if op.name == "ttg.convert_layout" else \
            [None, None, op.results[0].type]
    if op.name == "scf.yield" and op.parent.name == "scf.for":
        args = list(op.parent.regions[0].blocks[0].arguments)[1:]
        return [a.type for a in args]
    if op.name == "scf.for":
        args = list(op.regions[0].blocks[0].arguments)[1:]
        return [None] * 3 + [a.type for a in args]
    if op.name == "scf.while":
        return [a.type for a in op.regions[0].blocks[0].arguments]
    if op.name == "scf.yield" and op.parent.name == "scf.while":
        return [a.type for a in op.parent.regions[0].blocks[0].arguments]
    if op.name == "scf.condition":
        return [None] + [a.type for a in op.parent.regions[1].blocks[0].arguments]
    results = list(op.results)
    changed = any(r in old_types for r in results)
    if changed and (_is_elementwise(ir, op) or op.name in ("tt.addptr", "tt.load")):
        text = str(ir.RankedTensorType(results[0].type).encoding)
        return [_with_encoding(ir, v.type, text) if isinstance(v.type, ir.RankedTensorType)
                else None for v in operands]
    layout = parse_layout(str(ir.RankedTensorType(results[0].type).encoding)) if changed \
        else None
    if op.name in VIEW_OPS and (changed or any(v in old_types for v in operands)):
        layout = parse_layout(str(ir.RankedTensorType(results[0].type).encoding))
        return [None if _same_place(ir, _view_layout(ir, op, _encoding(ir, v), forward=True),
                                    layout, results[0]) else
                _with_encoding(ir, v.type,
                               _view_layout(ir, op, layout.attr_text(), forward=False).attr_text())
                if changed else old_types.get(v) for v in operands]
    if isinstance(layout, SliceLayout) and op.name == "tt.reduce":
        return [_with_encoding(ir, v.type, layout.parent.attr_text()) for v in operands]
    if changed and op.name == "tt.expand_dims":
        text = SliceLayout(_axis(ir, op), layout).attr_text()
        return [_with_encoding(ir, operands[0].type, text)]
    if changed and op.name == "tt.broadcast":
        text = str(ir.RankedTensorType(results[0].type).encoding)
        return [_with_encoding(ir, operands[0].type, text)]
    return [old_types.get(v) for v in operands]


def _remake(ir, value, ty, before):
    """A copy of the constant, splat or range defining `value`, of type `ty`."""
    owner = value.owner
    attrs = {name: owner.attributes[name] for name in owner.attributes}
    if owner.name == "arith.constant":
        splat = ir.DenseElementsAttr(owner.attributes["value"]).get_splat_value()
        attrs["value"] = ir.DenseElementsAttr.get_splat(ty, splat)
    return ir.Operation.create(owner.name, results=[ty], operands=list(owner.operands),
                               attributes=attrs, loc=owner.location,
                               ip=ir.InsertionPoint(before)).results[0]


_CHAIN_DEPTH = 8
_CHAIN_LAYOUTS = ("#ttg.blocked", "#ttg.mma", "#ttg.slice")  # what a chain is made again in


def _chain(ir, value, depth: int = 0) -> bool:
    """Whether `value` is made from constants, splats and ranges by expand_dims,
    broadcast and elementwise ops alone (an index or offset tile, say), so that it can be
    made again in any layout instead of converted."""
    if _remade(ir, value):
        return True
    owner = value.owner
    if depth == _CHAIN_DEPTH or isinstance(owner, ir.Block) or not (
            owner.name in ("tt.expand_dims", "tt.broadcast")
            or _is_elementwise(ir, owner) and owner.name != "tt.extern_elementwise"):
        return False
    return all(_chain(ir, v, depth + 1) for v in owner.operands
               if isinstance(v.type, ir.RankedTensorType))


def enclosing_loop(op):
    """The innermost scf.for around `op` in its function, or None."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "scf.for":
            return parent
        parent = parent.parent
    return None


def _hoist_invariant(ir, convert) -> None:
    """A conversion, in a loop, of a value made outside it: a chain of ranges and splats is
    made again in place (arithmetic LLVM hoists), anything else is converted once, before
    the loop."""
    loop = enclosing_loop(convert)
    value = convert.operands[0]
    if loop is None or defined_in(ir, value, loop):
        return
    if _chain(ir, value):
        remade = _remake_chain(ir, value, convert.results[0].type, convert)
        convert.results[0].replace_all_uses_with(remade)
        convert.erase()
    else:
        convert.move_before(loop)


def _in_loop(op) -> bool:
    """Whether `op` sits in the body of an scf.for (a conversion there runs every
    iteration; one outside loops runs once and stays)."""
    return enclosing_loop(op) is not None


def _chain_for(ir, value, ty, user) -> bool:
    """Whether `user`, inside a loop, gets `value` (a `_chain`) made again as `ty` (a
    blocked, mma or slice layout) rather than converted."""
    return (str(ir.RankedTensorType(ty).encoding).startswith(_CHAIN_LAYOUTS)
            and _in_loop(user) and _chain(ir, value))


def _remake_chain(ir, value, ty, before):
    """`value` (a `_chain`) made again, op by op, with type `ty`, before `before`."""
    if _remade(ir, value):
        return _remake(ir, value, ty, before)
    owner = value.owner
    text = str(ir.RankedTensorType(ty).encoding)
    operands = []
    for v in owner.operands:
        if not isinstance(v.type, ir.RankedTensorType):
            operands.append(v)
            continue
        want = SliceLayout(_axis(ir, owner), parse_layout(text)).attr_text() \
            if owner.name == "tt.expand_dims" else text
        want_ty = _with_encoding(ir, v.type, want)
        operands.append(v if v.type == want_ty else _remake_chain(ir, v, want_ty, before))
    attrs = {name: owner.attributes[name] for name in owner.attributes}
    return ir.Operation.create(owner.name, results=[ty], operands=operands, attributes=attrs,
                               loc=owner.location, ip=ir.InsertionPoint(before)).results[0]


def _ops(ir, module) -> list:
    found = []

    def visit(op):
        found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def propagate_mma_layouts(module) -> None:
    """Apply the rewrite above to `module` in place."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        growth = Growth(ir)
        ops = _ops(ir, module)
        for op in ops:
            if op.name == "ttg.convert_layout":
                source = _encoding(ir, op.operands[0])
                if source is not None and isinstance(parse_layout(source), MmaLayout):
                    growth.assign(op.results[0], source)
        apply_growth(ir, module, growth.grow(), remake_chains=True)


def apply_growth(ir, module, want: dict, remake_chains: bool = False,
                 hoist_invariants: bool = False) -> None:
    """Give each value of `want` its layout (encoding text), then make every operand the
    type its user now expects: a constant, splat or range is made again in that layout,
    and, with `remake_chains`, so is a value made from them by expand_dims, broadcast and
    elementwise ops for a user inside a loop (an offset tile shared by a loop's loads and
    the epilogue: `_chain`); any other value gets a `ttg.convert_layout` (with
    `hoist_invariants`, one of a value made outside the loop it would sit in is made there
    as `_hoist_invariant` says); converts that became no-ops go."""
    created = []
    old_types = {}
    for value, text in want.items():
        if _encoding(ir, value) != text:
            old_types[value] = value.type
            value.set_type(_with_encoding(ir, value.type, text))
    for op in _ops(ir, module):
        for i, ty in enumerate(_expected_operands(ir, op, old_types)):
            value = op.operands[i]
            if ty is None or value.type == ty:
                continue
            if _remade(ir, value):
                op.operands[i] = _remake(ir, value, ty, op)
            elif remake_chains and value in old_types and _chain_for(ir, value, ty, op):
                op.operands[i] = _remake_chain(ir, value, ty, op)
            else:
                convert = ir.Operation.create("ttg.convert_layout", results=[ty],
                                              operands=[value], loc=op.location,
                                              ip=ir.InsertionPoint(op))
                created.append(convert)
                op.operands[i] = convert.results[0]
    for op in _ops(ir, module):
        if op.name == "ttg.convert_layout" and op.operands[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.erase()
    if hoist_invariants:
        for convert in created:
            _hoist_invariant(ir, convert)
