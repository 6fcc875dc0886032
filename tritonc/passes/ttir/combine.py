"""combine: a sum with a product accumulated from zero is that product accumulated into it.

Takes TTIR; gives TTIR in which every `arith.addf` (`arith.addi` for integer dots) of a
value x and a `tt.dot(a, b, zeros)` that nothing else reads is `tt.dot(a, b, x)`, its
attributes (input precision, imprecise-accumulation bound) kept. Written
`acc += tl.dot(a, b)`, a loop otherwise keeps two accumulators live (the product's and
the sum's), and the tensor cores cannot accumulate in place; on sm_90 a 128 x 128 fp32
accumulator on 4 warps then spills. Floating-point sums differ only in rounding (the
product's terms are added into x instead of into zero first), as in Triton's own
combine.

Before:
    %z = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %d = "tt.dot"(%a, %b, %z) {input_precision = "tf32", ...} : (...) -> tensor<128x128xf32>
    %s = arith.addf %acc, %d : tensor<128x128xf32>
After:
    %s = "tt.dot"(%a, %b, %acc) {input_precision = "tf32", ...} : (...) -> tensor<128x128xf32>
"""

from __future__ import annotations

from tritonc.passes.ttgir import ops_named

_ADDS = ("arith.addf", "arith.addi")


def combine(module) -> None:
    """Fold every sum of a value and a dot accumulated from zero (see above)."""
    from mlir import ir

    with module.context:
        for add in [op for name in _ADDS for op in ops_named(module, name)]:
            _fold(ir, add)


def _fold(ir, add) -> None:
    for index in (0, 1):
        dot = add.operands[index].owner
        if isinstance(dot, ir.Block) or dot.name != "tt.dot":
            continue
        if len(list(dot.results[0].uses)) != 1 or not is_zero_splat(dot.operands[2]):
            continue
        other = add.operands[1 - index]
        if other.type != add.results[0].type:
            continue
        attrs = {name: dot.attributes[name] for name in dot.attributes}
        with ir.InsertionPoint(add), add.location:
            fused = ir.Operation.create("tt.dot", results=[add.results[0].type],
                                        operands=[dot.operands[0], dot.operands[1], other],
                                        attributes=attrs)
        add.results[0].replace_all_uses_with(fused.results[0])
        add.erase()
        dot.erase()
        return


def is_zero_splat(value) -> bool:
    """Whether `value` is a constant splat of zero (+0.0 or -0.0 for floats)."""
    from mlir import ir

    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return False
    splat = attr.get_splat_value()
    if isinstance(splat, ir.FloatAttr):
        return splat.value == 0.0
    return isinstance(splat, ir.IntegerAttr) and splat.value == 0
