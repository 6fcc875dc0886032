"""The axis analysis on every zoo kernel: each fact it states about a value holds of the
values the kernel's TTGIR computes (`axis_soundness.py`), on the small ragged CPU cases
of the zoo, for the first programs of each launch."""

import sys
from pathlib import Path

import pytest
import torch
from axis_soundness import check_kernel

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import zoo  # noqa: E402
from run import load_kernels  # noqa: E402

import tritonc  # noqa: E402
from tritonc.backends.interpreter.errors import InterpreterUnsupported  # noqa: E402
from tritonc.runtime.gpu_launch import specialize  # noqa: E402

KERNELS = load_kernels("tritonc", zoo.ZOO_KERNELS)


@pytest.mark.parametrize("build", zoo.CASES, ids=lambda b: b.__name__)
def test_zoo_kernel_facts_hold(build):
    torch.manual_seed(0)
    case = build("cpu", True)
    fn = getattr(KERNELS, case.kernel)
    meta = dict(case.meta)
    num_warps = meta.pop("num_warps", 4)
    bound = fn.bind(tuple(case.args), meta)
    signature, constexprs, divisible = specialize(fn, bound)
    tensors = [a for a in case.args if hasattr(a, "data_ptr")]
    if any(t.dtype == torch.bfloat16 for t in tensors) or \
            case.args[:len(tensors)] != tensors:
        pytest.skip("the evaluator takes numpy tensors first, then the scalars")
    scalars = [bound[name] for name, ty in signature.items() if not str(ty).startswith("*")]
    if not all(type(v) is int for v in scalars):
        pytest.skip("the evaluator takes integer scalars only")
    kernel = tritonc.compile(fn, signature, constexprs, target="cuda:90",
                             divisible_by_16=divisible, num_warps=num_warps)
    grid = tuple(min(g, 3) for g in case.grid)
    try:
        found = check_kernel(kernel.asm["ttgir"], [t.numpy() for t in tensors], scalars, grid)
    except InterpreterUnsupported as e:
        pytest.skip(f"the evaluator cannot run it: {e}")
    assert not found, "\n".join(found[:10])
