"""operand-order: dot tiles read through a transposed view load along their contiguous
dimension.

A tile only dots read (as A or B, directly or through `tt.trans`) loaded through pointers
that run contiguously along the tile's first dimension (a column-major B,
`b_ptr + offs_k[:, None] + offs_n[None, :] * stride_bn`, or a column-major A) gets a
blocked layout with `order = (0, 1)`, so each thread holds
elements consecutive in memory and loads or copies them as 16-byte vectors. A dot operand
that is `tt.trans` of a loaded tile gets the transpose of the tile's layout, so no data
moves between them.

Before (the default layout, one element per access; 8 warps):
    %p = "tt.addptr"(...) : ... -> tensor<64x256x!tt.ptr<bf16>, #blocked>
    %b = "tt.load"(%p, ...) : ... -> tensor<64x256xbf16, #blocked>
        #blocked = #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>
After:
    %p = "tt.addptr"(...) : ... -> tensor<64x256x!tt.ptr<bf16>, #along_k>
    %b = "tt.load"(%p, ...) : ... -> tensor<64x256xbf16, #along_k>
        #along_k = #ttg.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>

On sm_90, an operand of 8- or 32-bit elements (fp8, tf32) of a dot that will run on wgmma
(`mma_layouts.wgmma_operand_kinds`: the types, and a shape and warp count it takes) that
does not run along K in memory (a column-major A, a row-major B) is loaded and stored
K-major into shared memory each iteration; its layout then also gives each thread
`K_RUN` consecutive elements along K (the vectors along the contiguous dimension
shortened where the tile has too few elements per thread), so that store goes out in
words or 16-byte vectors along K. Tiles of block pointers and descriptors keep their
order and take the same runs. Before and after (fp8 A, 128 x 64, column-major, 4 warps):
        #ttg.blocked<[16, 1], [8, 4], [1, 4], [0, 1]>
        #ttg.blocked<[16, 4], [8, 4], [1, 4], [0, 1]>

The pointers, the mask and `other` of the load take the new layout together with every
same-shaped value they are computed from, back to splats, broadcasts and constants
(including the pointers a loop carries and advances); any other user of those values
gets a splat, broadcast, range or constant made again in its old layout, or else one
`ttg.convert_layout`. A slice reaching anything else (a loaded value, a branch result)
leaves the load as it was. Options: `num_warps`, the target's `arch`.
"""

from __future__ import annotations

from tritonc.passes.to_llvm.axis_along import AxisAlong
from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.ttgir import ops_named
from tritonc.passes.ttgir.layouts import BlockedLayout, parse_layout
from tritonc.passes.ttgir.mma_layouts import KIND_BYTES, wgmma_operand_kinds
from tritonc.passes.ttgir.software_pipeline import dot_uses

_SAME_SHAPE = ("arith.", "tt.addptr")
K_RUN = 4  # elements along K per thread of a tile stored K-major for wgmma
_SOURCES = ("tt.splat", "tt.broadcast", "arith.constant", "tt.make_range")


def _dot_operand_only(value) -> bool:
    uses = list(value.uses)
    return bool(uses) and all(u.owner.name == "tt.dot" and u.operand_number < 2 for u in uses)


def _yield_of(loop):
    ops = loop.regions[0].blocks[0].operations
    return ops[len(ops) - 1]


def _slice(ir, roots: list) -> tuple[list, list] | None:
    """(values, loops with the argument numbers they carry) that take the new layout with
    `roots`, or None when the slice reaches an op this pass does not retype."""
    shape = list(ir.RankedTensorType(roots[0].type).shape)
    values: list = []
    carried: list = []
    stack = list(roots)
    while stack:
        value = stack.pop()
        if not isinstance(value.type, ir.RankedTensorType) or any(value == v for v in values):
            continue
        if list(ir.RankedTensorType(value.type).shape) != shape:
            continue
        values.append(value)
        owner = value.owner
        if isinstance(owner, ir.Block):
            loop = owner.owner
            if loop is None or loop.name != "scf.for" or value.arg_number == 0:
                return None
            index = value.arg_number - 1
            carried.append((loop, index))
            stack += [loop.operands[3 + index], _yield_of(loop).operands[index],
                      loop.results[index]]
            continue
        op = owner.operation
        if op.name.startswith(_SOURCES):
            continue
        if op.name == "scf.for":
            index = _result_index(op, value)
            body = op.regions[0].blocks[0]
            stack.append(body.arguments[index + 1])
            continue
        if not op.name.startswith(_SAME_SHAPE) or len(op.regions):
            return None
        stack += list(op.operands)
    return values, carried


def _result_index(op, value) -> int:
    for i, r in enumerate(op.results):
        if r == value:
            return i
    raise ValueError("not a result of the op")


def _retype(ir, values: list, carried: list, encoding: str, keep: list) -> None:
    """Give `values` the layout `encoding`; their users outside the slice and `keep`
    (the load) keep the old type through a `ttg.convert_layout`."""
    old = {}
    for value in values:
        t = ir.RankedTensorType(value.type)
        old[value] = value.type
        new = ir.RankedTensorType.get(t.shape, t.element_type, ir.Attribute.parse(encoding))
        value.set_type(new)
        owner = value.owner
        if not isinstance(owner, ir.Block) and owner.name == "arith.constant":
            splat = ir.DenseElementsAttr(owner.attributes["value"]).get_splat_value()
            owner.attributes["value"] = ir.DenseElementsAttr.get_splat(new, splat)
    inside = {value.owner.operation for value in values
              if not isinstance(value.owner, ir.Block)}
    inside.update(op.operation for op in keep)
    covered = set()
    for loop, index in carried:
        covered.add((_yield_of(loop).operation, index))
        covered.add((loop.operation, 3 + index))
    for value in values:
        for use in list(value.uses):
            user = use.owner.operation
            if user in inside or (user, use.operand_number) in covered:
                continue
            user.operands[use.operand_number] = _in_old_layout(ir, value, old[value], user)


