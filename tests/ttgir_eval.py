"""A TTGIR (or TTIR) function evaluated op by op with the interpreter's numpy rules.

Tests use it as a reference for what a stage's IR computes: `evaluate` runs a kernel's
stage text on numpy arrays over a grid; an `observe(op, values)` callback sees the value
of every op's results, for each program.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import tritonc.language as tl
from tritonc.backends.interpreter.errors import InterpreterUnsupported

_ELEMENTS = {"f16": tl.float16, "bf16": tl.bfloat16, "f32": tl.float32, "f64": tl.float64,
             "i1": tl.int1, "i8": tl.int8, "i16": tl.int16, "i32": tl.int32, "i64": tl.int64}
_SKIPPED = ("operandSegmentSizes", "resultSegmentSizes", "combine")


def _language_type(ir, ty):
    if isinstance(ty, ir.RankedTensorType):
        t = ir.RankedTensorType(ty)
        return tl.block_type(_language_type(ir, t.element_type), list(t.shape))
    text = str(ty)
    if text.startswith("!tt.ptr<"):
        text = text[len("!tt.ptr<"):].split(",")[0].strip(">")
        if text in _ELEMENTS:
            return tl.pointer_type(_ELEMENTS[text])
    if text not in _ELEMENTS:
        raise InterpreterUnsupported(f"no evaluation of values of type {ty}")
    return _ELEMENTS[text]


def _attribute(ir, op_name: str, name: str, attr):
    from tritonc.compiler.mlir_builder import CMPF, CMPI

    if name == "predicate":
        table = CMPI if op_name == "arith.cmpi" else CMPF
        return {v: k for k, v in table.items()}[ir.IntegerAttr(attr).value]
    if isinstance(attr, ir.DenseI32ArrayAttr):
        return list(attr)
    return attr.value if isinstance(attr, (ir.BoolAttr, ir.IntegerAttr, ir.StringAttr)) else attr


class _Evaluator:
    """Runs a TTGIR (or TTIR) function one program at a time: scf.for and scf.while as
    Python loops, scf.if as the branch its condition takes,
    tt.reduce through its combine function, layouts ignored, every other op by the
    interpreter's rule of that name."""

    def __init__(self, ir, module, builder, observe: Callable | None = None) -> None:
        self.ir, self.builder, self.observe = ir, builder, observe
        self.functions = {ir.StringAttr(op.attributes["sym_name"]).value: op
                          for op in module.body.operations if op.operation.name == "func.func"}

    def call(self, fn, args: list) -> list:
        block = fn.regions[0].blocks[0]
        return self.run(block, dict(zip(block.arguments, args)))

    def run(self, block, env: dict) -> list:
        ir, builder = self.ir, self.builder
        for op in block.operations:
            name = op.operation.name
            types = [_language_type(ir, r.type) for r in op.results]
            if name in ("scf.yield", "scf.condition", "func.return"):
                return [env[v] for v in op.operands]
            if name == "arith.constant":
                attr = op.attributes["value"]
                value = ir.DenseElementsAttr(attr).get_splat_value() \
                    if isinstance(op.results[0].type, ir.RankedTensorType) else attr
                scalar = value.value
                out = [builder.constant(scalar, types[0])]
            elif name == "scf.for":
                body = op.regions[0].blocks[0]
                lower, upper, step = (int(env[v]) for v in list(op.operands)[:3])
                out = [env[v] for v in list(op.operands)[3:]]
                for i in range(lower, upper, step):
                    inner = dict(env)
                    inner[body.arguments[0]] = builder.constant(i, tl.int32)
                    inner.update(zip(list(body.arguments)[1:], out))
                    out = self.run(body, inner)
            elif name == "scf.while":
                before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
                args = [env[v] for v in op.operands]
                while True:
                    cond, *out = self.run(before, {**env, **dict(zip(before.arguments, args))})
                    if not bool(cond):
                        break
                    args = self.run(after, {**env, **dict(zip(after.arguments, out))})
            elif name == "scf.if":
                taken = op.regions[0] if bool(env[op.operands[0]]) else op.regions[1]
                out = self.run(taken.blocks[0], dict(env)) if len(taken.blocks) else []
            elif name == "tt.reduce":
                fn = self.functions[ir.FlatSymbolRefAttr(op.attributes["combine"]).value]
                out = builder.reduce([env[v] for v in op.operands],
                                     ir.IntegerAttr(op.attributes["axis"]).value, types,
                                     lambda lhs, rhs, fn=fn: self.call(fn, lhs + rhs))
            elif name == "ttg.convert_layout":
                out = [env[op.operands[0]]]
            else:
                out = builder.create(name, self._operands(op, env), types, {
                    a: _attribute(ir, name, a, op.attributes[a]) for a in op.attributes
                    if a not in _SKIPPED})
            env.update(zip(op.results, out))
            if self.observe is not None:
                self.observe(op, out)
        return []

    def _operands(self, op, env: dict) -> list:
        values = [env[v] for v in op.operands]
        if "operandSegmentSizes" not in op.attributes:
            return values
        out = []
        for size in self.ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]):
            out.append(values.pop(0) if size else None)
        return out


def evaluate(text: str, arrays: list[np.ndarray], scalars: list[int],
             grid: tuple[int, int, int], observe: Callable | None = None,
             module_hook: Callable | None = None) -> None:
    """Run the kernel of the stage text `text` on `arrays` (pointer arguments, written in
    place) and `scalars` (i32 arguments, after them) over `grid`; `observe(op, values)`
    sees each op's results, `module_hook(module)` the parsed module first."""
    from tritonc.backends.interpreter.memory import Memory
    from tritonc.backends.interpreter.numpy_builder import NumpyBuilder
    from tritonc.compiler import mlir_loader

    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(text)
        memory = Memory()
        builder = NumpyBuilder(memory)
        args = [memory.register(a, f"arg{i}") for i, a in enumerate(arrays)]
        args += [builder.constant(s, tl.int32) for s in scalars]
        if module_hook is not None:
            module_hook(module)
        evaluator = _Evaluator(ir, module, builder, observe)
        kernel = next(op for op in module.body.operations if op.operation.name == "func.func"
                      and "private" not in str(op.attributes["sym_visibility"]))
        for pid in np.ndindex(*grid):
            builder.set_grid(pid, grid)
            evaluator.call(kernel, args)
