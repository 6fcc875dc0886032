"""One verdict on what is a legal kernel, for the compiler and the interpreter alike.

The interpreter walks a kernel with the numpy builder and runs its control flow as
Python, so on its own it would accept kernels the compiler rejects: a `return` inside
a loop, a loop-carried variable whose type or shape changes, a name defined in one
branch of a runtime `if` and used after it, branches that give a name different
types, a kernel that returns a value. Before it runs a launch, the interpreter asks
`check_interpreted_launch`, which builds the TTIR of the call's specialization with
the compiler's own front end (once per kernel and specialization, about 10 ms) and
raises the compiler's `CompilationError` unchanged. A failure inside the compiler
that is not a `CompilationError` is the compiler's fault, not the kernel's: the
interpreter then runs the kernel anyway; so it does past a limit of the compiled target
(`TargetLimitError`), which the interpreter reports by its own rule.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tritonc.compiler.errors import CompilationError, TargetLimitError
from tritonc.runtime.jit import JITFunction
from tritonc.runtime.scalar_annotations import check_value
from tritonc.runtime.specialization import ConstantItem, constant_value, is_constant_value

_verdicts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _type_name(value: Any, name: str) -> Any:
    """The signature entry of one runtime argument, typed as the interpreter binds it."""
    from tritonc.runtime.gpu_launch import tensor_type_name

    if isinstance(value, tuple):
        items = tuple(_type_name(v, f"{name}[{i}]") for i, v in enumerate(value))
        return type(value)(*items) if hasattr(value, "_fields") else items
    if is_constant_value(value):  # an item of a tuple (a parameter's is a constexpr)
        return ConstantItem(constant_value(value))
    if hasattr(value, "data_ptr") or isinstance(value, np.ndarray):
        return "*" + tensor_type_name(value)
    if isinstance(value, (bool, np.bool_)):
        return "i1"
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if -(2**31) <= value < 2**31:
            return "i32"
        return "i64" if -(2**63) <= value < 2**63 else "u64"
    if isinstance(value, (float, np.floating)):
        return "fp32"
    raise TypeError(f"argument {name!r}: unsupported type {type(value).__name__}")


def interpreter_specialization(fn: JITFunction, bound: dict[str, Any]):
    """The specialization the interpreter runs a call under: every scalar stays a runtime
    value (no constexpr for 1), typed as `backends/interpreter/launch.bind_value` types it
    (or as its parameter's dtype annotation says)."""
    from tritonc.compiler.frontend import Specialization

    signature: dict[str, Any] = {}
    constexprs: dict[str, Any] = {}
    for p in fn.params:
        value = bound[p.name]
        if p.is_constexpr or is_constant_value(value):
            constexprs[p.name] = constant_value(value)
        elif p.annotation_type is not None:
            check_value(p.annotation_type, value)
            signature[p.name] = p.annotation_type
        else:
            signature[p.name] = _type_name(value, p.name)
    return Specialization(signature, constexprs)


def check_interpreted_launch(fn: JITFunction, bound: dict[str, Any]) -> None:
    """Raise the compiler's `CompilationError` when it would reject this call's kernel."""
    from tritonc.runtime.gpu_launch import dependencies_key

    try:
        spec = interpreter_specialization(fn, bound)
        key = (spec.key(), dependencies_key(fn))
    except (TypeError, ValueError, OverflowError):
        return  # an argument the interpreter reports on its own
    verdicts = _verdicts.setdefault(fn, {})
    if key not in verdicts:
        verdicts[key] = _verdict(fn, spec)
    error = verdicts[key]
    if error is not None:
        raise error


def _verdict(fn: JITFunction, spec) -> CompilationError | None:
    try:
        from tritonc.compiler.frontend import make_ttir

        make_ttir(fn, spec)
    except CompilationError as e:
        return None if isinstance(e.__cause__, TargetLimitError) else e
    except Exception:  # the compiler's own failure: the interpreter still runs the kernel
        return None
    return None
