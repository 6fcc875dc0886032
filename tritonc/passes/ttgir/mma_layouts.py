"""mma-layouts: the `tt.dot`s the tensor cores take (fp16/bf16 into fp32, fp16 into fp16,
fp32 rounded to tf32, int8 into int32, fp8 into fp32 from sm_89 on) accumulate in the
tensor-core (mma) layout.

Before:
    %acc = scf.for ... iter_args(%c = %zero) -> (tensor<128x128xf32, #blocked>) {
      %d = "tt.dot"(%a, %b, %c) : (...) -> tensor<128x128xf32, #blocked>
      scf.yield %d
    }
    %out = arith.truncf %acc
After (num_warps = 4):
    %acc = scf.for ... iter_args(%c = %zero) -> (tensor<128x128xf32, #ttg.mma<[4, 1]>>) {
      %d = "tt.dot"(%a, %b, %c) : (...) -> tensor<128x128xf32, #ttg.mma<[4, 1]>>
      scf.yield %d
    }
    %cvt = "ttg.convert_layout"(%acc) : (... #ttg.mma ...) -> tensor<128x128xf32, #blocked>
    %out = arith.truncf %cvt

The accumulator keeps the mma layout across the loop (its zero constant, the loop's
iteration argument and result); every other user sees the blocked layout through one
`ttg.convert_layout`, which moves the data through shared memory. An A operand that is
not a tile loaded beside the dot moves to registers in `#ttg.dot_op<0, mma>` once, where
it is defined, unless a loop computes the dot from an A defined before it and the dot is
a wgmma (sm_90): that A keeps its layout and is read from shared memory, where the
lowering stores it once before the loop (the queries of flash attention).

On sm_90 a dot wgmma takes (`wgmma_kinds`: fp16, bf16, tf32, fp8) gets the split of
wgmma's accumulator (`wgmma_warps`) whenever its shape splits into wgmmas: whole
warpgroups along M while there are 64-row tiles for them, the rest along N (64 x 128 on
8 warps: `#ttg.mma<[4, 2]>`, each warpgroup one m64n64 wgmma per K step).
"""

from __future__ import annotations

from tritonc.passes.ttgir import defining_block, ops_named
from tritonc.passes.ttgir.layouts import DotOperandLayout, MmaLayout

MMA_OPERANDS = ("f16", "bf16")


def _tensor(ir, ty):
    return ir.RankedTensorType(ty)


def _with_encoding(ir, ty, text: str):
    t = _tensor(ir, ty)
    return ir.RankedTensorType.get(t.shape, t.element_type, ir.Attribute.parse(text))


def _tf32(ir, op) -> bool:
    """Whether `op` multiplies fp32 operands rounded to tf32 (`input_precision="tf32"`)."""
    precision = op.attributes["input_precision"] if "input_precision" in op.attributes \
        else None
    return str(_tensor(ir, op.operands[0].type).element_type) == "f32" and \
        precision is not None and ir.StringAttr(precision).value == "tf32"


FP8_OPERANDS = ("f8E4M3FN", "f8E5M2")
FP8_ARCH = 89  # mma.sync on e4m3 / e5m2


def _k_step(ir, op, arch: int) -> int | None:
    """The K of one mma.sync for `op`'s operand and accumulator types on sm_`arch`, or None
    when the tensor cores do not take them: 16 for fp16/bf16 into fp32 and fp16 into fp16,
    8 for fp32 rounded to tf32, 32 for int8 into int32 and for fp8 (e4m3, e5m2, either
    mixed with the other) into fp32 from sm_89 on."""
    a, b, c = op.operands
    operand = str(_tensor(ir, a.type).element_type)
    other = str(_tensor(ir, b.type).element_type)
    acc = str(_tensor(ir, c.type).element_type)
    if operand in FP8_OPERANDS and other in FP8_OPERANDS:
        return 32 if acc == "f32" and arch >= FP8_ARCH else None
    if other != operand:
        return None
    if _tf32(ir, op) and acc == "f32":
        return 8
    if operand in MMA_OPERANDS and (acc == "f32" or acc == operand == "f16"):
        return 16
    return 32 if operand == "i8" and acc == "i32" else None


