"""while-to-for: a `while` loop that counts up to a bound is an `scf.for`.

Takes TTIR; gives TTIR in which each `scf.while` of the counted form below is an
`scf.for` from the counter's start to the bound, stepping as the body does, so that the
passes made for `for` loops (invariant code motion, the software pipeliner, the layout
passes) see it too. The form: the condition region holds `arith.cmpi slt` of one of its
arguments (the counter) against a bound (or `sgt` the other way round) and passes its
arguments on unchanged; the bound is defined outside the loop or computed in the
condition region by arith ops from such values alone (`while k < K - BLOCK_K`), which
then move before the loop (the condition region runs at least once, so they ran before
too); the body yields, for the counter, the counter plus a positive constant. Both loops
then run while the counter is below the bound, comparing as signed integers, and stop
with the same values. The counter stays an iteration argument (the loop's result for it
is the counter it stopped at); in the body it is the induction variable. Other `while`
loops are left as they are, and so is one with attributes (`while tl.condition(c,
disable_licm=True)`: no code motion for it).

Before (`k = 0; while k < K: acc = tl.dot(a, b, acc); k += 64`):
    %r:2 = scf.while (%acc = %zero, %k = %c0) : (tensor<...>, i32) -> (tensor<...>, i32) {
      %more = arith.cmpi slt, %k, %K : i32
      scf.condition(%more) %acc, %k : tensor<...>, i32
    } do {
    ^bb0(%acc: tensor<...>, %k: i32):
      ... %a (from %k) ...
      %d = "tt.dot"(%a, %b, %acc) ...
      %next = arith.addi %k, %c64 : i32
      scf.yield %d, %next : tensor<...>, i32
    }
After:
    %r:2 = scf.for %i = %c0 to %K step %c64 iter_args(%acc = %zero, %k = %c0)
        -> (tensor<...>, i32) : i32 {
      ... %a (from %i) ...
      %d = "tt.dot"(%a, %b, %acc) ...
      %next = arith.addi %i, %c64 : i32
      scf.yield %d, %next : tensor<...>, i32
    }
"""

from __future__ import annotations

from typing import NamedTuple

from tritonc.passes.ttgir import defined_in, ops_named

_SLT, _SGT = 2, 4  # arith.cmpi predicates


class Counted(NamedTuple):
    """The counter's position among the loop's values, its bound, its step, and the ops
    of the condition region that compute the bound."""

    index: int
    bound: object
    step: object
    bound_ops: list


def _positive_constant(ir, value) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    return isinstance(attr, ir.IntegerAttr) and ir.IntegerAttr(attr).value > 0


def counted(ir, loop) -> Counted | None:
    """The counter of `loop` (an scf.while) when it has the form above, else None."""
    if len(loop.attributes):  # `disable_licm=True`'s annotation: left as written
        return None
    before, after = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
    ops = [op.operation for op in before.operations]
    if len(ops) < 2 or ops[-2].name != "arith.cmpi" or ops[-1].name != "scf.condition":
        return None
    *bound_ops, compare, condition = ops
    if condition.operands[0] != compare.results[0] or \
            list(condition.operands)[1:] != list(before.arguments):
        return None
    made = set()
    for op in bound_ops:  # arith ops of values from outside the loop (or of each other)
        if not op.name.startswith("arith.") or len(op.regions) or any(
                defined_in(ir, v, loop) and v not in made for v in op.operands):
            return None
        made.update(op.results)
    predicate = ir.IntegerAttr(compare.attributes["predicate"]).value
    lhs, rhs = compare.operands
    if predicate == _SGT:
        lhs, rhs = rhs, lhs
    elif predicate != _SLT:
        return None
    if not (isinstance(lhs.owner, ir.Block) and lhs.owner == before
            and isinstance(lhs.type, ir.IntegerType)
            and (rhs in made or not defined_in(ir, rhs, loop))):
        return None
    index = ir.BlockArgument(lhs).arg_number
    body = [op.operation for op in after.operations]
    step_op = body[-1].operands[index].owner
    if isinstance(step_op, ir.Block) or step_op.name != "arith.addi":
        return None
    counter = after.arguments[index]
    a, b = step_op.operands
    step = b if a == counter else a if b == counter else None
    if step is None or not _positive_constant(ir, step):
        return None
    return Counted(index, rhs, step, bound_ops)


def while_to_for(module) -> None:
    """Rewrite every counted scf.while of `module` as an scf.for (see above)."""
    from mlir import ir
    from mlir.dialects import arith, scf

    with module.context:
        for loop in ops_named(module, "scf.while"):
            found = counted(ir, loop)
            if found is None:
                continue
            for op in found.bound_ops:
                op.move_before(loop)
            inits = list(loop.operands)
            with ir.InsertionPoint(loop), loop.location:
                step = arith.ConstantOp(found.step.type, found.step.owner.attributes["value"])
                new = scf.ForOp(inits[found.index], found.bound, step.result, inits)
            after = loop.regions[1].blocks[0]
            args = list(new.inner_iter_args)
            for old, arg in zip(after.arguments, args):
                old.replace_all_uses_with(arg)
            args[found.index].replace_all_uses_with(new.induction_variable)
            for op in [op.operation for op in after.operations]:
                new.body.append(op)
            for old, result in zip(loop.results, new.results):
                old.replace_all_uses_with(result)
            loop.erase()
