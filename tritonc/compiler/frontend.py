"""From a @jit function and its specialization to a verified TTIR module.

A specialization names each parameter's type (`*fp32`, `i32`, `fp16`, `i1`, ...) or
gives its constexpr value, and lists the arguments known to be divisible by 16
(they get `tt.divisibility = 16`); the rules are the table of `runtime/specialization.py`.
Integers equal to 1 arrive as constexprs. A pointer type written `*k...` (`*kfp32`), and
any pointer argument of a parameter annotated `tl.const`, is a pointer to constant data.
A tuple
argument's type is a tuple (or NamedTuple) of type strings: it is passed as that many
function arguments, in order, and rebuilt into a tuple (or NamedTuple) in the kernel.
An item known at compile time (None, a constexpr, a @jit function) is a
`specialization.ConstantItem` of the tuple's type, which takes no function argument:
the kernel sees a constexpr there.
The function's arguments carry the parameters' names (`flatten_names`) as their
locations, and the module's printed text (`compiler.ttir_text`) uses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from tritonc.compiler import mlir_loader
from tritonc.compiler.errors import CompilationError
from tritonc.language import dtypes as T
from tritonc.language.builtins import tensor_descriptor
from tritonc.language.core import const_argument, constexpr, tensor
from tritonc.language.semantic import Semantic
from tritonc.runtime import descriptors, specialization
from tritonc.runtime.jit import JITFunction


def parse_type(text: str) -> T.base_type:
    """`*fp32` -> pointer_type(fp32); `i32` -> int32; `fp16` -> float16."""
    if not isinstance(text, str):
        raise ValueError(f"expected a type string such as '*fp32' or 'i32', got {text!r}")
    text = text.strip()
    if text.startswith("*"):
        const = text.startswith("*k")
        inner = text[2:] if const else text[1:]
        return T.pointer_type(parse_type(inner), 1, const)
    try:
        return T.from_name(text)
    except ValueError:
        raise ValueError(f"unknown type {text!r} in signature") from None


def flatten_signature(entry: Any) -> list[str]:
    """The type strings of one signature entry; a tuple (or NamedTuple) entry is flattened
    in order, so a tuple argument becomes several function arguments; a constant item
    (`ConstantItem`) takes none."""
    if isinstance(entry, (tuple, list)):
        return [t for item in entry for t in flatten_signature(item)]
    if isinstance(entry, specialization.ConstantItem):
        return []
    if descriptors.parse(entry) is not None:
        return descriptors.flat_types(entry)
    return [entry]


def flatten_names(entry: Any, name: str) -> list[str]:
    """The names of the function arguments `flatten_signature(entry)` types, for the
    parameter `name`: the name itself, `t.0`, `t.1` for a tuple's items (`t.x` for a
    NamedTuple's), `d`, `d.shape0`, `d.stride0`, `d.tensormap` for a descriptor's
    parts."""
    if isinstance(entry, (tuple, list)):
        keys = getattr(entry, "_fields", None) or range(len(entry))
        return [n for key, item in zip(keys, entry, strict=True)
                for n in flatten_names(item, f"{name}.{key}")]
    if isinstance(entry, specialization.ConstantItem):
        return []
    parts = descriptors.parse(entry)
    if parts is not None:
        dims = range(len(parts[1]))
        return [name, *(f"{name}.shape{i}" for i in dims), *(f"{name}.stride{i}" for i in dims),
                f"{name}.tensormap"]
    return [name]


def rebuild_value(entry: Any, values: Any, semantic: Semantic, aligned: bool = False) -> Any:
    """The kernel-side value of one signature entry from its flattened `values` iterator:
    a tensor, a tensor descriptor made from its base, shape and strides, a constexpr for
    a constant item, or a tuple / NamedTuple of the same structure as `entry`. The
    descriptor of an `aligned` entry names the kernel argument of its CUtensorMap
    (`descriptors.TENSORMAP_ATTR`, an argument number) for TMA copies."""
    if isinstance(entry, (tuple, list)):
        items = [rebuild_value(item, values, semantic) for item in entry]
        if hasattr(entry, "_fields"):
            return type(entry)(*items)
        return tuple(items)
    if isinstance(entry, specialization.ConstantItem):
        return constexpr(entry.value)
    parts = descriptors.parse(entry)
    if parts is not None:
        _, block, padding = parts
        base = next(values)
        shape = [next(values) for _ in block]
        strides = [next(values) for _ in block]
        strides[-1] = 1  # a TensorDescriptor's last dimension is contiguous (checked there)
        tensormap = next(values)
        desc = semantic.make_tensor_descriptor(base, shape, strides, block, padding)
        if aligned:
            from tritonc.compiler.mlir_builder import ir

            with desc.handle.context:
                desc.handle.owner.attributes[descriptors.TENSORMAP_ATTR] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(32), tensormap.handle.arg_number)
        return tensor_descriptor(desc, shape, strides)
    return next(values)


@dataclass(frozen=True)
class Specialization:
    """What one compilation of a kernel is for."""

    signature: Mapping[str, str]
    constexprs: Mapping[str, Any] = field(default_factory=dict)
    divisible_by_16: frozenset[str] = frozenset()

    def key(self) -> str:
        parts = [f"{n}:{specialization.signature_text(str(t), n in self.divisible_by_16)}"
                 for n, t in self.signature.items()]
        parts += [f"{n}={v!r}" for n, v in sorted(self.constexprs.items())]
        return ",".join(parts)


def _signature_error(fn: JITFunction, message: str) -> CompilationError:
    """An error about the specialization, reported at the kernel's `def` line."""
    return CompilationError(fn.src, fn.parse(), message, filename=fn.filename,
                            line_offset=fn.def_line - 1, kernel=fn.__name__)


