"""MLIR gpu.module -> LLVM IR -> PTX -> cubin on the CPU: FileCheck'd PTX, ptxas reports."""

import os
import subprocess

import pytest

from tritonc.backends.cuda import llvm_to_ptx, parse_arch
from tritonc.backends.cuda.ptxas import PtxasError, compile_ptx, parse_report
from tritonc.compiler import mlir_loader

VECTOR_ADD = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add_kernel(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %bdim = gpu.block_dim x
      %b = arith.index_cast %bid : index to i32
      %t = arith.index_cast %tid : index to i32
      %d = arith.index_cast %bdim : index to i32
      %base = arith.muli %b, %d : i32
      %i = arith.addi %base, %t : i32
      %in_bounds = arith.cmpi slt, %i, %n : i32
      scf.if %in_bounds {
        %px = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %py = llvm.getelementptr %y[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %po = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        %a = llvm.load %px : !llvm.ptr<1> -> f32
        %c = llvm.load %py : !llvm.ptr<1> -> f32
        %s = arith.addf %a, %c : f32
        llvm.store %s, %po : f32, !llvm.ptr<1>
      }
      gpu.return
    }
  }
}
"""

LGAMMA = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @__nv_lgammaf(f32) -> f32
    gpu.func @lgamma_kernel(%x: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %px = llvm.getelementptr %x[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %a = llvm.load %px : !llvm.ptr<1> -> f32
      %l = llvm.call @__nv_lgammaf(%a) : (f32) -> f32
      %po = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %l, %po : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
"""

