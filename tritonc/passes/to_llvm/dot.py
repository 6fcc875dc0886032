"""Lowering of `tt.dot` with fused multiply-adds on the CUDA cores.

Both operands are staged in shared memory; each thread then runs one loop over K that
loads, per step, the A elements of the rows and the B elements of the columns its
result registers need (each once) and updates every accumulator register:

    acc[m, n] += a[m, k] * b[k, n]       (fp16/bf16/fp8 operands multiply in fp32,
                                          int8 in int32; fp32 in full precision)

This is the general path: any shape, any layout, batched (3-D) operands too. The tensor
core path (mma.sync) takes the shapes and types it supports.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.fp_convert import FORMATS, decode
from tritonc.passes.to_llvm.lowering import lowering
from tritonc.passes.to_llvm.shape import stage


def _widen(ctx: LoweringContext, value, elt_name: str, acc_ty):
    """An operand element in the accumulator's arithmetic type."""
    if elt_name.startswith("f8"):
        value = decode(ctx, value, FORMATS[elt_name])
    if value.type == acc_ty:
        return value
    if isinstance(acc_ty, ir.IntegerType):
        return ctx.value("arith.extsi", [value], acc_ty)
    if isinstance(value.type, ir.IntegerType):
        return ctx.value("arith.sitofp", [value], acc_ty)
    width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
    if width.get(str(value.type), 32) < width.get(str(acc_ty), 32):
        return ctx.value("arith.extf", [value], acc_ty)
    return ctx.value("arith.truncf", [value], acc_ty)


@lowering("tt.dot")
def lower_dot(ctx: LoweringContext, op) -> list:
    a, b, c = op.operands
    result = op.results[0]
    k_dim = ctx.shape(a.type)[-1]
    acc_ty = ctx.scalar_type(result.type)
    mul_ty = acc_ty if isinstance(acc_ty, ir.IntegerType) else ir.F32Type.get()
    a_name, b_name = str(ctx.element_type(a.type)), str(ctx.element_type(b.type))
    staged_a, staged_b = stage(ctx, [a, b])
    layout, shape = ctx.layout(result.type), ctx.shape(result.type)
    offsets = layout.register_offsets(shape)
    coords = ctx.coordinates(result.type)
    # the distinct rows (batch, m) and columns (batch, n) this thread's registers touch
    rows = {o[:-1]: coord[:-1] for o, coord in zip(offsets, coords)}
    cols = {o[:-2] + o[-1:]: coord[:-2] + coord[-1:] for o, coord in zip(offsets, coords)}
    row_keys, col_keys = list(rows), list(cols)
    inits = [r if r.type == mul_ty else _widen(ctx, r, str(r.type), mul_ty) for r in ctx.get(c)]

    def step(k, accs):
        a_vals = {key: _widen(ctx, staged_a.load(ctx, [*rows[key], k]), a_name, mul_ty)
                  for key in row_keys}
        b_vals = {}
        for key in col_keys:
            batch, n = cols[key][:-1], cols[key][-1]
            b_vals[key] = _widen(ctx, staged_b.load(ctx, [*batch, k, n]), b_name, mul_ty)
        out = []
        for o, acc in zip(offsets, accs):
            x, y = a_vals[o[:-1]], b_vals[o[:-2] + o[-1:]]
            if isinstance(mul_ty, ir.IntegerType):
                out.append(ctx.binop("arith.addi", acc, ctx.binop("arith.muli", x, y)))
            else:
                out.append(ctx.value("math.fma", [x, y, acc], mul_ty))
        return out

    accs = ctx.for_loop(0, k_dim, inits, step)
    if mul_ty != acc_ty:
        accs = [ctx.value("arith.truncf", [v], acc_ty) for v in accs]
    return [accs]