def _without_walk(tb: TracebackType | None) -> TracebackType | None:
    """`tb` without the frames of the code generator's walk over the kernel's AST."""
    frames = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.endswith("code_generator.py"):
            frames.append(tb)
        tb = tb.tb_next
    out = None
    for frame in reversed(frames):
        out = TracebackType(out, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
    return out


def make_ttir(fn: JITFunction, spec: Specialization, context=None, name: str | None = None,
              num_warps: int = 4):
    """Walk `fn` with the MLIR builder; return the verified TTIR module. The kernel is
    named `name`, by default `fn.kernel_name` of the specialization; `num_warps` is what
    `tl.extra.cuda.num_warps()` and `num_threads()` see."""
    from tritonc.compiler.code_generator import CodeGenerator
    from tritonc.compiler.mlir_builder import MLIRBuilder, ir

    context = context or mlir_loader.new_context()
    builder = MLIRBuilder(context)
    semantic = Semantic(builder, num_warps)
    for p in fn.params:
        if p.is_constexpr and p.do_not_specialize:
            raise _signature_error(fn, f"{p.name} marked as constexpr and listed in "
                                   "do_not_specialize: a constexpr is always specialized")
    unknown = sorted((set(spec.signature) | set(spec.constexprs)) - set(fn.arg_names))
    if unknown:
        raise _signature_error(fn, f"{fn.__name__} has no parameter {unknown[0]!r} (its "
                               f"parameters are {', '.join(fn.arg_names)})")
    if name is None:
        name = fn.kernel_name(dict(spec.signature), dict(spec.constexprs), spec.divisible_by_16)
    scope: dict[str, Any] = {}
    runtime_params, arg_types, arg_attrs, arg_names = [], [], [], []
    for p in fn.params:
        if p.name in spec.constexprs:
            scope[p.name] = constexpr(spec.constexprs[p.name])
        elif p.name in spec.signature:
            runtime_params.append(p.name)
            entry = spec.signature[p.name]
            arg_names += flatten_names(entry, p.name)
            for i, text in enumerate(flatten_signature(entry)):
                try:
                    arg_types.append(parse_type(text))
                except ValueError as e:
                    raise _signature_error(fn, f"signature of {p.name!r}: {e}") from None
                # an aligned descriptor: its base, last dimension and outer strides
                divisible = p.name in spec.divisible_by_16 and (
                    descriptors.parse(entry) is None or i in descriptors.aligned_arguments(entry))
                arg_attrs.append(specialization.divisibility_attrs(divisible))
        elif p.is_constexpr and p.has_default:
            scope[p.name] = constexpr(p.default)
        elif p.is_constexpr:
            raise _signature_error(fn, f"constexpr argument {p.name!r} has no value (pass it "
                                   "in `constexprs`)")
        else:
            raise _signature_error(fn, f"argument {p.name!r} is missing from the signature")
    with context:
        builder.loc = ir.Location.file(fn.filename, fn.def_line, 1)
    try:
        func_op, args = builder.function(name, arg_types, "public",
                                         arg_attrs if any(arg_attrs) else None, arg_names)
    except TypeError as e:
        raise _signature_error(fn, f"signature: {e}") from None
    values = iter(tensor(arg, ty) for ty, arg in zip(arg_types, args, strict=False))
    const_names = {p.name for p in fn.params if p.is_const}
    for name in runtime_params:
        value = rebuild_value(spec.signature[name], values, semantic,
                              name in spec.divisible_by_16)
        scope[name] = const_argument(value) if name in const_names else value
    generator = CodeGenerator(fn, semantic, scope)
    try:
        generator.visit(fn.parse())
    except CompilationError as e:
        # the error names the kernel's line: the compiler's own frames add nothing to it,
        # nor to the errors it was raised from
        cause = e.__cause__
        while cause is not None:
            cause.__traceback__ = _without_walk(cause.__traceback__)
            cause = cause.__cause__
        raise e.with_traceback(None) from e.__cause__
    if generator.ret_value is not None:
        raise generator.error(generator.return_node, "a kernel cannot return a value; store "
                              "its results through pointer arguments")
    builder.return_([])
    module = builder.module
    if not module.operation.verify():
        raise RuntimeError("the generated TTIR does not verify")
    return module
