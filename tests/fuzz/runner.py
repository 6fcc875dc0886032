"""Run a fuzz case in the interpreter (or compiled, on a GPU) and check it.

`reference_outputs` evaluates the case with `reference.py`; `run_case` launches the
generated kernel on poisoned outputs and returns what it wrote; `check` compares the two
(integers exactly; floats to a tolerance of a few units in the last place, scaled by the
length and magnitude of a sum); `minimise` shrinks a failing case while it still fails.
"""

from __future__ import annotations

import importlib.util
import linecache
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.fuzz import reference as R
from tests.fuzz.generator import Case, result_type, shrink, source

_MODULES = Path(tempfile.mkdtemp(prefix="tritonc-fuzz-"))


@dataclass
class Outcome:
    ok: bool
    message: str = ""


# -- inputs and the reference -------------------------------------------------------------
def make_inputs(case: Case) -> list[np.ndarray]:
    """Fresh random inputs (never all zeros) of each input's dtype, seeded by the case."""
    rng = np.random.default_rng(case.seed)
    size = case.shape[0] if case.kind == "ew1d" else case.shape[0] * case.shape[1]
    arrays: list[np.ndarray] = []
    for ty in case.inputs:
        if ty in R.FP8:
            values = _fp8_values(rng, ty, size)
        elif R.is_float(ty):
            values = R.to_type(rng.uniform(-4, 4, size), ty)
        elif ty in R.UNSIGNED:
            values = rng.integers(0, 100, size).astype(R.NUMPY[ty])
        else:
            values = rng.integers(-50, 51, size).astype(R.NUMPY[ty])
        arrays.append(values)
    return arrays


_TORCH_FP8 = {"fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2"}


def _fp8_values(rng: np.random.Generator, ty: str, size: int) -> np.ndarray:
    """Random finite values of an fp8 format (every bit pattern but NaN and inf), as
    float32."""
    import torch

    raw = torch.from_numpy(rng.integers(0, 256, size, dtype=np.uint8))
    values = raw.view(getattr(torch, _TORCH_FP8[ty])).float().numpy()
    return np.where(np.isfinite(values), values, np.float32(1.5)).astype(np.float32)


def evaluate(tree: tuple, xs: list[np.ndarray], inputs: tuple[str, ...]) -> tuple:
    """(values, dtype) of `tree` over the input arrays `xs`."""
    tag = tree[0]
    if tag == "in":
        return xs[tree[1]], inputs[tree[1]]
    if tag == "cast":
        value, _ = evaluate(tree[2], xs, inputs)
        return R.to_type(value, tree[1]), tree[1]
    if tag == "un":
        value, ty = evaluate(tree[2], xs, inputs)
        return R.unary(tree[1], value, ty), ty
    if tag == "where":
        a, ta = evaluate(tree[2], xs, inputs)
        b, tb = evaluate(tree[3], xs, inputs)
        ty = R.computation_type(ta, tb)
        cond = xs[tree[1]].astype(np.float64) > 0
        return np.where(cond, R.to_type(a, ty), R.to_type(b, ty)).astype(R.NUMPY[ty]), ty
    op, a_tree, b_tree = tree[1:]
    a, ta = evaluate(a_tree, xs, inputs)
    if b_tree[0] == "const":
        scalar = b_tree[1]
        ty = R.truediv_type(ta, "fp32") if op == "/" else R.scalar_type(ta, scalar)
        b = np.full(a.shape, scalar, np.float64 if isinstance(scalar, float) else np.int64)
        return R.binary(op, R.to_type(a, ty), R.to_type(b, ty), ty), ty
    b, tb = evaluate(b_tree, xs, inputs)
    ty = R.computation_type(ta, tb)
    return R.binary(op, R.to_type(a, ty), R.to_type(b, ty), ty), ty


def magnitude(tree: tuple, xs: list[np.ndarray]) -> np.ndarray:
    """A bound on the size of every intermediate of `tree` (float64): the scale of the
    rounding errors a reordering or a fused multiply-add may make."""
    tag = tree[0]
    if tag == "in":
        return np.abs(xs[tree[1]].astype(np.float64))
    if tag == "const":
        return np.float64(abs(tree[1]))
    if tag in ("cast", "un"):
        return magnitude(tree[2], xs)
    if tag == "where":
        return np.where(xs[tree[1]].astype(np.float64) > 0, magnitude(tree[2], xs),
                        magnitude(tree[3], xs))
    op, a, b = tree[1:]
    x, y = magnitude(a, xs), magnitude(b, xs)
    if op == "*":
        return x * y
    if op == "/":
        return x / y
    return x + y if op in "+-" else np.maximum(x, y)


