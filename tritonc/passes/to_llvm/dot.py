"""Lowering of `tt.dot`: on the tensor cores (wgmma, see wgmma.py, or mma.sync) or with
fused multiply-adds.

**Tensor cores.** A dot whose result has the mma layout (see passes/ttgir/mma_layouts.py)
takes A from registers (`#ttg.dot_op<0, mma>`: already the fragments) or, like B, from
shared memory (a pipelined ring buffer, else staged there), and each warp then feeds
`mma.sync.aligned.m16n8k16` for every 16 x 8 tile of its block and every 16-deep step of
K. Fragments (lane = 4 * group + t): A holds rows group and group + 8, columns 2t,
2t + 1, 2t + 8, 2t + 9 of its 16 x 16 slice (pairs of halves, one 32-bit register
each); B holds rows 2t, 2t + 1, 2t + 8, 2t + 9 of column group; the accumulator is the
mma layout itself (fp32, or fp16 pairs in one register each for an fp16 accumulator).
fp32 operands with `input_precision="tf32"` take `mma.sync.aligned.m16n8k8` on tf32
instead, int8 ones `m16n8k32` into int32 and fp8 ones (sm_89 on) `m16n8k32` into fp32,
read from their staged copies (`_mma_elementwise`).

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

from collections.abc import Callable
from dataclasses import dataclass, replace

from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.fp_convert import FORMATS, NATIVE, NATIVE_ARCH, decode, native_decode
from tritonc.passes.to_llvm.fragments import register_fragments
from tritonc.passes.to_llvm.lowering import lowering
from tritonc.passes.to_llvm.shape import Staged, stage
from tritonc.passes.to_llvm.tile_index import swizzled_index
from tritonc.passes.to_llvm.wgmma import imprecise_chunk, lower_warpgroup_dot, warpgroup_dot
from tritonc.passes.ttgir.layouts import DotOperandLayout, MmaLayout


def _widen(ctx: LoweringContext, value, elt_name: str, acc_ty):
    """An operand element in the accumulator's arithmetic type."""
    if elt_name in NATIVE and ctx.arch >= NATIVE_ARCH:
        value = ctx.value("arith.extf", [native_decode(ctx, [value], NATIVE[elt_name])[0]],
                          ir.F32Type.get())
    elif elt_name.startswith("f8"):
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


def _in_shared_memory(ctx: LoweringContext, operands: list) -> list:
    """The operands row-major in shared memory: the pipelined ring buffer where a
    software-pipelined loop put them, else staged from registers."""
    out = {v: Staged(None, None, ctx.shape(v.type), ctx.smem_operands[v], None, True)
           for v in operands if v in ctx.smem_operands}
    rest = [v for v in operands if v not in out]
    out.update(zip(rest, stage(ctx, rest) if rest else []))
    return [out[v] for v in operands]


