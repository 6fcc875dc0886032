"""loop-unroll: the loops of `tl.range(..., loop_unroll_factor=k)` unrolled k times.

Takes TTIR whose `scf.for` ops may carry `tt.loop_unroll_factor = k`; gives TTIR in which
each such loop with k > 1 steps k times as far, its body holding k copies of the original
one after the other, followed by a loop over the iterations left (MLIR's scf unroller,
applied through the transform dialect's `transform.loop.unroll`). The attribute is gone
from every loop after the pass. Nested loops unroll innermost first, so the copies an
outer unroll makes of an inner loop are already unrolled.

Before (k = 2):
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
      %v = "tt.atomic_rmw"(%p, %i) ...
      scf.yield %s : i32
    } {tt.loop_unroll_factor = 2 : i32}
After:
    %m = ...                             (the bound of the whole pairs: lb + 2 * (trips / 2))
    %r0 = scf.for %i = %c0 to %m step %c2 iter_args(%a = %c0) -> (i32) : i32 {
      %v = "tt.atomic_rmw"(%p, %i) ...
      %v1 = "tt.atomic_rmw"(%p, %i1) ...  (%i1 = %i + 1)
      scf.yield %s1 : i32
    }
    %r = scf.for %i = %m to %n step %c1 iter_args(%a = %r0) -> (i32) : i32 { ... }

The unroller counts iterations as unsigned, so a loop's upper bound is first raised to
its lower bound (`arith.maxsi`): a loop that runs no iteration still runs none.
"""

from __future__ import annotations

from tritonc.passes.ttgir import ops_named

FACTOR = "tt.loop_unroll_factor"
_NOW = "tritonc.unroll_now"

_SEQUENCE = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
{steps}
    transform.yield
  }}
}}"""
_STEP = """    %loops{k} = transform.structured.match ops{{["scf.for"]}}
        attributes {{{now} = {k} : i32}} in %root : (!transform.any_op) -> !transform.any_op
    transform.loop.unroll %loops{k} {{factor = {k} : i64}} : !transform.any_op"""


def _factor(op) -> int:
    from mlir import ir

    return ir.IntegerAttr(op.attributes[FACTOR]).value


def _innermost(loops: list) -> list:
    """The loops of `loops` with no other loop of `loops` inside them."""
    from mlir import ir

    def has_marked_loop_inside(loop) -> bool:
        found = []

        def visit(inner):
            if inner.name == "scf.for" and inner != loop.operation and \
                    FACTOR in inner.attributes:
                found.append(inner)
            return ir.WalkResult.ADVANCE

        loop.operation.walk(visit)
        return bool(found)

    return [loop for loop in loops if not has_marked_loop_inside(loop)]


def loop_unroll(module) -> None:
    """Unroll every loop carrying `tt.loop_unroll_factor` (see the module docstring)."""
    with module.context:
        while _unroll_innermost(module):
            pass


def _unroll_innermost(module) -> bool:
    """Unroll the marked loops with no marked loop inside; whether any was."""
    from mlir import ir
    from mlir.dialects import arith
    from mlir.passmanager import PassManager

    loops = [op for op in ops_named(module, "scf.for") if FACTOR in op.attributes]
    for loop in [op for op in loops if _factor(op) <= 1]:
        del loop.attributes[FACTOR]
    loops = [op for op in loops if FACTOR in op.attributes]
    if not loops:
        return False
    factors = set()
    for loop in _innermost(loops):
        k = _factor(loop)
        factors.add(k)
        loop.attributes[_NOW] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), k)
        with ir.InsertionPoint(loop), loop.location:
            lower, upper = loop.operands[0], loop.operands[1]
            loop.operands[1] = arith.MaxSIOp(upper, lower).result
    steps = "\n".join(_STEP.format(k=k, now=_NOW) for k in sorted(factors))
    script = ir.Module.parse(_SEQUENCE.format(steps=steps))
    script.body.operations[0].move_before(module.body.operations[0])
    module.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
    PassManager.parse("builtin.module(transform-interpreter)").run(module.operation)
    module.body.operations[0].erase()
    del module.operation.attributes["transform.with_named_sequence"]
    for loop in ops_named(module, "scf.for"):
        if _NOW in loop.attributes:
            del loop.attributes[_NOW]
            if FACTOR in loop.attributes:
                del loop.attributes[FACTOR]
    return True
