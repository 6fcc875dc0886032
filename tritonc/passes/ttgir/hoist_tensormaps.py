"""hoist-tensormaps: a tensor descriptor the kernel makes from its arguments gets its
CUtensorMap from the launch (sm_90).

`tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=...)`
reads only kernel arguments and constants, so every program of a launch makes the same
descriptor, and the host can encode its CUtensorMap once, as it does for a host
`TensorDescriptor` (`runtime/tensormap.py`). This pass gives each such descriptor a
kernel argument of its own after the others (`!tt.ptr<i8>`, the map's device address)
and names it on the op (`tt.tensormap`, as a host descriptor's entry does), so that
software-pipeline may copy its tiles by TMA. The kernel's `tt.tensormaps` attribute
tells the launch how to make each map from the other arguments: the argument of the
map, of the base, each dimension and stride as an argument (`"%3"`) or a constant
(`"1"`), the block shape and the element size.

Taken, in a public function of a cuda:90 module: a 2-D, zero-padded descriptor that a
`tt.descriptor_load` in a loop reads for a dot, whose base is a pointer argument
divisible by 16; whose dimensions and strides are arguments or constants (through
integer casts), the last stride 1 and the others multiples of 16 bytes (an argument
divisible by 16, or such a constant); and whose block TMA copies as the ring stores it
(`descriptors.tma_box`). A map the launch cannot encode raises there, naming the kernel.

In: TTGIR after the layout passes. Out: the same, the kernel with one argument more per
map.

Before:
    func.func public @k(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %m: i32, %k: i32,
                        %s: i32 {tt.divisibility = 16 : i32}) {
      %s64 = arith.extsi %s : i32 to i64
      %d = "tt.make_tensor_descriptor"(%a, %m, %k, %s64, %c1_i64) {padding = "zero", ...}
After:
    func.func public @k(..., %s: i32 {tt.divisibility = 16 : i32}, %map: !tt.ptr<i8>)
        attributes {tt.tensormaps = [{base = 0 : i32, block = array<i32: 128, 64>,
                    element_bytes = 2 : i32, map = 4 : i32, shape = ["%1", "%2"],
                    strides = ["%3", "1"]}]} {
      %d = "tt.make_tensor_descriptor"(...) {padding = "zero", tt.tensormap = 4 : i32, ...}
"""

from __future__ import annotations

from tritonc.backends.cuda.options import tma_copies
from tritonc.passes.to_llvm.axis_info import element_bytes
from tritonc.passes.ttgir import ops_named
from tritonc.runtime import descriptors

MAPS_ATTR = "tt.tensormaps"
_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast")


def hoist_tensormaps(module) -> None:
    """Give every descriptor of `module`'s kernels that qualifies (see above) a map
    argument, on cuda:90."""
    from mlir import ir

    from tritonc.passes.ttgir.convert_to_ttgir import module_options

    if module_options(module).arch != 90 or not tma_copies():
        return
    with module.context:
        for make in ops_named(module, "tt.make_tensor_descriptor"):
            func = function_of(make)
            if descriptors.TENSORMAP_ATTR in make.attributes or not _is_kernel(ir, func):
                continue
            recipe = _recipe(ir, func, make)
            if recipe is not None and _read_by_a_looped_dot(make):
                _add_map(ir, func, make, recipe)


def _is_kernel(ir, func) -> bool:
    visibility = func.attributes["sym_visibility"] if "sym_visibility" in func.attributes \
        else None
    return visibility is None or ir.StringAttr(visibility).value == "public"


def function_of(op):
    while op.name != "func.func":
        op = op.parent
    return op


def _uncast(ir, value):
    """`value` before the integer casts that made it."""
    while not isinstance(value.owner, ir.Block) and value.owner.name in _CASTS:
        value = value.owner.operands[0]
    return value


def _entry_argument(ir, func, value) -> int | None:
    """The number of the kernel argument `value` is, looking through integer casts."""
    value = _uncast(ir, value)
    if isinstance(value.owner, ir.Block) and value.owner == func.regions[0].blocks[0]:
        return value.arg_number
    return None


def _constant(ir, value) -> int | None:
    owner = _uncast(ir, value).owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def _divisibility(ir, func, index: int) -> int:
    if "arg_attrs" not in func.attributes:
        return 1
    attrs = ir.DictAttr(ir.ArrayAttr(func.attributes["arg_attrs"])[index])
    return ir.IntegerAttr(attrs["tt.divisibility"]).value if "tt.divisibility" in attrs else 1


def _recipe(ir, func, make) -> dict | None:
    """How the launch makes `make`'s map, or None where it cannot (see above)."""
    desc_type = str(make.results[0].type)
    block_type = ir.RankedTensorType(ir.Type.parse(desc_type[len("!tt.tensordesc<"):-1]))
    padding = make.attributes["padding"] if "padding" in make.attributes else None
    if padding is not None and ir.StringAttr(padding).value != "zero":
        return None
    operands = list(make.operands)
    return recipe(func, operands[0], operands[1:3], operands[3:5], block_type)


