"""Every zoo kernel on the GPU against torch in float64: at the small ragged size of the
interpreter test and at the size the benchmark times (different blocks, so different
layouts). Outputs are poisoned before each launch."""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import zoo  # noqa: E402
from run import load_kernels  # noqa: E402


@pytest.mark.gpu
@pytest.mark.parametrize("small", [True, False], ids=["small", "benchmark"])
@pytest.mark.parametrize("build", zoo.CASES, ids=lambda b: b.__name__)
def test_zoo_kernel_on_gpu(build, small):
    import torch

    kernels = load_kernels("tritonc", zoo.ZOO_KERNELS)
    torch.manual_seed(sum(map(ord, build.__name__)))
    case = build("cuda", small)
    zoo.poison(case)
    zoo.launch(kernels, case)
    torch.cuda.synchronize()
    zoo.check(case)
