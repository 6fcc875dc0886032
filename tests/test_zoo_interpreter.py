"""Every zoo kernel (benchmarks/zoo_kernels.py) in the interpreter, at a small ragged size,
against torch in float64; outputs are poisoned before the launch."""

import sys
from pathlib import Path

import pytest
import torch

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import zoo  # noqa: E402
from run import load_kernels  # noqa: E402

KERNELS = load_kernels("tritonc", zoo.ZOO_KERNELS)


def test_zoo_has_thirty_kernels():
    names = {build("meta", False).kernel for build in zoo.CASES}
    assert len(names) >= 30
    assert all(hasattr(KERNELS, name) for name in names)


@pytest.mark.parametrize("build", zoo.CASES, ids=lambda b: b.__name__)
def test_zoo_kernel_in_interpreter(build, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(sum(map(ord, build.__name__)))
    case = build("cpu", True)
    zoo.poison(case)
    zoo.launch(KERNELS, case)
    zoo.check(case)
