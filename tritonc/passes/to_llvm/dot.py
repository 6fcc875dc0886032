"""Lowering of `tt.dot`: on the tensor cores (mma.sync) or with fused multiply-adds.

**Tensor cores.** A dot whose result has the mma layout (see passes/ttgir/mma_layouts.py)
stages A and B in shared memory, and each warp then feeds `mma.sync.aligned.m16n8k16`
for every 16 x 8 tile of its block and every 16-deep step of K. Fragments (lane =
4 * group + t): A holds rows group and group + 8, columns 2t, 2t + 1, 2t + 8, 2t + 9 of
its 16 x 16 slice (pairs of halves, one 32-bit register each); B holds rows 2t, 2t + 1,
2t + 8, 2t + 9 of column group; the accumulator is the mma layout itself.

**Fused multiply-adds.** Every other dot.

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
from tritonc.passes.ttgir.layouts import MmaLayout


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


def _cmp_free_shift(ctx: LoweringContext, value, bits: int):
    return ctx.binop("arith.shrui", value, ctx.i32(bits)) if bits else value


def _mma(ctx: LoweringContext, op) -> list:
    a, b, c = op.operands
    result = op.results[0]
    layout = ctx.layout(result.type)
    m_dim, n_dim = ctx.shape(result.type)
    k_dim = ctx.shape(a.type)[1]
    kind = str(ctx.element_type(a.type))
    staged_a, staged_b = stage(ctx, [a, b])
    i32, i16, f32 = ctx.i32_type(), ir.IntegerType.get_signless(16), ir.F32Type.get()
    wm, _ = layout.warps_per_cta
    bm, bn = layout.warp_block((m_dim, n_dim))
    log_wm = wm.bit_length() - 1
    warp_m = ctx.binop("arith.andi", ctx.warp, ctx.i32(wm - 1))
    warp_n = _cmp_free_shift(ctx, ctx.warp, log_wm)
    group = ctx.binop("arith.shrui", ctx.lane, ctx.i32(2))
    pair = ctx.binop("arith.muli", ctx.binop("arith.andi", ctx.lane, ctx.i32(3)), ctx.i32(2))
    row0 = ctx.binop("arith.addi", ctx.binop("arith.muli", warp_m, ctx.i32(bm)), group)
    col0 = ctx.binop("arith.addi", ctx.binop("arith.muli", warp_n, ctx.i32(bn)), group)

    def a_word(row_off: int, col_off: int, kk: int):
        # two consecutive halves of a row of A: one aligned 32-bit load
        row = ctx.binop("arith.addi", row0, ctx.i32(row_off))
        col = ctx.binop("arith.addi", pair, ctx.i32(kk * 16 + col_off))
        index = ctx.binop("arith.addi", ctx.binop("arith.muli", row, ctx.i32(k_dim // 2)),
                          ctx.binop("arith.shrui", col, ctx.i32(1)))
        return ctx.value("llvm.load", [ctx.smem_ptr(index, i32, staged_a.offset)], i32)

    def b_half(k_off: int, n_off: int, kk: int):
        k = ctx.binop("arith.addi", pair, ctx.i32(kk * 16 + k_off))
        n = ctx.binop("arith.addi", col0, ctx.i32(n_off))
        index = ctx.binop("arith.addi", ctx.binop("arith.muli", k, ctx.i32(n_dim)), n)
        bits = ctx.value("llvm.load", [ctx.smem_ptr(index, i16, staged_b.offset)], i16)
        return ctx.value("arith.extui", [bits], i32)

    def b_word(k_off: int, n_off: int, kk: int):
        lo, hi = b_half(k_off, n_off, kk), b_half(k_off + 1, n_off, kk)
        return ctx.binop("arith.ori", lo, ctx.binop("arith.shli", hi, ctx.i32(16)))

    accs = list(ctx.get(c))
    n_tiles = bn // 8
    asm = (f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32 "
           "{$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};")
    struct = ir.Type.parse("!llvm.struct<(f32, f32, f32, f32)>")
    for kk in range(k_dim // 16):
        a_frags = [[a_word(i * 16 + r, cc, kk) for cc in (0, 8) for r in (0, 8)]
                   for i in range(bm // 16)]
        b_frags = [[b_word(0, j * 8, kk), b_word(8, j * 8, kk)] for j in range(n_tiles)]
        for i, a_frag in enumerate(a_frags):
            for j, b_frag in enumerate(b_frags):
                base = (i * n_tiles + j) * 4
                out = ctx.value("llvm.inline_asm", [*a_frag, *b_frag, *accs[base:base + 4]],
                                struct, {"asm_string": ir.StringAttr.get(asm),
                                         "constraints": ir.StringAttr.get(
                                             "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f")})
                for q in range(4):
                    accs[base + q] = ctx.value("llvm.extractvalue", [out], f32,
                                               {"position": ir.DenseI64ArrayAttr.get([q])})
    return [accs]


@lowering("tt.dot")
def lower_dot(ctx: LoweringContext, op) -> list:
    if isinstance(ctx.layout(op.results[0].type), MmaLayout):
        return _mma(ctx, op)
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
