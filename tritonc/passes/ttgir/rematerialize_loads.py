"""rematerialize-loads: a small tensor loaded in one layout and converted to another is
loaded in the other.

In: TTGIR after the layout passes, where a tensor of fewer elements than the CTA has
threads (a row of scales, a block of log-sum-exps) is loaded in the layout coalesce gave
it and converted, inside a loop, to the layout its user computes in: every iteration a
trip through shared memory between two barriers. Out: the load itself takes the
converted layout (its pointers, mask and other value follow, made again from their
ranges and splats), and the conversion goes. Threads that hold the same element load it
each; with fewer elements than threads the extra loads hit the same cache lines.

Only loads of pointer tensors in loops, not in a ring (`ttg.pipelined`), whose every user
is a conversion to the same layout; the layout spreads back through what the loop makes
and the pointers it carries (never to a value another op of the loop reads in the old
layout, which would need a conversion of its own there); what it takes from outside the
loop is made again in place when it is a chain of ranges and splats (LLVM hoists that
arithmetic), else converted once, before the loop (a carried pointer's init with it).

Before (4-bit weights dequantized in the registers mma.sync reads, 4 warps):
    %s = "tt.load"(%ptrs) : (tensor<64x!tt.ptr<f16>, #blocked1>) -> tensor<64xf16, #blocked1>
    %c = "ttg.convert_layout"(%s) : (...) -> tensor<64xf16, #ttg.slice<0, #dot_b>>
    %e = "tt.expand_dims"(%c) {axis = 0 : i32} : (...) -> tensor<1x64xf16, #dot_b>
After:
    %p = "tt.addptr"(%splat, %offs) : (...) -> tensor<64x!tt.ptr<f16>, #ttg.slice<0, #dot_b>>
    %s = "tt.load"(%p) : (...) -> tensor<64xf16, #ttg.slice<0, #dot_b>>
    %e = "tt.expand_dims"(%s) {axis = 0 : i32} : (...) -> tensor<1x64xf16, #dot_b>
with #dot_b = #ttg.dot_op<1 : i64, #ttg.mma<[1, 4]>>.
"""

from __future__ import annotations

from tritonc.passes.ttgir import defined_in, within
from tritonc.passes.ttgir.layouts import LinearEncoding, parse_layout
from tritonc.passes.ttgir.propagate_mma import (
    Growth,
    _chain,
    _ops,
    apply_growth,
    enclosing_loop,
)
from tritonc.passes.ttgir.software_pipeline import PIPELINED


def _candidate(ir, convert, threads: int):
    """The load `convert` converts, when it may be loaded in the converted layout: in a
    loop, not in a ring, of fewer elements than threads, every user a conversion to the
    same layout, not a view's linear layout."""
    source = convert.operands[0]
    load = source.owner
    if isinstance(load, ir.Block) or load.name != "tt.load" or PIPELINED in load.attributes:
        return None
    if enclosing_loop(load) is None or not isinstance(load.operands[0].type,
                                                      ir.RankedTensorType):
        return None
    numel = 1
    for extent in ir.RankedTensorType(source.type).shape:
        numel *= extent
    target = convert.results[0].type
    if isinstance(parse_layout(str(ir.RankedTensorType(target).encoding)), LinearEncoding):
        return None  # a view's layout: its ranges need not be made again in it
    if numel >= threads or any(use.owner.name != "ttg.convert_layout" or
                               use.owner.results[0].type != target for use in source.uses):
        return None
    return load


def _loop_growth(ir, load, text: str) -> dict | None:
    """The values in `load`'s loop that change layout when it is loaded in `text` (back
    through its pointers, mask and other value; pointers the loop carries take it with
    their slot of the loop, whose init converts before it), or None when one of them is
    also read in the loop by an op that keeps its layout (it would need a conversion
    there)."""
    loop = enclosing_loop(load)
    growth = Growth(ir, loads=frozenset([load.results[0]]))
    growth.assign(load.results[0], text)
    grown = {v: t for v, t in growth.grow(forward=False).items()
             if defined_in(ir, v, loop) or _result_of(ir, v, loop)}
    for value in grown:
        for use in value.uses:
            user = use.owner
            if user.name == "ttg.convert_layout" and value == load.results[0]:
                continue
            if user.results and all(r in grown for r in user.results):
                continue
            if user.name == "scf.yield" and user.parent.name == "scf.for" and \
                    user.parent.results[use.operand_number] in grown:
                continue
            if not within(user, loop) or _chain(ir, value):
                continue  # a conversion after the loop, or the chain made again
            return None
    return grown


def _result_of(ir, value, loop) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner == loop


def rematerialize_loads(module) -> None:
    """Apply the rewrite above to `module` in place."""
    from mlir import ir

    from tritonc.passes.ttgir.convert_to_ttgir import module_options

    options = module_options(module)
    threads = options.num_warps * 32
    with module.context, ir.Location.unknown():
        want: dict = {}
        for op in _ops(ir, module):
            if op.name != "ttg.convert_layout" or op.operands[0] in want:
                continue
            load = _candidate(ir, op, threads)
            if load is None:
                continue
            grown = _loop_growth(ir, load, str(ir.RankedTensorType(op.results[0].type).encoding))
            if grown is not None and all(want.get(v, t) == t for v, t in grown.items()):
                want.update(grown)
        if want:
            apply_growth(ir, module, want, remake_chains=True, hoist_invariants=True)
