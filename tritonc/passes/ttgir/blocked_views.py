"""blocked-views: reshape, trans, split and join of blocked tensors move no data where that
saves moving it elsewhere.

assign-layouts gives every shape its own default layout, so a view op between two shapes
(a tile reshaped to pairs and split, the halves joined and reshaped back) usually finds
its result's layout placing elements in other threads than its operand's, and the
lowering exchanges the tile through shared memory. For each such view op whose operands
are blocked, this pass tries the result layout under which no element moves
(`view_layouts.result_layout`, a blocked layout where one exists), grown to the ops
around it as propagate-mma grows the mma layout (elementwise ops, reductions,
expand_dims, broadcasts, loops and further views; loads and stores keep their layouts and
get a conversion); it keeps the change when the bytes moved between threads (conversions
between different placements, view ops that are not free; inside a loop counted 8 times)
go down, on a copy of the module first.

Before (rotary embedding of interleaved pairs, 16 x 128 fp32, 4 warps):
    %x = "tt.load"(...) : (...) -> tensor<16x128xf32, #b2>
    %r = "tt.reshape"(%x) : (tensor<16x128xf32, #b2>) -> tensor<16x64x2xf32, #b3>
    %a, %b = "tt.split"(%r) : (tensor<16x64x2xf32, #b3>) -> tensor<16x64xf32, #h>, ...
    ...
    %j = "tt.join"(%c, %d) : (tensor<16x64xf32, #h>, ...) -> tensor<16x64x2xf32, #b3>
    %y = "tt.reshape"(%j) : (tensor<16x64x2xf32, #b3>) -> tensor<16x128xf32, #b2>
After:
    %r = "tt.reshape"(%x) : (tensor<16x128xf32, #b2>) -> tensor<16x64x2xf32, #v3>
    %a, %b = "tt.split"(%r) : (tensor<16x64x2xf32, #v3>) -> tensor<16x64xf32, #h>, ...
    %j = "tt.join"(%c, %d) : (tensor<16x64xf32, #h>, ...) -> tensor<16x64x2xf32, #v3>
    %y = "tt.reshape"(%j) : (tensor<16x64x2xf32, #v3>) -> tensor<16x128xf32, #b2>
with #b2 = #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>,
#b3 = #ttg.blocked<[1, 1, 2], [1, 32, 1], [2, 2, 1], [2, 1, 0]>,
#v3 = #ttg.blocked<[1, 4, 2], [2, 16, 1], [4, 1, 1], [2, 1, 0]> and
#h = #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>: the four views stay in registers.
"""

from __future__ import annotations

import math

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.ttgir.layouts import BlockedLayout, parse_layout
from tritonc.passes.ttgir.propagate_mma import (
    Growth,
    _encoding,
    _ops,
    _same_place,
    _view_layout,
    apply_growth,
    enclosing_loop,
)
from tritonc.passes.ttgir.view_layouts import VIEW_OPS

_LOOP_WEIGHT = 8


def _alike(ir, a, b) -> bool:
    """Whether tensors `a` and `b` (of one shape) sit in the same threads and registers."""
    return _same_place(ir, parse_layout(_encoding(ir, a)), parse_layout(_encoding(ir, b)), a)


def _of_tensors(ir, op) -> bool:
    """Whether every operand and result of `op` is a tensor (a split may give scalars)."""
    return all(isinstance(v.type, ir.RankedTensorType) for v in (*op.operands, *op.results))


def _free(ir, op) -> bool:
    """Whether view op `op` leaves every element where its operands hold it (one between
    scalars and tensors counts as free: no layout of its could change that)."""
    if not _of_tensors(ir, op):
        return True
    if not all(_alike(ir, v, op.operands[0]) for v in op.operands):
        return False
    want = _view_layout(ir, op, _encoding(ir, op.operands[0]), forward=True)
    result = op.results[0]
    return _same_place(ir, want, parse_layout(_encoding(ir, result)), result)


def _bytes(ir, value) -> int:
    t = ir.RankedTensorType(value.type)
    return math.prod(t.shape) * element_bytes(t.element_type)


def moved_bytes(ir, module) -> int:
    """The bytes the module's conversions and view ops move between threads, those inside
    loops counted `_LOOP_WEIGHT` times."""
    total = 0
    for op in _ops(ir, module):
        if op.name == "ttg.convert_layout":
            moves = not _alike(ir, op.operands[0], op.results[0])
        elif op.name in VIEW_OPS:
            moves = not _free(ir, op)
        else:
            continue
        if moves:
            weight = _LOOP_WEIGHT if enclosing_loop(op) is not None else 1
            total += weight * _bytes(ir, op.results[0])
    return total


def _seed_layout(ir, op) -> str | None:
    """The layout `op`'s results take so that it moves nothing, when its operands are
    blocked and it moves data now."""
    if not _of_tensors(ir, op):
        return None
    text = _encoding(ir, op.operands[0])
    if text is None or not isinstance(parse_layout(text), BlockedLayout) or _free(ir, op):
        return None
    if any(_encoding(ir, v) != text for v in op.operands):
        return None
    want = _view_layout(ir, op, text, forward=True)
    return None if want is None else want.attr_text()


def _grow(ir, module, index: int) -> bool:
    """Grow and apply the layout of the `index`-th view op of `module`; False if none."""
    op = [o for o in _ops(ir, module) if o.name in VIEW_OPS][index]
    text = _seed_layout(ir, op)
    if text is None:
        return False
    growth = Growth(ir)
    for r in op.results:
        growth.assign(r, text)
    want = growth.grow()
    if not want:
        return False
    apply_growth(ir, module, want, remake_chains=True)
    return True


def blocked_views(module) -> None:
    """Apply the rewrite above to `module` in place."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        views = [o for o in _ops(ir, module) if o.name in VIEW_OPS]
        moved = None  # measured once some view can take a free layout
        for index, op in enumerate(views):
            if _seed_layout(ir, op) is None:
                continue
            if moved is None:
                moved = moved_bytes(ir, module)
            trial = ir.Module.parse(str(module))
            if not _grow(ir, trial, index):
                continue
            after = moved_bytes(ir, trial)
            if after < moved:
                _grow(ir, module, index)
                moved = after