def _tiles(case: Case, xs: list[np.ndarray]) -> list[np.ndarray]:
    """The inputs of a 2-D case as its block sees them: the masked loads give 0 outside
    the M x N corner."""
    (m, n), tiles = case.shape, []
    for x in xs:
        tile = np.zeros(case.block, x.dtype)
        tile[:m, :n] = x.reshape(m, n)
        tiles.append(tile)
    return tiles


def reference_outputs(case: Case, xs: list[np.ndarray]) -> np.ndarray:
    """What the kernel must store, over the region it stores."""
    if case.kind in ("ew1d", "ew2d"):
        value, _ = evaluate(case.tree, xs, case.inputs)
        return value
    (m, n) = case.shape
    value, ty = evaluate(case.tree, _tiles(case, xs), case.inputs)
    acc = R.sum_type(ty) if case.op in ("sum", "cumsum") else ty
    value = R.to_type(value, acc) if acc != ty else value
    if case.kind == "scan":
        return R.cumsum(value, acc, case.axis)[:m, :n].reshape(-1)
    reduced = R.reduce(case.op, value, acc, case.axis)
    return reduced[:n] if case.axis == 0 else reduced[:m]


# -- launching ----------------------------------------------------------------------------
def load_kernel(case: Case):
    """The @jit function of `case`, from a module written for it."""
    path = _MODULES / f"{case.name}_{abs(hash(case.tree)) % 10**8}.py"
    text = source(case)
    path.write_text(text)
    linecache.cache[str(path)] = (len(text), None, text.splitlines(True), str(path))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, case.name)


def _as_argument(array: np.ndarray, ty: str, device: str | None):
    import torch

    if ty == "bf16" or ty in _TORCH_FP8:
        kind = torch.bfloat16 if ty == "bf16" else getattr(torch, _TORCH_FP8[ty])
        tensor = torch.from_numpy(np.ascontiguousarray(array, np.float32)).to(kind)
    else:
        tensor = torch.from_numpy(np.ascontiguousarray(array))
    return tensor.to(device) if device else tensor


