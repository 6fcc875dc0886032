"""The ttg dialect: Triton GPU IR, where every tensor type carries a layout encoding.

Layouts are IRDL attributes used as tensor encodings, e.g.
`tensor<1024xf32, #ttg.blocked<[4], [32], [4], [0]>>`: size per thread, threads per
warp, warps per CTA and the order of dimensions, fastest first. `#ttg.mma<[2, 2]>` is the
accumulator layout of the tensor-core instruction `mma.sync.m16n8k16`.

Shared memory is a value of type `!ttg.memdesc<tensor<64x64xf16>, #shared, "mutable">`
(the buffer's shape and element type, its shared encoding, and "mutable" or
"immutable"): `#ttg.swizzled_shared<vec, per_phase, max_phase, [order]>` or
`#ttg.nvmma_shared<swizzle_bytes, element_bits, transposed>` (IRDL checks the block
type and the mutability; `irdl.any_of` over attribute bases aborts the MLIR 22 IRDL
loader, so the encoding is checked where it is parsed, `layouts.parse_shared_layout`).
Memory ops:

    %buf = "ttg.local_alloc"(%t)     : (tensor<...>) -> !ttg.memdesc<...>   (src optional)
    "ttg.local_store"(%t, %buf)      : (tensor<...>, !ttg.memdesc<..., "mutable">) -> ()
    %v = "ttg.local_load"(%buf)      : (!ttg.memdesc<...>) -> tensor<...>
    "ttg.local_dealloc"(%buf)        : (!ttg.memdesc<...>) -> ()
    %s = "ttg.memdesc_index"(%buf, %i) : buffer %i of a multi-buffered allocation
    %tok = "ttg.async_copy_global_to_local"(%ptrs, %buf, %mask?, %other?) -> !ttg.async_token
    %g = "ttg.async_commit_group"(%tok...) ; %w = "ttg.async_wait"(%g...) {num = N}

`ttg.async_wait {num = N}` waits until at most N committed groups are still in flight.
"""

from __future__ import annotations

from tritonc.dialects.spec import Constraint, OpDef, TypeDef, operands

MUTABILITY = (
    '%{v}_m = irdl.is "mutable"',
    '%{v}_i = irdl.is "immutable"',
    "%{v} = irdl.any_of(%{v}_m, %{v}_i)",
)

TYPES: list[TypeDef] = [
    TypeDef("memdesc", ("block_type", "encoding", "mutability"),
            constraints={"block_type": ('%{v} = irdl.base "!builtin.tensor"',),
                         "mutability": MUTABILITY}),
    TypeDef("async_token", ()),
]

ATTRS = [
    TypeDef(
        "blocked",
        ("size_per_thread", "threads_per_warp", "warps_per_cta", "order"),
        kind="attribute",
    ),
    TypeDef("slice", ("dim", "parent"), kind="attribute"),
    # the accumulator layout of mma.sync m16n8: `#ttg.mma<[warps along M, warps along N]>`
    TypeDef("mma", ("warps_per_cta",), kind="attribute"),
    # the A operand of an mma dot held in registers: `#ttg.dot_op<0, #ttg.mma<[...]>>`
    TypeDef("dot_op", ("op_idx", "parent"), kind="attribute"),
    # any distributed layout as its bases: `#ttg.linear<[reg], [lane], [warp], [block]>`
    TypeDef("linear", ("register", "lane", "warp", "block"), kind="attribute"),
    # shared-memory encodings (layouts.SwizzledSharedLayout, layouts.NvmmaSharedLayout)
    TypeDef("swizzled_shared", ("vec", "per_phase", "max_phase", "order"), kind="attribute"),
    TypeDef("nvmma_shared", ("swizzle_bytes", "element_bits", "transposed"), kind="attribute"),
]

CONSTRAINTS = [
    Constraint("memdesc", ("%{v} = irdl.base @ttg::@memdesc",)),
    Constraint("mutable_memdesc", (
        "%{v}_t = irdl.any", "%{v}_e = irdl.any", '%{v}_m = irdl.is "mutable"',
        "%{v} = irdl.parametric @ttg::@memdesc<%{v}_t, %{v}_e, %{v}_m>")),
    Constraint("token", ("%{v} = irdl.base @ttg::@async_token",)),
    Constraint("tensor", ('%{v} = irdl.base "!builtin.tensor"',)),
]

COPY = {"cache": "str", "evict": "str", "is_volatile": "bool"}

OPS = [
    OpDef("ttg.convert_layout", operands("src"), pure=True),
    OpDef("ttg.local_alloc", operands("src?"), constraints={"result": "memdesc"}),
    OpDef("ttg.local_load", operands("src, token?"),
          constraints={"src": "memdesc", "token": "token", "result": "tensor"}),
    OpDef("ttg.local_store", operands("src, dst"), results=(),
          constraints={"src": "tensor", "dst": "mutable_memdesc"}),
    OpDef("ttg.local_dealloc", operands("src"), results=(), constraints={"src": "memdesc"}),
    OpDef("ttg.memdesc_index", operands("src, index"), pure=True,
          constraints={"src": "memdesc", "result": "memdesc"}),
    OpDef("ttg.async_copy_global_to_local", operands("src, result, mask?, other?"),
          results=operands("token"), attrs=COPY,
          constraints={"result": "mutable_memdesc", "token": "token"}),
    OpDef("ttg.async_commit_group", operands("tokens*"), results=operands("token"),
          constraints={"tokens": "token", "token": "token"}),
    OpDef("ttg.async_wait", operands("tokens*"), results=operands("token"),
          attrs={"num": "i32"}, constraints={"tokens": "token", "token": "token"}),
]

OP_DEFS: dict[str, OpDef] = {op.name: op for op in OPS}
