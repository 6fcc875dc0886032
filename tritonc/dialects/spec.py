"""A dialect as data: ops with named operands, results and attributes, emitted as IRDL.

IRDL-defined ops carry no traits and no custom syntax, so every op here prints in the
generic form (`"tt.load"(%p) {...} : (...) -> ...`). Operand and result types are
checked by the language's semantic layer before an op is built, so the IRDL
constraints stay `irdl.any`; what IRDL does check is the arity of every op and the
presence of every attribute.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"


@dataclass(frozen=True)
class OpDef:
    """One op: `operands`/`results` are (name, arity) pairs, `attrs` maps a name to its kind.

    Attribute kinds: "i32", "bool", "str", "i32s" (dense i32 array), "sym" (flat symbol).
    """

    name: str
    operands: tuple[tuple[str, str], ...] = ()
    results: tuple[tuple[str, str], ...] = (("result", SINGLE),)
    attrs: dict[str, str] = field(default_factory=dict)
    doc: str = ""

    @property
    def needs_segments(self) -> bool:
        return sum(arity != SINGLE for _, arity in self.operands) > 0

    @property
    def needs_result_segments(self) -> bool:
        return sum(arity != SINGLE for _, arity in self.results) > 1


@dataclass(frozen=True)
class TypeDef:
    """A parametric type (`!tt.ptr<f32, 1 : i32>`) or, with kind="attribute", an attribute."""

    name: str
    params: tuple[str, ...]
    kind: str = "type"


def operands(spec: str) -> tuple[tuple[str, str], ...]:
    """Parse "ptr, mask?, offsets*" into (name, arity) pairs."""
    out = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        if item.endswith("?"):
            out.append((item[:-1], OPTIONAL))
        elif item.endswith("*"):
            out.append((item[:-1], VARIADIC))
        else:
            out.append((item, SINGLE))
    return tuple(out)


def to_irdl(dialect: str, types: list[TypeDef], ops: list[OpDef]) -> str:
    """The IRDL module text that declares `dialect` with these types and ops."""
    lines = [f"irdl.dialect @{dialect} {{"]
    for t in types:
        lines.append(f"  irdl.{t.kind} @{t.name} {{")
        for i, _ in enumerate(t.params):
            lines.append(f"    %p{i} = irdl.any")
        params = ", ".join(f"{p}: %p{i}" for i, p in enumerate(t.params))
        lines.append(f"    irdl.parameters({params})")
        lines.append("  }")
    for op in ops:
        # Each operand, result and attribute gets its own `irdl.any`: one shared
        # constraint variable would force them all to the same type.
        short = op.name.split(".", 1)[1]
        lines.append(f"  irdl.operation @{short} {{")
        names = [n for n, _ in op.operands] + [n for n, _ in op.results] + list(op.attrs)
        lines.extend(f"    %{n}_c = irdl.any" for n in names)
        for kw, group in (("operands", op.operands), ("results", op.results)):
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
