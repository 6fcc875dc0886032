"""Axis analysis: what is known about the values of an integer or pointer tensor.

For the fastest-varying (last) dimension of a value it tracks:

- contiguity: the length of runs of consecutive values (x, x+1, x+2, ...),
- divisibility: the largest power of two known to divide the first value of each run
  (for pointers, of the byte address),
- constancy: the length of runs of equal values.

Quotients by a constant and loads through runs of equal addresses keep runs of equal
values. It is seeded by `tt.make_range`, constants, `tt.divisibility` on kernel arguments and
`tl.multiple_of`/`tl.max_contiguous` hints, and decides how wide a load or store may be
and whether its mask is uniform over a vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from tritonc.passes.to_llvm.context import ir, pointee_text

MAX_DIVISIBILITY = 1 << 30
_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4,
          "f64": 8}


@dataclass(frozen=True)
class AxisInfo:
    contiguity: int = 1
    divisibility: int = 1
    constancy: int = 1
    value: int | None = None  # set for integer constants (scalars and splats)


def meet(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """What holds for both (a loop-carried value: its initial and its next value)."""
    return AxisInfo(gcd(a.contiguity, b.contiguity), gcd(a.divisibility, b.divisibility),
                    gcd(a.constancy, b.constancy), a.value if a.value == b.value else None)


def every_element(info: AxisInfo) -> int:
    """The power of two dividing every element (not only the first of each run): a new
    dimension of size 1 (`x[:, None]`) holds each element as a run of its own."""
    return info.divisibility if info.contiguity == 1 else 1


def _divisibility_at(info: AxisInfo, run: int, step: int = 1) -> int:
    """The power of two dividing the value at the start of every aligned run of `run`
    elements: the divisibility of the first of each run of `info` when its runs are no
    longer, else that of a value `run` (times `step`, a pointer's element size) past it."""
    if info.contiguity <= run:
        return info.divisibility
    return gcd(info.divisibility, run * step)


def _pow2_factor(v: int) -> int:
    return MAX_DIVISIBILITY if v == 0 else min(v & -v, MAX_DIVISIBILITY)


def element_bytes(ty) -> int:
    text = str(ty)
    if pointee_text(ty) is not None or text.startswith(("!llvm.ptr", "!tt.ptr")):
        return 8
    return _BYTES.get(text, 1 if text.startswith("f8") else 4)


def pointee_bytes(ptr_type) -> int:
    """The size of the element a pointer type points to (`!tt.ptr<f16>`: 2; a pointer:
    8)."""
    pointee = pointee_text(ptr_type)[0]
    if pointee.startswith("!tt.ptr"):
        return 8
    return _BYTES.get(pointee, 1 if pointee.startswith("f8") else 4)


def _last(ty) -> int:
    if isinstance(ty, ir.RankedTensorType):
        shape = ir.RankedTensorType(ty).shape
        return shape[-1] if shape else 1
    return 1


class AxisAnalysis:
    """Memoised axis information of TTGIR values."""

    def __init__(self) -> None:
        self.cache: dict = {}

    def get(self, value) -> AxisInfo:
        if value not in self.cache:
            self.cache[value] = self._compute(value)
        return self.cache[value]

    def _compute(self, value) -> AxisInfo:
        n = _last(value.type)
        owner = value.owner
        if isinstance(owner, ir.Block):
            return self._argument(value, owner)
        op = owner.operation
        info = self._from_op(op, value, n)
        return self._apply_hints(op, info)

    def _argument(self, value, block) -> AxisInfo:
        parent = block.owner
        if parent is not None:
            parent = parent.operation
        if parent is not None and parent.name == "scf.for" and value.arg_number == 0:
            # the induction variable: lb + k * step
            lb, step = self.get(parent.operands[0]), self.get(parent.operands[2])
            return AxisInfo(1, gcd(lb.divisibility, step.divisibility), 1)
        if parent is not None and parent.name == "scf.for":
            # a loop-carried value: assume its initial value's facts, check them against
            # the value the loop yields, and keep what holds for both
            index = value.arg_number - 1
            init = self.get(parent.operands[3 + index])
            self.cache[value] = init
            body = parent.regions[0].blocks[0]
            terminator = list(body.operations)[-1]
            return meet(init, self.get(terminator.operands[index]))
        if parent is not None and parent.name == "func.func" and "arg_attrs" in parent.attributes:
            attrs = ir.ArrayAttr(parent.attributes["arg_attrs"])[value.arg_number]
            attrs = ir.DictAttr(attrs)
            if "tt.divisibility" in attrs:
                return AxisInfo(1, ir.IntegerAttr(attrs["tt.divisibility"]).value, 1)
        return AxisInfo()

    @staticmethod
    def _apply_hints(op, info: AxisInfo) -> AxisInfo:
        attrs = op.attributes
        div, contig, const = info.divisibility, info.contiguity, info.constancy
        for name in ("tt.divisibility", "tt.contiguity", "tt.constancy"):
            if name in attrs:
                attr = attrs[name]
                v = ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else \
                    list(ir.DenseI32ArrayAttr(attr))[-1]
                if name == "tt.divisibility":
                    div = max(div, v)
                elif name == "tt.contiguity":
                    contig = max(contig, v)
                else:
                    const = max(const, v)
        return AxisInfo(contig, div, const, info.value)

    def _from_op(self, op, value, n: int) -> AxisInfo:
        name = op.name
        ops = list(op.operands)
        if name == "tt.make_range":
            start = ir.IntegerAttr(op.attributes["start"]).value
            return AxisInfo(n, _pow2_factor(start), 1)
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(value.type, ir.RankedTensorType):
                attr = ir.DenseElementsAttr(attr).get_splat_value()
            if isinstance(attr, ir.IntegerAttr):
                v = ir.IntegerAttr(attr).value
                return AxisInfo(1, _pow2_factor(v), n, v)
            return AxisInfo(1, 1, n)
        if name == "ttg.convert_layout":  # the same values, placed otherwise
            return self.get(ops[0])
        if name in ("tt.splat", "tt.broadcast"):
            src = self.get(ops[0])
            if name == "tt.splat" or _last(ops[0].type) == 1:
                return AxisInfo(1, src.divisibility, n, src.value)
            return src
        if name == "tt.expand_dims":
            src = self.get(ops[0])
            return src if n != 1 else AxisInfo(1, every_element(src), 1)
        if name in ("arith.addi", "tt.addptr"):
            a, b = self.get(ops[0]), self.get(ops[1])
            scale = 1
            if name == "tt.addptr":
                elt = ir.RankedTensorType(value.type).element_type if \
                    isinstance(value.type, ir.RankedTensorType) else value.type
                scale = pointee_bytes(elt)
            contig = max(gcd(a.contiguity, b.constancy), gcd(b.contiguity, a.constancy))
            div = gcd(_divisibility_at(a, contig, scale), _divisibility_at(b, contig) * scale)
            return AxisInfo(contig, div, gcd(a.constancy, b.constancy))
        if name == "arith.subi":
            a, b = self.get(ops[0]), self.get(ops[1])
            contig = gcd(a.contiguity, b.constancy)
            return AxisInfo(contig, gcd(_divisibility_at(a, contig), _divisibility_at(b, contig)),
                            gcd(a.constancy, b.constancy))
        if name in ("arith.remsi", "arith.remui"):
            # (x % m) keeps runs of x that do not cross a multiple of m: a run of p
            # values from x stays inside one when p divides both x and m
            a, b = self.get(ops[0]), self.get(ops[1])
            contig = gcd(a.contiguity, gcd(a.divisibility, b.divisibility))
            return AxisInfo(contig, gcd(_divisibility_at(a, contig), _divisibility_at(b, contig)),
                            gcd(a.constancy, b.constancy) if b.constancy > 1 else 1)
        if name == "arith.muli":
            a, b = self.get(ops[0]), self.get(ops[1])
            if b.value == 1:
                return a
            if a.value == 1:
                return b
            # a run x, x+1, ... times b: only its first element is known to be a multiple
            div = min(every_element(a) * every_element(b), MAX_DIVISIBILITY)
            return AxisInfo(1, div, gcd(a.constancy, b.constancy))
        if name in ("arith.cmpi", "arith.andi", "arith.ori", "arith.xori", "arith.select",
                    "arith.extsi", "arith.extui", "arith.trunci"):
            infos = [self.get(v) for v in ops]
            const = 0
            for i in infos:
                const = gcd(const, i.constancy)
            if name == "arith.cmpi" and len(infos) == 2:
                # an aligned run x, ..., x+p-1 and a bound b that p divides: x < b and
                # x >= b hold for the whole run or none of it (x <= b, x > b, == and !=
                # change inside the run where x = b)
                a, b = infos
                common = gcd(a.divisibility, b.divisibility)
                left, right = _bounded_sides(op)
                if left:
                    const = max(const, min(gcd(a.contiguity, common), b.constancy))
                if right:
                    const = max(const, min(gcd(b.contiguity, common), a.constancy))
            if name in ("arith.extsi", "arith.extui", "arith.trunci"):
                return infos[0]
            return AxisInfo(1, 1, max(1, const))
        if name in ("arith.divsi", "arith.divui") and isinstance(value.type, ir.RankedTensorType):
            # (x // c) is constant over runs of x that do not cross a multiple of c
            a, b = self.get(ops[0]), self.get(ops[1])
            const = a.constancy
            if b.value is not None and b.value > 0 and b.constancy == n:
                const = max(const, gcd(a.contiguity, gcd(a.divisibility, b.value)))
            return AxisInfo(1, 1, const)
        if name == "tt.load" and isinstance(value.type, ir.RankedTensorType):
            # equal addresses under an equal mask load equal values
            segs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
            const = self.get(ops[0]).constancy
            for v in ops[1:1 + segs[1] + segs[2]]:
                const = gcd(const, self.get(v).constancy)
            return AxisInfo(1, 1, const)
        if name == "tt.get_program_id" or name == "tt.get_num_programs":
            return AxisInfo()
        return AxisInfo()


_RUN_ON_LEFT = {2, 5, 6, 9}  # slt sge ult uge: `run < bound`, `run >= bound`
_RUN_ON_RIGHT = {3, 4, 7, 8}  # sle sgt ule ugt: `bound <= run`, `bound > run`


def _bounded_sides(cmpi) -> tuple[bool, bool]:
    """Whether an `arith.cmpi` is constant over an aligned run of its (left, right)
    operand against an aligned bound on the other side."""
    predicate = ir.IntegerAttr(cmpi.attributes["predicate"]).value
    return predicate in _RUN_ON_LEFT, predicate in _RUN_ON_RIGHT


def aligned_width(axis: AxisAnalysis, ptr, elt_bytes: int) -> int | None:
    """How many consecutive elements along the last dimension one access through the
    tensor of pointers `ptr` may cover, from the addresses alone (a power of two, at most
    16 bytes); None where the addresses do not run along the last dimension."""
    info = axis.get(ptr)
    if info.contiguity < 2:
        return None
    vec = min(info.contiguity, max(1, info.divisibility // elt_bytes), max(1, 16 // elt_bytes))
    width = 1
    while width * 2 <= vec:
        width *= 2
    return width


def analysis(ctx) -> AxisAnalysis:
    """The axis analysis of one lowering (a `LoweringContext`), made on first use."""
    if not hasattr(ctx, "axis"):
        ctx.axis = AxisAnalysis()
    return ctx.axis
