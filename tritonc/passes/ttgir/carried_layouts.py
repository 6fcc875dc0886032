"""carried-layouts: a loop that accumulates what it loads accumulates in the load's layout.

After coalesce, a load inside an `scf.for` whose addresses run along another dimension
than the default layout's (a column reduction: rows of a column-major walk) has the
coalesced layout, and its result is converted back to the blocked layout of the loop's
iteration arguments, a trip through shared memory and two barriers every iteration.
This pass gives the values that conversion feeds the load's layout instead, grown as
propagate-mma grows the mma layout (elementwise ops, broadcasts, reductions, the
iteration arguments, their inits and the loop's results): the conversion goes, the
accumulators take the load's layout, and index tiles the body makes from ranges are
made again in it. What the loop's results meet after the loop gets one conversion there.
Only conversions of a load in the same loop body whose value reaches that loop's
`scf.yield` through elementwise ops are seeds, and those of a tile converted on its way
to a dot (`software_pipeline.converted_dot`: int8 weights read down their columns,
`w.to(tl.float16)`): the conversions then compute in the layout the tile was loaded in
(a ring buffer reads back in 16-byte vectors, without bank conflicts), and the tile
changes layout once, into the dot's operand.

The addresses of such a load are the same case in reverse: a tile of pointers the loop
advances (`ptrs += BLOCK`, an iteration argument) is converted to the load's layout
every iteration, and a loop that must evaluate a copy's addresses ahead (software-pipeline)
cannot take that tile into its ring. A conversion of an iteration argument of its own
loop to the pointers of a load or store seeds the argument with the load's layout: the
loop carries the pointers in it, their `tt.addptr` and init follow, and the init's
index arithmetic is made in it before the loop (test:
`tests/filecheck/carried-layouts-pointers.mlir`).

Before (Inductor's argmin over dimension 0, 16 x 32 tiles, 4 warps):
    %acc = scf.for ... iter_args(%a = %inf) -> (tensor<16x32xf32, #blocked>) {
      %x = "tt.load"(%p, %m, %o) : (...) -> tensor<16x32xf32, #col>
      %v = "ttg.convert_layout"(%x) : (tensor<16x32xf32, #col>) -> tensor<16x32xf32, #blocked>
      %lt = arith.cmpf olt, %a, %v : tensor<16x32xf32, #blocked>
      %n = arith.select %lt, %a, %v : tensor<16x32xi1, #blocked>, tensor<16x32xf32, #blocked>
      scf.yield %n : tensor<16x32xf32, #blocked>
    }
After:
    %acc = scf.for ... iter_args(%a = %inf) -> (tensor<16x32xf32, #col>) {
      %x = "tt.load"(%p, %m, %o) : (...) -> tensor<16x32xf32, #col>
      %lt = arith.cmpf olt, %a, %x : tensor<16x32xf32, #col>
      %n = arith.select %lt, %a, %x : tensor<16x32xi1, #col>, tensor<16x32xf32, #col>
      scf.yield %n : tensor<16x32xf32, #col>
    }
with #blocked = #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]> and
#col = #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>.
"""

from __future__ import annotations

from tritonc.passes.ttgir.layouts import BlockedLayout, parse_layout
from tritonc.passes.ttgir.propagate_mma import (
    Growth,
    _encoding,
    _is_elementwise,
    _ops,
    apply_growth,
    enclosing_loop,
)
from tritonc.passes.ttgir.software_pipeline import converted_dot

_REACH = 16  # ops between the conversion and the yield


def _reaches_yield(ir, value, loop) -> bool:
    """Whether `value` flows into `loop`'s yield through at most `_REACH` elementwise ops
    (each value looked at once)."""
    frontier, seen = [value], set()
    for _ in range(_REACH):
        following = []
        for v in frontier:
            for use in v.uses:
                user = use.owner
                if user.name == "scf.yield" and user.parent == loop:
                    return True
                if _is_elementwise(ir, user):
                    following += [r for r in user.results if r not in seen]
                    seen.update(user.results)
        frontier = following
    return False


def _carried_address(ir, op) -> bool:
    """Whether conversion `op` takes an iteration argument of its loop (a tile of
    pointers the loop advances) to the addresses of a load or store in that loop."""
    source = op.operands[0]
    loop = enclosing_loop(op)
    if not isinstance(source.owner, ir.Block) or loop is None or \
            source.owner.owner != loop or op.parent != loop:
        return False
    return any(use.owner.name in ("tt.load", "tt.store") and use.operand_number == 0
               for use in op.results[0].uses)


def _seed(ir, op) -> str | None:
    """The load's layout when `op` is a conversion the rewrite above removes."""
    source = op.operands[0]
    owner = source.owner
    if isinstance(owner, ir.Block) or owner.name != "tt.load":
        return None
    loop = enclosing_loop(op)
    if loop is None or owner.parent != op.parent:
        return None
    text, target = _encoding(ir, source), _encoding(ir, op.results[0])
    if text is None or target is None or not all(
            isinstance(parse_layout(t), BlockedLayout) for t in (text, target)):
        return None
    return text if _reaches_yield(ir, op.results[0], loop) or converted_dot(owner) else None


def carried_layouts(module) -> None:
    """Apply the rewrite above to `module` in place."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        growth = Growth(ir)
        for op in _ops(ir, module):
            if op.name == "ttg.convert_layout":
                if _carried_address(ir, op):
                    growth.assign(op.operands[0], _encoding(ir, op.results[0]))
                    continue
                text = _seed(ir, op)
                if text is not None:
                    growth.assign(op.results[0], text)
        want = growth.grow()
        if want:
            apply_growth(ir, module, want, remake_chains=True)
