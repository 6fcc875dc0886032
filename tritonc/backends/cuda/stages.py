"""The CUDA pipeline, stage by stage: ttir -> ttgir -> llir -> ptx -> cubin.

Each stage reads the previous stage's output and fills `kernel.asm[<stage>]`:

    ttgir  layouts on every tensor (passes/ttgir)               -- not built yet
    llir   per-thread NVVM/LLVM, then LLVM IR (passes/to_llvm)  -- needs ttgir
    ptx    llvm_to_ptx.llvm_ir_to_ptx (libdevice, O3, NVPTX)
    cubin  ptxas.compile_ptx (its -v report goes to the metadata)
"""

from __future__ import annotations

from tritonc.backends.cuda.llvm_to_ptx import llvm_ir_to_ptx
from tritonc.backends.cuda.ptxas import compile_ptx


class StageMissing(NotImplementedError):
    """A stage of the pipeline that this version of tritonc does not have yet."""


def make_ttgir(module, kernel, arch: int):
    raise StageMissing("stage 'ttgir' (layout assignment and lowering of TTIR to NVVM) is not "
                       "built yet: tritonc can emit TTIR only")


def make_ptx(llir: str, kernel, arch: int) -> str:
    _, ptx = llvm_ir_to_ptx(llir, kernel.name, arch)
    return ptx


def make_cubin(ptx: str, kernel, arch: int) -> bytes:
    cubin, report = compile_ptx(ptx, arch, kernel.name)
    kernel.metadata["ptxas"] = report
    return cubin


def run_stages(module, kernel, arch: int) -> None:
    """Fill kernel.asm with every stage after TTIR."""
    kernel.asm["ttgir"], kernel.asm["llir"] = make_ttgir(module, kernel, arch)
    kernel.asm["ptx"] = make_ptx(kernel.asm["llir"], kernel, arch)
    kernel.asm["cubin"] = make_cubin(kernel.asm["ptx"], kernel, arch)
