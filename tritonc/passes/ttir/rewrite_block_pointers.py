"""rewrite-block-pointers: block pointers become tensors of pointers and masks.

Takes TTIR with `tt.make_block_ptr`, `tt.advance` and loads and stores through block
pointers; gives TTIR in which a block pointer is its parts (the base pointer, then the
shape and strides, i64, and the offsets, i32, of each dimension), carried by loops and
branches as scalars, and every access through one is a `tt.load` / `tt.store` of a tensor
of pointers: the base advanced by the sum of `offset_d * stride_d` (a scalar), plus for each
dimension d `arange(0, block_d) * stride_d` (i64, the same for every offset); for each
dimension in `boundary_check`, the mask `-offset_d <= arange(0, block_d) < shape_d -
offset_d`; masked loads fill with zero (NaN with `padding = "nan"`).

The layout passes and the pipeliner then see the addresses an access computes, as with
a kernel written with pointer tiles: the axis analysis proves contiguity and alignment
from the strides, and the loop's address arithmetic is what the ring evaluates for later
iterations. A function whose block pointers reach an op other than those above, the
loops and branches of `scf` and `arith.select` (a call, a function argument) is left as
it is; its block pointers are lowered as they stand (`passes/to_llvm/blocks.py`).

With `descriptors` (the CUDA pipeline sets it on sm_90 with `launch_tensormaps`), a load
that can copy by TMA becomes a `tt.descriptor_load` instead: a 2-D block of 16-bit
elements, zero-padded, read in a loop by dots only, through a block pointer the loop
only advances, whose `tt.make_block_ptr` has the base, shape and strides of a map the
launch can make (`hoist_tensormaps.recipe`: kernel arguments and constants, the
contiguous dimension's stride 1). The descriptor is made beside the block pointer, over
the tensor as it lies in memory (a column-major block's dimensions swapped, the loaded
block then `tt.trans`posed back), and the load reads it at the block pointer's offsets;
outside the tensor it reads zeros, whichever dimensions the load checked.

Before:
    %bp = "tt.make_block_ptr"(%base, %M, %K, %sm, %c1, %om, %c0) {order = array<i32: 1, 0>}
          : (...) -> !tt.ptr<tensor<128x64xf16>, 1 : i32>
    %r:2 = scf.for %k = ... iter_args(%acc = %zero, %p = %bp) -> (tensor<...>, !tt.ptr<...>) {
      %a = "tt.load"(%p) {boundary_check = array<i32: 0, 1>, padding = "zero"} : ...
      %p2 = "tt.advance"(%p, %c0, %c64) : ...
      scf.yield %d, %p2
    }
After:
    %r:5 = scf.for %k = ... iter_args(%acc = %zero, %b = %base, ..., %o0 = %om, %o1 = %c0) {
      %first = "tt.addptr"(%b, %o0 * %sm + %o1 * %c1)                   (i64 scalars)
      %r0 = arith.extsi (make_range 0..128), expanded to 128x1          (and %r1: 1x64)
      %ptrs = "tt.addptr"(splat %first, %r0 * %sm + %r1 * %c1 (broadcast))
      %mask = (-%o0 <= %r0 < %M - %o0) & (-%o1 <= %r1 < %K - %o1) (broadcast)
      %a = "tt.load"(%ptrs, %mask, %zeros) : ...
      scf.yield %d, %b, ..., %o0, %o1 + %c64
    }
"""

from __future__ import annotations

import re

from tritonc.passes.to_llvm.blocks import block_rank, is_block_pointer
from tritonc.passes.to_llvm.context import pointee_text
from tritonc.passes.ttgir import ops_named
from tritonc.passes.ttgir.hoist_tensormaps import feeds_a_looped_dot, function_of, recipe

_BLOCK = re.compile(r"^tensor<((?:\d+x)+)(.+)>$")
_SUPPORTED = ("tt.make_block_ptr", "tt.advance", "tt.load", "tt.store", "scf.for", "scf.if",
              "scf.while", "scf.yield", "scf.condition", "arith.select")
_NE, _SLT, _SGE = 1, 2, 5  # arith.cmpi predicates


