"""The CUDA pipeline, stage by stage: ttir -> ttgir -> llir -> ptx -> cubin.

    ttgir  passes.ttgir.assign_layouts: a blocked layout on every tensor;
           passes.ttgir.operand_order: dot tiles of transposed views load along their
           contiguous dimension
           passes.ttgir.mma_layouts: fp16/bf16 dot accumulators in the mma layout
           passes.ttgir.propagate_mma: their users compute in that layout too
    llir   passes.to_llvm.lowering: per-thread gpu/arith/scf/llvm/nvvm code, then the
           upstream MLIR conversions and gpu-module-to-binary (llvm_to_ptx.py): LLVM IR
    ptx    llvmlite: libdevice when needed, O3, the NVPTX target for sm_XX
    cubin  ptxas, whose -v report (registers, spills, shared memory) joins the metadata
"""

from __future__ import annotations

from tritonc.backends.cuda.llvm_to_ptx import llvm_module_to_ptx
from tritonc.backends.cuda.ptxas import compile_ptx
from tritonc.passes.to_llvm.lowering import lower_module
from tritonc.passes.ttgir.assign_layouts import assign_layouts
from tritonc.passes.ttgir.mma_layouts import assign_mma_layouts
from tritonc.passes.ttgir.operand_order import order_dot_operands
from tritonc.passes.ttgir.propagate_mma import propagate_mma_layouts


def make_ttgir(module, kernel, arch: int):
    """TTIR -> TTGIR, in place: default layouts, then the tensor-core accumulators and the
    ops that compute on them."""
    assign_layouts(module, kernel.metadata["num_warps"])
    order_dot_operands(module, kernel.metadata["num_warps"])
    assign_mma_layouts(module, kernel.metadata["num_warps"], arch)
    propagate_mma_layouts(module)
    return module


def make_llir_and_ptx(ttgir, kernel, arch: int) -> tuple[str, str]:
    """The kernel's LLVM IR and PTX; a kernel using sm_90a-only instructions (wgmma) is
    compiled for that target (`ptx_arch` in the metadata)."""
    lowered = lower_module(ttgir, kernel.metadata["num_warps"], kernel.metadata["num_stages"],
                           arch)
    kernel.metadata["shared"] = lowered.smem_bytes
    kernel.metadata["ptx_arch"] = f"{arch}a" if lowered.arch_specific else str(arch)
    return llvm_module_to_ptx(lowered.module, lowered.name, kernel.metadata["ptx_arch"])


def make_cubin(ptx: str, kernel, arch: int) -> bytes:
    cubin, report = compile_ptx(ptx, kernel.metadata.get("ptx_arch", arch), kernel.name,
                                kernel.metadata.get("maxnreg"))
    kernel.metadata["ptxas"] = report
    return cubin


def run_stages(module, kernel, arch: int) -> None:
    """Fill kernel.asm with every stage after TTIR."""
    ttgir = make_ttgir(module, kernel, arch)
    kernel.asm["ttgir"] = str(ttgir)
    kernel.asm["llir"], kernel.asm["ptx"] = make_llir_and_ptx(ttgir, kernel, arch)
    kernel.asm["cubin"] = make_cubin(kernel.asm["ptx"], kernel, arch)
