"""Predicated, vectorised global-memory accesses as PTX inline assembly.

`emit_loads` and `emit_stores` move `vec` consecutive registers per instruction
(`@p ld.global.v4.b32 {...}, [ptr];`); the predicate is the mask of the first register
of each group, which the caller guarantees is uniform over the group.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.to_llvm.context import LoweringContext, ir


def _word(elt_bytes: int, vec: int) -> tuple[int, int]:
    """(bits per PTX register, number of registers) for `vec` elements."""
    total = elt_bytes * vec * 8
    bits = 64 if elt_bytes == 8 else min(32, total)
    return bits, total // bits


_CONSTRAINT = {8: "c", 16: "h", 32: "r", 64: "l"}


def _is_pointer(ty) -> bool:
    return str(ty).startswith("!llvm.ptr")


def _pack(ctx: LoweringContext, values: list, elt_ty, bits: int, count: int) -> list:
    """Scalar elements as `count` integers of `bits` bits (bit-exact; a pointer as its
    64-bit address)."""
    word = ir.IntegerType.get_signless(bits)
    if _is_pointer(elt_ty):
        elt_ty = ir.IntegerType.get_signless(64)
        values = [ctx.value("llvm.ptrtoint", [v], elt_ty) for v in values]
    if len(values) == count and isinstance(elt_ty, ir.IntegerType) and \
            ir.IntegerType(elt_ty).width == bits:
        return values
    vec_ty = ir.VectorType.get([len(values)], elt_ty)
    vec = ctx.value("llvm.mlir.poison", [], vec_ty)
    for i, v in enumerate(values):
        vec = ctx.value("llvm.insertelement", [vec, v, ctx.i32(i)], vec_ty)
    words = ctx.value("llvm.bitcast", [vec], ir.VectorType.get([count], word))
    return [ctx.value("llvm.extractelement", [words, ctx.i32(i)], word) for i in range(count)]


def _unpack(ctx: LoweringContext, words: list, elt_ty, vec: int) -> list:
    if _is_pointer(elt_ty):
        addresses = _unpack(ctx, words, ir.IntegerType.get_signless(64), vec)
        return [ctx.value("llvm.inttoptr", [a], elt_ty) for a in addresses]
    bits = ir.IntegerType(words[0].type).width
    if len(words) == vec and str(elt_ty) == f"i{bits}":
        return words
    wvec_ty = ir.VectorType.get([len(words)], words[0].type)
    wvec = ctx.value("llvm.mlir.poison", [], wvec_ty)
    for i, w in enumerate(words):
        wvec = ctx.value("llvm.insertelement", [wvec, w, ctx.i32(i)], wvec_ty)
    evec = ctx.value("llvm.bitcast", [wvec], ir.VectorType.get([vec], elt_ty))
    return [ctx.value("llvm.extractelement", [evec, ctx.i32(i)], elt_ty) for i in range(vec)]


def _l2_policy(ctx: LoweringContext, evict: str):
    """For an access with an eviction policy (`.L1::evict_first` / `.L1::evict_last`), a
    cache policy asking L2 for the same on all of the lines it touches (an i64 register
    for `.L2::cache_hint`); None without one."""
    if not evict:
        return None
    level = evict.split("::")[1]
    return ctx.value("llvm.inline_asm", [], ir.IntegerType.get_signless(64), {
        "asm_string": ir.StringAttr.get(f"createpolicy.fractional.L2::{level}.b64 $0, 1.0;"),
        "constraints": ir.StringAttr.get("=l")})


def _true(ctx: LoweringContext):
    return ctx.const(1, ir.IntegerType.get_signless(1))


def emit_loads(ctx: LoweringContext, ptrs: list, masks: list | None, others: list | None,
               elt_ty, vec: int, cache: str = "", evict: str = "",
               volatile: bool = False) -> list:
    """Predicated loads of `vec` registers at a time: `@p ld.global.v4.b32 {...}, [ptr];`."""
    nbytes = element_bytes(elt_ty)
    bits, count = _word(nbytes, vec)
    word = ir.IntegerType.get_signless(bits)
    evict = "" if cache or volatile else evict
    policy = _l2_policy(ctx, evict)
    hint = ", $" + str(count + 2) if policy is not None else ""
    # the value of masked-off lanes is moved into the registers inside the same asm, so
    # the predicate dies at the load (a select after it would keep up to one predicate
    # register live per load in flight, and there are only seven)
    fill_at = count + 2 + (policy is not None)
    filled = others is not None and bits >= 16
    out = []
    for start in range(0, len(ptrs), vec):
        pred = masks[start] if masks is not None else _true(ctx)
        regs = ", ".join(f"${i}" for i in range(count))
        instr = "ld.volatile.global" if volatile else f"ld.global{cache}{evict}"
        if policy is not None:
            instr += ".L2::cache_hint"
        if count == 1:
            asm = f"@${count} {instr}.b{bits} {regs}, [${count + 1}]{hint};"
        else:
            asm = f"@${count} {instr}.v{count}.b{bits} {{{regs}}}, [${count + 1}]{hint};"
        fills = _pack(ctx, others[start:start + vec], elt_ty, bits, count) if filled else []
        asm = "".join(f"mov.b{bits} ${i}, ${fill_at + i};\n" for i in range(len(fills))) + asm
        constraints = ",".join([f"={_CONSTRAINT[bits]}"] * count + ["b", "l"]
                               + (["l"] if policy is not None else [])
                               + [_CONSTRAINT[bits]] * len(fills))
        res_ty = word if count == 1 else ir.Type.parse(
            f"!llvm.struct<({', '.join([str(word)] * count)})>")
        operands = [pred, ptrs[start]] + ([policy] if policy is not None else []) + fills
        call = ctx.op("llvm.inline_asm", operands, [res_ty], {
            "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get(constraints),
            "has_side_effects": ir.UnitAttr.get()})
        raw = call.results[0]
        words = [raw] if count == 1 else [
            ctx.value("llvm.extractvalue", [raw], word,
                      {"position": ir.DenseI64ArrayAttr.get([i])}) for i in range(count)]
        values = _unpack(ctx, words, elt_ty, vec)
        if others is not None and not filled:
            values = [ctx.value("arith.select", [pred, v, others[start + i]], elt_ty)
                      for i, v in enumerate(values)]
        out.extend(values)
    return out


def emit_stores(ctx: LoweringContext, ptrs: list, values: list, masks: list | None, elt_ty,
                vec: int, cache: str = "", evict: str = "") -> None:
    """Predicated stores of `vec` registers at a time: `@p st.global.v4.b32 [ptr], {...};`."""
    bits, count = _word(element_bytes(elt_ty), vec)
    evict = "" if cache else evict
    policy = _l2_policy(ctx, evict)
    hint = (".L2::cache_hint", f", ${count + 2}") if policy is not None else ("", "")
    for start in range(0, len(values), vec):
        pred = masks[start] if masks is not None else _true(ctx)
        words = _pack(ctx, values[start:start + vec], elt_ty, bits, count)
        regs = ", ".join(f"${i + 2}" for i in range(count))
        body = f"{{{regs}}}" if count > 1 else regs
        suffix = f".v{count}" if count > 1 else ""
        asm = f"@$0 st.global{cache}{evict}{hint[0]}{suffix}.b{bits} [$1], {body}{hint[1]};"
        constraints = ",".join(["b", "l"] + [_CONSTRAINT[bits]] * count
                               + (["l"] if policy is not None else []))
        operands = [pred, ptrs[start], *words] + ([policy] if policy is not None else [])
        ctx.op("llvm.inline_asm", operands, [], {
            "asm_string": ir.StringAttr.get(asm), "constraints": ir.StringAttr.get(constraints),
            "has_side_effects": ir.UnitAttr.get()})
