"""Axis analysis along any dimension of a tensor, not only the last.

`AxisAnalysis` (axis_info.py) tracks the fastest-varying (last) dimension. A tile read
through a transposed view (`b_ptr + offs_k[:, None] * 1 + offs_n[None, :] * stride_bn`)
is contiguous along its first dimension instead; `AxisAlong` answers the same questions
(contiguity, divisibility, constancy) for the dimension asked. The elementwise rules are
those of `AxisAnalysis`; the ops that move dimensions (splat, broadcast, expand_dims,
trans, convert_layout) map the dimension asked to the one of their operand.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_info import AxisAnalysis, AxisInfo, every_element
from tritonc.passes.to_llvm.context import ir


def _shape(ty) -> list[int]:
    return list(ir.RankedTensorType(ty).shape) if isinstance(ty, ir.RankedTensorType) else []


class _OneDim(AxisAnalysis):
    """The facts of every value along dimension `dim` (scalars: as one element)."""

    def __init__(self, owner: AxisAlong, dim: int) -> None:
        super().__init__()
        self.owner, self.dim = owner, dim

    def _compute(self, value) -> AxisInfo:
        shape = _shape(value.type)
        n = shape[self.dim] if self.dim < len(shape) else 1
        owner = value.owner
        if isinstance(owner, ir.Block):
            return self._argument(value, owner)
        op = owner.operation
        info = self._moved(op, value, n)
        if info is None:
            info = self._from_op(op, value, n)
        if self.dim == len(shape) - 1 or not shape:
            info = self._apply_hints(op, info)
        return info

    def _moved(self, op, value, n: int) -> AxisInfo | None:
        """Facts through the ops that move dimensions; None for every other op."""
        name = op.name
        if name not in ("tt.splat", "tt.broadcast", "tt.expand_dims", "tt.trans",
                        "ttg.convert_layout") or not _shape(value.type):
            return None
        src = op.operands[0]
        if name == "tt.splat":
            info = self.owner.get(src, 0)
            return AxisInfo(1, info.divisibility, n, info.value)
        if name == "ttg.convert_layout":
            return self.owner.get(src, self.dim)
        if name == "tt.broadcast":
            info = self.owner.get(src, self.dim)
            if _shape(src.type)[self.dim] == 1:
                return AxisInfo(1, info.divisibility, n, info.value)
            return info
        if name == "tt.expand_dims":
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            if self.dim == axis:
                rank = len(_shape(src.type))
                infos = [self.owner.get(src, d) for d in range(rank)] or [self.owner.get(src, 0)]
                return AxisInfo(1, min(every_element(i) for i in infos), 1, infos[0].value)
            return self.owner.get(src, self.dim if self.dim < axis else self.dim - 1)
        order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))
        return self.owner.get(src, order[self.dim])


class AxisAlong:
    """Memoised axis facts of TTGIR values along each of their dimensions."""

    def __init__(self) -> None:
        self.dims: dict[int, _OneDim] = {}

    def get(self, value, dim: int) -> AxisInfo:
        if dim not in self.dims:
            self.dims[dim] = _OneDim(self, dim)
        return self.dims[dim].get(value)

    def running_dim(self, ptr) -> int | None:
        """The one dimension along which the 2-D pointer tensor `ptr` runs contiguously,
        the first or the last (None when none or both do)."""
        shape = _shape(ptr.type)
        if len(shape) != 2:
            return None
        runs = [self.get(ptr, d).contiguity > 1 for d in range(2)]
        return {(True, False): 0, (False, True): 1}.get(tuple(runs))

    def vector_width(self, ptr, mask, dim: int, elt_bytes: int, limit: int) -> int:
        """How many elements consecutive along `dim` one access of `ptr` may cover (a
        power of two, at most `limit` and 16 bytes), with `mask` uniform over them."""
        info = self.get(ptr, dim)
        vec = min(limit, info.contiguity, max(1, info.divisibility // elt_bytes),
                  max(1, 16 // elt_bytes))
        if mask is not None:
            vec = min(vec, self.get(mask, dim).constancy)
        width = 1
        while width * 2 <= vec:
            width *= 2
        return width


# arith.cmpi predicates whose left side is below (or at) the right: slt sle ult ule
_BELOW = (2, 3, 6, 7)
_ABOVE = (4, 5, 8, 9)  # sgt sge ugt uge


def prefix_along(along: AxisAlong, mask, dim: int, width: int) -> bool:
    """Whether in every aligned run of `width` elements along `dim` the i1 tensor `mask`
    holds for a prefix of the run only (all, none, or the first few): an index running
    along `dim` compared against a bound uniform over the run (`offs_k < K - k`), and'ed
    with such masks and masks uniform over the run."""
    if along.get(mask, dim).constancy >= width:
        return True
    owner = mask.owner
    if isinstance(owner, ir.Block):
        return False
    name = owner.name
    if name == "arith.andi":
        return all(prefix_along(along, v, dim, width) for v in owner.operands)
    if name in ("tt.broadcast", "ttg.convert_layout"):
        return prefix_along(along, owner.operands[0], dim, width)
    if name == "tt.expand_dims":
        axis = ir.IntegerAttr(owner.attributes["axis"]).value
        return dim != axis and prefix_along(along, owner.operands[0],
                                            dim if dim < axis else dim - 1, width)
    if name != "arith.cmpi":
        return False
    predicate = ir.IntegerAttr(owner.attributes["predicate"]).value
    lhs, rhs = owner.operands
    if predicate in _ABOVE:
        lhs, rhs = rhs, lhs
    elif predicate not in _BELOW:
        return False
    return along.get(lhs, dim).contiguity >= width and along.get(rhs, dim).constancy >= width


def analysis_along(ctx) -> AxisAlong:
    """The per-dimension axis analysis of one lowering, made on first use."""
    if not hasattr(ctx, "axis_along"):
        ctx.axis_along = AxisAlong()
    return ctx.axis_along
