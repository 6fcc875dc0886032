"""The fuzzer in the test suite: a bounded seeded campaign, the minimised regressions, and
the reference itself checked against torch where torch has the operation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.fuzz import reference as R
from tests.fuzz.generator import Case, generate, source
from tests.fuzz.runner import check, make_inputs, reference_outputs, run_case

CI_SEEDS = range(0, 150)  # about 3 s on one core
GPU_SEEDS = range(0, 300)

# Minimised disagreements the fuzzer found, kept as they were found.
REGRESSIONS = [
    # a bf16 scan: np.concatenate dropped the bf16 tag of the scanned values
    Case(48, "scan", ("fp32", "u8"), ("cast", "bf16", ("bin", "-", ("in", 0), ("in", 1))),
         (5, 61), (16, 64), "cumsum", 0),
    # a scan of i64 values cast to u64 mixed int64 and uint64 arrays (computed in float64)
    Case(763, "scan", ("i64",), ("cast", "u64", ("in", 0)), (2, 17), (4, 64), "cumsum", 1),
]


@pytest.mark.parametrize("seed", CI_SEEDS)
def test_interpreter_agrees_with_reference(seed: int) -> None:
    case = generate(seed)
    outcome = check(case)
    assert outcome.ok, f"{outcome.message}\n{source(case)}"


@pytest.mark.parametrize("case", REGRESSIONS, ids=lambda c: c.name)
def test_regression(case: Case) -> None:
    outcome = check(case)
    assert outcome.ok, f"{outcome.message}\n{source(case)}"


@pytest.mark.gpu
@pytest.mark.parametrize("seed", GPU_SEEDS)
def test_compiled_agrees_with_interpreter_and_reference(seed: int) -> None:
    case = generate(seed)
    outcome = check(case, "cuda")
    assert outcome.ok, f"{outcome.message}\n{source(case)}"


@pytest.mark.gpu
@pytest.mark.parametrize("case", REGRESSIONS, ids=lambda c: c.name)
def test_regression_compiled(case: Case) -> None:
    outcome = check(case, "cuda")
    assert outcome.ok, f"{outcome.message}\n{source(case)}"


def test_cases_cover_every_kind_and_dtype() -> None:
    cases = [generate(s) for s in CI_SEEDS]
    assert {c.kind for c in cases} == {"ew1d", "ew2d", "reduce", "scan"}
    assert {t for c in cases for t in c.inputs} == set(R.DTYPES + R.FP8)
    assert {c.op for c in cases if c.kind == "reduce"} == {"sum", "max", "min"}
    for c in cases:  # sizes are never multiples of the block
        assert any(n % b for n, b in zip(c.shape, c.block, strict=True))


def test_same_seed_same_case() -> None:
    assert generate(17) == generate(17) and source(generate(17)) == source(generate(17))


def test_reference_rounds_bf16_like_torch() -> None:
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32) * 300
    want = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(R.round_bf16(x), want)
    ints = np.random.default_rng(1).integers(-(2**40), 2**40, 4096)
    exact = [float(torch.tensor(float(v), dtype=torch.float64).to(torch.bfloat16)) for v in
             ints[:64]]
    np.testing.assert_array_equal(R.round_bf16(ints[:64]), np.array(exact, np.float32))


def test_reference_promotion_follows_triton() -> None:
    assert R.computation_type("bf16", "u32") == "fp32"
    assert R.computation_type("fp16", "i64") == "fp16"
    assert R.computation_type("i8", "u8") == "u8"
    assert R.computation_type("i64", "u32") == "i64"
    assert R.computation_type("u64", "i32") == "u64"
    assert R.scalar_type("i8", 3) == "i8" and R.scalar_type("i8", 0.5) == "fp32"
    assert R.truediv_type("i32", "i32") == "fp32" and R.sum_type("u8") == "u32"


def test_a_wrong_result_is_caught() -> None:
    """The check can fail: a kernel's output compared with a perturbed reference."""
    from tests.fuzz.runner import compare

    case = generate(3)
    xs = make_inputs(case)
    got = run_case(case, xs)
    want = np.array(reference_outputs(case, xs), copy=True)
    assert compare(case, got, want).ok
    flat = want.reshape(-1)
    flat[len(flat) // 2] = flat[len(flat) // 2] + (1 if flat.dtype.kind in "iu" else 0.5)
    assert not compare(case, got, want).ok


def test_fused_multiply_add_in_a_narrow_type_is_allowed_in_a_sum() -> None:
    """A sum of bf16 `x + x * 1.5` widened to fp32: compiled code that contracts the
    bf16 product and sum into one fma (rounded once) is within the loose tolerance, a
    result off by more than that contraction is not."""
    from tests.fuzz.runner import _contraction_bound, compare

    case = Case(644, "reduce", ("i32", "bf16"),
                ("where", 0, ("bin", "+", ("in", 1), ("bin", "*", ("in", 1), ("const", 1.5))),
                 ("bin", "max", ("cast", "bf16", ("in", 0)), ("bin", "|", ("in", 0), ("in", 0)))),
                (1, 2), (8, 16), "sum", 1)
    xs = [np.array([2, 15], np.int32), np.array([-1.734375, 2.0], np.float32)]
    want = reference_outputs(case, xs)
    fused = (torch.tensor(xs[1], dtype=torch.float64) * 2.5).bfloat16().float().sum()
    assert float(fused) != float(want[0])
    bound = _contraction_bound(case, xs, want)
    assert compare(case, np.array([fused.item()], np.float32), want, True, bound).ok
    assert not compare(case, np.array([want[0] + 0.5], np.float32), want, True, bound).ok


def test_mutants_never_raise_internal_errors() -> None:
    """Mutated corpus kernels compile or fail with a message about the user's code."""
    from tests.fuzz.mutants import campaign

    results = campaign(150, seed=11)
    internal = [(name, message) for name, outcome, message, _ in results
                if outcome == "internal"]
    assert internal == []
    assert sum(outcome == "error" for _, outcome, _, _ in results) > 50  # mutants do break


def test_gpu_mode_comparisons_run_on_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GPU mode's checks, with the interpreter standing in for the compiled kernel:
    they pass for equal results and fail for a perturbed one."""
    from tests.fuzz import runner

    interpret = runner.run_case

    def stand_in(case, xs, device=None):
        out = np.array(interpret(case, xs), copy=True)
        if device == "perturbed":
            flat = out.reshape(-1)
            if flat.dtype.kind in "iu":
                flat[0] = flat[0] + 3
            else:  # NaN where a number was, a number where NaN was
                flat[0] = 0.0 if np.isnan(flat[0]) else np.nan
        return out

    monkeypatch.setattr(runner, "run_case", stand_in)
    for seed in range(20):
        case = generate(seed)
        assert runner.check(case, "cuda").ok, seed
        outcome = runner.check(case, "perturbed")
        assert not outcome.ok and "compiled vs" in outcome.message, seed