def _eligible(ir, op, num_warps: int, arch: int) -> MmaLayout | None:
    ta, tc = _tensor(ir, op.operands[0].type), _tensor(ir, op.operands[2].type)
    step = _k_step(ir, op, arch)
    if len(ta.shape) != 2 or step is None or ta.shape[1] % step:
        return None
    m, n = tc.shape
    warps = wgmma_warps(m, n, num_warps) if arch >= 90 else None
    if warps == (num_warps, 1) and (warpgroup_reps(m, warps) == 1 or _warpgroup_types(ir, op)):
        return MmaLayout(warps)
    if warps is not None and wgmma_operand_kinds(ir, op, num_warps) is not None:
        return MmaLayout(warps)  # the warpgroups split N too
    if _a_stays_in_registers(ir, op) and m % (16 * num_warps) == 0 and n % 16 == 0:
        return MmaLayout((num_warps, 1))  # each warp owns whole rows of A: no copies
    return MmaLayout.for_dot(m, n, num_warps)


_WGMMA_KINDS = {"f16": "f16", "bf16": "bf16", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
KIND_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1}


def wgmma_kinds(ir, dot) -> tuple[str, str] | None:
    """The PTX types wgmma names `dot`'s A and B by (f16, bf16, tf32 for fp32 rounded
    to tf32, e4m3, e5m2: the two fp8 kinds mix, into an fp32 accumulator; s8 for int8
    into int32), or None when wgmma does not take them."""
    a, b, c = (str(_tensor(ir, v.type).element_type) for v in dot.operands[:3])
    if c == "i32":
        return ("s8", "s8") if a == b == "i8" else None
    if c != "f32":
        return None
    if _tf32(ir, dot):
        return ("tf32", "tf32") if b == "f32" else None
    kinds = _WGMMA_KINDS.get(a), _WGMMA_KINDS.get(b)
    mixed = kinds[0] != kinds[1]
    if None in kinds or (mixed and not all(KIND_BYTES[k] == 1 for k in kinds)):
        return None
    return kinds


def _warpgroup_types(ir, op) -> bool:
    """Whether wgmma takes `op`'s types (`wgmma_kinds`)."""
    return wgmma_kinds(ir, op) is not None


def _a_stays_in_registers(ir, dot) -> bool:
    """Whether the dot takes A from registers: every A but a tile loaded beside the dot,
    directly or through `tt.trans` (which the software pipeliner copies to shared
    memory)."""
    owner = dot.operands[0].owner
    if not isinstance(owner, ir.Block) and owner.name == "tt.trans":
        owner = owner.operands[0].owner
    return isinstance(owner, ir.Block) or not (
        owner.name in ("tt.load", "tt.descriptor_load")
        and owner.operation.block == dot.operation.block)


WGMMA_ACCUMULATORS = 128  # fp32 accumulator registers per thread wgmma may take


def wgmma_warps(m: int, n: int, num_warps: int) -> tuple[int, int] | None:
    """The warps `(wm, wn)` of the mma layout in which an m x n accumulator splits into
    m64nNk wgmmas, or None when it does not. The warpgroups go along M while M has a
    64-row tile for each (wm doubles while 32 wm divides M), the rest along N: warpgroup
    (g % (wm / 4), g // (wm / 4)) computes rows 64 (g % (wm / 4)) + 16 wm r .. and the
    N / wn columns of its block, one wgmma m64n(N / wn) per 16 wm rows (`warpgroup_reps`).
    In the mma layout (an mma.sync one too) warp w then owns the 16-row tiles w % wm,
    w % wm + wm, ... of column block w // wm. At most WGMMA_ACCUMULATORS registers per
    thread, N / wn a multiple of 16 and at most 256."""
    if num_warps % 4 or m % 64:
        return None
    wm = 4
    while wm < num_warps and m % (32 * wm) == 0:
        wm *= 2
    wn = num_warps // wm
    if n % (16 * wn) or n // wn > 256 or m * n // (32 * num_warps) > WGMMA_ACCUMULATORS:
        return None
    return wm, wn


