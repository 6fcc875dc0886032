"""The specialization rules, in one table: what an argument's value lets the compiler assume.

    rule       applies to          holds when            in the compiled kernel       text
    div16      pointers, integers  address/value % 16 == 0  `tt.divisibility = 16`  `:16`
    equal_to_1 integers            value == 1            a constexpr 1                `:1`

Some values are constants whatever the parameter (`is_constant_value`): None, a
`tl.constexpr`, a @jit function and a language dtype. Passed for a parameter, such a
value is a constexpr; as an item of a tuple argument it is a `ConstantItem` of the
tuple's signature entry, which takes no function argument: the kernel sees the item as
a constexpr, and the other items are passed (a tuple of constants only is a constexpr).
An int item equal to 1 is a `ConstantItem` too (the equal_to_1 rule); div16 is not
applied to items.

Everything that specializes reads this module: the runtime's signature of a call and its
launch keys (`gpu_launch.py`, the generated hot path of `launch.py`), the disk-cache key
(`Specialization.key()` of the frontend), the `tt.divisibility` attribute the frontend
writes, AOT signatures (`aot/spec.py`) and the C dispatcher's conditions (`aot/cgen.py`).
A parameter marked `do_not_specialize` takes no rule. Nothing here imports MLIR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DIVISIBILITY = 16
DIVISIBILITY_ATTR = "tt.divisibility"


def is_divisible(value: int) -> bool:
    """The div16 test on an integer or an address."""
    return value % DIVISIBILITY == 0


def is_one(value: int) -> bool:
    """The equal_to_1 test on an integer."""
    return value == 1


@dataclass(frozen=True)
class Rule:
    """One specialization: its name, the signature suffix that asserts it, which argument
    kinds it applies to, and its condition as C (for the AOT dispatcher)."""

    name: str
    suffix: str
    pointers: bool
    c_condition: str  # with {name} for the argument

    def c_test(self, name: str) -> str:
        return self.c_condition.format(name=name)


DIV16 = Rule("div16", f":{DIVISIBILITY}", True, f"({{name}} % {DIVISIBILITY} == 0)")
EQUAL_TO_1 = Rule("equal_to_1", ":1", False, "({name} == 1)")
RULES: dict[str, Rule] = {r.suffix: r for r in (DIV16, EQUAL_TO_1)}


def divisibility_attrs(divisible: bool) -> dict[str, int]:
    """The argument attributes the frontend writes for a div16 argument."""
    return {DIVISIBILITY_ATTR: DIVISIBILITY} if divisible else {}


def int_type(value: int) -> str:
    """The argument type of a Python int, by its value: `i32`, `i64`, else `u64`. An
    OverflowError for a value no 64-bit integer holds (below -2**63, from 2**64 up)."""
    if -(2**31) <= value < 2**31:
        return "i32"
    if -(2**63) <= value < 2**63:
        return "i64"
    if 2**63 <= value < 2**64:
        return "u64"
    raise OverflowError(f"integer argument {value} is out of the range of a 64-bit kernel "
                        "argument (-2**63 to 2**64 - 1)")


_INT_TYPE_CLASSES = {"i32": 2, "i64": 4, "u64": 6}
_OUT_OF_RANGE_CLASS = 8


def int_class(value: int, specialize: bool = True) -> int:
    """The launch-key class of an int: 1 when equal to 1; else 2/4/6 for the 32-bit,
    64-bit and unsigned 64-bit ranges, plus 1 when divisible by 16; 8 for a value out of
    all three, which no compiled kernel takes (its launch fails in `int_type`)."""
    if specialize and is_one(value):
        return 1
    try:
        base = _INT_TYPE_CLASSES[int_type(value)]
    except OverflowError:
        return _OUT_OF_RANGE_CLASS
    return base + (specialize and is_divisible(value))


def int_key_expr(name: str) -> str:
    """Python source of `int_class(name)` for an argument known to be in the 32-bit
    range (the generated launch functions inline it)."""
    return f"1 if {name} == 1 else (3 if not {name} & {DIVISIBILITY - 1} else 2)"


def pointer_key_expr(address: str) -> str:
    """Python source of the div16 test on an address (inlined by the launch functions)."""
    return f"not {address} & {DIVISIBILITY - 1}"


def specialize_value(value: Any, specialize: bool = True) -> Rule | None:
    """The rule a tensor (its address) or an int argument meets, most specific first."""
    if not specialize or isinstance(value, bool):
        return None
    if hasattr(value, "data_ptr"):
        return DIV16 if is_divisible(value.data_ptr()) else None
    if isinstance(value, int):
        if is_one(value):
            return EQUAL_TO_1
        return DIV16 if is_divisible(value) else None
    return None


def signature_text(type_name: str, divisible: bool) -> str:
    """A signature entry as `Specialization.key()` and AOT signatures write it."""
    return f"{type_name}{DIV16.suffix if divisible else ''}"


def is_constant_value(value: Any) -> bool:
    """Whether an argument (or a tuple argument's item) is compiled as a constant: None,
    a `tl.constexpr`, a @jit function or a language dtype."""
    from tritonc.language.core import constexpr
    from tritonc.language.dtypes import dtype
    from tritonc.runtime.jit import JITFunction

    return value is None or isinstance(value, (constexpr, JITFunction, dtype))


def constant_value(value: Any) -> Any:
    """The value a constant argument stands for (a `tl.constexpr`'s own value)."""
    from tritonc.language.core import constexpr

    return value.value if isinstance(value, constexpr) else value


@dataclass(frozen=True)
class ConstantItem:
    """A constant item (`is_constant_value`) in the signature entry of a tuple argument:
    the kernel gets `constexpr(value)` there, and no function argument is passed for it."""

    value: Any

    def __repr__(self) -> str:
        value = self.value
        if hasattr(value, "source_hash"):  # a @jit function: named with its source
            return f"constexpr[{value.__qualname__}:{value.source_hash()[:16]}]"
        return f"constexpr[{value!r}]"
