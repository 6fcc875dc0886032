"""The ttg dialect: Triton GPU IR, where every tensor type carries a layout encoding.

Layouts are IRDL attributes used as tensor encodings, e.g.
`tensor<1024xf32, #ttg.blocked<[4], [32], [4], [0]>>`: size per thread, threads per
warp, warps per CTA and the order of dimensions, fastest first. `#ttg.mma<[2, 2]>` is the
accumulator layout of the tensor-core instruction `mma.sync.m16n8k16`.
"""

from __future__ import annotations

from tritonc.dialects.spec import OpDef, TypeDef, operands

TYPES: list[TypeDef] = []

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
]

OPS = [
    OpDef("ttg.convert_layout", operands("src")),
]
