"""Lowering of `tt.elementwise_inline_asm`: the user's PTX run on each thread's elements.

With `packed_element` = p, one asm statement takes p elements of every operand and gives
p elements of every result, as Triton's `inline_asm_elementwise(..., pack=p)` does. An
operand or result narrower than 32 bits travels min(p, 32 / bits) elements to a register
(four int8 in one `r`, two fp16 in one `r`); wider ones take a register each. The asm's
`$` operands are then, in order: each result's registers, each operand's registers. A
thread whose register count is not a multiple of p repeats its last element to fill the
final statement and drops the surplus results. An asm that is not pure keeps its side
effects (`has_side_effects`), so it is not removed when its results go unused.
"""

from __future__ import annotations

from collections.abc import Sequence

from tritonc.passes.to_llvm.context import LoweringContext, ir
from tritonc.passes.to_llvm.lowering import lowering


def _bits(ty) -> int:
    if isinstance(ty, ir.IntegerType):
        return ir.IntegerType(ty).width
    if isinstance(ty, ir.FloatType):
        return ir.FloatType(ty).width
    return 64  # a pointer


def _chunks(ty, pack: int) -> list[int]:
    """How many of `pack` elements of type `ty` each register holds, register by register."""
    per = max(1, min(pack, 32 // _bits(ty)))
    return [min(per, pack - start) for start in range(0, pack, per)]


def _word_type(ty, count: int):
    return ty if count == 1 else ir.IntegerType.get_signless(count * _bits(ty))


def _pack(ctx: LoweringContext, elements: Sequence, ty, pack: int) -> list:
    """`pack` elements of type `ty` as the registers the asm reads."""
    words, start = [], 0
    for count in _chunks(ty, pack):
        part = elements[start:start + count]
        start += count
        words.append(part[0] if count == 1 else ctx.pack(part, _word_type(ty, count)))
    return words


def _unpack(ctx: LoweringContext, words: Sequence, ty, pack: int) -> list:
    """The `pack` elements of type `ty` in the registers the asm wrote."""
    elements = []
    for word, count in zip(words, _chunks(ty, pack), strict=True):
        elements += [word] if count == 1 else ctx.unpack(word, ty, count)
    return elements


@lowering("tt.elementwise_inline_asm")
def lower_inline_asm(ctx: LoweringContext, op) -> list:
    pack = ir.IntegerAttr(op.attributes["packed_element"]).value
    if pack < 1:
        raise ValueError(f"{op.location}: inline_asm_elementwise needs pack >= 1, not {pack}")
    attrs = {"asm_string": op.attributes["asm_string"], "constraints": op.attributes["constraints"]}
    if not ir.BoolAttr(op.attributes["pure"]).value:
        attrs["has_side_effects"] = ir.UnitAttr.get()
    results = list(op.results)
    res_tys = [ctx.scalar_type(r.type) for r in results]
    arg_tys = [ctx.scalar_type(v.type) for v in op.operands]
    args = [ctx.get(v) for v in op.operands]
    n = ctx.num_registers(results[0].type) if results else max(map(len, args), default=1)
    word_tys = [_word_type(ty, c) for ty in res_tys for c in _chunks(ty, pack)]
    ret_ty = word_tys[0] if len(word_tys) == 1 else ir.Type.parse(
        f"!llvm.struct<({', '.join(map(str, word_tys))})>")
    outs: list[list] = [[] for _ in results]
    for start in range(0, n, pack):
        picks = [min(start + k, n - 1) for k in range(pack)]
        operands = []
        for regs, ty in zip(args, arg_tys, strict=True):
            operands += _pack(ctx, [regs[i] if len(regs) > 1 else regs[0] for i in picks],
                              ty, pack)
        if not results:
            ctx.op("llvm.inline_asm", operands, [], attrs)
            continue
        value = ctx.value("llvm.inline_asm", operands, ret_ty, attrs)
        words = [value] if len(word_tys) == 1 else [
            ctx.value("llvm.extractvalue", [value], ty, {"position": ir.DenseI64ArrayAttr.get([k])})
            for k, ty in enumerate(word_tys)]
        first = 0
        for k, ty in enumerate(res_tys):
            count = len(_chunks(ty, pack))
            elements = _unpack(ctx, words[first:first + count], ty, pack)
            first += count
            outs[k] += elements[:n - start]
    return outs
