"""Passes from TTIR to TTGIR: every tensor gets a layout encoding."""


def defining_block(value):
    """The block `value` is defined in: its own block for a block argument, else its
    defining op's."""
    from mlir import ir

    owner = value.owner
    return owner if isinstance(owner, ir.Block) else owner.operation.block


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
