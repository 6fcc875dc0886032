"""Passes from TTIR to TTGIR: every tensor gets a layout encoding."""


def defining_block(value):
    """The block `value` is defined in: its own block for a block argument, else its
    defining op's."""
    from mlir import ir

    owner = value.owner
    return owner if isinstance(owner, ir.Block) else owner.operation.block


def within(op, loop) -> bool:
    """Whether `op` sits in `loop`'s body, at any depth."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent == loop:
            return True
        parent = parent.parent
    return False


def defined_in(ir, value, loop) -> bool:
    """Whether `value` is made in `loop`'s body (or is one of its arguments)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        op = owner.owner
        return op is not None and (op == loop or within(op, loop))
    return within(owner, loop)


def ops_named(module, name: str) -> list:
    """The ops of `module` called `name`, in walk order."""
    from mlir import ir

    found = []

    def visit(op):
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def combine_op(module, reduce) -> str | None:
    """The name of the one op of `reduce`'s combine function (`tt.reduce`, `tt.scan`), when
    the function is just that op on its two arguments (`arith.addf` for a sum), else
    None."""
    from mlir import ir

    symbol = ir.FlatSymbolRefAttr(reduce.attributes["combine"]).value
    for fn in module.body.operations:
        if fn.operation.name != "func.func" or \
                ir.StringAttr(fn.attributes["sym_name"]).value != symbol:
            continue
        block = fn.regions[0].blocks[0]
        ops = list(block.operations)
        if len(ops) != 2 or ops[1].name != "func.return":
            return None
        args = list(block.arguments)
        if len(args) != 2 or set(ops[0].operands) != set(args) or \
                list(ops[1].operands) != [ops[0].results[0]]:
            return None
        return ops[0].name
    return None
