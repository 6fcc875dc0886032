"""The surface of the Triton language: `constexpr`, `tensor` and the builtins.

Each builtin is a docstring, the unwrapping of its constexpr arguments and one call
into the semantic layer (`semantic.py`), which the code generator hands in as
`_semantic=`. Builtins run only while a kernel is being compiled or interpreted;
calling one from plain Python is an error.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from tritonc.language import dtypes as T

TRITON_BUILTIN = "__triton_builtin__"

#: the type of a constexpr, importable from here as from Triton's `triton.language.core`
constexpr_type = T.constexpr_type


def builtin(fn: Callable) -> Callable:
    """Mark `fn` as a builtin: the code generator passes it `_semantic` (and `_generator`)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("_semantic") is None:
            raise ValueError(f"tl.{fn.__name__} can only be called inside a @jit function")
        return fn(*args, **kwargs)

    setattr(wrapper, TRITON_BUILTIN, True)
    wrapper.wants_generator = "_generator" in inspect.signature(fn).parameters
    return wrapper


def is_builtin(fn: Any) -> bool:
    return getattr(fn, TRITON_BUILTIN, False)


def _unwrap(x: Any) -> Any:
    return x.value if isinstance(x, constexpr) else x


def _unwrap_shape(shape) -> list:
    shape = _unwrap(shape)
    if isinstance(shape, (int, constexpr)):
        return [_unwrap(shape)]
    return [_unwrap(s) for s in shape]


class constexpr:
    """A value known at compile time; arithmetic on constexprs folds in Python."""

    def __init__(self, value: Any) -> None:
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    @property
    def type(self) -> T.constexpr_type:
        """The type of a compile-time value: `isinstance(x.type, tl.constexpr_type)` tells
        a constexpr from a tensor, as in Triton."""
        return T.constexpr_type(self.value)

    def __hash__(self) -> int:
        return hash(self.value)

    def __index__(self) -> int:
        return self.value.__index__()

    def __bool__(self) -> bool:
        return bool(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name: str):
        if name == "value":
            raise AttributeError(name)
        return getattr(self.value, name)


class const:
    """The annotation of a kernel parameter that points to constant data (`x_ptr: tl.const`).

    The kernel sees the argument as a `const` pointer: it loads through it (and through
    pointers computed from it) as through any pointer, and storing through it is a
    compile error. A const pointer is a type of its own, so a runtime `if`, a conditional
    expression or a function's returns that would give one name either a const or a
    plain pointer are type mismatches. On a parameter that is not a pointer the
    annotation has no effect.
    """


def const_argument(value: Any) -> Any:
    """A kernel's argument for a parameter annotated `tl.const`: a pointer becomes a
    pointer to constant data; any other value is unchanged."""
    if isinstance(value, tensor) and isinstance(value.type, T.pointer_type):
        return tensor(value.handle, value.type.with_const(True))
    return value


def _fold(op: Callable, reflected: bool = False) -> Callable:
    def method(self, other):
        a, b = self.value, _unwrap(other)
        return constexpr(op(b, a) if reflected else op(a, b))

    return method


def _install_constexpr_ops() -> None:
    import operator

    binary = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
              "pow": operator.pow, "and": operator.and_, "or": operator.or_,
              "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift}
    for name, op in binary.items():
        setattr(constexpr, f"__{name}__", _fold(op))
        setattr(constexpr, f"__r{name}__", _fold(op, reflected=True))
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(constexpr, f"__{name}__", _fold(getattr(operator, name)))
    constexpr.__neg__ = lambda self: constexpr(-self.value)
    constexpr.__pos__ = lambda self: constexpr(+self.value)
    constexpr.__invert__ = lambda self: constexpr(~self.value)
    constexpr.__abs__ = lambda self: constexpr(abs(self.value))


_install_constexpr_ops()


