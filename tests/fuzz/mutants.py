"""Mutated corpus kernels: every one must compile or fail with a message about the user's
code, never with an internal exception.

A mutant is a corpus kernel with one edit of the kind users make: an argument replaced
by an int, a float, a string, None or a tuple; an argument dropped or duplicated; a
dtype replaced by a number; an axis or block size made out of range; a name swapped
for another. `classify` compiles it to TTIR and sorts the outcome into "ok",
"error" (a `CompilationError` whose message is about the user's code) or "internal"
(anything else: an exception that is not a `CompilationError`, or a message that names
the compiler's internals, such as "'int' object has no attribute" or "_semantic").

    python -m tests.fuzz.mutants --count 1000     prints every internal exception
"""

from __future__ import annotations

import argparse
import ast
import copy
import linecache
import random
import sys
import tempfile
import textwrap
from pathlib import Path

from tritonc.compiler.errors import CompilationError

_MODULES = Path(tempfile.mkdtemp(prefix="tritonc-mutants-"))
# text that only the compiler's own code could have produced
INTERNAL_TEXT = ("object has no attribute", "<locals>", "_semantic", "NoneType",
                 "unsupported operand", "not iterable", "not subscriptable", "Traceback",
                 "MLIR", "verif", "object is not callable", "takes no keyword",
                 "__init__", "CodeGenerator")
REPLACEMENTS = ["7", "2.5", "'text'", "None", "(4, 4)", "-1", "2**40", "tl.float32",
                "True", "[1, 2]"]


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def mutate(src: str, rng: random.Random) -> str | None:
    """`src` (a function's source) with one random edit, or None when none applies."""
    tree = ast.parse(src)
    calls = _calls(tree)
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    kind = rng.choice(["replace", "replace", "drop", "duplicate", "dtype", "name",
                       "keyword", "constant"])
    if kind in ("replace", "drop", "duplicate") and calls:
        call = rng.choice(calls)
        if not call.args:
            return None
        i = rng.randrange(len(call.args))
        if kind == "replace":
            call.args[i] = ast.parse(rng.choice(REPLACEMENTS), mode="eval").body
        elif kind == "drop":
            del call.args[i]
        else:
            call.args.insert(i, copy.deepcopy(call.args[i]))
    elif kind == "dtype":
        attrs = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id == "tl"
                 and n.attr.startswith(("float", "int", "uint", "bfloat"))]
        if not attrs:
            return None
        target = rng.choice(attrs)
        target.attr = rng.choice(["float31", "int7", "float32", "uint64", "bool"])
    elif kind == "name" and len(names) > 1:
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Name)
                 and isinstance(n.ctx, ast.Load)]
        if not nodes:
            return None
        rng.choice(nodes).id = rng.choice(names)
    elif kind == "keyword" and calls:
        call = rng.choice(calls)
        call.keywords.append(ast.keyword(arg=rng.choice(["mask", "axis", "other", "dtype",
                                                         "bogus"]),
                                         value=ast.parse(rng.choice(REPLACEMENTS),
                                                         mode="eval").body))
    elif kind == "constant":
        consts = [n for n in ast.walk(tree) if isinstance(n, ast.Constant)
                  and isinstance(n.value, int) and not isinstance(n.value, bool)]
        if not consts:
            return None
        rng.choice(consts).value = rng.choice([-1, 3, 2**21, 100, 2**63])
    else:
        return None
    return ast.unparse(tree)


def _load(entry, src: str, index: int):
    """A @jit function from mutated source, with the original kernel's globals."""
    import tritonc as triton

    path = _MODULES / f"mutant_{index}.py"
    text = textwrap.dedent(src) + "\n"
    path.write_text(text)
    linecache.cache[str(path)] = (len(text), None, text.splitlines(True), str(path))
    scope = dict(entry.fn.__globals__)
    exec(compile(text, str(path), "exec"), scope)
    return triton.jit(scope[entry.fn.__name__])


def classify(entry, src: str, index: int) -> tuple[str, str]:
    """("ok" | "error" | "internal", message) for one mutant of `entry`."""
    import tritonc as triton

    try:
        fn = _load(entry, src, index)
    except (SyntaxError, NameError, TypeError):
        return "ok", "not a valid function"
    try:
        triton.compile(fn, entry.signature, entry.constexprs, target="ttir",
                       divisible_by_16=entry.divisible_by_16)
    except CompilationError as e:
        if any(marker in e.message for marker in INTERNAL_TEXT):
            return "internal", e.message
        if e.filename != fn.filename or not e.source_line:
            return "internal", f"not located in the kernel's own source: {e}"
        return "error", e.message
    except RecursionError:
        return "internal", "RecursionError"
    except Exception as e:  # escaped the code generator entirely
        return "internal", f"{type(e).__name__} (not a CompilationError): {e}"
    return "ok", ""


def campaign(count: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """(kernel, outcome, message) of `count` mutants."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from corpus import KERNELS

    rng = random.Random(seed)
    results, index = [], 0
    while len(results) < count:
        entry = rng.choice(KERNELS)
        src = mutate(entry.fn.src, rng)
        if src is None:
            continue
        index += 1
        outcome, message = classify(entry, src, index)
        results.append((entry.name, outcome, message, src))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.mutants")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = campaign(args.count, args.seed)
    internal = [r for r in results if r[1] == "internal"]
    for name, _, message, _src in internal:
        print(f"{name}: {message.splitlines()[0]}")
    counts = {k: sum(r[1] == k for r in results) for k in ("ok", "error", "internal")}
    print(f"{args.count} mutants: {counts}")
    return 1 if internal else 0


if __name__ == "__main__":
    sys.exit(main())
