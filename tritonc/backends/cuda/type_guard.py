"""A check, before LLVM translation, that every type in an LLVM-dialect module has an
LLVM IR equivalent.

MLIR's translation to LLVM IR aborts the process (it does not raise) on a type it cannot
map, such as an fp8 float (`f8E4M3FN`) or a `tensor<...>` left behind by a lowering.
`check_llvm_types` walks the module first (op result and block-argument types, which
cover every operand, and the types inside attributes such as a GEP's `elem_type`) and raises a
`CompilationError` naming the kernel, the type and the kernel source line of the op. So does
an `llvm.bitcast` between types of different sizes (`vector<1xi8>` to `vector<1xi1>`),
which the dialect accepts and LLVM's optimizer then aborts on.

In: an LLVM-dialect module (after `LLVM_DIALECT_PASSES`). Out: nothing, or the error.
"""

from __future__ import annotations

import linecache
import re
from types import SimpleNamespace

from tritonc.compiler.errors import CompilationError

# Types with no LLVM IR equivalent: the narrow floats, tf32 and types of higher dialects.
_BAD_TYPE = re.compile(r"\b(f8E\w+|f6E\w+|f4E\w+|tf32)\b|tensor<|memref<|!tt\.|!ttg\.")
# In attributes only the narrow floats count (a dense constant may be typed tensor<>).
_BAD_ATTR = re.compile(r"\b(f8E\w+|f6E\w+|f4E\w+)\b")
# The attributes of LLVM-dialect ops that hold types or typed values.
_TYPED_ATTRIBUTES = ("elem_type", "function_type", "global_type", "value", "var_type")
_LOC = re.compile(r'loc\("([^"]+)":(\d+):(\d+)')
_SCALAR_BITS = re.compile(r"^(?:i(\d+)|f(16|32|64)|(bf16))$")
_VECTOR = re.compile(r"^vector<(\d+)x(\w+)>$")


def _bits(text: str) -> int | None:
    """The size in bits of an integer, float or vector-of-them type; None for others."""
    vector = _VECTOR.match(text)
    count, text = (int(vector.group(1)), vector.group(2)) if vector else (1, text)
    scalar = _SCALAR_BITS.match(text)
    if scalar is None:
        return None
    return count * int(scalar.group(1) or scalar.group(2) or 16)


def _error(op, what: str, kernel_name: str) -> CompilationError:
    message = (f"{what} in '{op.name}' has no LLVM equivalent "
               "(the CUDA backend cannot lower it)")
    match = _LOC.search(str(op.location))
    if match is None:
        return CompilationError("", None, message, kernel=kernel_name)
    filename, line, col = match.group(1), int(match.group(2)), int(match.group(3))
    src = "".join(linecache.getlines(filename))
    node = SimpleNamespace(lineno=line, col_offset=max(col - 1, 0))
    return CompilationError(src, node, message, filename=filename, kernel=kernel_name)


def check_llvm_types(module, kernel_name: str) -> None:
    """Raise `CompilationError` if any type in `module` (an `ir.Module` in the LLVM
    dialect) would make the LLVM translation abort."""
    from tritonc.compiler import mlir_loader

    ir = mlir_loader.load()
    verdicts: dict[tuple[str, str], bool] = {}

    def bad(text: str, pattern: re.Pattern) -> bool:
        key = (pattern.pattern, text)
        if key not in verdicts:
            verdicts[key] = pattern.search(text) is not None
        return verdicts[key]

    found: list[CompilationError] = []

    def visit(op):
        # every operand is some op's result or a block argument: results and arguments
        # cover all values
        values = list(op.results)
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.arguments)
        for value in values:
            text = str(value.type)
            if bad(text, _BAD_TYPE):
                found.append(_error(op, f"the type {text}", kernel_name))
                return ir.WalkResult.INTERRUPT
        if op.name == "llvm.bitcast":
            sizes = {_bits(str(op.operands[0].type)), _bits(str(op.results[0].type))}
            if len(sizes) > 1 and None not in sizes:
                found.append(_error(op, f"a bitcast of {op.operands[0].type} to "
                                        f"{op.results[0].type} (sizes differ)", kernel_name))
                return ir.WalkResult.INTERRUPT
        attributes = op.attributes
        for name in _TYPED_ATTRIBUTES:
            if name in attributes:
                text = str(attributes[name])
                if bad(text, _BAD_ATTR):
                    found.append(_error(op, f"the attribute {name} = {text}", kernel_name))
                    return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if found:
        raise found[0]
