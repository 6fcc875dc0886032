"""Every zoo kernel, specialized as the GPU benchmark launches it, compiles to PTX and
passes ptxas for sm_80 and sm_90, without spilling."""

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import zoo  # noqa: E402
from run import load_kernels  # noqa: E402

import tritonc  # noqa: E402

KERNELS = load_kernels("tritonc", zoo.ZOO_KERNELS)


def specialized_case(build, device: str = "meta", small: bool = False) -> tuple:
    """(case, kernel function, bound arguments, signature, constexprs, names divisible by
    16, num_warps) of a zoo case, specialized as its launch is."""
    from tritonc.runtime.gpu_launch import specialize

    case = build(device, small)
    fn = getattr(KERNELS, case.kernel)
    meta = dict(case.meta)
    num_warps = meta.pop("num_warps", 4)
    bound = fn.bind(tuple(case.args), meta)
    return (case, fn, bound, *specialize(fn, bound), num_warps)


def compile_case(build, arch: int):
    """The kernel of a zoo case compiled for the specialization its GPU launch gets
    (tensors on the meta device: types and alignment, no memory)."""
    _, fn, _, signature, constexprs, divisible, num_warps = specialized_case(build)
    return tritonc.compile(fn, signature, constexprs, target=f"cuda:{arch}",
                           divisible_by_16=divisible, num_warps=num_warps)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("build", zoo.CASES, ids=lambda b: b.__name__)
def test_zoo_kernel_through_ptxas(build, arch):
    kernel = compile_case(build, arch)
    assert f".target sm_{arch}" in kernel.asm["ptx"]
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    report = kernel.metadata["ptxas"]
    assert report["registers"] > 0
    assert report.get("spill_stores", 0) == 0, report
