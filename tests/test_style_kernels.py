"""Every kernel of benchmarks/style_kernels.py, as the cases of benchmarks/styles.py launch
it: (a) in the interpreter at a small ragged size, on fresh random inputs with the outputs
poisoned first, against torch in float64 on the CPU (exact for int8 and the dropout
mask); (b) specialized as the GPU benchmark launches it (tensors on the meta device:
types and alignment, no memory), compiled through ptxas for sm_90 and, unless the kernel
is written for Hopper, sm_80, without spilling."""

import sys
from pathlib import Path

import pytest
import torch

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import styles  # noqa: E402
from run import load_kernels  # noqa: E402

import tritonc  # noqa: E402
from tritonc.runtime.gpu_launch import specialize  # noqa: E402
from tritonc.runtime.jit import JITFunction  # noqa: E402

KERNELS = load_kernels("tritonc", styles.STYLE_KERNELS)
HELPERS = {"leaky_relu", "gelu_tanh"}  # @jit functions the kernels call
HOPPER_ONLY = {"matmul_persistent_descriptor"}  # tutorial 09's TMA kernel

#: (case builder, kernel, arch) -> why ptxas reports spill stores (counts at the commit
#: that set them); the kernels stay as Triton users write them
PTXAS_XFAIL = {
    ("grouped_gemm", "grouped_matmul", 90):
        "tiles behind table pointers (leading dimensions loaded from memory, so no 16-byte "
        "alignment) load through registers: 364 spill stores",
    ("grouped_gemm", "grouped_matmul", 80): "as on sm_90: 524 spill stores",
    ("split_k_16384", "matmul_split_k", 80): "mma.sync 128 x 128 x 64 on 8 warps: 396",
    ("split_k_10000", "matmul_split_k", 90):
        "N = 1000 (not a multiple of 16): unaligned B rows and a masked tl.atomic_add "
        "epilogue of 128 scalar atomics a thread: 1356 spill stores",
    ("split_k_10000", "matmul_split_k", 80): "as on sm_90: 804 spill stores",
    ("int8_matmul", "matmul_int8", 80): "int8 128 x 256 x 128 on mma.sync: 436",
    ("attention_bwd_d64", "attn_bwd", 90): "tutorial 06 backward on 4 warps: 20 (0 on 8)",
    ("attention_bwd_d64", "attn_bwd", 80): "356 spill stores",
    ("attention_bwd_d128", "attn_bwd", 80): "308 spill stores",
}


def test_every_kernel_is_launched_by_a_case():
    kernels = {name for name, value in vars(KERNELS).items()
               if isinstance(value, JITFunction) and not name.startswith("_")} - HELPERS
    launched = {launch.kernel for build in styles.CASES
                for launch in build("meta", False).launches}
    assert kernels == launched
    assert len(kernels) >= 14


@pytest.mark.parametrize("build", styles.CASES, ids=lambda b: b.__name__)
def test_style_kernel_in_interpreter(build, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(sum(map(ord, build.__name__)))
    case = build("cpu", True)
    expected = case.reference()
    styles.poison(case)
    styles.run(KERNELS, case)
    styles.check(case, expected)


def _compile_params() -> list:
    """One param per distinct specialization of a launch (as the GPU benchmark makes it)
    and target."""
    params, seen = [], set()
    for build in styles.CASES:
        for launch in build("meta", False).launches:
            fn = getattr(KERNELS, launch.kernel)
            meta = dict(launch.meta)
            num_warps = meta.pop("num_warps", 4)
            num_stages = meta.pop("num_stages", None)
            signature, constexprs, divisible = specialize(fn, fn.bind(tuple(launch.args), meta))
            key = (launch.kernel, repr(sorted(signature.items())),
                   repr(sorted(constexprs.items())), tuple(sorted(divisible)), num_warps,
                   num_stages)
            if key in seen:
                continue
            seen.add(key)
            for arch in (90,) if launch.kernel in HOPPER_ONLY else (90, 80):
                reason = PTXAS_XFAIL.get((build.__name__, launch.kernel, arch))
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                params.append(pytest.param(
                    fn, signature, constexprs, frozenset(divisible), num_warps, num_stages,
                    arch, id=f"{build.__name__}-{launch.kernel}-sm{arch}", marks=marks))
    return params


@pytest.mark.parametrize("fn,signature,constexprs,divisible,num_warps,num_stages,arch",
                         _compile_params())
def test_style_kernel_through_ptxas(fn, signature, constexprs, divisible, num_warps,
                                    num_stages, arch):
    kernel = tritonc.compile(fn, signature=signature, constexprs=constexprs,
                             divisible_by_16=divisible, target=f"cuda:{arch}",
                             num_warps=num_warps, num_stages=num_stages)
    assert f".target sm_{arch}" in kernel.asm["ptx"]
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    report = kernel.metadata["ptxas"]
    assert report["registers"] > 0
    assert report["spill_stores"] == 0, report
