"""Rules for `tt.dot` (matrix product with accumulator) and `tt.histogram`.

`tt.dot` computes a @ b + c for [M, K] x [K, N] (or batched [B, M, K] x [B, K, N])
operands. Float inputs multiply exactly in float64 and accumulate there, then round
once to the result type. `input_precision` "tf32" first rounds fp32 inputs to tf32
(10 mantissa bits, to nearest even), as the tensor cores do; "ieee" is full fp32
precision. "tf32x3", "bf16x3" and "bf16x6" dots of fp32 into fp32 never arrive here: the
language layer has already split them into tf32 or bf16 dots (any other "tf32x3" dot is
taken at full precision). int8 inputs accumulate exactly and wrap to int32.
"""

from __future__ import annotations

import numpy as np

from tritonc.backends.interpreter.formats import round_to_tf32
from tritonc.backends.interpreter.registry import OpContext, impl
from tritonc.backends.interpreter.storage import as_float, format_of, shape_of

Array = np.ndarray


def _operand(x: Array, precision: str) -> Array:
    f = as_float(x)
    if precision == "tf32" and f.dtype == np.float32:
        f = round_to_tf32(f)
    return f.astype(np.float64)


@impl("tt.dot")
def dot(ctx: OpContext, a: Array, b: Array, c: Array) -> Array:
    if a.dtype.kind in "iub" and format_of(a) is None:
        product = np.matmul(a.astype(np.int64), b.astype(np.int64))
        return (product + c.astype(np.int64)).astype(np.int32 if c.dtype.itemsize <= 4 else c.dtype)
    precision = ctx.attr("input_precision") or "ieee"
    product = np.matmul(_operand(a, precision), _operand(b, precision))
    return product + as_float(c).astype(np.float64)


@impl("tt.histogram")
def histogram(ctx: OpContext, src: Array, mask: Array | None = None) -> Array:
    (bins,) = shape_of(ctx.result_type)
    values = src.astype(np.int64).ravel()
    keep = (values >= 0) & (values < bins)
    if mask is not None:
        keep &= np.broadcast_to(mask, src.shape).ravel()
    return np.bincount(values[keep], minlength=bins)[:bins]
