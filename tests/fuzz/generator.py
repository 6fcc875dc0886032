"""Random kernels for the fuzzer: an expression over loaded inputs, in one of four shapes.

A `Case` holds everything needed to run and check one kernel: its source, its inputs
(name and dtype), the expression tree, the launch shape and the block sizes. Trees are
tuples:

    ("in", k)                 the k-th input, loaded with a mask (other=0); an fp8
                              input appears only under a cast to a wider float
    ("const", v)              a Python scalar (weakly typed)
    ("bin", op, a, b)         + - * & | ^ max min of two tensors; + - * & ^ / with a
                              scalar ("/" only by a float scalar)
    ("un", op, a)             neg, abs
    ("cast", ty, a)           a conversion the reference defines exactly
    ("where", k, a, b)        where(input k > 0, a, b)

Kinds: "ew1d" (a 1-D grid over n elements), "ew2d" (a 2-D grid of tiles over M x N),
"reduce" (sum, max or min of an M x N tile along one axis), "scan" (cumsum along one
axis). Sizes are never multiples of the block, so every case exercises its masks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from tests.fuzz import reference as R

Tree = tuple


@dataclass(frozen=True)
class Case:
    seed: int
    kind: str
    inputs: tuple[str, ...]  # dtype of each input
    tree: Tree
    shape: tuple[int, ...]  # n (ew1d) or (M, N)
    block: tuple[int, ...]  # BLOCK or (BM, BN)
    op: str = ""  # reduce: sum / max / min
    axis: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        return f"fuzz_{self.kind}_{self.seed}"


# -- types of trees -------------------------------------------------------------------------
def type_of(tree: Tree, inputs: tuple[str, ...]) -> str:
    tag = tree[0]
    if tag == "in":
        return inputs[tree[1]]
    if tag == "cast":
        return tree[1]
    if tag == "un":
        return type_of(tree[2], inputs)
    if tag == "where":
        return R.computation_type(type_of(tree[2], inputs), type_of(tree[3], inputs))
    if tag == "bin":
        op, a, b = tree[1:]
        if b[0] == "const":
            ta = type_of(a, inputs)
            return R.truediv_type(ta, "fp32") if op == "/" else R.scalar_type(ta, b[1])
        ta, tb = type_of(a, inputs), type_of(b, inputs)
        return R.computation_type(ta, tb)
    raise ValueError(tag)


def _mixes_half_kinds(types: list[str]) -> bool:
    return "fp16" in types and "bf16" in types


def _leaf(rng: random.Random, inputs: tuple[str, ...]) -> Tree:
    """An input; an fp8 input is converted (exactly) to a 16- or 32-bit float."""
    k = rng.randrange(len(inputs))
    if inputs[k] in R.FP8:
        return ("cast", rng.choice(["fp16", "bf16", "fp32"]), ("in", k))
    return ("in", k)


def _tree(rng: random.Random, inputs: tuple[str, ...], depth: int) -> Tree:
    if depth == 0 or rng.random() < 0.25:
        return _leaf(rng, inputs)
    choice = rng.random()
    if choice < 0.5:
        a, b = _tree(rng, inputs, depth - 1), _tree(rng, inputs, depth - 1)
        ta, tb = type_of(a, inputs), type_of(b, inputs)
        ops = ["+", "-", "*", "max", "min"]
        if not R.is_float(ta) and not R.is_float(tb):
            ops += ["&", "|", "^"]
        if _mixes_half_kinds([ta, tb]):
            b = ("cast", ta, b) if R.is_float(tb) else b
        return ("bin", rng.choice(ops), a, b)
    if choice < 0.65:
        a = _tree(rng, inputs, depth - 1)
        op = rng.choice(["+", "-", "*", "/"] if R.is_float(type_of(a, inputs))
                        else ["+", "*", "&", "^"])
        value = rng.choice([0.5, 1.5, 2.0, 4.0]) if op == "/" else \
            rng.choice([1, 2, 3, 7] + ([0.5, 1.5] if op in "+-*" else []))
        return ("bin", op, a, ("const", value))
    if choice < 0.75:
        a = _tree(rng, inputs, depth - 1)
        return ("un", "abs" if R.is_float(type_of(a, inputs)) else "neg", a)
    if choice < 0.9:
        a = _tree(rng, inputs, depth - 1)
        src = type_of(a, inputs)
        targets = [t for t in R.DTYPES if R.is_float(t) or not R.is_float(src)]
        return ("cast", rng.choice(targets), a)
    a, b = _tree(rng, inputs, depth - 1), _tree(rng, inputs, depth - 1)
    ta, tb = type_of(a, inputs), type_of(b, inputs)
    if _mixes_half_kinds([ta, tb]):
        b = ("cast", ta, b)
    conditions = [k for k, t in enumerate(inputs) if t not in R.FP8]
    if not conditions:
        return a
    return ("where", rng.choice(conditions), a, b)


def _not_multiple(rng: random.Random, block: int) -> int:
    n = rng.randrange(1, 3 * block)
    return n + 1 if n % block == 0 else n


def generate(seed: int, fp8: bool = True) -> Case:
    """The case drawn from `seed` (the same seed always gives the same case); without
    `fp8`, no input is an fp8 type."""
    rng = random.Random(seed)
    kind = rng.choice(["ew1d", "ew1d", "ew2d", "reduce", "scan"])
    inputs = tuple(rng.choice(R.DTYPES + R.FP8) for _ in range(rng.randint(1, 3)))
    if not fp8:
        inputs = tuple("fp16" if t == "fp8e5" else "bf16" if t in R.FP8 else t
                       for t in inputs)
    if _mixes_half_kinds(list(inputs)):
        inputs = tuple("fp32" if t == "bf16" else t for t in inputs)
    tree = _tree(rng, inputs, rng.randint(1, 3))
    if kind == "ew1d":
        block = (rng.choice([16, 32, 64, 128, 256, 1024]),)
        return Case(seed, kind, inputs, tree, (_not_multiple(rng, block[0]),), block)
    bm, bn = rng.choice([1, 2, 4, 8, 16, 32]), rng.choice([16, 32, 64])
    if kind == "ew2d":
        return Case(seed, kind, inputs, tree, (_not_multiple(rng, bm), _not_multiple(rng, bn)),
                    (bm, bn))
    shape = (rng.randint(1, bm), rng.randint(1, bn))
    if shape == (bm, bn):
        shape = (bm, bn - 1)
    op = rng.choice(["sum", "max", "min"]) if kind == "reduce" else "cumsum"
    return Case(seed, kind, inputs, tree, shape, (bm, bn), op, rng.randint(0, 1))


def result_type(case: Case) -> str:
    ty = type_of(case.tree, case.inputs)
    return R.sum_type(ty) if case.op in ("sum", "cumsum") else ty


# -- kernel source ------------------------------------------------------------------------
def expression(tree: Tree) -> str:
    tag = tree[0]
    if tag == "in":
        return f"x{tree[1]}"
    if tag == "const":
        return repr(tree[1])
    if tag == "cast":
        return f"({expression(tree[2])}).to(tl.{R.TL_NAME[tree[1]]})"
    if tag == "un":
        inner = expression(tree[2])
        return f"(-{inner})" if tree[1] == "neg" else f"tl.abs({inner})"
    if tag == "where":
        return f"tl.where(x{tree[1]} > 0, {expression(tree[2])}, {expression(tree[3])})"
    op, a, b = tree[1:]
    if op in ("max", "min"):
        return f"tl.{op}imum({expression(a)}, {expression(b)})"
    return f"({expression(a)} {op} {expression(b)})"


def source(case: Case) -> str:
    """The kernel's Python source (a @triton.jit function named `case.name`)."""
    params = ", ".join(f"x{k}_ptr" for k in range(len(case.inputs)))
    expr = expression(case.tree)
    lines = ["import tritonc as triton", "import tritonc.language as tl", "", "",
             "@triton.jit"]
    if case.kind == "ew1d":
        lines += [f"def {case.name}({params}, out_ptr, n, BLOCK: tl.constexpr):",
                  "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                  "    mask = offs < n", "    idx = offs"]
    else:
        lines += [f"def {case.name}({params}, out_ptr, M, N, BM: tl.constexpr, "
                  "BN: tl.constexpr):"]
        if case.kind == "ew2d":
            lines += ["    rows = tl.program_id(0) * BM + tl.arange(0, BM)",
                      "    cols = tl.program_id(1) * BN + tl.arange(0, BN)"]
        else:
            lines += ["    rows = tl.arange(0, BM)", "    cols = tl.arange(0, BN)"]
        lines += ["    mask = (rows[:, None] < M) & (cols[None, :] < N)",
                  "    idx = rows[:, None] * N + cols[None, :]"]
    for k in range(len(case.inputs)):
        lines.append(f"    x{k} = tl.load(x{k}_ptr + idx, mask=mask, other=0)")
    lines.append(f"    y = {expr}")
    if case.kind in ("ew1d", "ew2d"):
        lines.append("    tl.store(out_ptr + idx, y, mask=mask)")
    elif case.kind == "scan":
        lines.append(f"    tl.store(out_ptr + idx, tl.cumsum(y, {case.axis}), mask=mask)")
    else:
        lines.append(f"    r = tl.{case.op}(y, {case.axis})")
        index, bound = ("cols", "N") if case.axis == 0 else ("rows", "M")
        lines.append(f"    tl.store(out_ptr + {index}, r, mask={index} < {bound})")
    return "\n".join(lines) + "\n"


def shrink(case: Case) -> list[Case]:
    """Smaller variants of `case`, simplest first, for minimising a disagreement."""
    out = []
    for sub in _subtrees(case.tree):
        if sub != case.tree:
            out.append(replace(case, tree=sub))
    if case.kind == "ew1d" and case.shape[0] > case.block[0]:
        out.append(replace(case, shape=(case.shape[0] % case.block[0] or 1,)))
    return out


def _subtrees(tree: Tree) -> list[Tree]:
    if tree[0] in ("in", "const"):
        return [tree]
    children = [c for c in tree[1:] if isinstance(c, tuple)]
    found = [("in", 0)]
    for c in children:
        found += _subtrees(c)
    return found