class tensor:
    """A value inside a kernel: a scalar or a block, with a builder-specific handle."""

    def __init__(self, handle: Any, type: T.base_type) -> None:
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        self.shape = type.shape if type.is_block() else ()

    def __repr__(self) -> str:
        return f"tensor({self.type})"

    def __str__(self) -> str:
        """What `tl.static_print` shows of a tensor, as Triton writes it: `fp32[constexpr[128]]`."""
        return f"{self.dtype}[{', '.join(repr(constexpr(d)) for d in self.shape)}]"

    @property
    def numel(self) -> constexpr:
        return constexpr(self.type.numel if self.type.is_block() else 1)

    @property
    def T(self) -> tensor:
        raise ValueError("use tl.trans(x) or x.trans() inside a kernel")

    def __bool__(self) -> bool:
        raise TypeError("a tensor has no truth value at compile time; use it in an `if` "
                        "inside a @jit function")

    def __index__(self) -> int:
        raise TypeError("a tensor cannot be used as a constexpr integer")

    @builtin
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None) -> tensor:
        """Convert to `dtype` (reinterpret the bits when `bitcast=True`)."""
        dtype, bitcast = _unwrap(dtype), _unwrap(bitcast)
        if bitcast:
            return _semantic.bitcast(self, dtype)
        return _semantic.cast(self, dtype, _unwrap(fp_downcast_rounding))


def _binary_method(name: str, rule: str, reflected: bool = False) -> None:
    def method(self, other, _semantic=None):
        other = _unwrap(other)
        return getattr(_semantic, rule)(*((other, self) if reflected else (self, other)))

    method.__name__ = name
    setattr(tensor, name, builtin(method))


def _install_tensor_ops() -> None:
    for op, rule in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "truediv"),
                     ("floordiv", "floordiv"), ("mod", "mod"), ("and", "and_"), ("or", "or_"),
                     ("xor", "xor_"), ("lshift", "shl"), ("rshift", "shr")):
        _binary_method(f"__{op}__", rule)
        _binary_method(f"__r{op}__", rule, True)
    for op in ("lt", "le", "gt", "ge", "eq", "ne"):
        def compare(self, other, _semantic=None, op=op):
            return _semantic.compare(op, self, _unwrap(other))

        compare.__name__ = f"__{op}__"
        setattr(tensor, compare.__name__, builtin(compare))

    def neg(self, _semantic=None):
        return _semantic.minus(self)

    def pos(self, _semantic=None):
        return self

    def invert(self, _semantic=None):
        return _semantic.invert(self)

    def not_(self, _semantic=None):
        return _semantic.not_(self)

    def logical_and(self, other, _semantic=None):
        return _semantic.logical_and(self, _unwrap(other))

    def logical_or(self, other, _semantic=None):
        return _semantic.logical_or(self, _unwrap(other))

    for name, fn in (("__neg__", neg), ("__pos__", pos), ("__invert__", invert),
                     ("__not__", not_), ("logical_and", logical_and), ("logical_or", logical_or)):
        fn.__name__ = name
        setattr(tensor, name, builtin(fn))


_install_tensor_ops()
tensor.__hash__ = object.__hash__


def handle_of(x: tensor | None):
    """The handle of an optional operand (None stays None)."""
    return None if x is None else x.handle


def tensor_method(fn: Callable) -> Callable:
    """Also expose a builtin or standard-library function as a method of `tensor`."""
    setattr(tensor, fn.__name__, fn)
    return fn


def _aggregate(cls: type) -> type:
    """`@tl.core._aggregate`, as Triton spells it: instances of `cls` (its fields set by its
    Python `__init__`, run while compiling on the kernel's tensors and constexprs) travel
    through a kernel and its inlined calls as one value; fields read as attributes, and a
    `@jit` method called on an instance gets it as `self`. Not carried by loops or
    branches, and calls given one are inlined."""
    cls.__tritonc_aggregate__ = True
    return cls


def is_aggregate(value: Any) -> bool:
    """Whether `value` is an instance of an `_aggregate` class."""
    return getattr(type(value), "__tritonc_aggregate__", False)


class tuple_value(tuple):
    """A tuple of values inside a kernel (tl.tuple)."""


def _unwrap_if_constexpr(x: Any) -> Any:
    """The value of a constexpr, anything else unchanged (Triton's name for `_unwrap`)."""
    return _unwrap(x)


_unwrap_if_constexpr.__triton_constexpr_function__ = True
_unwrap_if_constexpr.takes_values = True


def get_int_dtype(bitwidth: int, signed: bool) -> T.dtype:
    """The integer dtype of `bitwidth` bits (1, 8, 16, 32, 64), signed or unsigned."""
    bitwidth, signed = _unwrap(bitwidth), _unwrap(signed)
    if bitwidth == 1:
        return T.int1
    if bitwidth not in (8, 16, 32, 64):
        raise ValueError(f"no integer dtype of {bitwidth} bits")
    return T.dtype(f"{'' if signed else 'u'}int{bitwidth}")


get_int_dtype.__triton_constexpr_function__ = True