# Already in the LLVM/NVVM dialects: the kernel is an llvm.func marked nvvm.kernel.
SCALE_LLVM = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @scale_kernel(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %q = llvm.getelementptr %p[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %v = llvm.load %q : !llvm.ptr<1> -> f32
      %w = llvm.fmul %v, %v : f32
      llvm.store %w, %q : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
"""

# LLVM IR that still declares a libdevice function: llvm_ir_to_ptx links libdevice itself.
LGAMMA_LLVM_IR = """
declare float @__nv_lgammaf(float)
define ptx_kernel void @lgamma_ir(ptr addrspace(1) %p) {
  %v = load float, ptr addrspace(1) %p
  %r = call float @__nv_lgammaf(float %v)
  store float %r, ptr addrspace(1) %p
  ret void
}
"""

LOWERED_CHECKS = """
CHECK: gpu.module @kernels
CHECK: llvm.func @add_kernel(
CHECK-SAME: nvvm.kernel
CHECK: nvvm.read.ptx.sreg.ctaid.x
CHECK: llvm.cond_br
CHECK: llvm.fadd
CHECK-NOT: scf.
"""

# LLVM 22 spells the f32 add `add.rn.f32`; loads and stores are typed `.b32`.
PTX_CHECKS = r"""
CHECK: .version 8.{{[04]}}
CHECK: .target sm_ARCH
CHECK: .visible .entry add_kernel(
CHECK-DAG: ld.global
CHECK-DAG: add{{(\.rn)?}}.f32
CHECK: st.global
CHECK: ret;
"""


def filecheck(text: str, checks: str, tmp_path) -> None:
    """Run LLVM's FileCheck with `checks` over `text`; fail with its diagnostics."""
    check_file = tmp_path / "checks.txt"
    check_file.write_text(checks)
    result = subprocess.run(
        [mlir_loader.llvm_tool("FileCheck"), str(check_file)],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def vector_add_ptx():
    return {
        arch: llvm_to_ptx.llvm_module_to_ptx(VECTOR_ADD, "add_kernel", arch) for arch in (80, 90)
    }


def test_pipeline_prints_and_parses():
    text = llvm_to_ptx.pipeline(llvm_to_ptx.LLVM_DIALECT_PASSES)
    assert text == (
        "builtin.module(convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm),"
        "reconcile-unrealized-casts)"
    )
    ir = mlir_loader.load()
    from mlir.passmanager import PassManager

    with ir.Context():
        assert str(PassManager.parse(text)).startswith("builtin.module(convert-scf-to-cf")


def test_lower_to_llvm_dialect(tmp_path):
    ir = mlir_loader.load()
    with ir.Context():
        module = ir.Module.parse(VECTOR_ADD)
        llvm_to_ptx.lower_to_llvm_dialect(module)
        lowered = str(module)
    filecheck(lowered, LOWERED_CHECKS, tmp_path)


@pytest.mark.parametrize("arch", [80, 90])
def test_vector_add_ptx(vector_add_ptx, arch, tmp_path):
    llir, ptx = vector_add_ptx[arch]
    filecheck(llir, "CHECK: define ptx_kernel void @add_kernel(\nCHECK: fadd contract float",
              tmp_path)
    filecheck(ptx, PTX_CHECKS.replace("ARCH", str(arch)), tmp_path)


@pytest.mark.parametrize("arch", [80, 90])
def test_vector_add_cubin(vector_add_ptx, arch):
    cubin, info = compile_ptx(vector_add_ptx[arch][1], arch, "add_kernel")
    assert cubin.startswith(b"\x7fELF")
    assert info["registers"] > 0
    assert info["spill_stores"] == info["spill_loads"] == info["stack_frame"] == 0
    assert info["warnings"] == []


def test_a_kernel_name_longer_than_a_file_name_compiles(vector_add_ptx):
    """Inductor names fused kernels after every op they fuse (hundreds of characters);
    ptxas's files are named for the kernel, cut to what a file system takes."""
    name = "triton_poi_fused_" + "_".join(["softplus_backward_mish_backward"] * 9) + "_0"
    assert len(name) > 255
    ptx = vector_add_ptx[90][1].replace("add_kernel", name)
    cubin, info = compile_ptx(ptx, 90, name)
    assert cubin.startswith(b"\x7fELF") and info["registers"] > 0


def test_sm90a_target_and_cubin():
    _, ptx = llvm_to_ptx.llvm_module_to_ptx(VECTOR_ADD, "add_kernel", "90a")
    assert ".target sm_90a" in ptx
    assert compile_ptx(ptx, "90a", "add_kernel")[1]["registers"] > 0


def test_input_module_is_left_unchanged():
    ir = mlir_loader.load()
    with ir.Context():
        module = ir.Module.parse(VECTOR_ADD)
        before = str(module)
        _, ptx = llvm_to_ptx.llvm_module_to_ptx(module, "add_kernel", 90)
        assert str(module) == before
    assert ".visible .entry add_kernel(" in ptx


def test_llvm_dialect_input(tmp_path):
    _, ptx = llvm_to_ptx.llvm_module_to_ptx(SCALE_LLVM, "scale_kernel", 90)
    filecheck(ptx, "CHECK: .visible .entry scale_kernel(\nCHECK: mul{{(\\.rn)?}}.f32", tmp_path)


def _assert_only_the_kernel_is_visible(ptx: str, kernel: str) -> None:
    assert len(ptx) < 60_000
    assert ptx.count(".entry") == 1 and f".visible .entry {kernel}(" in ptx
    assert ptx.count(".visible") == 1
    assert "__nv_" not in ptx


def test_libdevice_call_through_mlir():
    _, ptx = llvm_to_ptx.llvm_module_to_ptx(LGAMMA, "lgamma_kernel", 90)
    _assert_only_the_kernel_is_visible(ptx, "lgamma_kernel")
    assert compile_ptx(ptx, 90, "lgamma_kernel")[1]["registers"] > 0


def test_libdevice_linked_into_llvm_ir():
    llir, ptx = llvm_to_ptx.llvm_ir_to_ptx(LGAMMA_LLVM_IR, "lgamma_ir", 80)
    assert "define ptx_kernel void @lgamma_ir(" in llir
    assert "@__nv_lgammaf" not in llir
    _assert_only_the_kernel_is_visible(ptx, "lgamma_ir")


def test_unknown_kernel_name():
    with pytest.raises(ValueError, match="'missing' is not defined.*add_kernel"):
        llvm_to_ptx.llvm_module_to_ptx(VECTOR_ADD, "missing", 90)


def test_ptx_versions():
    versions = [llvm_to_ptx.default_ptx_version(a) for a in (80, 90, "90a", 100, 120)]
    assert versions == [80, 84, 84, 86, 87]  # 8.4 from sm_89 on: fp8 mma, vector atomics
    _, ptx = llvm_to_ptx.llvm_module_to_ptx(VECTOR_ADD, "add_kernel", 90, ptx_version=83)
    assert ".version 8.3" in ptx
    assert parse_arch("sm_90a") == (90, "a") and parse_arch(80) == (80, "")
    with pytest.raises(ValueError, match="compute capability"):
        parse_arch("hopper")


def test_bad_ptx_raises_with_ptxas_message_and_repro(vector_add_ptx):
    bad = vector_add_ptx[90][1].replace("st.global", "st.globul")
    with pytest.raises(PtxasError) as error:
        compile_ptx(bad, 90, "add_kernel")
    message = str(error.value)
    assert "error   : Unknown modifier '.globul'" in message
    repro = message.split("repro: ", 1)[1].split()
    assert "-arch=sm_90" in repro
    kept_ptx = repro[repro.index("-O3") + 1]
    assert os.path.isfile(kept_ptx) and "st.globul" in open(kept_ptx).read()


def test_parse_report_counts_only_the_kernel():
    report = """\
ptxas info    : 16 bytes gmem
ptxas info    : Function properties for helper
    24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    16 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas warning : Registers are spilled to local memory in function 'k'
ptxas info    : Used 255 registers, used 1 barriers, 1024 bytes smem, 364 bytes cmem[0], \
8 bytes cmem[2]
"""
    assert parse_report(report, "k") == {
        "registers": 255,
        "barriers": 1,
        "stack_frame": 16,
        "spill_stores": 4,
        "spill_loads": 12,
        "shared_mem": 1024,
        "const_mem": 372,
        "gmem": 16,
        "warnings": ["ptxas warning : Registers are spilled to local memory in function 'k'"],
    }
    with pytest.raises(PtxasError, match="nothing for kernel 'other'"):
        parse_report(report, "other")


def test_parse_report_keeps_wgmma_serialization_notes():
    """ptxas reports serialized wgmma as an info line, not a warning: it is kept too."""
    note = ("ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions "
            "are serialized due to non wgmma instructions defining accumulator registers of "
            "a wgmma between start and end of the pipeline stage in the function 'k'")
    report = f"""\
ptxas info    : Compiling entry function 'k' for 'sm_90a'
{note}
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 204 registers, used 1 barriers
"""
    assert parse_report(report, "k")["warnings"] == [note]


def test_a_bitcast_between_sizes_is_an_error_not_an_abort():
    """The LLVM dialect accepts `llvm.bitcast` of vector<1xi8> to vector<1xi1>; LLVM's
    optimizer asserts on it and takes the process down. The type guard refuses it first,
    with a CompilationError naming the kernel; a bitcast between equal sizes compiles."""
    from tritonc.compiler.errors import CompilationError

    def module(to: str) -> str:
        return SCALE_LLVM.replace(
            "%w = llvm.fmul %v, %v : f32\n      llvm.store %w, %q : f32, !llvm.ptr<1>",
            f"%w = llvm.bitcast %v : f32 to {to}\n"
            f"      llvm.store %w, %q : {to}, !llvm.ptr<1>")

    with pytest.raises(CompilationError, match=r"bitcast of f32 to vector<2xi8>"):
        llvm_to_ptx.llvm_module_to_ptx(module("vector<2xi8>"), "scale_kernel", 90)
    _, ptx = llvm_to_ptx.llvm_module_to_ptx(module("vector<4xi8>"), "scale_kernel", 90)
    assert ".visible .entry scale_kernel(" in ptx
