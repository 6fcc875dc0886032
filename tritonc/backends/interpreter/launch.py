"""Run a kernel launch in the interpreter: one walk of the kernel per grid point.

Tensor arguments (torch tensors on any device, or numpy arrays) are registered with
the interpreter's `Memory`; tensors on a GPU are copied to the host, the kernel runs,
and they are copied back, as Triton's interpreter does. Every load and store is
checked against these buffers. A scalar passed for a parameter annotated with a dtype
(`v: tl.int8`) is converted to that type. A fault inside the kernel is re-raised with
the kernel's name and the source line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tritonc.backends.interpreter.block_ops import TensorDescriptor
from tritonc.backends.interpreter.errors import InterpreterError
from tritonc.backends.interpreter.memory import Memory
from tritonc.backends.interpreter.numpy_builder import NumpyBuilder
from tritonc.compiler.code_generator import CodeGenerator
from tritonc.compiler.errors import CompilationError
from tritonc.compiler.legality import check_interpreted_launch
from tritonc.language import dtypes as T
from tritonc.language.builtins import tensor_descriptor
from tritonc.language.core import const_argument, constexpr, tensor
from tritonc.language.semantic import Semantic
from tritonc.runtime.gpu_launch import tensor_type_name
from tritonc.runtime.scalar_annotations import check_value
from tritonc.runtime.specialization import is_constant_value
from tritonc.tools.tensor_descriptor import TensorDescriptor as HostTensorDescriptor

# numpy views of dtypes numpy lacks: the interpreter keeps their raw bits
_RAW_VIEWS = {"bf16": "int16", "fp8e4nv": "uint8", "fp8e5": "uint8"}


def _host_array(arg: Any, name: str, copies: list) -> np.ndarray:
    """A numpy view of a tensor argument's memory (a host copy for GPU tensors)."""
    if isinstance(arg, np.ndarray):
        return arg
    import torch

    host = getattr(arg, "base", arg).detach()  # a reinterpret wrapper: its tensor
    if host.device.type != "cpu":
        gpu, host = host, host.cpu()
        copies.append((gpu, host))
    kind = tensor_type_name(arg)
    if kind in _RAW_VIEWS:
        host = host.view(getattr(torch, _RAW_VIEWS[kind]))
    if host.dtype == torch.bool:
        host = host.view(torch.uint8)
    return host.numpy()


def bind_value(value: Any, name: str, builder: NumpyBuilder, copies: list) -> Any:
    """One argument as the kernel sees it: a pointer into a registered buffer, a typed
    scalar, a constexpr (for None, a constexpr, a @jit function or a dtype), or a tuple
    (NamedTuple) of those."""
    if is_constant_value(value):
        return constexpr(value)
    if isinstance(value, tuple):
        items = [bind_value(v, f"{name}[{i}]", builder, copies) for i, v in enumerate(value)]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, HostTensorDescriptor):
        return _bind_descriptor(value, name, builder, copies)
    if hasattr(value, "data_ptr") or isinstance(value, np.ndarray):
        array = _host_array(value, name, copies)
        elt = T.from_name(tensor_type_name(value))
        return tensor(builder.memory.register(array, name), T.pointer_type(elt))
    if isinstance(value, (bool, np.bool_)):
        return tensor(builder.constant(bool(value), T.int1), T.int1)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        ty = T.int32 if -(2**31) <= value < 2**31 else (
            T.int64 if -(2**63) <= value < 2**63 else T.uint64)
        return tensor(builder.constant(value, ty), ty)
    if isinstance(value, (float, np.floating)):
        return tensor(builder.constant(float(value), T.float32), T.float32)
    raise TypeError(f"argument {name!r}: unsupported type {type(value).__name__}")


