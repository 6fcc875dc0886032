"""`NumpyBuilder`: the `Builder` protocol computed with numpy, one program at a time.

The code generator walks a kernel once per grid point with this builder; because
`concrete` is True it runs `if`/`for`/`while` as Python control flow, so the builder
only ever sees straight-line ops on concrete values. Each op is vectorised over its
whole block, except that `map_elementwise` runs its scalar function on one group of
elements at a time (its branches may differ per element). Rules live in per-family
modules and are looked up by op name in `registry.RULES`; the grid point lives in the
builder instance (no global state).

Typical use by a launcher::

    memory = Memory()
    x = memory.register(x_array, "x_ptr")           # pointer handle of argument x_ptr
    builder = NumpyBuilder(memory)
    n = builder.constant(1024, tl.int32)            # a scalar argument
    for pid in np.ndindex(*grid):
        builder.set_grid(pid, grid)                 # (x, y, z), (gx, gy, gz)
        run_kernel_body(builder, x, n)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

import numpy as np

# importing the op modules fills the rule table
from tritonc.backends.interpreter import (  # noqa: F401
    arith_ops,
    block_ops,
    cast_ops,
    debug_ops,
    dot_ops,
    math_ops,
    memory_ops,
    shape_ops,
)
from tritonc.backends.interpreter.errors import InterpreterUnsupported
from tritonc.backends.interpreter.formats import decode, encode
from tritonc.backends.interpreter.memory import Memory
from tritonc.backends.interpreter.reduce_scan import reduce_along, scan_along
from tritonc.backends.interpreter.registry import RULES, OpContext
from tritonc.backends.interpreter.storage import (
    finish,
    format_of,
    scalar_of,
    shape_of,
    storage_of,
)
from tritonc.language.builder import Combine, Handle, MapBody
from tritonc.language.dtypes import base_type

_EMPTY: Mapping[str, Any] = {}


class NumpyBuilder:
    """Computes each op on numpy arrays; see the module docstring."""

    concrete = True

    def __init__(self, memory: Memory | None = None, *, stdout: TextIO | None = None) -> None:
        self.memory = memory if memory is not None else Memory()
        self.program_id: tuple[int, int, int] = (0, 0, 0)
        self.num_programs: tuple[int, int, int] = (1, 1, 1)
        self._stdout = stdout
        self._constants: dict[tuple[Any, ...], np.ndarray] = {}

    # -- the grid point ---------------------------------------------------------
    def set_grid(self, program_id: Sequence[int], num_programs: Sequence[int]) -> None:
        """Run the following ops as program `program_id` of a grid `num_programs`."""
        self.program_id = _pad3(program_id, 0)
        self.num_programs = _pad3(num_programs, 1)

    @property
    def stdout(self) -> TextIO:
        """Where `tt.print` writes (sys.stdout at the time of the call by default)."""
        return self._stdout if self._stdout is not None else sys.stdout

    # -- the Builder protocol ---------------------------------------------------------
    def constant(self, value: bool | int | float, ty: base_type) -> Handle:
        """A scalar of type `ty`, or a splatted block; read-only and cached."""
        key = (ty, type(value), repr(value))
        cached = self._constants.get(key)
        if cached is not None:
            return cached
        want = storage_of(ty)
        if want is None:
            raise InterpreterUnsupported(f"no constants of type {ty}")
        if want.metadata is not None:
            scalar = encode(np.float64(value), want.metadata["tt"]).view(want)
        elif want.kind == "b":
            scalar = np.array(bool(value))
        elif want.kind in "iu":
            bits = int(value) & ((1 << (8 * want.itemsize)) - 1)
            scalar = np.array(bits, dtype=f"u{want.itemsize}").view(want)
        else:
            with np.errstate(all="ignore"):
                scalar = np.array(value, dtype=np.float64).astype(want)
        out = np.broadcast_to(scalar, shape_of(ty)).copy().view(want)
        out.flags.writeable = False
        self._constants[key] = out
        return out

    def create(self, name: str, operands: Sequence[Handle | None],
               result_types: Sequence[base_type],
               attrs: Mapping[str, Any] | None = None) -> list[Handle]:
        """Compute op `name` on `operands`; return its results."""
        rule = RULES.get(name)
        if rule is None:
            raise InterpreterUnsupported(f"the interpreter has no rule for op {name}")
        ctx = OpContext(self, name, result_types, attrs if attrs is not None else _EMPTY)
        with np.errstate(all="ignore"):
            out = rule(ctx, *operands)
        n = len(result_types)
        if n == 0:
            return []
        if n == 1:
            return [finish(out, result_types[0])]
        return [finish(v, t) for v, t in zip(out, result_types, strict=True)]

    def reduce(self, operands: Sequence[Handle], axis: int, result_types: Sequence[base_type],
               combine: Combine) -> list[Handle]:
        """Reduce each operand along `axis` with `combine` (a log2(n)-deep tree)."""
        out = reduce_along(_stored_as(operands, result_types), axis, combine)
        return [finish(v, t) for v, t in zip(out, result_types, strict=True)]

    def scan(self, operands: Sequence[Handle], axis: int, reverse: bool,
             result_types: Sequence[base_type], combine: Combine) -> list[Handle]:
        """Inclusive scan of each operand along `axis` with `combine` (Hillis-Steele)."""
        out = scan_along(_stored_as(operands, result_types), axis, reverse, combine)
        return [finish(v, t) for v, t in zip(out, result_types, strict=True)]

    def map_elementwise(self, operands: Sequence[Handle], scalar_types: Sequence[base_type],
                        pack: int, body: MapBody) -> list[Handle]:
        """Run `body` on each group of `pack` elements in turn, in row-major order; where
        the count is not a multiple of `pack`, the last group repeats the final element
        and its surplus results are dropped."""
        flat = [finish(h, t).reshape(-1) for h, t in zip(operands, scalar_types, strict=True)]
        n = flat[0].size
        columns: list[list] = []
        result_types: list[base_type] = []
        for start in range(0, n, pack):
            picks = [min(start + k, n - 1) for k in range(pack)]
            results, result_types = body([f[i:i + 1].reshape(()) for f in flat for i in picks])
            columns = columns or [[] for _ in range(len(results) // pack)]
            for r, column in enumerate(columns):
                column += results[r * pack:r * pack + min(pack, n - start)]
        return [finish(np.stack(c).reshape(shape_of(t)), t)
                for c, t in zip(columns, result_types, strict=True)]

    def set_attr(self, handle: Handle, name: str, value: Any) -> None:
        """Compiler hints mean nothing to the interpreter."""

    def static_value(self, handle: Handle) -> Any:
        """The Python bool/int/float of a 0-d handle (encoded floats decoded); else None."""
        if not isinstance(handle, np.ndarray) or handle.ndim != 0:
            return None
        fmt = format_of(handle)
        if fmt is not None:
            return float(decode(handle, fmt))
        return handle.item()


def _stored_as(operands: Sequence[Handle], result_types: Sequence[base_type]) -> list[Handle]:
    """Operands in the storage of their element types: a cast between integers of one
    width keeps the source's numpy dtype (int64 for a u64 value), and mixing int64 with
    uint64 arrays inside a combine would compute in float64."""
    out = []
    for value, ty in zip(operands, result_types, strict=True):
        want = storage_of(scalar_of(ty))
        out.append(value.view(want) if value.dtype != want and value.dtype.kind in "iu"
                   and want.kind in "iu" and value.dtype.itemsize == want.itemsize else value)
    return out


def _pad3(values: Sequence[int], fill: int) -> tuple[int, int, int]:
    vals = [int(v) for v in values][:3]
    vals += [fill] * (3 - len(vals))
    return vals[0], vals[1], vals[2]
