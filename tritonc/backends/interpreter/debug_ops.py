"""Rules for debugging and hints: `tt.print`, `tt.assert`, `tt.assume` (and the scalar
`llvm.intr.assume`), `tt.barrier`.

`tt.print` writes one line per element, as the GPU's device_print does:
`pid (x, y, z) idx (  i,  j)<prefix>(operand k) <value>`, each index padded to the digits
of its dimension (`idx ()` for a scalar); the semantic layer has already shaped the
prefix (a leading space, a trailing ": "). "(operand k) " appears only when several
values are printed.
"""

from __future__ import annotations

import numpy as np

from tritonc.backends.interpreter.errors import DeviceAssertionError
from tritonc.backends.interpreter.formats import decode
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import format_of

Array = np.ndarray


def _formatter(value: Array, hex_: bool, signed: bool):
    """A function formatting one element of `value` like device printf would."""
    fmt = format_of(value)
    if hex_:
        width = 2 * value.dtype.itemsize
        bits = value.view(f"u{value.dtype.itemsize}") if value.dtype.kind != "b" \
            else value.astype(np.uint8)
        return bits, lambda v: f"0x{int(v):0{width}x}"
    if fmt is not None:
        return decode(value, fmt), lambda v: f"{float(v):f}"
    if value.dtype.kind == "f":
        return value, lambda v: f"{float(v):f}"
    if value.dtype.kind in "iu" and not signed:
        return value.view(f"u{value.dtype.itemsize}"), str
    if value.dtype.kind == "b":
        return value.astype(np.int32), str
    return value, str


@impl("tt.print")
def print_(ctx: OpContext, *args: Array) -> None:
    pid = "pid ({}, {}, {})".format(*ctx.builder.program_id)
    prefix = ctx.attr("prefix", "")
    signed = list(ctx.attr("is_signed", None) or [1] * len(args))
    out = ctx.builder.stdout
    if not args:
        print(f"{pid}{prefix}", file=out)
        return
    lines = []
    for k, arg in enumerate(args):
        values, fmt = _formatter(np.asarray(arg), bool(ctx.attr("hex")), bool(signed[k]))
        operand = f"(operand {k}) " if len(args) > 1 else ""
        widths = [len(str(d - 1)) for d in values.shape]
        for index in np.ndindex(values.shape):
            where = ", ".join(f"{i:{w}}" for i, w in zip(index, widths, strict=True))
            lines.append(f"{pid} idx ({where}){prefix}{operand}{fmt(values[index])}")
    print("\n".join(lines), file=out)


@impl("tt.assert")
def assert_(ctx: OpContext, condition: Array) -> None:
    cond = np.asarray(condition)
    if cond.all():
        return
    index = tuple(int(i) for i in np.argwhere(~cond.astype(bool))[0]) if cond.ndim else ()
    raise DeviceAssertionError(ctx.attr("message", "device assertion failed"),
                               pid=ctx.builder.program_id, index=index)


@impl("tt.assume")
@impl("llvm.intr.assume")
def assume(ctx: OpContext, condition: Array) -> None:
    """A hint for the optimiser; the interpreter does not check it."""


@impl("tt.barrier")
def barrier(ctx: OpContext) -> None:
    """Programs run one at a time, so there is nothing to wait for."""