def _poisoned(size: int, ty: str) -> np.ndarray:
    if R.is_float(ty):
        return np.full(size, np.nan, R.NUMPY[ty])
    return np.full(size * (R.bits(ty) // 8), 0xA5, np.uint8).view(R.NUMPY[ty])


def run_case(case: Case, xs: list[np.ndarray], device: str | None = None) -> np.ndarray:
    """Launch `case` on `xs` (interpreted when `device` is None, else compiled there) and
    return the region its output holds, as numpy."""
    import torch

    kernel = load_kernel(case)
    kernel.interpret = device is None
    out_ty = result_type(case)
    if case.kind == "reduce":
        size = case.shape[1] if case.axis == 0 else case.shape[0]
    else:
        size = case.shape[0] if case.kind == "ew1d" else case.shape[0] * case.shape[1]
    args = [_as_argument(x, ty, device) for x, ty in zip(xs, case.inputs, strict=True)]
    out = _as_argument(_poisoned(size, out_ty), out_ty, device)
    if case.kind == "ew1d":
        grid = ((case.shape[0] + case.block[0] - 1) // case.block[0],)
        kernel[grid](*args, out, case.shape[0], BLOCK=case.block[0])
    else:
        (m, n), (bm, bn) = case.shape, case.block
        grid = ((m + bm - 1) // bm, (n + bn - 1) // bn) if case.kind == "ew2d" else (1,)
        kernel[grid](*args, out, m, n, BM=bm, BN=bn)
    out = out.cpu()
    if out.dtype == torch.bfloat16:
        return out.float().numpy()
    return out.numpy()


def precompile(case: Case, arch: int = 90) -> None:
    """Compile `case` for sm_`arch` into the kernel cache, as a GPU launch of it would
    (the same specialization; CUDA allocations are 16-byte aligned like these)."""
    from tritonc.backends.cuda.options import CUDAOptions
    from tritonc.runtime.gpu_launch import compiled_binary, specialize

    kernel = load_kernel(case)
    xs = make_inputs(case)
    args = [_as_argument(x, ty, None) for x, ty in zip(xs, case.inputs, strict=True)]
    out = _as_argument(_poisoned(4, result_type(case)), result_type(case), None)
    if case.kind == "ew1d":
        bound = kernel.bind((*args, out, case.shape[0]), {"BLOCK": case.block[0]})
    else:
        bound = kernel.bind((*args, out, *case.shape), {"BM": case.block[0],
                                                        "BN": case.block[1]})
    signature, constexprs, divisible = specialize(kernel, bound)
    compiled_binary(kernel, signature, constexprs, divisible, CUDAOptions(), arch)


# -- checking -----------------------------------------------------------------------------
def _tolerance(case: Case, want: np.ndarray, ty: str, loose: bool,
               contraction: np.ndarray | None) -> np.ndarray:
    eps = R.EPS[ty] * (4 if loose else 2)
    tol = eps * np.abs(want.astype(np.float64))
    if loose and contraction is not None:
        tol = np.maximum(tol, contraction)
    if case.op in ("sum", "cumsum"):
        length = case.block[case.axis] if case.kind == "reduce" else case.block[case.axis]
        tol = tol + length * R.EPS[ty] * 4 * np.nanmax(np.abs(want.astype(np.float64)),
                                                      initial=1.0)
    return tol + np.finfo(np.float32).tiny


def compare(case: Case, got: np.ndarray, want: np.ndarray, loose: bool = False,
            contraction: np.ndarray | None = None) -> Outcome:
    ty = result_type(case)
    got, want = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    if got.shape != want.shape:
        return Outcome(False, f"shape {got.shape} != {want.shape}")
    if not R.is_float(ty):
        bad = np.flatnonzero(got.astype(R.NUMPY[ty]) != want.astype(R.NUMPY[ty]))
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        with np.errstate(invalid="ignore"):
            close = np.abs(g - w) <= _tolerance(case, w, ty, loose, contraction)
        bad = np.flatnonzero(~(same | close))
    if bad.size:
        i = int(bad[0])
        return Outcome(False, f"{bad.size} of {got.size} elements differ; first at {i}: "
                              f"got {got[i]!r}, want {want[i]!r} ({ty})")
    return Outcome(True)


def check(case: Case, device: str | None = None) -> Outcome:
    """Interpreter (device None) against the reference, or compiled code on `device`
    against the interpreter and the reference. An exception is a failure too."""
    xs = make_inputs(case)
    try:
        want = reference_outputs(case, xs)
        got = run_case(case, xs)
        outcome = compare(case, got, want)
        if not outcome.ok or device is None:
            return Outcome(outcome.ok, outcome.message and f"interpreter: {outcome.message}")
        compiled = run_case(case, xs, device)
        contraction = _contraction_bound(case, xs, want)
        for label, other in (("compiled vs interpreter", got), ("compiled vs reference", want)):
            outcome = compare(case, compiled, other, loose=True, contraction=contraction)
            if not outcome.ok:
                return Outcome(False, f"{label}: {outcome.message}")
        return Outcome(True)
    except Exception as e:  # a crash is a finding like any other
        return Outcome(False, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")


def _coarsest_eps(tree: tuple, inputs: tuple[str, ...], xs: list[np.ndarray]) -> float:
    """The largest unit roundoff among the float types `tree`'s intermediates have."""
    if tree[0] == "const":
        return 0.0
    _, ty = evaluate(tree, xs, inputs)
    here = R.EPS.get(ty, 0.0)
    children = [t for t in tree[1:] if isinstance(t, tuple)]
    return max([here, *(_coarsest_eps(t, inputs, xs) for t in children)])


def _contraction_bound(case: Case, xs: list[np.ndarray], want: np.ndarray) -> np.ndarray:
    """How far compiled code may move each stored value by contracting a * b + c into one
    fused multiply-add (as Triton does by default; one rounding fewer, under one unit of
    the coarsest intermediate type times `magnitude`; four are allowed), summed along a
    reduced or scanned axis."""
    with np.errstate(all="ignore"):
        if case.kind in ("ew1d", "ew2d"):
            eps = _coarsest_eps(case.tree, case.inputs, xs)
            return 4 * eps * np.broadcast_to(magnitude(case.tree, xs), np.shape(want)).reshape(-1)
        (m, n), tiles = case.shape, _tiles(case, xs)
        eps = _coarsest_eps(case.tree, case.inputs, tiles)
        size = 4 * eps * np.broadcast_to(magnitude(case.tree, tiles), case.block)
        if case.kind == "scan":
            return np.cumsum(size, axis=case.axis)[:m, :n].reshape(-1)
        bound = size.sum(case.axis) if case.op == "sum" else size.max(case.axis)
        return bound[:n] if case.axis == 0 else bound[:m]


def minimise(case: Case, fails: Callable[[Case], bool], steps: int = 50) -> Case:
    """A smaller case that still fails: greedily take the first shrink that does."""
    for _ in range(steps):
        for smaller in shrink(case):
            if fails(smaller):
                case = smaller
                break
        else:
            return case
    return case
