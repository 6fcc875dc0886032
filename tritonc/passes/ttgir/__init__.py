"""Passes from TTIR to TTGIR: every tensor gets a layout encoding."""


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