def warpgroup_reps(m: int, warps_per_cta: tuple[int, int]) -> int:
    """The wgmmas each warpgroup issues per K step for an accumulator of `m` rows in an
    mma layout of `warps_per_cta`."""
    return m // (16 * warps_per_cta[0])


def _retype_constant(ir, value, text: str) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    if len(list(value.uses)) != 1:
        return False
    attr = ir.DenseElementsAttr(owner.attributes["value"])
    new_ty = _with_encoding(ir, value.type, text)
    owner.attributes["value"] = ir.DenseElementsAttr.get_splat(new_ty, attr.get_splat_value())
    value.set_type(new_ty)
    return True


def _convert_before(ir, user, value, ty):
    op = ir.Operation.create("ttg.convert_layout", results=[ty], operands=[value],
                             loc=user.location, ip=ir.InsertionPoint(user))
    return op.results[0]


def _convert_users(ir, value, blocked_ty, keep) -> None:
    """Give every user of `value` except those in `keep` one blocked copy of it, made
    right after `value` is defined."""
    uses = [u for u in value.uses if not any(u.owner == k for k in keep)]
    if not uses:
        return
    owner = value.owner
    if isinstance(owner, ir.Block):
        ip, loc = ir.InsertionPoint.at_block_begin(owner), uses[0].owner.location
    else:
        ip, loc = ir.InsertionPoint.after(owner), owner.location
    copy = ir.Operation.create("ttg.convert_layout", results=[blocked_ty], operands=[value],
                               loc=loc, ip=ip).results[0]
    for use in uses:
        use.owner.operands[use.operand_number] = copy


