"""What a corpus entry is: a kernel, one specialization, FileCheck lines and a numpy oracle."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tritonc.runtime.jit import JITFunction


@dataclass
class Case:
    """One launch of a corpus kernel.

    `args` maps every runtime parameter (the keys of the signature) to a value: a numpy
    array for a pointer (`*fp32` -> float32 array; the kernel may write it), a Python
    int or float for a scalar, a tuple (or NamedTuple) of these for a tuple parameter.
    `grid` is the launch grid. `outputs` names the arrays the kernel writes;
    `reference(args)` returns their expected contents, computed from the arrays as they
    are at launch (an output the kernel accumulates into, with atomics, starts from its
    initial contents). Tolerances apply to float outputs (`np.testing.assert_allclose`);
    integer outputs must match exactly.
    """

    args: dict[str, Any]
    grid: tuple[int, ...]
    outputs: tuple[str, ...]
    rtol: float = 1e-5
    atol: float = 1e-6


@dataclass(frozen=True)
class Kernel:
    """One corpus entry: `fn` compiled with `signature` and `constexprs`."""

    fn: JITFunction
    signature: Mapping[str, Any]
    constexprs: Mapping[str, Any] = field(default_factory=dict)
    checks: str = ""
    uses_dot: bool = False
    divisible_by_16: frozenset[str] = frozenset()
    make_case: Callable[[np.random.Generator], Case] | None = None
    reference: Callable[[dict[str, Any]], dict[str, np.ndarray]] | None = None
    #: set when the kernel prints or asserts (runners may want to capture output)
    debug_ops: bool = False

    @property
    def name(self) -> str:
        return self.fn.__name__


def kernel(fn: JITFunction, signature: Mapping[str, Any], constexprs: Mapping[str, Any] | None = None,
           checks: str = "", **kwargs: Any) -> Kernel:
    """A `Kernel` whose `CHECK-LABEL` line for the kernel's function is added first."""
    label = f"CHECK-LABEL: func.func public @{fn.__name__}("
    return Kernel(fn, dict(signature), dict(constexprs or {}), label + "\n" + checks.strip(),
                  **kwargs)


# -- numpy helpers for references -------------------------------------------------------------


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def round_to_fp8e5(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to float8e5 (e5m2, ties to even), as float32.

    Rounds the fp32 mantissa to 2 bits directly (rounding through fp16 first would
    round twice); exact for normal e5m2 values, which is all the corpus produces.
    """
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFFFF + ((bits >> 21) & 1)) & 0xFFE00000
    return bits.astype(np.uint32).view(np.float32)


def philox(seed: int, offsets: np.ndarray, n_rounds: int = 10) -> tuple[np.ndarray, ...]:
    """Philox 4x32 as `tl.randint4x` computes it (counter = offset, key = seed)."""
    c0 = offsets.astype(np.uint32)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.full_like(c0, seed & 0xFFFFFFFF)
    k1 = np.full_like(c0, (seed >> 32) & 0xFFFFFFFF)
    for _ in range(n_rounds):
        a = np.uint64(0xD2511F53)
        b = np.uint64(0xCD9E8D57)
        hi_b = ((b * c2.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)
        hi_a = ((a * c0.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)
        lo_b = (b * c2.astype(np.uint64)).astype(np.uint32)
        lo_a = (a * c0.astype(np.uint64)).astype(np.uint32)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = k0 + np.uint32(0x9E3779B9)
        k1 = k1 + np.uint32(0xBB67AE85)
    return c0, c1, c2, c3


def uniform(x: np.ndarray) -> np.ndarray:
    """`tl.uint_to_uniform_float` in numpy."""
    x = x.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return (x.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)
