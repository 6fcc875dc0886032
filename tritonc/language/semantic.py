"""The typing rules of the Triton language, over any `Builder`.

Every builtin in `core.py` ends in a method of `Semantic`. It owns implicit promotion,
broadcasting, casts and the checks that turn a user's mistake into a clear error; the
builder beneath (MLIR for the compiler, numpy for the interpreter) only materialises
the ops it is told to. The rules are grouped by family:

- `semantic_core.py`: scalars, promotion, broadcasting, arithmetic, comparisons, casts;
- `semantic_ops.py`: shape ops, reductions and scans, dot, math, debugging;
- `semantic_memory.py`: loads, stores, atomics, block pointers, tensor descriptors.
"""

from __future__ import annotations

from tritonc.language.semantic_core import SemanticError
from tritonc.language.semantic_memory import MemoryRules
from tritonc.language.semantic_ops import ComputeRules

__all__ = ["Semantic", "SemanticError"]


class Semantic(MemoryRules, ComputeRules):
    """All typing rules, bound to one builder."""
