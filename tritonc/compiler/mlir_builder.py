"""The MLIR builder: the semantic layer's ops become TTIR through the Python bindings.

Implements `language.builder.Builder` over an `mlir.ir` module, plus the structured
pieces only a compiler needs (functions, scf.if/for/while, calls), which the code
generator uses when a condition or bound is not known while walking the kernel.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from tritonc.compiler import mlir_loader
from tritonc.compiler.errors import TargetLimitError
from tritonc.dialects.spec import HETERO, OPTIONAL, SINGLE, VARIADIC, hetero_slots
from tritonc.dialects.tt import OP_DEFS
from tritonc.language import dtypes as T

ir = mlir_loader.load()
from mlir.dialects import func, scf  # noqa: E402  (needs libLLVM preloaded above)

CMPI = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7, "ugt": 8,
        "uge": 9}
CMPF = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7,
        "ueq": 8, "ugt": 9, "uge": 10, "ult": 11, "ule": 12, "une": 13, "uno": 14, "true": 15}
SCALAR_TYPES = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
                "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
                "fp8e4nv": "f8E4M3FN", "fp8e5": "f8E5M2", "fp8e4b15": "f8E4M3B11FNUZ",
                "fp16": "f16", "bf16": "bf16", "fp32": "f32", "fp64": "f64"}


class MLIRBuilder:
    """Builds TTIR into `self.module`; `ip` and `loc` say where and from which line."""

    concrete = False

    def __init__(self, context: Any) -> None:
        self.context = context
        with context:
            self.loc = ir.Location.unknown()
            self.module = ir.Module.create(self.loc)
        self.ip = ir.InsertionPoint(self.module.body)
        self._type_cache: dict[T.base_type, Any] = {}
        self._names = itertools.count()

    # -- types -----------------------------------------------------------------------
    def ir_type(self, ty: T.base_type):
        cached = self._type_cache.get(ty)
        if cached is not None:
            return cached
        with self.context:
            if isinstance(ty, T.block_type):
                out = ir.RankedTensorType.get(list(ty.shape), self.ir_type(ty.element_ty))
            elif isinstance(ty, T.pointer_type):
                out = ir.Type.parse(f"!tt.ptr<{self.ir_type(ty.element_ty)}, "
                                    f"{ty.address_space} : i32>")
            elif isinstance(ty, T.tensor_descriptor_type):
                block = ty.block_type
                row = block.shape[-1] * max(1, block.element_ty.primitive_bitwidth // 8)
                if row < 16:  # a TMA box row
                    raise TargetLimitError("Descriptor block shape must have at least 16 bytes in "
                                     f"the last dimension, got {block.shape[-1]} x "
                                     f"{block.element_ty}")
                out = ir.Type.parse(f"!tt.tensordesc<{self.ir_type(block)}>")
            else:
                if ty.name not in SCALAR_TYPES:
                    raise TypeError(f"{ty.name} is not supported in this architecture: the "
                                    "CUDA backend has no encoding for it (its types: "
                                    f"{', '.join(SCALAR_TYPES)})")
                out = ir.Type.parse(SCALAR_TYPES[ty.name])
        self._type_cache[ty] = out
        return out

    # -- the Builder protocol ---------------------------------------------------------------
    def _scalar_attr(self, value, ty: T.dtype):
        mlir_ty = self.ir_type(ty)
        if ty.is_floating():
            return ir.FloatAttr.get(mlir_ty, float(value))
        bits = ty.primitive_bitwidth
        value = int(value) & ((1 << bits) - 1)
        if bits > 1 and value >= 1 << (bits - 1):
            value -= 1 << bits  # stored as signless two's complement
        return ir.IntegerAttr.get(mlir_ty, value)

    def constant(self, value, ty: T.base_type):
        with self.context, self.loc:
            if isinstance(ty, T.block_type):
                attr = ir.DenseElementsAttr.get_splat(self.ir_type(ty),
                                                      self._scalar_attr(value, ty.element_ty))
            else:
                attr = self._scalar_attr(value, ty)
            return self._create("arith.constant", [], [self.ir_type(ty)], {"value": attr})[0]

    def create(self, name: str, operands: Sequence, result_types: Sequence[T.base_type],
               attrs: Mapping[str, Any] | None = None) -> list:
        with self.context, self.loc:
            types = [self.ir_type(t) for t in result_types]
            opdef = OP_DEFS.get(name)
            if opdef is not None:
                values, mlir_attrs = self._tt_operands(opdef, list(operands), attrs or {})
                if opdef.needs_result_segments:
                    mlir_attrs["resultSegmentSizes"] = ir.DenseI32ArrayAttr.get(
                        hetero_slots(len(types)))
            else:
                values = list(operands)
                mlir_attrs = self._upstream_attrs(name, attrs or {})
            return self._create(name, values, types, mlir_attrs)

    def _create(self, name: str, operands: list, types: list, attrs: dict) -> list:
        op = ir.Operation.create(name, results=types, operands=operands, attributes=attrs,
                                 loc=self.loc, ip=self.ip)
        return list(op.results)

    def _tt_operands(self, opdef, operands: list, attrs: Mapping[str, Any]):
        """Operand values and attributes of a tt op, with segment sizes where needed."""
        values, segments = [], []
        singles = [n for n, a in opdef.operands if a == SINGLE]
        n_var = sum(a in (VARIADIC, HETERO) for _, a in opdef.operands)
        # variadic groups split what is left after the fixed operands
        fixed = len(singles) + sum(a == OPTIONAL for _, a in opdef.operands)
        rest = len(operands) - fixed
        groups = self._variadic_split(opdef.name, rest, n_var, operands)
        it = iter(operands)
        for _, arity in opdef.operands:
            if arity == HETERO:
                group = [next(it) for _ in range(groups.pop(0))]
                values += group
                segments += hetero_slots(len(group))
            elif arity == VARIADIC:
                group = [next(it) for _ in range(groups.pop(0))]
                values += group
                segments.append(len(group))
            else:
                value = next(it)
                if value is None and arity == SINGLE:
                    raise ValueError(f"{opdef.name}: a required operand is missing")
                if value is not None:
                    values.append(value)
                segments.append(0 if value is None else 1)
        mlir_attrs = {n: self._attr(kind, attrs.get(n)) for n, kind in opdef.attrs.items()}
        if opdef.needs_segments:
            mlir_attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(segments)
        return values, mlir_attrs

    @staticmethod
    def _variadic_split(name: str, rest: int, n_var: int, operands: list) -> list[int]:
        if n_var == 0:
            return []
        if n_var == 1:
            return [rest]
        # make_block_ptr (shape*, strides*, offsets*) and make_tensor_descriptor
        # (shape*, strides*): the groups have equal length
        return [rest // n_var] * n_var

    def _attr(self, kind: str, value):
        if kind == "i32":
            return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value or 0))
        if kind == "bool":
            return ir.BoolAttr.get(bool(value))
        if kind == "str":
            return ir.StringAttr.get(value or "")
        if kind == "i32s":
            return ir.DenseI32ArrayAttr.get([int(v) for v in (value or [])])
        if kind == "sym":
            return ir.FlatSymbolRefAttr.get(value)
        raise ValueError(f"unknown attribute kind {kind!r}")

    def _upstream_attrs(self, name: str, attrs: Mapping[str, Any]) -> dict:
        out = {"op_bundle_sizes": ir.DenseI32ArrayAttr.get([])} \
            if name == "llvm.intr.assume" else {}
        for key, value in attrs.items():
            if key == "predicate":
                table = CMPI if name == "arith.cmpi" else CMPF
                out[key] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), table[value])
            else:
                raise ValueError(f"{name}: unexpected attribute {key!r}")
        return out

    def reduce(self, operands, axis, result_types, combine):
        return self._combining_op("tt.reduce", operands, result_types, combine,
                                  {"axis": axis})

    def scan(self, operands, axis, reverse, result_types, combine):
        return self._combining_op("tt.scan", operands, result_types, combine,
                                  {"axis": axis, "reverse": reverse})

    def _combining_op(self, name, operands, result_types, combine, attrs):
        scalar_tys = [t.scalar for t in result_types]
        symbol = self.combine_function(scalar_tys, combine)
        return self.create(name, operands, result_types, {**attrs, "combine": symbol})

    def combine_function(self, scalar_tys: list[T.dtype], combine) -> str:
        """A private func.func taking 2N scalars and returning N, built by `combine`."""
        symbol = f"{name_prefix(scalar_tys)}_combine_{next(self._names)}"
        ins = [self.ir_type(t) for t in scalar_tys] * 2
        outs = [self.ir_type(t) for t in scalar_tys]
        with self.context, self.loc:
            fn = func.FuncOp(symbol, (ins, outs), visibility="private",
                             ip=ir.InsertionPoint(self.module.body))
            block = fn.add_entry_block()
        saved = self.ip
        self.ip = ir.InsertionPoint(block)
        try:
            args = list(block.arguments)
            results = combine(args[: len(scalar_tys)], args[len(scalar_tys):])
            self.return_(results)
        finally:
            self.ip = saved
        return symbol

    def map_elementwise(self, operands, scalar_types, pack, body):
        """`tt.map_elementwise` naming a private func.func that takes `pack` scalars of
        each operand and returns what `body` builds from them."""
        symbol = f"{name_prefix(scalar_types)}_map_{next(self._names)}"
        ins = [self.ir_type(t) for t in scalar_types for _ in range(pack)]
        with self.context, self.loc:
            fn = func.FuncOp(symbol, (ins, []), visibility="private",
                             ip=ir.InsertionPoint(self.module.body))
            block = fn.add_entry_block()
        saved = self.ip
        self.ip = ir.InsertionPoint(block)
        try:
            results, result_types = body(list(block.arguments))
            self.return_(results)
        finally:
            self.ip = saved
        with self.context:
            fn.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(ins, [r.type for r in results]))
        return self.create("tt.map_elementwise", operands, result_types,
                           {"pack": pack, "fn": symbol})

    def set_attr(self, handle, name: str, value) -> None:
        with self.context:
            attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value[0])) \
                if len(value) == 1 else ir.DenseI32ArrayAttr.get([int(v) for v in value])
            owner = handle.owner
            if isinstance(owner, ir.Block):
                return
            owner.attributes[name] = attr

    def set_op_attr(self, op, name: str, value: int) -> None:
        """An i32 attribute on an op (loop hints such as `tt.num_stages` on scf.for)."""
        with self.context:
            op.operation.attributes[name] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                               value)

    def set_unit_attr(self, op, name: str) -> None:
        """A unit attribute on an op (`tt.flatten` on an scf.for)."""
        with self.context:
            op.operation.attributes[name] = ir.UnitAttr.get()

    def disable_licm(self, loop) -> None:
        """Keep LLVM's loop-invariant code motion out of `loop` (an scf.for or scf.while):
        the loop annotation that reaches its back edge as `llvm.licm.disable`."""
        with self.context:
            loop.operation.attributes["loop_annotation"] = ir.Attribute.parse(
                "#llvm.loop_annotation<licm = #llvm.loop_licm<disable = true>>")

    def static_value(self, handle) -> None:
        return None

    # -- structure (compiler only) ---------------------------------------------------------
    def function(self, name: str, arg_types: Sequence[T.base_type], visibility: str | None,
                 arg_attrs: Sequence[dict] | None = None,
                 arg_names: Sequence[str] | None = None):
        """A func.func with an entry block; the insertion point moves into it. Each of
        `arg_names` becomes its argument's location (a NameLoc), which the TTIR printer
        (`compiler.ttir_text`) uses as the argument's name."""
        with self.context, self.loc:
            ins = [self.ir_type(t) for t in arg_types]
            fn = func.FuncOp(name, (ins, []), visibility=visibility,
                             ip=ir.InsertionPoint(self.module.body))
            if arg_attrs:
                fn.arg_attrs = ir.ArrayAttr.get([
                    ir.DictAttr.get({k: ir.IntegerAttr.get(ir.IntegerType.get_signless(32), v)
                                     for k, v in attrs.items()})
                    for attrs in arg_attrs
                ])
            locs = [ir.Location.name(n, childLoc=self.loc) for n in arg_names] \
                if arg_names is not None else None
            block = fn.add_entry_block(arg_locs=locs)
        self.ip = ir.InsertionPoint(block)
        return fn, list(block.arguments)

    def set_result_types(self, fn, result_types: Sequence[T.base_type]) -> None:
        with self.context:
            ins = list(fn.type.inputs)
            outs = [self.ir_type(t) for t in result_types]
            fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, outs))

    def return_(self, values: Sequence) -> None:
        with self.context, self.loc:
            func.ReturnOp(list(values), ip=self.ip)

    def call(self, symbol: str, args: Sequence, result_types: Sequence[T.base_type]) -> list:
        with self.context, self.loc:
            op = func.CallOp([self.ir_type(t) for t in result_types],
                             ir.FlatSymbolRefAttr.get(symbol), list(args), ip=self.ip)
            return list(op.results)

    def if_op(self, cond, result_types: Sequence[T.base_type], has_else: bool):
        with self.context, self.loc:
            return scf.IfOp(cond, [self.ir_type(t) for t in result_types], has_else=has_else,
                            ip=self.ip)

    def poison(self, ty: T.base_type):
        """`ub.poison` of `ty`: the value of a path that returns none."""
        with self.context, self.loc:
            return self._create("ub.poison", [], [self.ir_type(ty)],
                                {"value": ir.Attribute.parse("#ub.poison")})[0]

    def move_region_ops(self, src_block, dst_block) -> None:
        for op in list(src_block.operations):
            op.detach_from_parent()
            dst_block.append(op)

    def for_op(self, lb, ub, step, inits: Sequence):
        with self.context, self.loc:
            return scf.ForOp(lb, ub, step, list(inits), ip=self.ip)

    def while_op(self, types: Sequence[T.base_type], inits: Sequence):
        with self.context, self.loc:
            op = scf.WhileOp([self.ir_type(t) for t in types], list(inits), ip=self.ip)
            mlir_tys = [self.ir_type(t) for t in types]
            before = op.before.blocks.append(*mlir_tys)
            after = op.after.blocks.append(*mlir_tys)
            return op, before, after

    def yield_(self, values: Sequence) -> None:
        with self.context, self.loc:
            scf.YieldOp(list(values), ip=self.ip)

    def condition(self, cond, values: Sequence) -> None:
        with self.context, self.loc:
            scf.ConditionOp(cond, list(values), ip=self.ip)

    def index_cast(self, value, to_index: bool):
        """arith.index_cast between an integer and `index` (scf.for bounds)."""
        with self.context, self.loc:
            ty = ir.IndexType.get() if to_index else ir.IntegerType.get_signless(32)
            return self._create("arith.index_cast", [value], [ty], {})[0]


def name_prefix(tys: Sequence[T.dtype]) -> str:
    return "_".join(t.name for t in tys)