def _in_old_layout(ir, value, old_type, user):
    """`value` in its old type for `user`: a splat, broadcast, range or constant is made
    again there (nothing moves), anything else goes through a `ttg.convert_layout`."""
    owner = value.owner
    if not isinstance(owner, ir.Block) and owner.name.startswith(_SOURCES):
        copy = owner.operation.clone(ip=ir.InsertionPoint(user))
        copy.results[0].set_type(old_type)
        if owner.name == "arith.constant":
            splat = ir.DenseElementsAttr(owner.attributes["value"]).get_splat_value()
            copy.attributes["value"] = ir.DenseElementsAttr.get_splat(old_type, splat)
        return copy.results[0]
    return ir.Operation.create("ttg.convert_layout", results=[old_type], operands=[value],
                               loc=user.location, ip=ir.InsertionPoint(user)).results[0]


def _k_run(ir, load, contiguous: int | None, num_warps: int, arch: int) -> int:
    """How many elements along K each thread holds of the dot operand `load` loads, which
    runs along dimension `contiguous` in memory: `K_RUN` for a tile wgmma reads K-major
    from a copy the loop writes (8- and 32-bit elements not contiguous along K), else 1."""
    runs = set()
    for dot, trans, operand in dot_uses(load):
        kinds = wgmma_operand_kinds(ir, dot, num_warps) if arch >= 90 else None
        k_dim = 1 - operand  # A's K is dimension 1, B's 0
        along = contiguous if contiguous is None or trans is None else 1 - contiguous
        staged = kinds and KIND_BYTES[kinds[operand]] != 2 and along == 1 - k_dim
        runs.add(K_RUN if staged else 1)
    return runs.pop() if len(runs) == 1 else 1


def _operand_layout(t, num_warps: int, order: tuple[int, int], depth: int) -> BlockedLayout:
    """16-byte vectors along `order[0]` (shorter where the tile holds too few elements
    per thread for `depth` of them along the other dimension)."""
    width = 16 // element_bytes(t.element_type)
    per_thread = t.shape[0] * t.shape[1] // (32 * num_warps)
    width = max(1, min(width, per_thread // depth))
    return BlockedLayout.default(tuple(t.shape), num_warps, width, order, depth)


def _order_block_load(ir, load, num_warps: int, arch: int) -> None:
    """A tile of a block pointer or descriptor keeps its order; runs along K as `_k_run`
    says."""
    result = load.results[0]
    t = ir.RankedTensorType(result.type)
    layout = parse_layout(str(t.encoding))
    if not isinstance(layout, BlockedLayout) or layout.rank != 2:
        return
    depth = _k_run(ir, load, layout.order[0], num_warps, arch)
    if depth == 1:
        return
    new = _operand_layout(t, num_warps, layout.order, depth)
    result.set_type(ir.RankedTensorType.get(t.shape, t.element_type,
                                            ir.Attribute.parse(new.attr_text())))


def _order_load(ir, load, num_warps: int, arch: int, along: AxisAlong) -> None:
    ptr = load.operands[0]
    result = load.results[0]
    t = ir.RankedTensorType(result.type)
    contiguous = along.running_dim(ptr)
    depth = _k_run(ir, load, contiguous, num_warps, arch)
    if contiguous != 0 and depth == 1:
        return
    layout = _operand_layout(t, num_warps, (0, 1) if contiguous == 0 else (1, 0), depth)
    found = _slice(ir, list(load.operands))
    if found is None:
        return
    values, carried = found
    _retype(ir, values, carried, layout.attr_text(), [load.operation])
    result.set_type(ir.RankedTensorType.get(t.shape, t.element_type,
                                            ir.Attribute.parse(layout.attr_text())))


def _transposed(ir, trans) -> None:
    """The layout of `trans`'s result: the transpose of its operand's."""
    src = parse_layout(str(ir.RankedTensorType(trans.operands[0].type).encoding))
    if not isinstance(src, BlockedLayout) or src.rank != 2:
        return
    swap = BlockedLayout(src.size_per_thread[::-1], src.threads_per_warp[::-1],
                         src.warps_per_cta[::-1], tuple(1 - d for d in src.order))
    t = ir.RankedTensorType(trans.results[0].type)
    trans.results[0].set_type(ir.RankedTensorType.get(t.shape, t.element_type,
                                                      ir.Attribute.parse(swap.attr_text())))


def order_dot_operands(module, num_warps: int, arch: int = 80) -> None:
    """Apply the rewrite above to every dot operand of `module` it fits."""
    from mlir import ir

    with module.context, ir.Location.unknown():
        along = AxisAlong()
        for load in ops_named(module, "tt.load"):
            if not (isinstance(load.results[0].type, ir.RankedTensorType)
                    and dot_uses(load)):
                continue
            if "!tt.ptr<tensor<" in str(load.operands[0].type):
                _order_block_load(ir, load, num_warps, arch)
            else:
                _order_load(ir, load, num_warps, arch, along)
        for load in ops_named(module, "tt.descriptor_load"):
            if dot_uses(load):
                _order_block_load(ir, load, num_warps, arch)
        for trans in ops_named(module, "tt.trans"):
            if _dot_operand_only(trans.results[0]):
                _transposed(ir, trans)
