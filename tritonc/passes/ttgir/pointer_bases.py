"""Which kernel arguments an address is computed from: the pipeliner's test that what a
loop stores cannot be what a later iteration of it loads, before it loads that early.

    %p = tt.splat %arg0; %q = tt.addptr %p, %offs   ->  pointer_bases(%q) = {0}
    scf.for ... iter_args(%ptrs = %q) { ... scf.yield (tt.advance %ptrs ...) }
                                                        ->  pointer_bases(%ptrs) = {0}

An address reaches its arguments through the address operands of the ops that compute it
(an offset moves a pointer within its tensor, it does not change which one) and through
the iteration arguments of `scf.for` loops (their initial and yielded values). A pointer
read from memory, made from an integer (`tt.int_to_ptr`) or yielded by any other region
(`scf.if`, `scf.while`) is UNKNOWN: it may be any argument. Two addresses of different
arguments are taken not to overlap, as a kernel's callers pass different tensors.
"""

from __future__ import annotations

from mlir import ir

UNKNOWN = -1  # a base the walk cannot name: any argument
_STORES = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_store",
           "tt.descriptor_reduce", "tt.descriptor_scatter")
_MAYBE_PURE = ("tt.extern_elementwise", "tt.elementwise_inline_asm")


def _is_address(ty) -> bool:
    text = str(ty)
    return "!tt.ptr" in text or "!tt.tensordesc" in text


def pointer_bases(value) -> set[int]:
    """The kernel arguments (numbers) the address `value` is computed from (see above)."""
    bases: set[int] = set()
    seen: set = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if isinstance(owner, ir.Block):
            parent = owner.owner.operation
            if parent.name in ("func.func", "tt.func"):
                if _is_address(v.type):
                    bases.add(v.arg_number)
            elif parent.name == "scf.for":
                if v.arg_number > 0:  # not the induction variable
                    stack.append(parent.operands[2 + v.arg_number])
                    stack.append(list(owner.operations)[-1].operands[v.arg_number - 1])
            else:
                bases.add(UNKNOWN)
            continue
        op = owner.operation
        if op.name in ("tt.load", "tt.int_to_ptr") or len(op.regions):
            bases.add(UNKNOWN)
            continue
        stack.extend(o for o in op.operands if _is_address(o.type))
    return bases


def stored_bases(block) -> set[int]:
    """The bases of every address an op of `block` (or of a region in it) may write; a
    call, or an extern or inline-asm op not marked pure, may write anything (UNKNOWN)."""
    bases: set[int] = set()
    for op in block.operations:
        op = op.operation
        if op.name in _STORES:
            bases |= pointer_bases(op.operands[0])
        elif op.name == "tt.call" or op.name in _MAYBE_PURE and not (
                "pure" in op.attributes and ir.BoolAttr(op.attributes["pure"]).value):
            bases.add(UNKNOWN)
        for region in op.regions:
            for inner in region.blocks:
                bases |= stored_bases(inner)
    return bases


def may_overlap(a: set[int], b: set[int]) -> bool:
    """Whether addresses of bases `a` may be addresses of bases `b`."""
    return bool(a and b) and (UNKNOWN in a or UNKNOWN in b or bool(a & b))