def rewrite_block_pointers(module, descriptors: bool = False) -> None:
    """Rewrite the block pointers of every function of `module` (see the module doc)."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        for func in ops_named(module, "func.func"):
            if _rewritable(func):
                _Rewriter(ir, _origins(ir, func) if descriptors else {}).function(func)


def _origins(ir, func) -> dict:
    """The `tt.make_block_ptr` each block pointer of `func` comes from through advances
    and the loops that only advance it (the others have none)."""
    origin: dict = {}

    def visit(op):
        if op.name == "tt.make_block_ptr":
            origin[op.results[0]] = op
        elif op.name == "tt.advance" and op.operands[0] in origin:
            origin[op.results[0]] = origin[op.operands[0]]
        elif op.name == "scf.for":
            body = op.regions[0].blocks[0]
            yielded = list(list(body.operations)[-1].operands)
            for init, arg, out, result in zip(list(op.operands)[3:], list(body.arguments)[1:],
                                              yielded, op.results):
                if init in origin and _advances(ir, out, arg):
                    origin[arg] = origin[result] = origin[init]
        return ir.WalkResult.ADVANCE

    func.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return origin


def _advances(ir, value, arg) -> bool:
    """Whether `value` is `arg` advanced any number of times."""
    while not isinstance(value.owner, ir.Block) and value.owner.name == "tt.advance":
        value = value.owner.operands[0]
    return value == arg


def _rewritable(func) -> bool:
    """Whether every op of `func` that takes or makes a block pointer is one this pass
    rewrites (so none is returned or passed to a call), and no argument is one."""
    from mlir import ir

    if any(is_block_pointer(a.type) for a in func.regions[0].blocks[0].arguments):
        return False
    found = []

    def visit(op):
        types = [v.type for v in op.operands] + [r.type for r in op.results]
        if op.name not in _SUPPORTED and any(is_block_pointer(t) for t in types):
            found.append(op)
        return ir.WalkResult.ADVANCE

    func.operation.walk(visit)
    return not found


class _Rewriter:
    """One function's rewrite: `parts` maps each block pointer value to its parts."""

    def __init__(self, ir, origins: dict) -> None:
        self.ir = ir
        self.origins = origins  # block pointer -> its tt.make_block_ptr (descriptors only)
        self.made: dict = {}  # (tt.make_block_ptr, contiguous dimension) -> descriptor
        self.parts: dict = {}
        self.dead: list = []
        self.dead_args: list = []
        self.i32 = ir.IntegerType.get_signless(32)
        self.i64 = ir.IntegerType.get_signless(64)

    def function(self, func) -> None:
        self.block(func.regions[0].blocks[0])
        for op in reversed(self.dead):
            op.erase()
        for block, index in reversed(self.dead_args):
            block.erase_argument(index)

    def block(self, block) -> None:
        for op in list(block.operations):
            self.op(op.operation)

    # -- dispatch ------------------------------------------------------------------------------

    def op(self, op) -> None:
        name = op.name
        if name == "tt.make_block_ptr":
            self.parts[op.results[0]] = list(op.operands)
            self.dead.append(op)
        elif name == "tt.advance":
            self._advance(op)
        elif name == "tt.load" and is_block_pointer(op.operands[0].type):
            self._load(op)
        elif name == "tt.store" and is_block_pointer(op.operands[0].type):
            self._store(op)
        elif name == "arith.select" and is_block_pointer(op.results[0].type):
            self._select(op)
        elif name in ("scf.yield", "scf.condition") and self._carries(op.operands):
            self._terminator(op)
        elif name == "scf.for" and self._carries(list(op.operands)[3:]):
            self._for(op)
        elif name == "scf.if" and self._carries(op.results):
            self._if(op)
        elif name == "scf.while" and self._carries(op.operands):
            self._while(op)
        else:
            for region in op.regions:
                for block in region.blocks:
                    self.block(block)

    @staticmethod
    def _carries(values) -> bool:
        return any(is_block_pointer(v.type) for v in values)

    def _expand(self, values) -> list:
        """`values` with each block pointer replaced by its parts, after the others."""
        plain = [v for v in values if not is_block_pointer(v.type)]
        return plain + [p for v in values if is_block_pointer(v.type)
                        for p in self.parts[v]]

    def _bind(self, olds, news) -> None:
        """Map the values `olds` to `news` laid out as `_expand` lays them out: plain ones
        replaced, block pointers given their parts."""
        news = list(news)
        plain = [v for v in olds if not is_block_pointer(v.type)]
        for old, new in zip(plain, news):
            old.replace_all_uses_with(new)
        at = len(plain)
        for old in olds:
            if is_block_pointer(old.type):
                n = 1 + 3 * block_rank(old.type)
                self.parts[old] = news[at:at + n]
                at += n

    # -- ops -----------------------------------------------------------------------------------

    def _create(self, name, operands, results, attrs=None, regions=0, anchor=None):
        ir = self.ir
        with ir.InsertionPoint(anchor), anchor.location:
            return ir.Operation.create(name, results=list(results), operands=list(operands),
                                       attributes=attrs or {}, regions=regions)

    def _value(self, anchor, name, operands, result, attrs=None):
        return self._create(name, operands, [result], attrs, anchor=anchor).results[0]

    def _advance(self, op) -> None:
        base = self.parts[op.operands[0]]
        rank = (len(base) - 1) // 3
        deltas = list(op.operands)[1:]
        offsets = [self._value(op, "arith.addi", [o, d], self.i32)
                   for o, d in zip(base[1 + 2 * rank:], deltas)]
        self.parts[op.results[0]] = base[:1 + 2 * rank] + offsets
        self.dead.append(op)

    def _select(self, op) -> None:
        cond, a, b = op.operands
        self.parts[op.results[0]] = [
            self._value(op, "arith.select", [cond, x, y], x.type)
            for x, y in zip(self.parts[a], self.parts[b])]
        self.dead.append(op)

    def _load(self, op) -> None:
        ir = self.ir
        through_descriptor = self._descriptor_load(op)
        if through_descriptor is not None:
            op.results[0].replace_all_uses_with(through_descriptor)
            self.dead.append(op)
            return
        ptrs, mask = self._addresses(op, op.operands[0], _checked(op))
        result = op.results[0].type
        boolean = _is_boolean(ir, result)
        if boolean:  # booleans lie in memory as bytes, as the language loads them
            ptrs, result = self._as_bytes(op, ptrs), _with_element(ir, result, 8)
        attrs = _attributes(op)
        attrs["boundary_check"] = ir.DenseI32ArrayAttr.get([])
        attrs["padding"] = ir.StringAttr.get("")
        operands = [ptrs]
        if mask is not None:
            padding = ir.StringAttr(op.attributes["padding"]).value
            operands += [mask, self._fill(op, result, padding)]
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(
            [1, int(mask is not None), int(mask is not None)])
        new = self._value(op, "tt.load", operands, result, attrs)
        if boolean:
            new = self._cmp(op, _NE, new, self._fill(op, result, ""), op.results[0].type)
        op.results[0].replace_all_uses_with(new)
        self.dead.append(op)

    def _descriptor_load(self, op):
        """`op`'s block read through a tensor descriptor, or None where it stays a tensor
        of pointers (see the module doc)."""
        ir = self.ir
        make = self.origins.get(op.operands[0])
        result = ir.RankedTensorType(op.results[0].type)
        padding = ir.StringAttr(op.attributes["padding"]).value \
            if "padding" in op.attributes else ""
        if make is None or result.rank != 2 or padding == "nan" or \
                str(result.element_type) not in ("f16", "bf16") or not feeds_a_looped_dot(op):
            return None
        inner = list(ir.DenseI32ArrayAttr(make.attributes["order"]))[0]
        outer = 1 - inner
        operands = list(make.operands)
        dims, strides = operands[1:3], operands[3:5]
        block = ir.RankedTensorType.get([result.shape[outer], result.shape[inner]],
                                        result.element_type)
        if recipe(function_of(op), operands[0], [dims[outer], dims[inner]],
                  [strides[outer], strides[inner]], block) is None:
            return None
        key = (make, inner)
        if key not in self.made:
            shape = [self._value(make, "arith.trunci", [d], self.i32)
                     for d in (dims[outer], dims[inner])]
            self.made[key] = self._value(
                make, "tt.make_tensor_descriptor",
                [operands[0], *shape, strides[outer], strides[inner]],
                ir.Type.parse(f"!tt.tensordesc<{block}>"),
                {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 2, 2]),
                 "padding": ir.StringAttr.get("zero")})
        offsets = self.parts[op.operands[0]][-2:]
        loaded = self._value(op, "tt.descriptor_load",
                             [self.made[key], offsets[outer], offsets[inner]], block,
                             {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 2])})
        if inner == 1:
            return loaded
        return self._value(op, "tt.trans", [loaded], result,
                           {"order": ir.DenseI32ArrayAttr.get([1, 0])})

    def _as_bytes(self, op, ptrs):
        """`ptrs` (a tensor of pointers to i1) as pointers to i8."""
        ir = self.ir
        t = ir.RankedTensorType(ptrs.type)
        byte_ptr = ir.Type.parse(f"!tt.ptr<i8, {pointee_text(t.element_type)[1]} : i32>")
        return self._value(op, "tt.bitcast", [ptrs], ir.RankedTensorType.get(t.shape, byte_ptr))

    def _store(self, op) -> None:
        ir = self.ir
        ptrs, mask = self._addresses(op, op.operands[0], _checked(op))
        value = op.operands[1]
        if _is_boolean(ir, value.type):
            ptrs = self._as_bytes(op, ptrs)
            value = self._value(op, "arith.extui", [value], _with_element(ir, value.type, 8))
        attrs = _attributes(op)
        attrs["boundary_check"] = ir.DenseI32ArrayAttr.get([])
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, 1, int(mask is not None)])
        operands = [ptrs, value] + ([mask] if mask is not None else [])
        self._create("tt.store", operands, [], attrs, anchor=op)
        self.dead.append(op)

    def _fill(self, op, ty, padding: str):
        ir = self.ir
        elt = ir.RankedTensorType(ty).element_type
        if isinstance(elt, ir.IntegerType):
            attr = ir.IntegerAttr.get(elt, 0)
        else:
            attr = ir.FloatAttr.get(elt, float("nan") if padding == "nan" else 0.0)
        return self._value(op, "arith.constant", [], ty,
                           {"value": ir.DenseElementsAttr.get_splat(ty, attr)})

    def _addresses(self, op, block_ptr, checked: list[int]):
        """The tensor of pointers of the block `block_ptr` points to, and the mask of its
        elements inside the tensor along the `checked` dimensions (None when none).

        The address of element c is (base + sum_d off_d * stride_d) + sum_d c_d * stride_d:
        the first part one scalar, the second a tensor that does not move with the
        offsets; the bounds 0 <= off_d + c_d < shape_d are -off_d <= c_d < shape_d - off_d,
        a range against two scalars."""
        ir = self.ir
        shape, elt, space = _block(block_ptr.type)
        rank = len(shape)
        parts = self.parts[block_ptr]
        base, dims, strides, offsets = (parts[0], parts[1:1 + rank],
                                        parts[1 + rank:1 + 2 * rank], parts[1 + 2 * rank:])
        full_i64 = ir.RankedTensorType.get(shape, self.i64)
        full_i1 = ir.RankedTensorType.get(shape, ir.IntegerType.get_signless(1))
        start = tile = mask = None
        for d in range(rank):
            offset = self._i64(op, offsets[d])
            moved = self._value(op, "arith.muli", [offset, strides[d]], self.i64)
            start = moved if start is None else self._value(op, "arith.addi", [start, moved],
                                                            self.i64)
            index = self._index(op, shape, d)
            part_ty = index.type
            scaled = self._value(op, "arith.muli", [index, self._splat(op, strides[d], part_ty)],
                                 part_ty)
            term = self._broadcast(op, scaled, full_i64)
            tile = term if tile is None else self._value(op, "arith.addi", [tile, term],
                                                         full_i64)
            if d not in checked:
                continue
            i1 = ir.RankedTensorType.get(ir.RankedTensorType(part_ty).shape,
                                         ir.IntegerType.get_signless(1))
            low = self._value(op, "arith.subi", [self._const64(op, 0), offset], self.i64)
            high = self._value(op, "arith.subi", [dims[d], offset], self.i64)
            above = self._cmp(op, _SGE, index, self._splat(op, low, part_ty), i1)
            below = self._cmp(op, _SLT, index, self._splat(op, high, part_ty), i1)
            inside = self._broadcast(op, self._value(op, "arith.andi", [above, below], i1),
                                     full_i1)
            mask = inside if mask is None else self._value(op, "arith.andi", [mask, inside],
                                                           full_i1)
        ptr_ty = ir.Type.parse(f"!tt.ptr<{elt}, {space} : i32>")
        first = self._value(op, "tt.addptr", [base, start], ptr_ty)
        ptrs_ty = ir.RankedTensorType.get(shape, ptr_ty)
        ptrs = self._value(op, "tt.addptr", [self._splat(op, first, ptrs_ty), tile], ptrs_ty)
        return ptrs, mask

    def _index(self, op, shape: list[int], d: int):
        """arange(0, shape[d]) as i64, shaped 1 x ... x shape[d] x ... x 1."""
        ir = self.ir
        n = shape[d]
        rng = self._value(op, "tt.make_range", [], ir.RankedTensorType.get([n], self.i32),
                          {"start": ir.IntegerAttr.get(self.i32, 0),
                           "end": ir.IntegerAttr.get(self.i32, n)})
        index = self._value(op, "arith.extsi", [rng], ir.RankedTensorType.get([n], self.i64))
        dims = [n]
        for axis in [0] * d + list(range(d + 1, len(shape))):
            dims.insert(axis, 1)
            index = self._value(op, "tt.expand_dims", [index],
                                ir.RankedTensorType.get(dims, self.i64),
                                {"axis": ir.IntegerAttr.get(self.i32, axis)})
        return index

    def _splat(self, op, scalar, ty):
        return self._value(op, "tt.splat", [scalar], ty)

    def _broadcast(self, op, value, ty):
        if value.type == ty:
            return value
        return self._value(op, "tt.broadcast", [value], ty)

    def _i64(self, op, scalar):
        return scalar if scalar.type == self.i64 else \
            self._value(op, "arith.extsi", [scalar], self.i64)

    def _const64(self, op, n: int):
        return self._value(op, "arith.constant", [], self.i64,
                           {"value": self.ir.IntegerAttr.get(self.i64, n)})

    def _cmp(self, op, pred: int, a, b, ty):
        return self._value(op, "arith.cmpi", [a, b], ty, {
            "predicate": self.ir.IntegerAttr.get(self.i64, pred)})

    # -- control flow --------------------------------------------------------------------------

    def _terminator(self, op) -> None:
        operands = list(op.operands)
        if op.name == "scf.condition":
            operands = [operands[0]] + self._expand(operands[1:])
        else:
            operands = self._expand(operands)
        self._create(op.name, operands, [], anchor=op)
        self.dead.append(op)

    def _adopt_block(self, block, new_op, region: int) -> None:
        """Move `block` into `new_op`'s region, its arguments laid out as `_expand` lays
        them out: each block pointer's parts are appended, the block pointer erased at the
        end of the rewrite."""
        block.append_to(new_op.regions[region])
        loc = new_op.location
        for index, arg in enumerate(list(block.arguments)):
            if is_block_pointer(arg.type):
                self.parts[arg] = [block.add_argument(t, loc) for t in self._part_types(arg.type)]
                self.dead_args.append((block, index))

    def _part_types(self, ty) -> list:
        """The types of a block pointer's parts, as `tt.make_block_ptr` takes them: the
        base pointer, the shape and strides (i64) and the offsets (i32)."""
        shape, elt, space = _block(ty)
        rank = len(shape)
        base = self.ir.Type.parse(f"!tt.ptr<{elt}, {space} : i32>")
        return [base] + [self.i64] * (2 * rank) + [self.i32] * rank

    def _for(self, op) -> None:
        lower, upper, step, *inits = op.operands
        operands = [lower, upper, step] + self._expand(inits)
        new = self._create("scf.for", operands, [v.type for v in operands[3:]],
                           _attributes(op), regions=1, anchor=op)
        block = op.regions[0].blocks[0]
        self._adopt_block(block, new, 0)
        self.block(block)
        self._bind(op.results, new.results)
        self.dead.append(op)

    def _if(self, op) -> None:
        types = self._layout_types(op.results)
        new = self._create("scf.if", [op.operands[0]], types,
                           _attributes(op), regions=2, anchor=op)
        for index, region in enumerate(op.regions):
            if region.blocks:
                block = region.blocks[0]
                block.append_to(new.regions[index])
                self.block(block)
        self._bind(op.results, new.results)
        self.dead.append(op)

    def _layout_types(self, values) -> list:
        """The types of `values` laid out as `_expand` lays them out."""
        plain = [v.type for v in values if not is_block_pointer(v.type)]
        return plain + [t for v in values if is_block_pointer(v.type)
                        for t in self._part_types(v.type)]

    def _while(self, op) -> None:
        inits = list(op.operands)
        operands = self._expand(inits)
        before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
        condition = list(before.operations)[-1]
        forwarded = list(condition.operands)[1:]
        new = self._create("scf.while", operands, self._layout_types(forwarded),
                           _attributes(op), regions=2, anchor=op)
        self._adopt_block(before, new, 0)
        self._adopt_block(after, new, 1)
        self.block(before)
        self.block(after)
        self._bind(op.results, new.results)
        self.dead.append(op)


def _block(ty) -> tuple[list[int], str, int]:
    """(block shape, element type text, address space) of a block pointer type."""
    pointee, space = pointee_text(ty)
    found = _BLOCK.match(pointee)
    return [int(s) for s in found.group(1).split("x")[:-1]], found.group(2), space


def _is_boolean(ir, ty) -> bool:
    elt = ir.RankedTensorType(ty).element_type
    return isinstance(elt, ir.IntegerType) and ir.IntegerType(elt).width == 1


def _with_element(ir, ty, bits: int):
    """The tensor type `ty` with i`bits` elements."""
    return ir.RankedTensorType.get(ir.RankedTensorType(ty).shape,
                                   ir.IntegerType.get_signless(bits))


def _checked(op) -> list[int]:
    from mlir import ir

    return list(ir.DenseI32ArrayAttr(op.attributes["boundary_check"]))


def _attributes(op) -> dict:
    return {name: op.attributes[name] for name in op.attributes}
