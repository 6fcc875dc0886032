"""A dialect as data: ops with named operands, results and attributes, emitted as IRDL.

IRDL-defined ops carry no traits and no custom syntax, so every op here prints in the
generic form (`"tt.load"(%p) {...} : (...) -> ...`). Operand and result types are
checked by the language's semantic layer before an op is built, so most IRDL
constraints stay `irdl.any`; what IRDL does check is the arity of every op, the
presence of every attribute, and the named constraints an op lists (a shared-memory
operand must be a `!ttg.memdesc`, a store's destination a mutable one).

IRDL binds a constraint variable to the first type it meets, so every value of one
variadic group must have the same type. Groups whose values may differ in type (the
operands of a tuple reduction, the arguments of a print) are declared "hetero"
(`srcs**`): they expand into `HETERO_SLOTS` variadic groups `srcs_0 ... srcs_7`, each
with its own constraint. A builder puts the i-th value into slot i (the last slot
takes the rest, which must then share a type), so the flat operand list is unchanged
and only `operandSegmentSizes` / `resultSegmentSizes` show the slots.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SINGLE, OPTIONAL, VARIADIC, HETERO = "single", "optional", "variadic", "hetero"
HETERO_SLOTS = 8


@dataclass(frozen=True)
class OpDef:
    """One op: `operands`/`results` are (name, arity) pairs, `attrs` maps a name to its kind.

    Attribute kinds: "i32", "bool", "str", "i32s" (dense i32 array), "sym" (flat symbol).
    `pure`: no memory effects, so equal ops may merge and unused ones vanish (the
    cleanup pass reads it; IRDL ops carry no traits). `constraints` maps an operand or
    result name to a named type constraint of the dialect (`Constraint`), checked by
    the verifier; everything else is `irdl.any`.
    """

    name: str
    operands: tuple[tuple[str, str], ...] = ()
    results: tuple[tuple[str, str], ...] = (("result", SINGLE),)
    attrs: dict[str, str] = field(default_factory=dict)
    doc: str = ""
    pure: bool = False
    constraints: dict[str, str] = field(default_factory=dict)

    @property
    def needs_segments(self) -> bool:
        return sum(arity != SINGLE for _, arity in self.operands) > 0

    @property
    def needs_result_segments(self) -> bool:
        return sum(arity != SINGLE for _, arity in self.results) > 1 or any(
            arity == HETERO for _, arity in self.results)


def hetero_slots(count: int) -> list[int]:
    """How `count` values of a hetero group spread over its slots (one each, the rest last)."""
    sizes = [1 if i < count else 0 for i in range(HETERO_SLOTS - 1)]
    return sizes + [max(0, count - (HETERO_SLOTS - 1))]


def _expand(group: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    out = []
    for name, arity in group:
        if arity == HETERO:
            out += [(f"{name}_{i}", VARIADIC) for i in range(HETERO_SLOTS)]
        else:
            out.append((name, arity))
    return out


@dataclass(frozen=True)
class Constraint:
    """A named IRDL type constraint: `lines` define `%{v}` (and helpers `%{v}_...`)."""

    name: str
    lines: tuple[str, ...]

    def emit(self, var: str) -> list[str]:
        return [line.format(v=var) for line in self.lines]


@dataclass(frozen=True)
class TypeDef:
    """A parametric type (`!tt.ptr<f32, 1 : i32>`) or, with kind="attribute", an attribute."""

    name: str
    params: tuple[str, ...]
    kind: str = "type"
    constraints: dict[str, tuple[str, ...]] = field(default_factory=dict)  # param -> lines


def operands(spec: str) -> tuple[tuple[str, str], ...]:
    """Parse "ptr, mask?, offsets*, srcs**" into (name, arity) pairs."""
    out = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        if item.endswith("**"):
            out.append((item[:-2], HETERO))
        elif item.endswith("?"):
            out.append((item[:-1], OPTIONAL))
        elif item.endswith("*"):
            out.append((item[:-1], VARIADIC))
        else:
            out.append((item, SINGLE))
    return tuple(out)


def to_irdl(dialect: str, types: list[TypeDef], ops: list[OpDef],
            constraints: list[Constraint] = ()) -> str:
    """The IRDL module text that declares `dialect` with these types and ops."""
    named = {c.name: c for c in constraints}
    lines = [f"irdl.dialect @{dialect} {{"]
    for t in types:
        lines.append(f"  irdl.{t.kind} @{t.name} {{")
        for i, p in enumerate(t.params):
            if p in t.constraints:
                lines.extend("    " + x.format(v=f"p{i}") for x in t.constraints[p])
            else:
                lines.append(f"    %p{i} = irdl.any")
        params = ", ".join(f"{p}: %p{i}" for i, p in enumerate(t.params))
        lines.append(f"    irdl.parameters({params})")
        lines.append("  }")
    for op in ops:
        # Each operand, result and attribute gets its own `irdl.any`: one shared
        # constraint variable would force them all to the same type.
        short = op.name.split(".", 1)[1]
        lines.append(f"  irdl.operation @{short} {{")
        op_operands, op_results = _expand(op.operands), _expand(op.results)
        names = [n for n, _ in op_operands] + [n for n, _ in op_results] + list(op.attrs)
        for n in names:
            if n in op.constraints:
                lines.extend("    " + x for x in named[op.constraints[n]].emit(f"{n}_c"))
            else:
                lines.append(f"    %{n}_c = irdl.any")
        for kw, group in (("operands", op_operands), ("results", op_results)):
            if group:
                body = ", ".join(
                    f"{n}: {'' if a == SINGLE else a + ' '}%{n}_c" for n, a in group
                )
                lines.append(f"    irdl.{kw}({body})")
        if op.attrs:
            body = ", ".join(f'"{n}" = %{n}_c' for n in op.attrs)
            lines.append(f"    irdl.attributes {{{body}}}")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines)
