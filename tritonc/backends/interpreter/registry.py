"""The op table: one rule per op name, registered with `@impl("arith.addi")`.

A rule is `rule(ctx, *operands)`; it returns one value, a tuple of values (ops with
several results) or None (ops without results). Values may come back in a wider
numpy type than the result type stores (float64 for an fp32 result, say): the builder
converts every result to its type's storage (`storage.finish`). An op without a rule
raises `InterpreterUnsupported` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tritonc.language.dtypes import base_type

if TYPE_CHECKING:
    from tritonc.backends.interpreter.numpy_builder import NumpyBuilder

Rule = Callable[..., Any]

#: op name -> rule; filled by `@impl` when the op modules are imported.
RULES: dict[str, Rule] = {}


def impl(name: str) -> Callable[[Rule], Rule]:
    """Register the decorated function as the rule for op `name`."""

    def register(fn: Rule) -> Rule:
        if name in RULES:
            raise ValueError(f"two rules for {name}: {RULES[name].__name__} and {fn.__name__}")
        RULES[name] = fn
        return fn

    return register


class OpContext:
    """What a rule may know besides its operands: the builder, result types, attributes."""

    __slots__ = ("builder", "name", "result_types", "attrs")

    def __init__(self, builder: NumpyBuilder, name: str, result_types: Sequence[base_type],
                 attrs: Mapping[str, Any]) -> None:
        self.builder = builder
        self.name = name
        self.result_types = result_types
        self.attrs = attrs

    @property
    def result_type(self) -> base_type:
        """The type of the op's only (or first) result."""
        return self.result_types[0]

    def attr(self, key: str, default: Any = None) -> Any:
        """An attribute of the op, or `default` when the call did not pass it."""
        return self.attrs.get(key, default)
