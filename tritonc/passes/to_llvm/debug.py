"""Lowering of device printing and assertions (CUDA's `vprintf` and `__assertfail`).

`tt.print` prints one line per element held by this thread and operand (only one copy
of each element when the layout holds several), as Triton formats them:
`pid (x, y, z) idx (  i,  j)<prefix>[(operand k) ]<value>`, the indices padded to the
digits of their dimension, `idx ()` for scalars, hex values zero-padded to their width.
`tt.assert` calls `__assertfail` with the message in a thread where the condition is false
for any of its elements (one branch per thread, not one per element), which stops the
kernel; the launch then fails with CUDA_ERROR_ASSERT.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import lowering


def _string(ctx: LoweringContext, text: str):
    """A pointer to a NUL-terminated global string constant."""
    name = f"str_{len(ctx.declared)}"
    ctx.declared.add(name)
    data = text.encode()
    escaped = "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\' else f"\\{b:02X}"
                      for b in data)
    glob = ir.Operation.parse(f'llvm.mlir.global internal constant @{name}("{escaped}\\00") '
                              f'{{addr_space = 0 : i32}}')
    ctx.module_ip.insert(glob)
    return ctx.value("llvm.mlir.addressof", [], ir.Type.parse("!llvm.ptr"),
                     {"global_name": ir.FlatSymbolRefAttr.get(name)})


def _printable(ctx: LoweringContext, value, signed: bool, hex_: bool) -> tuple[str, object]:
    """(printf conversion, value widened as C varargs need)."""
    ty = value.type
    i32 = ir.IntegerType.get_signless(32)
    if str(ty).startswith("!llvm.ptr"):
        return "%p", value
    if isinstance(ty, ir.IntegerType):
        width = ir.IntegerType(ty).width
        digits = f"0x%0{max(1, width // 4)}"
        if width == 64:
            return (digits + "llx" if hex_ else "%lld" if signed else "%llu"), value
        if width < 32:
            extend = "arith.extsi" if signed and width > 1 and not hex_ else "arith.extui"
            value = ctx.value(extend, [value], i32)
        return (digits + "x" if hex_ else "%d" if signed else "%u"), value
    f64 = ir.F64Type.get()
    if ty != f64:
        value = ctx.value("arith.extf", [value], f64)
    return ("%a" if hex_ else "%f"), value


def _vprintf(ctx: LoweringContext, fmt: str, values: list) -> None:
    types = ", ".join(str(v.type) for v in values) or "i32"
    struct = ir.Type.parse(f"!llvm.struct<({types})>")
    one = ctx.const(1, ir.IntegerType.get_signless(32))
    buf = ctx.value("llvm.alloca", [one], ir.Type.parse("!llvm.ptr"),
                    {"elem_type": ir.TypeAttr.get(struct)})
    for i, v in enumerate(values):
        slot = ctx.value("llvm.getelementptr", [buf], ir.Type.parse("!llvm.ptr"), {
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([0, i]),
            "elem_type": ir.TypeAttr.get(struct)})
        ctx.op("llvm.store", [v, slot])
    ctx.call_extern("vprintf", [_string(ctx, fmt), buf], ir.IntegerType.get_signless(32))


def _when(ctx: LoweringContext, pred, body) -> None:
    if pred is None:
        body()
        return
    branch = ir.Operation.create("scf.if", results=[], operands=[pred], regions=2, loc=ctx.loc,
                                 ip=ctx.ip)
    saved = ctx.ip
    ctx.ip = ir.InsertionPoint(branch.regions[0].blocks.append())
    body()
    ctx.op("scf.yield", [])
    branch.regions[1].blocks.append()
    ctx.ip = ir.InsertionPoint(branch.regions[1].blocks[0])
    ctx.op("scf.yield", [])
    ctx.ip = saved


def _program_ids(ctx: LoweringContext) -> list:
    out = []
    for axis in "xyz":
        v = ctx.value("gpu.block_id", [], ir.IndexType.get(),
                      {"dimension": ir.Attribute.parse(f"#gpu<dim {axis}>")})
        out.append(ctx.value("arith.index_cast", [v], ctx.i32_type()))
    return out


@lowering("tt.print")
def lower_print(ctx: LoweringContext, op) -> list:
    prefix = ir.StringAttr(op.attributes["prefix"]).value
    hex_ = ir.BoolAttr(op.attributes["hex"]).value
    signed = list(ir.DenseI32ArrayAttr(op.attributes["is_signed"]))
    operands = list(op.operands)
    pids = _program_ids(ctx)
    if not operands:
        _vprintf(ctx, f"pid (%u, %u, %u){prefix}\n", pids)
        return []
    tensor = next((v for v in operands if ctx.is_tensor(v.type)), None)
    n = ctx.num_registers(tensor.type) if tensor is not None else 1
    owners = ctx.owner_predicates(tensor.type) if tensor is not None else None
    coords = ctx.coordinates(tensor.type) if tensor is not None else [[]]
    shape = ctx.shape(tensor.type) if tensor is not None else ()
    # each index padded to the digits of its dimension's last one: `idx ( 7, 100)`
    idx = " idx (" + ", ".join(f"%{len(str(d - 1))}u" for d in shape) + ")"
    for i in range(n):
        def body(i=i):
            for k, v in enumerate(operands):
                regs = ctx.get(v)
                conv, wide = _printable(ctx, regs[i] if len(regs) > 1 else regs[0],
                                        bool(signed[k]) if k < len(signed) else True, hex_)
                operand = f"(operand {k}) " if len(operands) > 1 else ""
                _vprintf(ctx, f"pid (%u, %u, %u){idx}{prefix}{operand}{conv}\n",
                         [*pids, *coords[i], wide])

        _when(ctx, owners[i] if owners else None, body)
    return []


@lowering("tt.assert")
def lower_assert(ctx: LoweringContext, op) -> list:
    message = ir.StringAttr(op.attributes["message"]).value
    i1 = ir.IntegerType.get_signless(1)
    true = ctx.const(1, i1)
    failed = None
    for c in ctx.get(op.operands[0]):
        bad = ctx.binop("arith.xori", c, true)
        failed = bad if failed is None else ctx.binop("arith.ori", failed, bad)

    def body():
        ctx.call_extern("__assertfail", [_string(ctx, message), _string(ctx, "kernel"),
                                         ctx.i32(0), _string(ctx, "kernel"),
                                         ctx.const(1, ir.IntegerType.get_signless(64))],
                        ir.Type.parse("!llvm.void"))

    _when(ctx, failed, body)
    return []
