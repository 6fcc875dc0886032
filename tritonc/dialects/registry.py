"""Loads the tt and ttg dialects (IRDL, generated from their op tables) into a context."""

from __future__ import annotations

import functools

from tritonc.dialects import tt, ttg
from tritonc.dialects.spec import to_irdl


@functools.cache
def irdl_source() -> str:
    """The IRDL module declaring every tritonc dialect."""
    return "\n".join(
        [
            "module {",
            to_irdl("tt", tt.TYPES, tt.OPS),
            to_irdl("ttg", ttg.TYPES + ttg.ATTRS, ttg.OPS, ttg.CONSTRAINTS),
            "}",
        ]
    )


def load_dialects(ctx) -> None:
    """Register tt and ttg in `ctx` (an `mlir.ir.Context`)."""
    from mlir import ir
    from mlir.dialects import irdl

    irdl.load_dialects(ir.Module.parse(irdl_source(), ctx))
