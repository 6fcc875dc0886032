"""The contract between the semantic layer and the two builders beneath it.

`language.semantic.Semantic` decides every type; a `Builder` only materialises ops.
There are two builders: `compiler.mlir_builder.MLIRBuilder` emits TTIR, and
`backends.interpreter.numpy_builder.NumpyBuilder` computes values with numpy. Both
receive the same calls, so the typing rules exist once.

Every op is named by its MLIR name and built with `create(name, operands, result_types,
attrs)`. Handles are builder-specific (an `mlir.ir.Value`, a numpy array); types are
language types (`dtype`, `pointer_type`, `block_type`, `tensor_descriptor_type`).
Operands always already have the shapes and element types the op needs: the semantic
layer inserted every splat, broadcast and cast.

The vocabulary (attributes in braces; predicates and kinds are plain strings):

arith (elementwise; `i` ops on integers and int1, `f` ops on floats):
    arith.addi addf subi subf muli mulf divsi divui divf remsi remui remf
    andi ori xori shli shrsi shrui maxsi minsi maxui minui
    maximumf minimumf (NaN-propagating) maxnumf minnumf (NaN-ignoring) negf
    arith.cmpi {predicate: eq ne slt sle sgt sge ult ule ugt uge} -> int1
    arith.cmpf {predicate: oeq one olt ole ogt oge une uno ord} -> int1
    arith.select (cond, a, b)
    arith.extsi extui trunci extf truncf sitofp uitofp fptosi fptoui bitcast
math (elementwise on floats unless noted):
    math.exp exp2 log log2 sin cos tan sqrt rsqrt absf floor ceil trunc roundeven
    erf tanh fma (3 operands) absi (integers) powf
tt (see dialects/tt.py for operands and attributes):
    tt.get_program_id tt.get_num_programs {axis} tt.make_range {start, end}
    tt.splat tt.broadcast tt.expand_dims {axis} tt.reshape {allow_reorder}
    tt.trans {order} tt.join tt.split (2 results) tt.cat tt.gather {axis}
    tt.addptr tt.load tt.store tt.make_block_ptr tt.advance tt.atomic_rmw tt.atomic_cas
    tt.make_tensor_descriptor tt.descriptor_load tt.descriptor_store
    tt.fp_to_fp {rounding: "rtne" | "rtz" | ""} tt.bitcast tt.int_to_ptr tt.ptr_to_int
    tt.clampf tt.precise_sqrt tt.precise_divf tt.mulhiu tt.extern_elementwise
    tt.elementwise_inline_asm tt.dot tt.histogram tt.print tt.assert tt.assume tt.barrier
llvm and nvvm:
    llvm.intr.assume (a scalar int1 the optimiser may take as true)
    nvvm.read.ptx.sreg.globaltimer (-> int64) nvvm.read.ptx.sreg.smid (-> int32)
Optional operands absent from a call are passed as None.

Reductions and scans carry a combine function: `reduce(operands, axis, combine)` and
`scan(operands, axis, reverse, combine)`, where `combine(lhs_handles, rhs_handles)`
returns the combined handles. The MLIR builder calls it once on block arguments of a
private func.func; the numpy builder calls it on whole arrays, so it must be
elementwise (which every Triton combine function is).

`map_elementwise(operands, scalar_types, pack, body)` maps a scalar function over
operands of one shape: `body(handles)` takes `pack` scalars of each operand (operand by
operand) and returns `pack` scalars of each result (result by result) and the op's result
types. The MLIR builder calls it once on the arguments of a private func.func; the numpy
builder calls it on each group of `pack` elements in turn, so its control flow may differ
per element.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from tritonc.language.dtypes import base_type

Handle = Any
Combine = Callable[[list[Handle], list[Handle]], list[Handle]]
MapBody = Callable[[list[Handle]], tuple[list[Handle], list[base_type]]]


class Builder(Protocol):
    """What the semantic layer needs from a builder."""

    #: True when values are known while the kernel is being walked (the interpreter):
    #: the code generator then runs `if`, `for` and `while` as Python control flow.
    concrete: bool

    def constant(self, value: bool | int | float, ty: base_type) -> Handle:
        """A constant of scalar type `ty`, or a splatted tensor when `ty` is a block_type."""

    def create(
        self,
        name: str,
        operands: Sequence[Handle | None],
        result_types: Sequence[base_type],
        attrs: Mapping[str, Any] | None = None,
    ) -> list[Handle]:
        """Build op `name`; return its results."""

    def reduce(self, operands: Sequence[Handle], axis: int, result_types: Sequence[base_type],
               combine: Combine) -> list[Handle]:
        """Reduce each operand along `axis` with `combine`."""

    def scan(self, operands: Sequence[Handle], axis: int, reverse: bool,
             result_types: Sequence[base_type], combine: Combine) -> list[Handle]:
        """Inclusive scan of each operand along `axis` with `combine`."""

    def map_elementwise(self, operands: Sequence[Handle], scalar_types: Sequence[base_type],
                        pack: int, body: MapBody) -> list[Handle]:
        """Apply `body` to each group of `pack` elements of the operands."""

    def set_attr(self, handle: Handle, name: str, value: Any) -> None:
        """Attach a compiler hint (`tt.divisibility`, `tt.contiguity`) to a value's definition."""

    def static_value(self, handle: Handle) -> Any:
        """The Python value of a scalar handle when it is known now, else None."""
