"""cleanup: merge duplicate pure tt/ttg ops and erase unused ones (CSE and DCE), then let
upstream canonicalize and CSE tidy the arith/math/scf ops around them.

IRDL-defined ops carry no traits, so upstream CSE and canonicalize treat every tt and
ttg op as having unknown side effects: two identical `tt.splat`s both survive, and a
`tt.make_range` nobody reads stays. This pass does for them what those passes do for
ops with the `Pure` trait, reading purity from the op tables (`OpDef.pure`, and the
`pure` attribute of `tt.extern_elementwise` / `tt.elementwise_inline_asm`).

Takes TTIR or TTGIR; gives the same IR with

- every pure op (tt/ttg, arith, math) that repeats an earlier one (same name, operands,
  attributes and result types) in a block that the earlier one dominates (the same
  block, or a region nested in it) replaced by the earlier one;
- every pure op whose results are unused erased;
- a `tt.trans` of a `tt.trans` taken from the inner one's source with the composed
  order, or replaced by that source when the two cancel (`x.T.T`);
- then upstream `canonicalize, cse` over the whole module; repeated until nothing changes.

Before:
    %a = "tt.splat"(%x) : (i32) -> tensor<128xi32>
    %b = "tt.splat"(%x) : (i32) -> tensor<128xi32>
    %r = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %c = arith.addi %a, %b : tensor<128xi32>
After:
    %a = "tt.splat"(%x) : (i32) -> tensor<128xi32>
    %c = arith.addi %a, %a : tensor<128xi32>
"""

from __future__ import annotations

from tritonc.dialects import tt, ttg

NAME = "cleanup"
PURE_OPS = frozenset(op.name for op in tt.OPS + ttg.OPS if op.pure)
PURE_IF_MARKED = frozenset({"tt.extern_elementwise", "tt.elementwise_inline_asm"})
# upstream ops with the Pure trait, merged here too so that one walk follows a chain of
# duplicates through tt and arith ops alike
PURE_PREFIXES = ("arith.", "math.")
ISOLATED = frozenset({"builtin.module", "func.func", "gpu.module", "gpu.func", "llvm.func"})
MAX_ROUNDS = 6


def is_pure(op) -> bool:
    """Whether an op has no memory effects: tt/ttg ops by their op table entry, and
    arith and math ops (all pure)."""
    name = op.name
    if name in PURE_OPS or name.startswith(PURE_PREFIXES):
        return True
    if name in PURE_IF_MARKED and "pure" in op.attributes:
        return str(op.attributes["pure"]) == "true"
    return False


def _key(op) -> tuple:
    named = op.attributes
    attrs = tuple(sorted((named[i].name, str(named[i].attr)) for i in range(len(named))))
    return (op.name, tuple(op.operands), tuple(str(r.type) for r in op.results), attrs)


def _cse_block(block, scope: dict, merged: list) -> None:
    for view in list(block.operations):
        op = view.operation
        if is_pure(op) and not len(list(op.regions)):
            key = _key(op)
            earlier = scope.get(key)
            if earlier is not None:
                for old, new in zip(op.results, earlier.results):
                    old.replace_all_uses_with(new)
                op.erase()
                merged.append(key[0])
                continue
            scope[key] = op
        for region in op.regions:
            for inner in region.blocks:
                _cse_block(inner, {} if op.name in ISOLATED else dict(scope), merged)


def _fold_transposes(module) -> None:
    from mlir import ir

    found = []

    def visit(op):
        if op.name == "tt.trans" and not isinstance(op.operands[0].owner, ir.Block) and \
                op.operands[0].owner.name == "tt.trans":
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for outer in found:
        _fold_transpose(ir, outer)


def _fold_transpose(ir, outer) -> None:
    with outer.context:
        inner = outer.operands[0].owner
        source, result = inner.operands[0], outer.results[0]
        order = [list(ir.DenseI32ArrayAttr(inner.attributes["order"]))[i]
                 for i in ir.DenseI32ArrayAttr(outer.attributes["order"])]
        if order == sorted(order) and source.type == result.type:
            result.replace_all_uses_with(source)
        elif ir.RankedTensorType(result.type).encoding is None:
            outer.operands[0] = source
            outer.attributes["order"] = ir.DenseI32ArrayAttr.get(order)


def _pure_ops(module) -> list:
    from mlir import ir

    found = []

    def visit(op):
        if is_pure(op.operation):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def erase_unused(module) -> int:
    """Erase every pure op whose results nothing uses, until none is left; how many."""
    erased = 0
    while True:
        dead = [op for op in reversed(_pure_ops(module))
                if all(not list(r.uses) for r in op.results)]
        if not dead:
            return erased
        for op in dead:
            if all(not list(r.uses) for r in op.results):
                op.erase()
                erased += 1


def _count_ops(module) -> int:
    from mlir import ir

    count = [0]

    def visit(_):
        count[0] += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count[0]


def cleanup(module, upstream: bool = True) -> int:
    """Run the pass on `module` (an `mlir.ir.Module`) in place; the number of ops it
    removed. `upstream=False` leaves out canonicalize and CSE (this pass's own part only)."""
    from mlir.passmanager import PassManager

    before = _count_ops(module)
    size = before
    for _ in range(MAX_ROUNDS):
        merged: list = []
        for region in module.operation.regions:
            for block in region.blocks:
                _cse_block(block, {}, merged)
        _fold_transposes(module)
        erase_unused(module)
        if upstream:
            PassManager.parse("builtin.module(canonicalize, cse)",
                              context=module.context).run(module.operation)
        now = _count_ops(module)
        if now == size:
            break
        size = now
    return before - _count_ops(module)
