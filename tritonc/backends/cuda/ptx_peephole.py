"""PTX -> PTX: a widening multiply whose only use is a 64-bit add becomes one `mad.wide`.

In: PTX as the NVPTX back end of the bundled LLVM writes it. An address `base + 4 * i`
from a `getelementptr` over a 32-bit index comes out as two instructions,

    mul.wide.s32  %rd21, %r63, 4;
    add.s64       %rd5, %rd1, %rd21;

Out: the same PTX with each such pair fused where the product has no other use,

    mad.wide.s32  %rd5, %r63, 4, %rd1;

Both compute sext(a) * b + c modulo 2^64, so the fusion changes no value. Newer LLVM
releases select `mad.wide` themselves, and ptxas schedules the two forms differently: with
the pair, a loop of predicated loads can come out with each load waiting on the previous
one's add (a tile reduction: 32 registers and one load in flight, against 48 registers and
16 loads in flight with `mad.wide`).

The fusion stays inside one basic block: the add must follow the multiply before any label
or branch, and no instruction between them may write the multiply's operands or the add's
other operand.
"""

from __future__ import annotations

import re

_MUL_WIDE = re.compile(
    r"^\tmul\.wide\.([su]32) \t(%rd\d+), (%r\d+), (%r\d+|-?\d+|0[xX][0-9a-fA-F]+);$")
_ADD_S64 = re.compile(r"^\tadd\.s64 \t(%rd\d+), (%rd\d+), (%rd\d+);$")
_REGISTER = re.compile(r"%\w+")
_DEST = re.compile(r"^\s*(?:@!?%p\d+\s+)?[a-z][\w.]*\s+(\{[^}]*\}|%\w+(?:\|%\w+)?)")


def _written(line: str) -> list[str]:
    """The registers an instruction line writes: its first operand (a register, a
    `%r|%p` pair or a `{...}` vector); none for a store, whose first operand is `[...]`."""
    match = _DEST.match(line)
    return _REGISTER.findall(match.group(1)) if match else []


def _ends_block(line: str) -> bool:
    text = line.strip()
    return text.endswith(":") or " bra" in f" {text}" or text.startswith(("ret", "exit", "}"))


def _uses(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in _REGISTER.findall(text):
        counts[name] = counts.get(name, 0) + 1
    return counts


def fuse_mad_wide(ptx: str) -> str:
    """`ptx` with each single-use `mul.wide` + `add.s64` pair of a block fused into `mad.wide`."""
    lines = ptx.split("\n")
    counts = _uses(ptx)
    removed: set[int] = set()
    for index, line in enumerate(lines):
        mul = _MUL_WIDE.match(line)
        if mul is None or counts.get(mul.group(2)) != 2:
            continue
        kind, product, left, right = mul.groups()
        for later in range(index + 1, len(lines)):
            text = lines[later]
            add = _ADD_S64.match(text)
            if add is not None and product in add.group(2, 3):
                dest, a, b = add.groups()
                other = b if a == product else a
                if other == product:
                    break
                written = {name for k in range(index + 1, later)
                           for name in _written(lines[k])}
                if written & {left, right, other}:
                    break
                lines[later] = f"\tmad.wide.{kind} \t{dest}, {left}, {right}, {other};"
                removed.add(index)
                break
            if product in _REGISTER.findall(text) or _ends_block(text):
                break
    return "\n".join(line for index, line in enumerate(lines) if index not in removed)