def recipe(func, base, shape: list, strides: list, block_type) -> dict | None:
    """The map recipe of a 2-D descriptor of `func` made from `base`, `shape` and
    `strides` read in blocks of `block_type`, or None where the launch cannot make its map
    for TMA (see above)."""
    from mlir import ir

    block = list(block_type.shape)
    elem = element_bytes(block_type.element_type)
    if len(block) != 2 or str(block_type.element_type) == "i1" or block[0] % 8 or \
            descriptors.tma_box(elem, block) is None:
        return None
    base_arg = _entry_argument(ir, func, base)
    if base_arg is None or _divisibility(ir, func, base_arg) % 16:
        return None
    dims = [_source(ir, func, v) for v in shape]
    steps = [_source(ir, func, v) for v in strides]
    if None in dims or None in steps or steps[1] != "1":
        return None
    row = steps[0]
    if row.startswith("%"):
        if _divisibility(ir, func, int(row[1:])) % 16:
            return None
    elif int(row) * elem % 16:
        return None
    return {"base": base_arg, "shape": dims, "strides": steps, "block": block,
            "element_bytes": elem}


def _source(ir, func, value) -> str | None:
    """`value` as the launch finds it: "%n" for kernel argument n, a decimal for a
    constant, None for anything else."""
    index = _entry_argument(ir, func, value)
    if index is not None:
        return f"%{index}"
    constant = _constant(ir, value)
    return None if constant is None else str(constant)


def _read_by_a_looped_dot(make) -> bool:
    """Whether a `tt.descriptor_load` of `make`'s descriptor in an `scf.for` feeds a dot."""
    return any(use.owner.name == "tt.descriptor_load" and use.operand_number == 0 and
               feeds_a_looped_dot(use.owner) for use in make.results[0].uses)


def feeds_a_looped_dot(load) -> bool:
    """Whether `load`, inside an `scf.for`, is read by dots only (directly or through
    `tt.trans`)."""
    from tritonc.passes.ttgir.software_pipeline import dot_uses

    parent = load.parent
    while parent is not None and parent.name not in ("scf.for", "func.func"):
        parent = parent.parent
    return parent is not None and parent.name == "scf.for" and bool(dot_uses(load))


def _add_map(ir, func, make, recipe: dict) -> None:
    """Append the map's argument to `func`, name it on `make` and record `recipe`."""
    block = func.regions[0].blocks[0]
    i32 = ir.IntegerType.get_signless(32)
    argument = block.add_argument(ir.Type.parse("!tt.ptr<i8, 1 : i32>"), func.location)
    index = argument.arg_number
    old = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
        [*old.inputs, argument.type], list(old.results)))
    if "arg_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get([*attrs, ir.DictAttr.get({})])
    make.attributes[descriptors.TENSORMAP_ATTR] = ir.IntegerAttr.get(i32, index)
    entry = ir.DictAttr.get({
        "map": ir.IntegerAttr.get(i32, index),
        "base": ir.IntegerAttr.get(i32, recipe["base"]),
        "shape": ir.ArrayAttr.get([ir.StringAttr.get(s) for s in recipe["shape"]]),
        "strides": ir.ArrayAttr.get([ir.StringAttr.get(s) for s in recipe["strides"]]),
        "block": ir.DenseI32ArrayAttr.get(recipe["block"]),
        "element_bytes": ir.IntegerAttr.get(i32, recipe["element_bytes"]),
    })
    maps = list(ir.ArrayAttr(func.attributes[MAPS_ATTR])) if MAPS_ATTR in func.attributes \
        else []
    func.attributes[MAPS_ATTR] = ir.ArrayAttr.get([*maps, entry])


def kernel_maps(module) -> list[dict]:
    """The `tt.tensormaps` of `module`'s kernel as plain data (the metadata's
    `tensormaps`): [{"map", "base", "shape", "strides", "block", "element_bytes"}]."""
    from mlir import ir

    found = []
    entries = [entry for func in ops_named(module, "func.func")
               if _is_kernel(ir, func) and MAPS_ATTR in func.attributes
               for entry in ir.ArrayAttr(func.attributes[MAPS_ATTR])]
    for entry in entries:
        entry = ir.DictAttr(entry)
        found.append({
            "map": ir.IntegerAttr(entry["map"]).value,
            "base": ir.IntegerAttr(entry["base"]).value,
            "shape": [ir.StringAttr(s).value for s in ir.ArrayAttr(entry["shape"])],
            "strides": [ir.StringAttr(s).value for s in ir.ArrayAttr(entry["strides"])],
            "block": list(ir.DenseI32ArrayAttr(entry["block"])),
            "element_bytes": ir.IntegerAttr(entry["element_bytes"]).value,
        })
    return found
