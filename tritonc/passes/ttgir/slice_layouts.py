"""slice-layouts: row statistics in the sliced layout of the rows they meet.

Takes TTGIR with blocked layouts (after coalesce); gives TTGIR in which a reduction along
one axis whose results are only expanded back along that axis (`tl.sum(x, 1)[:, None]`,
as norms and Inductor write it) has results in the source layout sliced at the axis, so
the expand_dims gives back the source layout and the statistic broadcasts onto its rows
in registers; and a value loaded only to be expanded into a tile (`idx[:, None]`) is
loaded in that tile's sliced layout.

Before (4 warps):
    %s = "tt.reduce"(%x) {axis = 1} : (tensor<64x256xf32, #b>) -> tensor<64xf32, #b0>
    %e = "tt.expand_dims"(%s) {axis = 1} : (tensor<64xf32, #b0>) -> tensor<64x1xf32, #b1>
    %r = "tt.broadcast"(%e) : (tensor<64x1xf32, #b1>) -> tensor<64x256xf32, #b>
After:
    %s = "tt.reduce"(%x) {axis = 1} : (...) -> tensor<64xf32, #ttg.slice<1, #b>>
    %e = "tt.expand_dims"(%s) {axis = 1} : (...) -> tensor<64x1xf32, #b>
    %r = "tt.broadcast"(%e) : (tensor<64x1xf32, #b>) -> tensor<64x256xf32, #b>
with #b0 and #b1 the default blocked layouts of their shapes. Modules with
a `tt.dot` are left to propagate-mma.
"""

from __future__ import annotations

from tritonc.passes.ttgir import ops_named
from tritonc.passes.ttgir.layouts import BlockedLayout, SliceLayout, parse_layout
from tritonc.passes.ttgir.propagate_mma import _is_elementwise, _remade, apply_growth


def _slice_reductions(ir, module) -> None:
    """A reduction along one axis of an N-D tensor whose results are only expanded back
    along that axis (`tl.sum(x, 1)[:, None]`, as Inductor and norms write it) gives its
    results the source layout sliced at the axis (`#ttg.slice<axis, src>`); the
    expand_dims then gives back the source layout, so the row statistic broadcasts onto
    its rows in registers. An elementwise op on such values takes their layout when its
    other operands are constants, splats or ranges (made again in it); any other user
    gets a convert back. Applied only where the values reach a broadcast (a statistic
    stored without meeting its rows gains nothing)."""
    want: dict = {}
    for op in ops_named(module, "tt.reduce"):
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
    that layout."""
    want: dict = {}
    loads_of: dict = {}
    for op in ops_named(module, "tt.expand_dims"):
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
    _convert_load_operands(ir, loads_of)
    _broadcast_in_place(ir, module)


def _broadcast_chain(ir, value, text: str, want: dict, loads: dict) -> bool:
    """Collect into `want` the values computing the broadcast operand `value` in layout
    `text`: elementwise ops and pointer offsets, expand_dims (whose source then takes the
    layout sliced at its axis), and loads through tensors of pointers (into `loads`, their
    operands converted); constants, splats and ranges are made again. False when something
    else computes it."""
    if value in want:
        return want[value] == text
    if _remade(ir, value):
        return True
    owner = value.owner
    if isinstance(owner, ir.Block) or len(owner.results) != 1:
        return False
    want[value] = text
    if owner.name == "tt.expand_dims":
        axis = ir.IntegerAttr(owner.attributes["axis"]).value
        return _broadcast_chain(ir, owner.operands[0],
                                SliceLayout(axis, parse_layout(text)).attr_text(), want, loads)
    if owner.name == "tt.load" and isinstance(owner.operands[0].type, ir.RankedTensorType):
        loads[owner] = text
        return True
    return (_is_elementwise(ir, owner) or owner.name == "tt.addptr") and all(
        _broadcast_chain(ir, v, text, want, loads) for v in owner.operands
        if isinstance(v.type, ir.RankedTensorType))


def _broadcast_sources(ir, module) -> None:
    """The operand of a broadcast is computed in the broadcast's own layout (a row index
    `idx[:, None] * D` meeting a tile whose lanes run along the rows' other dimension),
    back through elementwise ops, expand_dims and loads: the broadcast then repeats
    registers instead of moving its operand through shared memory. A chain is taken when
    every value on it is used only on the chains taken."""
    chains, want = [], {}
    for op in ops_named(module, "tt.broadcast"):
        text = str(ir.RankedTensorType(op.results[0].type).encoding)
        source = op.operands[0]
        if not isinstance(parse_layout(text), BlockedLayout) or \
                str(ir.RankedTensorType(source.type).encoding) == text:
            continue
        trial, loads = {}, {}
        if _broadcast_chain(ir, source, text, trial, loads) and trial and \
                all(want.get(v, t) == t for v, t in trial.items()):
            chains.append((op, trial, loads))
            want.update(trial)
    while chains:
        want = {v: t for _, trial, _ in chains for v, t in trial.items()}
        seeds = {op for op, _, _ in chains}

        def inside(use, want=want, seeds=seeds) -> bool:
            return use.owner in seeds or any(r in want for r in use.owner.results)

        kept = [c for c in chains if all(inside(u) for v in c[1] for u in v.uses)]
        if len(kept) == len(chains):
            break
        chains = kept
    if chains:
        apply_growth(ir, module, {v: t for _, trial, _ in chains for v, t in trial.items()})
        _convert_load_operands(ir, {ld: t for _, _, loads in chains for ld, t in loads.items()})


def _convert_load_operands(ir, loads_of: dict) -> None:
    """Each load of `loads_of` (load -> layout text) reads its pointers and mask in its
    new layout (the index arithmetic is made again there when lowered)."""
    for load, text in loads_of.items():
        for i, value in enumerate(list(load.operands)):
            if isinstance(value.type, ir.RankedTensorType) and \
                    str(ir.RankedTensorType(value.type).encoding) != text:
                t = ir.RankedTensorType(value.type)
                ty = ir.RankedTensorType.get(t.shape, t.element_type, ir.Attribute.parse(text))
                load.operands[i] = ir.Operation.create(
                    "ttg.convert_layout", results=[ty], operands=[value], loc=load.location,
                    ip=ir.InsertionPoint(load)).results[0]


def slice_layouts(module) -> None:
    """Apply the rewrites above to `module` (modules with a `tt.dot` are left as they
    are)."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        if ops_named(module, "tt.dot"):
            return
        _broadcast_sources(ir, module)
        _slice_reductions(ir, module)
        _slice_expanded_loads(ir, module)
