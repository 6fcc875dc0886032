"""The axis analysis on every zoo kernel: each fact it states about a value holds of the
values the kernel's TTGIR computes (`axis_soundness.py`), on the small ragged CPU cases
of the zoo, for the first programs of each launch."""

import pytest
import torch
from axis_soundness import check_kernel
from test_zoo_ptx import specialized_case  # puts benchmarks/ on the path, for zoo
from zoo import CASES

import tritonc
from tritonc.backends.interpreter.errors import InterpreterUnsupported


@pytest.mark.parametrize("build", CASES, ids=lambda b: b.__name__)
def test_zoo_kernel_facts_hold(build):
    torch.manual_seed(0)
    case, fn, bound, signature, constexprs, divisible, num_warps = \
        specialized_case(build, "cpu", True)
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
