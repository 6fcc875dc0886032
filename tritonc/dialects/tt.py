"""The tt dialect: Triton IR, the target-independent form of a kernel.

Values are scalars or ranked tensors of scalars and pointers. Types:
`!tt.ptr<f32, 1 : i32>` (a global pointer), `!tt.ptr<tensor<64x64xf16>, 1 : i32>` (a block
pointer) and `!tt.tensordesc<tensor<64x64xf16>>` (a tensor descriptor). Elementwise
arithmetic uses upstream `arith`/`math` on tensors, control flow `scf`, functions `func`.

Region-carrying ops (reduce, scan, map_elementwise) name their scalar function by
symbol: IRDL ops cannot end a block with a dynamic terminator, so the combiner is a
private `func.func` taking 2N scalars and returning N, and the mapped function of
`tt.map_elementwise {pack = p}` one taking p scalars of each operand and returning p of
each result.

Operand groups written `name**` may mix types (a tuple reduction over f32 and i32, a
print of several values); see `spec.py` for how they are declared in IRDL.
"""

from __future__ import annotations

from tritonc.dialects.spec import OpDef, TypeDef, operands

CACHE = {"cache": "str", "evict": "str"}
SEMANTICS = {"sem": "str", "scope": "str"}

TYPES = [
    TypeDef("ptr", ("pointee", "addrspace")),
    TypeDef("tensordesc", ("block_type",)),
]

OPS = [
    # program identity and index tensors
    OpDef("tt.get_program_id", attrs={"axis": "i32"}, pure=True),
    OpDef("tt.get_num_programs", attrs={"axis": "i32"}, pure=True),
    OpDef("tt.make_range", attrs={"start": "i32", "end": "i32"}, pure=True),
    # shape manipulation
    OpDef("tt.splat", operands("src"), pure=True),
    OpDef("tt.broadcast", operands("src"), pure=True),
    OpDef("tt.expand_dims", operands("src"), attrs={"axis": "i32"}, pure=True),
    OpDef("tt.reshape", operands("src"), attrs={"allow_reorder": "bool"}, pure=True),
    OpDef("tt.trans", operands("src"), attrs={"order": "i32s"}, pure=True),
    OpDef("tt.join", operands("lhs, rhs"), pure=True),
    OpDef("tt.split", operands("src"), results=operands("lhs, rhs"), pure=True),
    OpDef("tt.cat", operands("lhs, rhs"), pure=True),
    OpDef("tt.gather", operands("src, indices"), attrs={"axis": "i32"}, pure=True),
    # pointers and memory
    OpDef("tt.addptr", operands("ptr, offset"), pure=True),
    OpDef(
        "tt.load",
        operands("ptr, mask?, other?"),
        attrs={**CACHE, "is_volatile": "bool", "boundary_check": "i32s", "padding": "str"},
    ),
    OpDef(
        "tt.store",
        operands("ptr, value, mask?"),
        results=(),
        attrs={**CACHE, "boundary_check": "i32s"},
    ),
    OpDef("tt.make_block_ptr", operands("base, shape*, strides*, offsets*"),
          attrs={"order": "i32s"}, pure=True),
    OpDef("tt.advance", operands("ptr, offsets*"), pure=True),
    OpDef("tt.make_tensor_descriptor", operands("base, shape*, strides*"),
          attrs={"padding": "str"}, pure=True),
    OpDef("tt.descriptor_load", operands("desc, indices*")),
    OpDef("tt.descriptor_store", operands("desc, src, indices*"), results=()),
    # rows `x_offsets` (a 1-D tensor) of a 2-D descriptor's tensor, columns from `y_offset`
    OpDef("tt.descriptor_gather", operands("desc, x_offsets, y_offset")),
    OpDef("tt.descriptor_scatter", operands("desc, src, x_offsets, y_offset"), results=()),
    # combines `src` into the block at `indices`, element by element, as a relaxed
    # tt.atomic_rmw of `kind` (add, fadd, min, max, umin, umax, and, or, xor) would
    OpDef("tt.descriptor_reduce", operands("desc, src, indices*"), results=(),
          attrs={"kind": "str"}),
    OpDef("tt.atomic_rmw", operands("ptr, val, mask?"), attrs={"kind": "str", **SEMANTICS}),
    OpDef("tt.atomic_cas", operands("ptr, cmp, val"), attrs=SEMANTICS),
    # casts
    OpDef("tt.fp_to_fp", operands("src"), attrs={"rounding": "str"}, pure=True),
    OpDef("tt.bitcast", operands("src"), pure=True),
    OpDef("tt.int_to_ptr", operands("src"), pure=True),
    OpDef("tt.ptr_to_int", operands("src"), pure=True),
    # arithmetic beyond arith/math
    OpDef("tt.clampf", operands("x, min, max"), attrs={"propagate_nan": "bool"}, pure=True),
    OpDef("tt.precise_sqrt", operands("x"), pure=True),
    OpDef("tt.precise_divf", operands("x, y"), pure=True),
    OpDef("tt.mulhiu", operands("x, y"), pure=True),
    OpDef(
        "tt.extern_elementwise",
        operands("srcs**"),
        attrs={"libname": "str", "libpath": "str", "symbol": "str", "pure": "bool"},
    ),
    OpDef(
        "tt.elementwise_inline_asm",
        operands("args**"),
        results=operands("results**"),
        attrs={"asm_string": "str", "constraints": "str", "pure": "bool", "packed_element": "i32"},
    ),
    # reductions, scans, matrix products
    OpDef(
        "tt.reduce",
        operands("srcs**"),
        results=operands("results**"),
        attrs={"axis": "i32", "combine": "sym"},
        pure=True,
    ),
    OpDef(
        "tt.scan",
        operands("srcs**"),
        results=operands("results**"),
        attrs={"axis": "i32", "reverse": "bool", "combine": "sym"},
        pure=True,
    ),
    OpDef(
        "tt.map_elementwise",
        operands("srcs**"),
        results=operands("results**"),
        attrs={"pack": "i32", "fn": "sym"},
    ),
    OpDef(
        "tt.dot",
        operands("a, b, c"),
        attrs={"input_precision": "str", "max_num_imprecise_acc": "i32"},
        pure=True,
    ),
    OpDef("tt.histogram", operands("src, mask?"), pure=True),
    # debugging and hints
    OpDef("tt.print", operands("args**"), results=(),
          attrs={"prefix": "str", "hex": "bool", "is_signed": "i32s"}),
    OpDef("tt.assert", operands("condition"), results=(), attrs={"message": "str"}),
    OpDef("tt.assume", operands("condition"), results=()),
    OpDef("tt.barrier", results=()),
]

OP_DEFS: dict[str, OpDef] = {op.name: op for op in OPS}
