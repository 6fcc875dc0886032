"""The axis analysis checked against values: a kernel's TTGIR evaluated op by op
(`ttgir_eval.py`), and every fact `AxisAlong` states about an integer, boolean or pointer
value (along each dimension) compared with what the evaluation computed.

The lowering relies on aligned runs of powers of two: `contiguity` c (floored to a power
of two p) says the values of every aligned block of p elements along the dimension are
x, x+1, ..., x+p-1; `divisibility` q that the first value of each such block is a multiple
of q (every value, where p is 1); `constancy` k (floored to a power of two) that every
aligned block of that many elements holds one value.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from ttgir_eval import evaluate


def _pow2_floor(n: int) -> int:
    return 1 << (max(n, 1).bit_length() - 1)


def _blocks(a: np.ndarray, p: int) -> np.ndarray:
    return a.reshape(a.shape[:-1] + (a.shape[-1] // p, p))


def violations(value: np.ndarray, info, dim: int, boolean: bool, step: int = 1) -> list[str]:
    """What `info` (an AxisInfo along `dim`) claims of `value` that does not hold; a
    run of contiguous values steps by `step` (a pointer's element size in bytes)."""
    a = np.moveaxis(np.asarray(value), dim, -1) if np.ndim(value) else np.asarray(value)[None]
    n = a.shape[-1]
    bad = []
    k = min(_pow2_floor(info.constancy), n)
    if k > 1 and n % k == 0 and not (_blocks(a, k) == _blocks(a, k)[..., :1]).all():
        bad.append(f"constancy {info.constancy}")
    if boolean:
        return bad
    a = a.astype(np.int64)
    c = min(_pow2_floor(info.contiguity), n)
    if n % c:
        return bad
    b = _blocks(a, c)
    if c > 1 and not (b - b[..., :1] == np.arange(c) * step).all():
        bad.append(f"contiguity {info.contiguity}")
    if info.divisibility > 1 and (b[..., 0] % info.divisibility != 0).any():
        bad.append(f"divisibility {info.divisibility}")
    if info.value is not None and not (a == info.value).all():
        bad.append(f"value {info.value}")
    return bad


def check_kernel(text: str, arrays: list[np.ndarray], scalars: list[int],
                 grid: Iterable[int]) -> list[str]:
    """Evaluate the TTGIR `text` over `grid`; every fact the analysis states that a value
    contradicts, as 'op result: dim d: fact (value's first elements)'."""
    from tritonc.passes.to_llvm.axis_along import AxisAlong
    from tritonc.passes.to_llvm.axis_info import pointee_bytes
    from tritonc.passes.to_llvm.context import ir

    along = AxisAlong()
    found: list[str] = []

    def observe(op, values) -> None:
        for result, value in zip(op.results, values):
            ty = result.type
            element = ir.RankedTensorType(ty).element_type if \
                isinstance(ty, ir.RankedTensorType) else ty
            text = str(element)
            if not (text.startswith("i") or text.startswith("!tt.ptr")):
                continue
            rank = max(1, len(ir.RankedTensorType(ty).shape)) if \
                isinstance(ty, ir.RankedTensorType) else 1
            for d in range(rank):
                step = pointee_bytes(element) if text.startswith("!tt.ptr") else 1
                for fact in violations(value, along.get(result, d), d, text == "i1", step):
                    found.append(f"{op.operation.name} -> {result.get_name()}: dim {d}: "
                                 f"{fact}: {np.asarray(value).ravel()[:16]}")

    evaluate(text, arrays, scalars, tuple(grid) + (1,) * (3 - len(tuple(grid))), observe)
    return found