def _mma(ctx: LoweringContext, op) -> list:
    a, b, c = op.operands
    result = op.results[0]
    layout = ctx.layout(result.type)
    m_dim, n_dim = ctx.shape(result.type)
    k_dim = ctx.shape(a.type)[1]
    kind = str(ctx.element_type(a.type))
    in_registers = isinstance(ctx.layout(a.type), DotOperandLayout)
    b_in_registers = isinstance(ctx.layout(b.type), DotOperandLayout)
    bytewise = kind in NATIVE or kind == "i8"  # fragments of 4 bytes along K
    staged = [v for v, held in ((a, in_registers), (b, b_in_registers)) if not held]
    if in_registers:
        fragments = register_fragments(ctx, a)
    if b_in_registers:
        b_held = register_fragments(ctx, b)
    if bytewise and len(staged) == 2:  # B as N rows of K: a fragment's 4 bytes adjacent
        staged_a, staged_b = stage(ctx, [a, b], transposed=(b,))
    else:
        found = dict(zip(staged, _in_shared_memory(ctx, staged)))
        staged_a, staged_b = found.get(a), found.get(b)
    wm, _ = layout.warps_per_cta
    bm, bn = layout.warp_block((m_dim, n_dim))
    log_wm = wm.bit_length() - 1
    warp_m = ctx.binop("arith.andi", ctx.warp, ctx.i32(wm - 1))
    warp_n = _cmp_free_shift(ctx, ctx.warp, log_wm)
    warp_row = ctx.binop("arith.muli", warp_m, ctx.i32(16))  # its tiles row_step apart
    warp_col = ctx.binop("arith.muli", warp_n, ctx.i32(bn))
    if 16 * wm > m_dim:  # warps holding copies of a tile compute it too
        warp_row = ctx.binop("arith.andi", warp_row, ctx.i32(m_dim - 1))
    if bn * layout.warps_per_cta[1] > n_dim:
        warp_col = ctx.binop("arith.andi", warp_col, ctx.i32(n_dim - 1))

    if kind in _ELEMENTWISE or kind in NATIVE:
        frag = _ELEMENTWISE.get(kind) or _fp8_fragments(kind, str(ctx.element_type(b.type)))
        return [_mma_elementwise(ctx, frag, list(ctx.get(c)), staged_a, staged_b, warp_row,
                                 warp_col, (bm, bn, k_dim), layout.row_step,
                                 b_transposed=bytewise, chunk=imprecise_chunk(ctx, op))]

    lane_row = ctx.binop("arith.andi", ctx.lane, ctx.i32(15))  # rows for ldmatrix
    lane_col8 = ctx.binop("arith.muli", ctx.binop("arith.shrui", ctx.lane, ctx.i32(4)),
                          ctx.i32(8))

    def shared_address(staged, row, col, row_len: int):
        if staged.swizzled:
            index = swizzled_index(ctx, row, col, staged.shape[0], row_len)
        else:
            index = ctx.binop("arith.addi", ctx.binop("arith.muli", row, ctx.i32(row_len)), col)
        return ctx.smem_address(index, 2, staged.offset)

    # a ring buffer stored one column per row: A as K rows of M, B as N rows of K
    a_flipped = not in_registers and a in ctx.smem_k_major
    b_flipped = b in ctx.smem_k_major
    lane_q = ctx.binop("arith.shrui", ctx.lane, ctx.i32(3))  # the matrix a lane addresses
    lane_r = ctx.binop("arith.andi", ctx.lane, ctx.i32(7))  # and its row in it
    half = ctx.binop("arith.muli", ctx.binop("arith.andi", lane_q, ctx.i32(1)), ctx.i32(8))
    pair = ctx.binop("arith.muli", ctx.binop("arith.shrui", lane_q, ctx.i32(1)), ctx.i32(8))
    a_lane_k = ctx.binop("arith.addi", lane_r, pair)
    a_lane_m = ctx.binop("arith.addi", warp_row, half)
    b_lane_n = ctx.binop("arith.addi", warp_col, ctx.binop("arith.addi", lane_r, pair))

    def flipped_address(staged, row, col, row_len: int):
        index = swizzled_index(ctx, row, col, staged.shape[1], row_len)
        return ctx.smem_address(index, 2, staged.offset)

    def a_fragment(i: int, kk: int) -> list:
        if in_registers:
            return fragments[i * (k_dim // 16) + kk]
        if a_flipped:
            # matrix q holds rows k0 + 8 (q // 2) .. + 7 at columns m0 + 8 (q % 2) .. + 7;
            # read transposed, they are a0..a3
            k = ctx.binop("arith.addi", a_lane_k, ctx.i32(kk * 16))
            m = ctx.binop("arith.addi", a_lane_m, ctx.i32(i * layout.row_step))
            return ctx.ldmatrix(flipped_address(staged_a, k, m, m_dim), 4, True)
        # lanes 0-15 address rows 0-15 at column 0 of the 16 x 16 slice, lanes 16-31 the
        # same rows at column 8: the four 8 x 8 matrices are a0..a3 of mma's A operand
        row = ctx.binop("arith.addi", warp_row, ctx.binop("arith.addi", lane_row,
                                                          ctx.i32(i * layout.row_step)))
        col = ctx.binop("arith.addi", lane_col8, ctx.i32(kk * 16))
        return ctx.ldmatrix(shared_address(staged_a, row, col, k_dim), 4, False)

    def b_fragments(j: int, kk: int) -> list:
        if b_flipped:
            # matrix q holds rows n0 + 8 (j + q // 2) .. + 7 at columns k0 + 8 (q % 2):
            # b0, b1 of tile j, then of tile j + 1
            n = ctx.binop("arith.addi", b_lane_n, ctx.i32(j * 8))
            k = ctx.binop("arith.addi", half, ctx.i32(kk * 16))
            return ctx.ldmatrix(flipped_address(staged_b, n, k, k_dim), 4, False)
        # transposed loads of rows k (16 of them) of columns n .. n + 7 of tile j (lanes
        # 0-15) and of tile j + 1 (lanes 16-31): b0, b1 of tile j, then of tile j + 1
        k = ctx.binop("arith.addi", lane_row, ctx.i32(kk * 16))
        n = ctx.binop("arith.addi", warp_col, ctx.binop("arith.addi", lane_col8,
                                                        ctx.i32(j * 8)))
        return ctx.ldmatrix(shared_address(staged_b, k, n, n_dim), 4, True)

    accs = list(ctx.get(c))
    n_tiles = bn // 8
    acc = str(ctx.element_type(c.type))
    asm = _mma_asm(f"mma.sync.aligned.m16n8k16.row.col.{acc}.{kind}.{kind}.{acc}",
                   2 if acc == "f16" else 4, 4, 2)
    for kk in range(k_dim // 16):
        a_frags = [a_fragment(i, kk) for i in range(bm // 16)]
        b_frags = []
        for j in range(0, n_tiles, 1 if b_in_registers else 2):
            if b_in_registers:
                b_frags.append(b_held[j * (k_dim // 16) + kk])
                continue
            regs = b_fragments(j, kk)
            b_frags += [regs[:2], regs[2:]]
        for i, a_frag in enumerate(a_frags):
            for j, b_frag in enumerate(b_frags):
                _mma_tile(ctx, asm, a_frag, b_frag, accs, (i * n_tiles + j) * 4)
    return [accs]


def _mma_asm(opcode: str, d: int, a: int, b: int) -> str:
    """`opcode {d regs}, {a regs}, {b regs}, {c regs}` with operands numbered in order."""
    groups, first = [], 0
    for count in (d, a, b, d):
        groups.append("{" + ", ".join(f"${first + i}" for i in range(count)) + "}")
        first += count
    return f"{opcode} {', '.join(groups)};"


def _mma_tile(ctx: LoweringContext, asm: str, a_frag: list, b_frag: list, accs: list,
              base: int) -> None:
    """One mma.sync (`asm`) of a 16 x 8 tile: accumulator registers base .. base + 3 of
    `accs` (f32, i32, or f16 going in and out as two f16 pairs) replaced by its results."""
    acc_ty = accs[base].type
    c = accs[base:base + 4]
    if str(acc_ty) == "f16":
        c = [ctx.pack(c[:2], ctx.i32_type()), ctx.pack(c[2:], ctx.i32_type())]
    word = "f" if str(acc_ty) == "f32" else "r"
    out_ty = c[0].type
    struct = ir.Type.parse(f"!llvm.struct<({', '.join([str(out_ty)] * len(c))})>")
    constraints = [f"={word}"] * len(c) + ["r"] * (len(a_frag) + len(b_frag)) + [word] * len(c)
    out = ctx.value("llvm.inline_asm", [*a_frag, *b_frag, *c], struct, {
        "asm_string": ir.StringAttr.get(asm),
        "constraints": ir.StringAttr.get(",".join(constraints))})
    d = [ctx.value("llvm.extractvalue", [out], out_ty, {"position": ir.DenseI64ArrayAttr.get([q])})
         for q in range(len(c))]
    if str(acc_ty) == "f16":
        d = [h for word in d for h in ctx.unpack(word, acc_ty, 2)]
    accs[base:base + 4] = d


def _tf32(ctx: LoweringContext, values: list):
    """An f32 rounded to tf32 (to nearest, ties away), in the 32-bit register mma takes."""
    return ctx.value("llvm.inline_asm", values, ctx.i32_type(), {
        "asm_string": ir.StringAttr.get("cvt.rna.tf32.f32 $0, $1;"),
        "constraints": ir.StringAttr.get("=r,f")})


@dataclass(frozen=True)
class _Fragments:
    """An mma.sync whose fragments are read from the staged operands. Lane = 4 * group + t.
    Register r of A holds, of row group + 8 a_rows[r], the `per` elements from column
    per * t + a_cols[r]; register r of B those from row per * t + b_rows[r] of column
    group. `pack` makes one register of one element; without it the `per` elements are
    bytes adjacent in a staged row, loaded as one 32-bit word. The accumulator is laid
    out as for fp16 (the mma layout)."""

    opcode: str
    k: int
    per: int
    a_rows: tuple[int, ...]
    a_cols: tuple[int, ...]
    b_rows: tuple[int, ...]
    pack: Callable | None


_ELEMENTWISE = {
    "f32": _Fragments("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8, 1,
                      (0, 1, 0, 1), (0, 0, 4, 4), (0, 4), _tf32),
    "i8": _Fragments("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", 32, 4,
                     (0, 1, 0, 1), (0, 0, 16, 16), (0, 16), None),
}


def _fp8_fragments(a_kind: str, b_kind: str) -> _Fragments:
    """fp8 operands (e4m3 / e5m2, sm_89 and later): `m16n8k32`, its fragments those of
    int8."""
    opcode = f"mma.sync.aligned.m16n8k32.row.col.f32.{NATIVE[a_kind]}.{NATIVE[b_kind]}.f32"
    return replace(_ELEMENTWISE["i8"], opcode=opcode)


def _mma_elementwise(ctx: LoweringContext, frag: _Fragments, accs: list, staged_a, staged_b,
                     warp_row, warp_col, block: tuple, row_step: int,
                     b_transposed: bool = False, chunk: int | None = None) -> list:
    """fp32 operands with `input_precision="tf32"` (`mma.sync.aligned.m16n8k8` on tf32)
    and 8-bit ones (`m16n8k32`): one mma for every 16 x 8 tile of the warp's (its 16-row
    tiles `row_step` apart) and every `frag.k`-deep step of K, the operands read from
    their staged copies (see `_Fragments`; B staged as N x K when `b_transposed`, as the
    8-bit kinds need). With `chunk` (fp8 and `max_num_imprecise_acc`, see
    `wgmma.imprecise_chunk`) each `chunk` columns of K go into zeroed registers, then
    added to the accumulator."""
    bm, bn, k_dim = block
    group = ctx.binop("arith.shrui", ctx.lane, ctx.i32(2))
    t = ctx.binop("arith.muli", ctx.binop("arith.andi", ctx.lane, ctx.i32(3)),
                  ctx.i32(frag.per))

    def at(base, offset: int):
        return ctx.binop("arith.addi", base, ctx.i32(offset)) if offset else base

    rows = ctx.binop("arith.addi", warp_row, group)
    cols = [at(ctx.binop("arith.addi", warp_col, group), 8 * j) for j in range(bn // 8)]
    asm = _mma_asm(frag.opcode, 4, len(frag.a_rows), len(frag.b_rows))
    n_tiles = bn // 8

    def register(staged, row, col):
        if frag.pack is None:  # 4 bytes from (row, col) on: one 32-bit load
            word = ctx.binop("arith.shrui", ctx.linear_index([row, col], staged.shape),
                             ctx.i32(2))
            i32 = ctx.i32_type()
            return ctx.value("llvm.load", [ctx.smem_ptr(word, i32, staged.offset)], i32)
        return frag.pack(ctx, [staged.load(ctx, [row, col])])

    steps = k_dim // frag.k
    per = steps if chunk is None else chunk // frag.k
    for start in range(0, steps, per):
        part = accs if chunk is None else [ctx.const(0.0, accs[0].type)] * len(accs)
        for kk in range(start, min(steps, start + per)):
            b_frags = [[register(staged_b, n, at(t, frag.k * kk + r)) if b_transposed else
                        register(staged_b, at(t, frag.k * kk + r), n) for r in frag.b_rows]
                       for n in cols]
            for i in range(bm // 16):
                a_frag = [register(staged_a, at(rows, row_step * i + 8 * h),
                                   at(t, frag.k * kk + c))
                          for h, c in zip(frag.a_rows, frag.a_cols)]
                for j, b_frag in enumerate(b_frags):
                    _mma_tile(ctx, asm, a_frag, b_frag, part, (i * n_tiles + j) * 4)
        if chunk is not None:  # the chunk's partial sums added in fp32
            accs = [ctx.binop("arith.addf", x, y) for x, y in zip(accs, part)]
    return accs


@lowering("tt.dot")
def lower_dot(ctx: LoweringContext, op) -> list:
    if warpgroup_dot(ctx, op):
        return lower_warpgroup_dot(ctx, op)
    if isinstance(ctx.layout(op.results[0].type), MmaLayout):
        out = _mma(ctx, op)
        if ctx.after_dot is not None and ctx.after_dot[0] == op.operation:
            issue = ctx.after_dot[1]  # copies into the buffers this dot read (pipeline.py)
            ctx.after_dot = None
            issue()
        return out
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
