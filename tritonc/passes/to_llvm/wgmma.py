"""Lowering of `tt.dot` on Hopper's warpgroup tensor cores (`wgmma`, sm_90a).

A dot qualifies (`warpgroup_dot`) on sm_90 when its accumulator has the mma layout of
wgmma's split (`mma_layouts.wgmma_warps`: warps (wm, wn), warp w owning R 16-row tiles,
16 wm rows apart, R = M / (16 wm), of column block w // wm) and it accumulates fp16/bf16
operands in fp32, or
tf32 (fp32 with `input_precision="tf32"`) or fp8 (e4m3, e5m2) ones, or int8 ones in
int32 (`.s32.s8.s8`), which wgmma reads only K-major: from the pipelined ring when they
lie along K in memory, else stored so into the scratch area. One wgmma takes 32 bytes of
K (k16 for 16-bit, k8 for tf32, k32 for fp8 and int8). Each warpgroup issues R wgmmas
per K step: wgmma r of warpgroup g computes the warps' tiles r, rows 16 wm r +
64 (g % (wm / 4)) .. + 63 (a wgmma gives warp w % 4 rows 16 (w % 4) .. + 15 of its 64),
columns N' (g // (wm / 4)) .. + N' - 1 (N' = N / wn, a wgmma m64nN'), on registers
r N'/2 .. (r + 1) N'/2 - 1 of the accumulator. With the warps along M (wn = 1) N' = N.
A comes from registers (`#ttg.dot_op<0, mma>`: the fragments `{a0, a1, a2, a3}`) or from shared
memory like B: the ring buffer a software-pipelined loop copied it to (pipeline.py), else
staged into the scratch area (`_stage`; B K-major when its registers run along K).

Before (TTGIR, 8 warps, %a and %b pipelined loads):
    %d = "tt.dot"(%a, %b, %c) : (tensor<128x64xf16, #blocked>, tensor<64x128xf16, #blocked1>,
                                 tensor<128x128xf32, #ttg.mma<[8, 1]>>) -> ...
After (PTX of warpgroup g = warp / 4; one wgmma per 16-deep step kk of K):
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {d0, ..., d63},
        descA(g, kk), descB(kk), 1, 1, 1, 0, 1;
    ...
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
(`wait_group 1` for a dot a pipelined loop leaves in flight, see pipeline.py.) An fp8 dot
with `max_num_imprecise_acc` P > 0 runs P columns of K at a time into zeroed registers,
waits for them and adds them to the accumulator (`add.f32`, as Triton does on Hopper).
With A in registers the operand is `{a0, a1, a2, a3}` of step kk and the immediate
trans-a is absent: `{d...}, {a0, a1, a2, a3}, descB(kk), 1, 1, 1, trans-b;`.

The accumulator registers d0 .. d(N'/2 - 1) of wgmma r are the mma layout's registers
r N'/2 .. (r + 1) N'/2 - 1, in order.

Shared-memory descriptors (PTX ISA, "Matrix Descriptor Format"): bits 0-13 hold the start
address >> 4, bits 16-29 the leading byte offset >> 4, bits 32-45 the stride byte offset
>> 4 and bits 62-63 the swizzle (1: 128 bytes, 2: 64, 3: 32). The tiles are laid out by
`tile_index.swizzled_index`: rows of min(row bytes, 128) bytes swizzled with that period,
and the bytes beyond 128 in further column blocks of 128 bytes. So for
  A (M x K, K-major): 8 rows are one swizzle period (stride offset 8 x row bytes); the
    leading offset is unused; step kk starts 32 kk bytes into the row, in column block
    32 kk / 128, blocks M x 128 bytes apart;
  B (K x N, N-major, imm-trans-b = 1): the column blocks are K x 128 bytes apart (leading
    offset), 8 rows of K are one swizzle period (stride offset); step kk starts 16 kk
    rows down;
  B stored K-major (N rows of K, imm-trans-b = 0): as A, with N rows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.fragments import register_fragments
from tritonc.passes.to_llvm.shape import store_vector
from tritonc.passes.to_llvm.tile_index import swizzled_index
from tritonc.passes.ttgir import defining_block
from tritonc.passes.ttgir.layouts import BlockedLayout, DotOperandLayout, MmaLayout
from tritonc.passes.ttgir.mma_layouts import (
    KIND_BYTES,
    warpgroup_reps,
    wgmma_kinds,
    wgmma_row_bytes,
    wgmma_takes,
)

_SWIZZLE_MODE = {128: 1, 64: 2, 32: 3}

WAIT_LATER = "ttg.wait_later"  # a dot whose wait a later one covers (software_pipeline)


def warpgroup_dot(ctx: LoweringContext, dot) -> bool:
    """Whether `dot` lowers to wgmma (its operands then come from registers, a pipelined
    ring buffer or the scratch area, see `_operands_in_smem`)."""
    if ctx.arch < 90 or not isinstance(ctx.layout(dot.results[0].type), MmaLayout):
        return False
    a, result = dot.operands[0], dot.results[0]
    kinds = wgmma_kinds(ir, dot)
    return kinds is not None and wgmma_takes(
        tuple(ctx.shape(result.type)), ctx.shape(a.type)[1], kinds[0],
        ctx.layout(result.type).warps_per_cta, ctx.num_warps)


def _descriptor(ctx: LoweringContext, address, leading: int, stride: int, row_bytes: int):
    """The i64 descriptor of the tile at shared-memory `address` (an i32)."""
    i64 = ir.IntegerType.get_signless(64)
    fields = ((leading >> 4) << 16) | ((stride >> 4) << 32) | (_SWIZZLE_MODE[row_bytes] << 62)
    start = ctx.value("arith.extui", [ctx.binop("arith.shrui", address, ctx.i32(4))], i64)
    return ctx.binop("arith.ori", start, ctx.const(fields, i64))


def _asm(ctx: LoweringContext, text: str, operands: list, constraints: list[str],
         results: int = 0, result_types: list | None = None) -> list:
    """Inline PTX `text`; its `results` values are f32 unless `result_types` says."""
    types = result_types or [ir.F32Type.get()] * results
    if results:
        ty = ir.Type.parse(f"!llvm.struct<({', '.join(str(t) for t in types)})>")
    else:
        ty = None
    attrs = {"asm_string": ir.StringAttr.get(text),
             "constraints": ir.StringAttr.get(",".join(constraints)),
             "has_side_effects": ir.UnitAttr.get()}
    if ty is None:
        ctx.op("llvm.inline_asm", operands, [], attrs)
        return []
    out = ctx.value("llvm.inline_asm", operands, ty, attrs)
    return [ctx.value("llvm.extractvalue", [out], types[q],
                      {"position": ir.DenseI64ArrayAttr.get([q])}) for q in range(results)]


def _tied(regs: list) -> list[str]:
    """Constraints of accumulator registers `regs` written in place: f32 or s32 ones."""
    outs = ["=f" if str(r.type) == "f32" else "=r" for r in regs]
    return outs + [str(i) for i in range(len(regs))]


def _stage(ctx: LoweringContext, value, transpose: bool, offset: int) -> int:
    """Write the 2-D `value` at byte `offset` of the scratch area as the rows x columns
    tile wgmma reads (`tile_index.swizzled_index` with column blocks), its dimensions
    swapped when `transpose`; return the bytes it takes (whole 1024-byte swizzle
    periods). Registers consecutive along the tile's rows (K: the dimension the layout
    runs along fastest, or the next one when each thread holds several along it, see
    `operand_order.K_RUN`) go out as one vector of up to 16 bytes."""
    shape = ctx.shape(value.type)
    rows, row_len = (shape[1], shape[0]) if transpose else shape
    elt = ctx.scalar_type(value.type)
    nbytes = element_bytes(elt)
    regs, coords = ctx.get(value), ctx.coordinates(value.type)
    layout, k_dim = ctx.layout(value.type), 0 if transpose else 1

    def at(r: int):
        d0, d1 = coords[r]
        row, col = (d1, d0) if transpose else (d0, d1)
        return ctx.smem_ptr(swizzled_index(ctx, row, col, rows, row_len, True, nbytes), elt,
                            offset)

    if nbytes == 1 and isinstance(layout, BlockedLayout) and \
            layout.size_per_thread[k_dim] % 4 == 0 and layout.size_per_thread[1 - k_dim] % 4 == 0:
        for r, word in _transposed_words(ctx, regs, layout, shape, k_dim):
            ctx.op("llvm.store", [word, at(r)], [], {"alignment": ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), 4)})
    else:
        for group in _runs_along(layout, shape, k_dim, 16 // nbytes):
            store_vector(ctx, [regs[r] for r in group], at(group[0]))
    return (rows * row_len * nbytes + 1023) // 1024 * 1024


def _transposed_words(ctx: LoweringContext, regs: list, layout, shape: tuple,
                      k_dim: int) -> list[tuple[int, object]]:
    """The bytes of a layout holding 4 x 4 blocks per thread (4 consecutive along K and
    along the other dimension) as i32 words along K: (the register the word starts at,
    the word). Each block's four words along the other dimension, as loaded, become its
    four words along K by eight `prmt`s."""
    m_dim = 1 - k_dim
    offsets = layout.register_offsets(shape)
    where = {o: r for r, o in enumerate(offsets)}
    i8 = ir.IntegerType.get_signless(8)

    def reg(o, dm: int, dk: int) -> int:
        q = list(o)
        q[m_dim] += dm
        q[k_dim] += dk
        return where[tuple(q)]

    def word(values: list):
        vec = ir.VectorType.get([4], i8)
        packed = ctx.value("llvm.mlir.poison", [], vec)
        for i, v in enumerate(values):
            packed = ctx.value("llvm.insertelement", [packed, v, ctx.i32(i)], vec)
        return ctx.value("llvm.bitcast", [packed], ctx.i32_type())

    out = []
    for o in offsets:
        if o[m_dim] % 4 or o[k_dim] % 4:
            continue
        along_k = transpose_bytes(ctx.prmt, [word([regs[reg(o, i, j)] for i in range(4)])
                                             for j in range(4)])
        out += [(reg(o, i, 0), along_k[i]) for i in range(4)]
    return out


def transpose_bytes(prmt, words: list) -> list:
    """Byte j of result word i is byte i of `words[j]` (a 4 x 4 byte transpose), by eight
    `prmt(a, b, selector)`: bytes interleaved pairwise, then halves."""
    low01, high01 = prmt(words[0], words[1], 0x5140), prmt(words[0], words[1], 0x7362)
    low23, high23 = prmt(words[2], words[3], 0x5140), prmt(words[2], words[3], 0x7362)
    return [prmt(low01, low23, 0x5410), prmt(low01, low23, 0x7632),
            prmt(high01, high23, 0x5410), prmt(high01, high23, 0x7632)]


def _runs_along(layout, shape: tuple, dim: int, cap: int) -> list[list[int]]:
    """The registers of a thread in runs of consecutive elements along `dim` (at most
    `cap`, aligned to their length): of a blocked layout, its elements per thread along
    `dim`; of any other, one register each."""
    offsets = layout.register_offsets(shape)
    run = 1
    if isinstance(layout, BlockedLayout):
        while run * 2 <= min(layout.size_per_thread[dim], cap):
            run *= 2
    where = {o: r for r, o in enumerate(offsets)}
    groups = []
    for o in offsets:
        if o[dim] % run == 0:
            groups.append([where[(*o[:dim], o[dim] + j, *o[dim + 1:])] for j in range(run)])
    return groups


def _operands_in_smem(ctx: LoweringContext, a, b) -> tuple:
    """(where A is: "registers" or a byte offset, the byte offset of B, whether B is
    stored K-major, whether A is stored M-major): the pipelined ring buffers (transposed
    tiles, `ctx.smem_k_major`, one column per row), else the operands staged in the
    scratch area (A K-major; a 16-bit B K-major when its registers run along K, an 8- or
    32-bit one always, as wgmma reads those)."""
    a_at = ctx.smem_operands.get(a)
    if a_at is None and isinstance(ctx.layout(a.type), DotOperandLayout):
        a_at = "registers"
    a_m_major = a_at is not None and a_at != "registers" and a in ctx.smem_k_major
    b_at = ctx.smem_operands.get(b)
    b_layout = ctx.layout(b.type)
    if b_at is not None:
        b_k_major = b in ctx.smem_k_major
    else:
        b_k_major = element_bytes(ctx.scalar_type(b.type)) != 2 or (
            isinstance(b_layout, BlockedLayout) and b_layout.order[0] == 0)
    staged = [(v, t) for v, t, at in ((a, False, a_at), (b, b_k_major, b_at)) if at is None]
    if staged:
        ctx.barrier()
        offsets, total = {}, 0
        for value, transpose in staged:
            offsets[value] = total
            total += _stage(ctx, value, transpose, total)
        ctx.reserve_smem(total)
        _asm(ctx, "fence.proxy.async.shared::cta;", [], [])
        ctx.barrier()
        a_at, b_at = offsets.get(a, a_at), offsets.get(b, b_at)
    return a_at, b_at, b_k_major, a_m_major


class Resident(NamedTuple):
    """An operand stored before a loop: its address, the block it was stored in, and its
    bytes from `ctx.resident_base`."""

    address: Any
    block: Any
    offset: int
    size: int


def stage_invariant_operands(ctx: LoweringContext, loop) -> None:
    """Store once, before `loop`, the A operands of its wgmma dots that it does not compute
    (mma-layouts left them in their own layout) in a region of shared memory of their own
    (`ctx.resident_base`), which the dots then read. A later loop in the same block reads
    what an earlier one stored (causal attention's two loops over the same queries), and
    takes over the bytes of what nothing from it on reads (attention backward's keys and
    values, then its queries).

    Before (TTGIR):
        %q = tt.load ... : tensor<128x64xf16, #blocked>
        scf.for ... { %s = "tt.dot"(%q, %k, %zero) ... }
    After (PTX): bar.sync; st.shared of %q's rows at resident_base + offset;
    fence.proxy.async.shared::cta; bar.sync; the loop, whose wgmmas take %q's descriptor.
    """
    block, here = loop.regions[0].blocks[0], loop.operation.block
    values = []
    for op in block.operations:
        op = op.operation
        if op.name != "tt.dot" or not warpgroup_dot(ctx, op):
            continue
        a = op.operands[0]
        if defining_block(a) == block or a in values or \
                not isinstance(ctx.layout(a.type), BlockedLayout):
            continue
        if a in ctx.resident and ctx.resident[a].block == here:  # stored before a loop beside
            ctx.smem_operands[a] = ctx.resident[a].address
            continue
        values.append(a)
    if not values:
        return
    later = [op.operation for op in here.operations]
    later = later[later.index(loop.operation):]
    ctx.resident = {v: r for v, r in ctx.resident.items()
                    if r.block != here or _read_from(v, here, later)}
    end = max((r.offset + r.size for r in ctx.resident.values()), default=0)
    ctx.barrier()
    for a in values:
        at = ctx.binop("arith.addi", ctx.resident_base, ctx.i32(end))
        size = _stage(ctx, a, False, at)
        ctx.smem_operands[a] = at
        ctx.resident[a] = Resident(at, here, end, size)
        end += size
    ctx.resident_bytes = max(ctx.resident_bytes, end)
    _asm(ctx, "fence.proxy.async.shared::cta;", [], [])
    ctx.barrier()


def _read_from(value, block, ops: list) -> bool:
    """Whether one of `ops` (ops of `block`, with what they hold) or an op outside `block`
    reads `value`."""
    for use in value.uses:
        user = use.owner.operation
        while user is not None and user.block != block:
            user = user.parent.operation if user.parent is not None else None
        if user is None or user in ops:
            return True
    return False


def lower_warpgroup_dot(ctx: LoweringContext, op) -> list:
    """The accumulator registers after wgmma over every K step of `op` (see above)."""
    a, b, c = op.operands
    m, n = ctx.shape(op.results[0].type)
    k = ctx.shape(a.type)[1]
    kind_a, kind_b = wgmma_kinds(ir, op)
    nbytes = KIND_BYTES[kind_a]
    k_step = 32 // nbytes  # the K of one wgmma: 32 bytes of each row of A
    row_k = wgmma_row_bytes(k, nbytes)  # a row of K in shared memory
    i64 = ir.IntegerType.get_signless(64)
    wm, wn = ctx.layout(op.results[0].type).warps_per_cta
    n_group = n // wn  # the columns of each warpgroup: its wgmmas are m64n(n_group)
    a_at, b_at, b_k_major, a_m_major = _operands_in_smem(ctx, a, b)
    b_start = ctx.smem_address(ctx.i32(0), 1, b_at)
    if wn > 1:  # warpgroup g reads column block g // (wm / 4) of B: n_group rows further
        # (K-major), whole 128-byte column blocks (N-major)
        block = n_group * row_k if b_k_major else n_group * nbytes // 128 * k * 128
        column_group = ctx.binop("arith.divui", ctx.warp, ctx.i32(wm))
        b_start = ctx.binop("arith.addi", b_start,
                            ctx.binop("arith.muli", column_group, ctx.i32(block)))
    if b_k_major:  # rows of N, K along them (trans-b 0), like A
        b_desc = _descriptor(ctx, b_start, 16, 8 * row_k, row_k)
    else:  # rows of K, N along them (trans-b 1)
        b_desc = _descriptor(ctx, b_start, k * 128, 8 * wgmma_row_bytes(n), wgmma_row_bytes(n))

    def along_k(column: int, rows: int) -> int:
        """The byte offset of `column` of a K-major tile of `rows` rows: in its block of
        128-byte columns, the blocks `rows` x 128 bytes apart."""
        at = column * nbytes
        return at // 128 * rows * 128 + at % 128

    def b_offset(column: int) -> int:
        return along_k(column, n) if b_k_major else column * wgmma_row_bytes(n)

    reps = warpgroup_reps(m, (wm, wn))
    groups = wm // 4

    def row_group():
        """The warpgroup's block of rows of A: g % (wm / 4)."""
        warp = ctx.warp if wn == 1 else ctx.binop("arith.remui", ctx.warp, ctx.i32(wm))
        return ctx.binop("arith.shrui", warp, ctx.i32(2))

    if a_at == "registers":
        fragments = register_fragments(ctx, a)
    elif a_m_major:  # rows of K, M along them (trans-a 1): warpgroup g reads column block g
        a_start = ctx.smem_address(ctx.binop("arith.muli", row_group(), ctx.i32(k * 128)), 1,
                                   a_at)
        a_desc = _descriptor(ctx, a_start, k * 128, 8 * 128, 128)
        slab_bytes = groups * k * 128  # wgmma r reads column block r * groups + g
    else:
        a_start = ctx.smem_address(ctx.binop("arith.muli", row_group(), ctx.i32(64 * row_k)),
                                   1, a_at)
        a_desc = _descriptor(ctx, a_start, 16, 8 * row_k, row_k)
        slab_bytes = groups * 64 * row_k  # wgmma r of warpgroup g: from row 16 wm r + 64 g
    ctx.arch_specific = True

    regs = n_group // 2
    accs = list(ctx.get(c))
    outs = ", ".join(f"${i}" for i in range(regs))
    # 16-bit kinds take the transpose immediates; the others read both tiles K-major.
    # Float kinds scale d, a and b (1, 1, 1); integer ones (s8 into s32) only d
    trans = (f", {int(a_m_major)}, {0 if b_k_major else 1}", f", {0 if b_k_major else 1}") \
        if nbytes == 2 else ("", "")
    integer = kind_a == "s8"
    scales = "1" if integer else "1, 1, 1"
    shape = f"m64n{n_group}k{k_step}.{'s32' if integer else 'f32'}.{kind_a}.{kind_b}"
    if a_at == "registers":
        a_text = ", ".join(f"${regs * 2 + i}" for i in range(4))
        text = (f"wgmma.mma_async.sync.aligned.{shape} {{{outs}}}, "
                f"{{{a_text}}}, ${2 * regs + 4}, {scales}{trans[1]};")
        extra = ["r"] * 4 + ["l"]
    else:
        text = (f"wgmma.mma_async.sync.aligned.{shape} {{{outs}}}, "
                f"${2 * regs}, ${2 * regs + 1}, {scales}{trans[0]};")
        extra = ["l", "l"]
    steps = k // k_step

    def group(kks: range, accs: list) -> list:
        """One committed group of wgmmas over the K steps `kks`, into `accs`."""
        accs = list(accs)
        _asm(ctx, "wgmma.fence.sync.aligned;", [], [])
        for kk in kks:
            column = kk * k_step
            desc_b = ctx.binop("arith.addi", b_desc, ctx.const(b_offset(column) >> 4, i64))
            for r in range(reps):  # wgmma r accumulates the registers of the warps' tile r
                if a_at == "registers":
                    inputs = [*fragments[r * steps + kk], desc_b]
                else:
                    a_offset = r * slab_bytes + (column * 128 if a_m_major
                                                 else along_k(column, m))
                    inputs = [ctx.binop("arith.addi", a_desc, ctx.const(a_offset >> 4, i64)),
                              desc_b]
                part = accs[r * regs:(r + 1) * regs]
                accs[r * regs:(r + 1) * regs] = _asm(ctx, text, [*part, *inputs],
                                                     _tied(part) + extra, regs,
                                                     [v.type for v in part])
        _asm(ctx, "wgmma.commit_group.sync.aligned;", [], [])
        return accs

    chunk = imprecise_chunk(ctx, op)
    if chunk is None:
        accs = group(range(steps), accs)
    else:  # each `chunk` columns of K into zeros, then added in fp32
        zero = ctx.const(0.0, accs[0].type)
        for start in range(0, steps, chunk // k_step):
            part = group(range(start, min(steps, start + chunk // k_step)),
                         [zero] * len(accs))
            part = wait_accumulators(ctx, part, 0)
            accs = [ctx.binop("arith.addf", x, y) for x, y in zip(accs, part)]
    issue, after_wait = None, False
    if ctx.after_dot is not None and ctx.after_dot[0] == op.operation:
        _, issue, after_wait = ctx.after_dot
        ctx.after_dot = None
        if not after_wait:
            issue()
    if op.results[0] in ctx.carried_dots or chunk is not None:  # settled elsewhere, or done
        return [accs]
    if WAIT_LATER in op.attributes:  # the next `wait_group 0`, or its first reader, settles it
        ctx.in_flight.add(op.results[0])
        ctx.settle = lambda: wait_accumulators(ctx, [], 0)
        return [accs]
    out = wait_accumulators(ctx, accs, 1 if op.results[0] in ctx.async_dots else 0)
    if issue is not None and after_wait:
        issue()
    return [out]


def imprecise_chunk(ctx: LoweringContext, dot) -> int | None:
    """The columns of K an fp8 tensor-core dot (wgmma, or mma.sync m16n8k32) accumulates
    into fresh registers before adding them to its accumulator in fp32: its
    `max_num_imprecise_acc` when positive (the tensor cores keep fewer mantissa bits when
    summing fp8 products), in whole 32-deep steps and at most its K; None for other dots,
    which accumulate in place."""
    limit = ir.IntegerAttr(dot.attributes["max_num_imprecise_acc"]).value \
        if "max_num_imprecise_acc" in dot.attributes else 0
    if limit <= 0 or wgmma_kinds(ir, dot)[0] not in ("e4m3", "e5m2"):
        return None
    k = ctx.shape(dot.operands[0].type)[1]
    return max(32, min(limit, k) // 32 * 32)


def wait_accumulators(ctx: LoweringContext, accs: list, pending: int) -> list:
    """`wgmma.wait_group pending` tied to the accumulator registers `accs`: once it
    returns, at most `pending` groups are in flight, and what reads the registers after
    it is ordered after it. `wait_group 0` also settles `ctx.in_flight` (the values a
    wgmma of the previous iteration may still write, pipeline.py): their registers are
    tied to it too and rebound to its results."""
    held = list(ctx.in_flight) if pending == 0 else []
    ctx.in_flight.difference_update(held)
    regs = list(accs) + [r for v in held for r in ctx.values[v]]
    if not regs:
        return []
    out = _asm(ctx, f"wgmma.wait_group.sync.aligned {pending};", regs, _tied(regs), len(regs),
               [r.type for r in regs])
    at = len(accs)
    for v in held:
        n = len(ctx.values[v])
        ctx.values[v] = out[at:at + n]
        at += n
    return out[:len(accs)]