def assign_mma_layouts(module, num_warps: int, arch: int = 80) -> None:
    """Apply the rewrite above to every eligible `tt.dot` of `module`. On sm_90 and later
    a dot whose accumulator splits into wgmmas gets their split of the warps
    (`wgmma_warps`)."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        for dot in ops_named(module, "tt.dot"):
            layout = _eligible(ir, dot, num_warps, arch)
            if layout is None:
                continue
            text = layout.attr_text()
            result = dot.results[0]
            blocked_ty = result.type
            mma_ty = _with_encoding(ir, blocked_ty, text)
            acc = dot.operands[2]
            result.set_type(mma_ty)
            keep = []
            owner = acc.owner
            if _retype_constant(ir, acc, text):
                pass
            elif isinstance(owner, ir.Block) and owner.owner is not None and \
                    owner.owner.name == "scf.for" and _carried_by(ir, owner.owner, acc, dot):
                loop = owner.owner
                index = acc.arg_number - 1
                init = loop.operands[3 + index]
                if not _retype_constant(ir, init, text):
                    loop.operands[3 + index] = _convert_before(ir, loop, init, mma_ty)
                acc.set_type(mma_ty)
                loop.results[index].set_type(mma_ty)
                _convert_users(ir, acc, blocked_ty, [dot])
                _convert_users(ir, loop.results[index], blocked_ty, [])
                keep.append(_yield_of(loop))
            else:
                dot.operands[2] = _convert_before(ir, dot, acc, mma_ty)
            _convert_users(ir, result, blocked_ty, keep)
            if _k_step(ir, dot, arch) == 16 and not (  # tf32, int8, fp8: from shared memory
                    arch >= 90 and _wgmma_reads_smem(ir, dot, layout, num_warps)
                    and _invariant_in_loop(ir, dot)):
                _a_in_registers(ir, dot, layout)


def _a_in_registers(ir, dot, layout: MmaLayout) -> None:
    """Give `dot` its A operand in registers (`#ttg.dot_op<0, mma>`), converted once right
    where A is defined: outside the loop when A is loop-invariant (the queries of flash
    attention), in registers when A is computed (its probabilities)."""
    a = dot.operands[0]
    owner = a.owner
    if not _a_stays_in_registers(ir, dot):
        return
    if not isinstance(owner, ir.Block):
        ip, loc = ir.InsertionPoint.after(owner), owner.location
    else:
        ip, loc = ir.InsertionPoint.at_block_begin(owner), dot.location
    ty = _with_encoding(ir, a.type, DotOperandLayout(0, layout).attr_text())
    dot.operands[0] = ir.Operation.create("ttg.convert_layout", results=[ty], operands=[a],
                                          loc=loc, ip=ip).results[0]


def wgmma_row_bytes(columns: int, elem_bytes: int = 2) -> int | None:
    """The bytes per row of a tile with `columns` columns of `elem_bytes` in shared memory
    as wgmma reads it, or None when no wgmma swizzle mode fits it."""
    size = elem_bytes * columns
    if size in (32, 64):
        return size
    return 128 if size % 128 == 0 else None


def wgmma_takes(shape: tuple, k: int, kind: str, warps_per_cta: tuple,
                num_warps: int) -> bool:
    """Whether wgmma (sm_90) computes a dot of fp32 accumulator `shape` (m, n) and depth
    `k` from operand tiles of `kind` (`wgmma_kinds`) in an mma layout of `warps_per_cta`
    (`wgmma_warps`), both operands read from shared memory if need be (a 16-bit B with N
    along its rows, the others with K; with the warpgroups split along N, each one's
    columns of a 16-bit B start a 128-byte column block)."""
    m, n = shape
    nbytes = KIND_BYTES[kind]
    if warps_per_cta != wgmma_warps(m, n, num_warps):
        return False
    split = warps_per_cta[1] > 1 and (n // warps_per_cta[1] * nbytes) % 128 != 0
    return (k % (32 // nbytes) == 0 and wgmma_row_bytes(k, nbytes) is not None
            and (nbytes != 2 or (wgmma_row_bytes(n) is not None and not split)))


def wgmma_operand_kinds(ir, dot, num_warps: int,
                        warps_per_cta: tuple | None = None) -> tuple[str, str] | None:
    """`wgmma_kinds` of `dot` when it lowers to wgmma on sm_90 (`wgmma_takes`) in an mma
    layout of `warps_per_cta` (`wgmma_warps`, as `_eligible` gives wgmma dots, when not
    given), else None."""
    kinds = wgmma_kinds(ir, dot)
    if kinds is None:
        return None
    a, c = (_tensor(ir, v.type) for v in (dot.operands[0], dot.operands[2]))
    if len(c.shape) != 2:  # a batched dot
        return None
    warps = warps_per_cta or wgmma_warps(*c.shape, num_warps)
    takes = warps is not None and wgmma_takes(tuple(c.shape), a.shape[1], kinds[0], warps,
                                              num_warps)
    return kinds if takes else None


def _wgmma_reads_smem(ir, dot, layout: MmaLayout, num_warps: int) -> bool:
    """Whether `dot`, in `layout` on sm_90, lowers to wgmma (`wgmma_takes`)."""
    return wgmma_operand_kinds(ir, dot, num_warps, layout.warps_per_cta) is not None


def _invariant_in_loop(ir, dot) -> bool:
    """Whether `dot` sits in the body of an `scf.for` that does not compute its A."""
    block = dot.operation.block
    parent = block.owner
    if parent is None or parent.name != "scf.for":
        return False
    return defining_block(dot.operands[0]) != block


def _yield_of(loop):
    return loop.regions[0].blocks[0].operations[len(loop.regions[0].blocks[0].operations) - 1]


def _carried_by(ir, loop, arg, dot) -> bool:
    """Whether the loop yields `dot`'s result in the position of iteration argument `arg`."""
    terminator = _yield_of(loop)
    index = arg.arg_number - 1
    return terminator.operands[index] == dot.results[0]
