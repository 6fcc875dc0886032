"""Grid formulas: `"cdiv(n, 1024), 1, 1"` checked once and translated to C.

A formula has one to three comma-separated expressions (missing ones are 1) over
integer literals and the names of the kernel's integer arguments and integer
constexprs, with `+ - * / % //`, unary minus, parentheses and the functions
`cdiv(a, b)`, `min(a, b)` and `max(a, b)`. Division truncates as in C (the grid is
made of non-negative values, where `/` and `//` agree). Everything is evaluated in
64-bit signed arithmetic at launch.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from tritonc.aot.spec import UsageError

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "/",
           ast.Mod: "%"}
FUNCTIONS = ("cdiv", "min", "max")


def parse_grid(text: str) -> list[ast.expr]:
    """The (up to three) expressions of a grid formula, checked for allowed syntax only."""
    try:
        tree = ast.parse(f"({text},)", mode="eval")
    except SyntaxError:
        raise UsageError(f"bad --grid {text!r}: not an expression list") from None
    assert isinstance(tree.body, ast.Tuple)
    dims = list(tree.body.elts)
    if not 1 <= len(dims) <= 3:
        raise UsageError(f"bad --grid {text!r}: expected 1 to 3 dimensions, got {len(dims)}")
    while len(dims) < 3:
        dims.append(ast.Constant(1))
    return dims


def to_c(node: ast.expr, names: Mapping[str, str]) -> str:
    """C source of one grid expression; `names` maps argument names to C expressions.

    The expression refers to `bad`, an `int *` that a division by zero sets."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return f"((int64_t){node.value}LL)"
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise UsageError(f"the grid uses {node.id!r}, which is not an integer argument or "
                             f"constexpr of the kernel ({', '.join(names) or 'none'})")
        return f"((int64_t)({names[node.id]}))"
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, op, b = to_c(node.left, names), _BINOPS[type(node.op)], to_c(node.right, names)
        if op in "/%":  # a zero divisor sets *bad instead of trapping
            return f"tritonc_{'div' if op == '/' else 'mod'}({a}, {b}, bad)"
        return f"({a} {op} {b})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return f"({'-' if isinstance(node.op, ast.USub) else '+'}{to_c(node.operand, names)})"
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in FUNCTIONS and not node.keywords):
        if len(node.args) != 2:
            raise UsageError(f"{node.func.id}() in the grid takes 2 arguments")
        a, b = (to_c(arg, names) for arg in node.args)
        extra = ", bad" if node.func.id == "cdiv" else ""
        return f"tritonc_{node.func.id}({a}, {b}{extra})"
    raise UsageError(f"unsupported grid syntax {ast.unparse(node)!r}: use integers, argument "
                     f"names, + - * / %, cdiv, min, max")


def evaluate(node: ast.expr, values: Mapping[str, int]) -> int:
    """The value of one grid expression in Python, with C's truncating division."""
    if isinstance(node, ast.Constant):
        return int(node.value)
    if isinstance(node, ast.Name):
        return int(values[node.id])
    if isinstance(node, ast.UnaryOp):
        value = evaluate(node.operand, values)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Call):
        a, b = (evaluate(arg, values) for arg in node.args)
        name = node.func.id  # type: ignore[attr-defined]
        return _cdiv(a, b) if name == "cdiv" else min(a, b) if name == "min" else max(a, b)
    assert isinstance(node, ast.BinOp)
    a, b = evaluate(node.left, values), evaluate(node.right, values)
    op = type(node.op)
    if op in (ast.Div, ast.FloorDiv):
        return _cdiv_trunc(a, b)
    if op is ast.Mod:
        return a - b * _cdiv_trunc(a, b)
    return a + b if op is ast.Add else a - b if op is ast.Sub else a * b


def _cdiv_trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cdiv(a: int, b: int) -> int:
    return _cdiv_trunc(a + b - 1, b)
