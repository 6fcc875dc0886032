"""Every kernel of benchmarks/style_kernels.py and benchmarks/inference_kernels.py, as the
cases of benchmarks/styles.py and benchmarks/inference.py launch it: (a) in the interpreter
at a small ragged size, on fresh random inputs with the outputs poisoned first, against
torch in float64 on the CPU (exact for int8 and the dropout mask); (b) specialized as the
GPU benchmark launches it (tensors on the meta device: types and alignment, no memory; made
when the test runs, see `_launches`), compiled through ptxas for sm_90 and, unless the
kernel is written for Hopper, sm_80, without spilling."""

import sys
from pathlib import Path

import pytest
import torch

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import inference  # noqa: E402
import styles  # noqa: E402
from run import load_kernels  # noqa: E402

import tritonc  # noqa: E402
from tritonc.runtime.gpu_launch import specialize  # noqa: E402
from tritonc.runtime.jit import JITFunction  # noqa: E402

#: zoo -> (its cases, its kernels loaded as tritonc, the @jit helpers its kernels call
#: beside those named with a leading underscore)
ZOOS = {
    "styles": (styles.CASES, load_kernels("tritonc", styles.STYLE_KERNELS),
               {"leaky_relu", "gelu_tanh"}),
    "inference": (inference.CASES, load_kernels("tritonc", inference.INFERENCE_KERNELS),
                  set()),
}
CASES = [(zoo, build) for zoo, (cases, _, _) in ZOOS.items() for build in cases]
#: tutorial 09's TMA kernel; fp8 tensor cores need sm_89 or later
HOPPER_ONLY = {"matmul_persistent_descriptor", "matmul_fp8_rowwise"}

#: (case builder, arch) -> why ptxas reports spill stores for a kernel of the case (counts
#: at the commit that set them); the kernels stay as Triton users write them
PTXAS_XFAIL = {
    ("grouped_gemm", 90):
        "tiles behind table pointers (leading dimensions loaded from memory, so no 16-byte "
        "alignment) load through registers: 364 spill stores",
    ("grouped_gemm", 80): "as on sm_90: 524 spill stores",
    ("split_k_16384", 80): "mma.sync 128 x 128 x 64 on 8 warps: 396",
    ("split_k_10000", 90):
        "N = 1000 (not a multiple of 16): unaligned B rows and a masked tl.atomic_add "
        "epilogue of 128 scalar atomics a thread: 1356 spill stores",
    ("split_k_10000", 80): "as on sm_90: 804 spill stores",
    ("int8_matmul", 80): "int8 128 x 256 x 128 on mma.sync: 436",
    ("attention_bwd_d64", 90):
        "dV and dP^T waited for once and dK left in flight, as Triton's loop does (255 "
        "registers, 60 spill stores; Triton's spills 144): 0.97 of Triton against 0.90 "
        "waiting for each",
    ("attention_bwd_d64", 80): "356 spill stores",
    ("attention_bwd_d128", 80): "308 spill stores",
    ("conv2d", 80):
        "mma.sync 128 x 128 x 64 on 4 warps beside the implicit GEMM's per-row (n, h, w) "
        "vectors and masks: 4 spill stores",
}


@pytest.mark.parametrize("zoo", ZOOS)
def test_every_kernel_is_launched_by_a_case(zoo):
    cases, kernels, helpers = ZOOS[zoo]
    names = {name for name, value in vars(kernels).items()
             if isinstance(value, JITFunction) and not name.startswith("_")} - helpers
    launched = {launch.kernel for build in cases for launch in build("meta", False).launches}
    assert names == launched
    assert len(names) >= 9


@pytest.mark.parametrize("zoo,build", CASES, ids=lambda b: getattr(b, "__name__", b))
def test_style_kernel_in_interpreter(zoo, build, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(sum(map(ord, build.__name__)))
    case = build("cpu", True)
    expected = case.reference()
    styles.poison(case)
    styles.run(ZOOS[zoo][1], case)
    styles.check(case, expected)


def _launches(zoo, build) -> list:
    """(kernel, signature, constexprs, divisible, num_warps, num_stages) of each distinct
    specialization `build`'s case launches at the GPU benchmark's sizes. Built when the
    test runs, not when it is collected: arithmetic on meta tensors imports torch's
    Inductor, which must not precede tritonc.inductor.install() in tests/inductor."""
    found, seen = [], set()
    for launch in build("meta", False).launches:
        fn = getattr(ZOOS[zoo][1], launch.kernel)
        meta = dict(launch.meta)
        num_warps = meta.pop("num_warps", 4)
        num_stages = meta.pop("num_stages", None)
        signature, constexprs, divisible = specialize(fn, fn.bind(tuple(launch.args), meta))
        key = (launch.kernel, repr(sorted(signature.items())), repr(sorted(constexprs.items())),
               tuple(sorted(divisible)), num_warps, num_stages)
        if key not in seen:
            seen.add(key)
            found.append((fn, signature, constexprs, frozenset(divisible), num_warps,
                          num_stages))
    return found


def _compile_params() -> list:
    """One param per case and target; a case whose kernels spill there is an expected
    failure (`PTXAS_XFAIL`)."""
    params = []
    for zoo, build in CASES:
        for arch in (90, 80):
            reason = PTXAS_XFAIL.get((build.__name__, arch))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(zoo, build, arch, id=f"{build.__name__}-sm{arch}",
                                       marks=marks))
    return params


@pytest.mark.parametrize("zoo,build,arch", _compile_params())
def test_style_kernel_through_ptxas(zoo, build, arch):
    for fn, signature, constexprs, divisible, num_warps, num_stages in _launches(zoo, build):
        if arch == 80 and fn.__name__ in HOPPER_ONLY:
            continue
        kernel = tritonc.compile(fn, signature=signature, constexprs=constexprs,
                                 divisible_by_16=divisible, target=f"cuda:{arch}",
                                 num_warps=num_warps, num_stages=num_stages)
        assert f".target sm_{arch}" in kernel.asm["ptx"]
        assert kernel.asm["cubin"][:4] == b"\x7fELF"
        report = kernel.metadata["ptxas"]
        assert report["registers"] > 0
        assert report["spill_stores"] == 0, (fn.__name__, report)