def bind_typed_scalar(value: Any, name: str, type_name: str, builder: NumpyBuilder) -> tensor:
    """The argument of a parameter annotated with a dtype: `value` converted to it."""
    try:
        number = check_value(type_name, value)
    except (TypeError, OverflowError) as e:
        raise type(e)(f"argument {name!r}: {e}") from None
    if type_name == "bf16":  # rounded through fp32, as the GPU launchers pack it
        number = float(np.float32(number))
    ty = T.from_name(type_name)
    return tensor(builder.constant(number, ty), ty)


def _bind_descriptor(desc: HostTensorDescriptor, name: str, builder: NumpyBuilder,
                     copies: list) -> tensor_descriptor:
    """A host `TensorDescriptor` as the kernel sees it: a device tensor descriptor."""
    base = desc.base
    array = _host_array(base, name, copies)
    elt = T.from_name(tensor_type_name(base))
    address = builder.memory.register(array, name)
    ty = T.tensor_descriptor_type(T.block_type(elt, desc.block_shape))
    handle = TensorDescriptor(int(address), tuple(desc.shape), tuple(desc.strides),
                              tuple(desc.block_shape), max(1, elt.primitive_bitwidth // 8),
                              desc.padding)
    shape = [tensor(builder.constant(v, T.int32), T.int32) for v in desc.shape]
    strides = [tensor(builder.constant(v, T.int64), T.int64) for v in desc.strides]
    return tensor_descriptor(tensor(handle, ty), shape, strides)


def bind_arguments(fn, bound: dict[str, Any], builder: NumpyBuilder,
                   copies: list) -> dict[str, Any]:
    """The kernel's scope: pointers into registered buffers, typed scalars, constexprs."""
    scope: dict[str, Any] = {}
    for p in fn.params:
        value = bound[p.name]
        if p.is_constexpr:
            scope[p.name] = constexpr(value)
            continue
        try:
            if p.annotation_type is not None and not is_constant_value(value):
                arg = bind_typed_scalar(value, p.name, p.annotation_type, builder)
            else:
                arg = bind_value(value, p.name, builder, copies)
        except (TypeError, OverflowError) as e:
            raise type(e)(f"{e} (in a call of {fn.__name__})") from None
        scope[p.name] = const_argument(arg) if p.is_const else arg
    return scope


def _runtime_fault(error: CompilationError) -> Exception | None:
    """The interpreter error behind a located error, re-raised with kernel and line."""
    inner = error
    while isinstance(inner.__cause__, CompilationError):
        inner = inner.__cause__
    cause = inner.__cause__
    if not isinstance(cause, InterpreterError):
        return None
    where = f"{inner.filename}:{inner.lineno} in kernel {error.kernel or inner.kernel!r}"
    fault = type(cause).__new__(type(cause))
    fault.__dict__.update(cause.__dict__)
    text = f"{where}: {cause}\n{inner.source_line}"
    InterpreterError.__init__(fault, text)
    if hasattr(fault, "message"):
        fault.message = text
    return fault


def _innermost_cause(error: CompilationError) -> BaseException | None:
    while isinstance(error.__cause__, CompilationError):
        error = error.__cause__
    return error.__cause__


def interpret(fn, grid: tuple[int, int, int], bound: dict[str, Any],
              num_warps: int = 4) -> None:
    """Run `fn` over `grid` with the numpy builder, as a launch of `num_warps` warps
    (which `tl.extra.cuda.num_warps()` and `num_threads()` report)."""
    check_interpreted_launch(fn, bound)
    builder = NumpyBuilder(Memory())
    copies: list = []
    scope = bind_arguments(fn, bound, builder, copies)
    semantic = Semantic(builder, num_warps)
    tree = fn.parse()
    try:
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    builder.set_grid((x, y, z), grid)
                    CodeGenerator(fn, semantic, scope).visit(tree)
    except CompilationError as e:
        fault = _runtime_fault(e)
        if fault is not None:
            raise fault from _innermost_cause(e)
        raise
    finally:
        for gpu, host in copies:
            gpu.copy_(host)
