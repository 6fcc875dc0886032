"""From an MLIR `gpu.module` to LLVM IR and PTX.

In: an MLIR module (text or `ir.Module`) holding one `gpu.module` whose kernel is either a
`gpu.func ... kernel` over gpu/arith/math/index/scf/cf/llvm/nvvm ops, or already an
`llvm.func` carrying `nvvm.kernel`. Out: (LLVM IR text after O3, PTX text).

Steps:
  1. `lower_to_llvm_dialect`: the upstream passes in `LLVM_DIALECT_PASSES` (a no-op on a
     module that is already in the LLVM/NVVM dialects), then `check_llvm_types`
     (type_guard.py): a type LLVM has no equivalent for is a CompilationError, where the
     translation of step 3 would abort the process; with `line_info`,
     `ensure-debug-info-scope-on-llvm-func` then gives each function a debug scope in
     which the ops' source locations (the kernel's file, line and column, from the code
     generator) become `!dbg` line records: the PTX gets `.file` and `.loc` directives
     and nothing else of debug information (`DebugDirectivesOnly`, so no
     `.target ..., debug`, which ptxas refuses with -O3);
  2. `mark_functions`: the `contract` fast-math flag on every float multiply, add and
     subtract when fp fusion is on (so the NVPTX back end fuses a*b+c into `fma.rn`, as
     Triton's `enable_fp_fusion` does), and the target chip as each function's
     `target-cpu`, so the LLVM IR names the target it was made for;
  3. `nvvm-attach-target` + `gpu-module-to-binary{format=llvm}`: LLVM bitcode, read from
     the `gpu.binary` op's `#gpu.object`;
  4. `optimize_llvm_ir` (llvmlite): link libdevice when `__nv_*` functions are still only
     declared, give every function but the kernel internal linkage, run O3;
  5. `emit_ptx`: the NVPTX target machine for `sm_<arch>` and `+ptx<version>`.

PTX ISA version: 8.0 unless the target needs a newer one (`default_ptx_version`); 8.4 on
sm_89 and later, whose fp8 mma.sync and vector atomics (`atom.global.v4.f32.add`) need
it. The version only gates what ptxas accepts: the runtime loads the cubin ptxas makes,
never the PTX, so the driver's own PTX limit (9.0 for the CUDA 13.0 driver, 580) does not
apply to it.

The bindings in the pinned MLIR 22 build embed libdevice: `gpu-module-to-binary` links the
`__nv_*` functions a module calls and internalizes them, so step 3 links libdevice only
for bitcode from elsewhere (a saved .llir, or an MLIR build without the embedded copy).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import llvmlite.binding as llvm

from tritonc import knobs
from tritonc.backends.cuda import parse_arch
from tritonc.backends.cuda.type_guard import check_llvm_types
from tritonc.compiler import mlir_loader

if TYPE_CHECKING:
    from mlir import ir

# Upstream passes from per-thread gpu/arith/scf/... code to the LLVM and NVVM dialects.
LLVM_DIALECT_PASSES = (
    # scf.if / scf.for / scf.while -> cf branches between blocks
    "convert-scf-to-cf",
    # gpu.func/thread_id/barrier... -> llvm/nvvm; through the ConvertToLLVM interfaces it
    # also lowers arith, cf, index, func, math (inline nvvm or __nv_* calls) and nvvm ops
    "gpu.module(convert-gpu-to-nvvm)",
    # drop the casts between the builtin and LLVM types left by the conversions above
    "reconcile-unrealized-casts",
)

# Lowest PTX ISA version each target accepts (PTX ISA manual, "PTX ISA notes" per target).
_MIN_PTX_VERSION = {75: 63, 80: 70, 86: 71, 87: 74, 89: 78, 90: 78, 100: 86, 103: 88, 120: 87}
DEFAULT_PTX_VERSION = 80
FP8_PTX_VERSION = 84
_TRIPLE = "nvptx64-nvidia-cuda"


def pipeline(passes: tuple[str, ...]) -> str:
    """The textual pipeline that runs `passes` on the top-level module."""
    return f"builtin.module({','.join(passes)})"


def bitcode_passes(chip: str, ptx_version: int) -> tuple[str, ...]:
    """Passes that turn every LLVM-dialect `gpu.module` into a `gpu.binary` of LLVM bitcode."""
    return (
        f"nvvm-attach-target{{chip={chip} features=+ptx{ptx_version} O=3}}",
        "gpu-module-to-binary{format=llvm}",
    )


def default_ptx_version(arch: int | str) -> int:
    """PTX ISA version (80 means 8.0) to emit for `arch`: 8.0 (8.4 from sm_89 on, for fp8
    mma.sync and vector atomics), or the target's minimum if newer."""
    number, _ = parse_arch(arch)
    base = FP8_PTX_VERSION if number >= 89 else DEFAULT_PTX_VERSION
    return max(base, _MIN_PTX_VERSION.get(number, DEFAULT_PTX_VERSION))


def _chip(arch: int | str) -> str:
    number, suffix = parse_arch(arch)
    return f"sm_{number}{suffix}"


def _run(module: ir.Module, passes: tuple[str, ...]) -> None:
    from mlir.passmanager import PassManager

    PassManager.parse(pipeline(passes), context=module.context).run(module.operation)


# the kernel's source lines as PTX `.loc` directives (step 1)
LINE_INFO_PASS = "ensure-debug-info-scope-on-llvm-func{emission-kind=DebugDirectivesOnly}"


def lower_to_llvm_dialect(module: ir.Module, line_info: bool = False) -> None:
    """Run `LLVM_DIALECT_PASSES` (and with `line_info`, `LINE_INFO_PASS`) on `module` (an
    `ir.Module`) in place."""
    _run(module, LLVM_DIALECT_PASSES + ((LINE_INFO_PASS,) if line_info else ()))


def _bitcode(module: ir.Module, chip: str, ptx_version: int) -> bytes:
    """Serialize the one `gpu.module` of an LLVM-dialect module to LLVM bitcode."""
    from mlir.dialects import gpu

    _run(module, bitcode_passes(chip, ptx_version))
    binaries = [op for op in module.body.operations if op.operation.name == "gpu.binary"]
    if len(binaries) != 1:
        raise ValueError(f"expected exactly one gpu.module, found {len(binaries)}")
    objects = binaries[0].attributes["objects"]
    return gpu.ObjectAttr(objects[0]).object


_FLOAT_ARITH = ("llvm.fmul", "llvm.fadd", "llvm.fsub")


def _with_contract(ir, op) -> None:
    flags = op.attributes["fastmathFlags"] if "fastmathFlags" in op.attributes else None
    text = str(flags) if flags is not None else "#llvm.fastmath<none>"
    names = [n.strip() for n in text[text.index("<") + 1:text.rindex(">")].split(",")]
    names = [n for n in names if n not in ("none", "", "contract")] + ["contract"]
    op.attributes["fastmathFlags"] = ir.Attribute.parse(f"#llvm.fastmath<{', '.join(names)}>")


def mark_functions(module: ir.Module, chip: str, fp_fusion: bool) -> None:
    """Set `target_cpu` on every `llvm.func` and, with `fp_fusion`, the `contract` flag on
    every llvm.fmul/fadd/fsub of an LLVM-dialect module (in place)."""
    ir = mlir_loader.load()
    chip_attr = ir.StringAttr.get(chip)

    def visit(op):
        if op.name == "llvm.func":
            op.attributes["target_cpu"] = chip_attr
        elif fp_fusion and op.name in _FLOAT_ARITH:
            _with_contract(ir, op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def mlir_to_llvm_ir(mlir_module: str | ir.Module, kernel_name: str, arch: int | str,
                    ptx_version: int | None = None, fp_fusion: bool = True,
                    libdevice: str | None = None, line_info: bool = False) -> str:
    """The LLVM IR after O3 of `kernel_name` in `mlir_module` (text or `ir.Module`, left
    unchanged): steps 1 to 4 of the module docstring."""
    mlir_ir = mlir_loader.load()
    version = default_ptx_version(arch) if ptx_version is None else ptx_version
    if isinstance(mlir_module, str):
        context = mlir_ir.Context()
        module = mlir_ir.Module.parse(mlir_module, context=context)
    else:
        context = mlir_module.context
        module = mlir_module.operation.clone()
    with context:
        lower_to_llvm_dialect(module, line_info)
        check_llvm_types(module, kernel_name)
        mark_functions(module, _chip(arch), fp_fusion)
        bitcode = _bitcode(module, _chip(arch), version)
    return optimize_llvm_ir(bitcode, kernel_name, arch, version, libdevice)


def llvm_module_to_ptx(
    mlir_module: str | ir.Module, kernel_name: str, arch: int | str, ptx_version: int | None = None,
    fp_fusion: bool = True,
) -> tuple[str, str]:
    """(LLVM IR, PTX) for `kernel_name` in `mlir_module` (text or `ir.Module`, left unchanged)."""
    llir = mlir_to_llvm_ir(mlir_module, kernel_name, arch, ptx_version, fp_fusion)
    return llir, emit_ptx(llir, arch, ptx_version)


@functools.cache
def _init_llvm() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def _target_machine(chip: str, ptx_version: int) -> llvm.TargetMachine:
    _init_llvm()
    target = llvm.Target.from_triple(_TRIPLE)
    return target.create_target_machine(cpu=chip, features=f"+ptx{ptx_version}", opt=3)


def _link_libdevice(module: llvm.ModuleRef, path: str | None) -> None:
    """Link libdevice (the one at `path`, else the one found) into `module` if it calls an
    `__nv_*` function it does not define."""
    if any(f.is_declaration and f.name.startswith("__nv_") for f in module.functions):
        with open(path or knobs.libdevice_path(), "rb") as f:
            module.link_in(llvm.parse_bitcode(f.read()))


def _internalize_all_but(module: llvm.ModuleRef, kernel_name: str) -> None:
    """Internal linkage for every defined function but the kernel, so O3 can inline and drop
    them (after a libdevice link this keeps ~500 unused functions out of the PTX)."""
    for function in module.functions:
        if function.name != kernel_name and not function.is_declaration:
            function.linkage = llvm.Linkage.internal


def optimize_llvm_ir(llvm_ir: str | bytes, kernel_name: str, arch: int | str,
                     ptx_version: int | None = None, libdevice: str | None = None) -> str:
    """LLVM IR after O3 from LLVM IR text or bitcode defining the kernel `kernel_name`
    (libdevice, the one at `libdevice` if given, linked in when needed; every other
    function internal)."""
    version = default_ptx_version(arch) if ptx_version is None else ptx_version
    machine = _target_machine(_chip(arch), version)
    if isinstance(llvm_ir, bytes):
        module = llvm.parse_bitcode(llvm_ir)
    else:
        module = llvm.parse_assembly(llvm_ir)
    defined = [f.name for f in module.functions if not f.is_declaration]
    if kernel_name not in defined:
        raise ValueError(f"kernel {kernel_name!r} is not defined; defined functions: {defined}")
    _link_libdevice(module, libdevice)
    _internalize_all_but(module, kernel_name)
    module.triple = _TRIPLE
    module.data_layout = str(machine.target_data)
    module.verify()

    tuning = llvm.create_pipeline_tuning_options(speed_level=3)
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return str(module)


def emit_ptx(llvm_ir: str, arch: int | str, ptx_version: int | None = None) -> str:
    """PTX for `sm_<arch>` from optimized LLVM IR text."""
    version = default_ptx_version(arch) if ptx_version is None else ptx_version
    machine = _target_machine(_chip(arch), version)
    module = llvm.parse_assembly(llvm_ir)
    module.triple = _TRIPLE
    module.data_layout = str(machine.target_data)
    return machine.emit_assembly(module)


def llvm_ir_to_ptx(
    llvm_ir: str | bytes, kernel_name: str, arch: int | str, ptx_version: int | None = None
) -> tuple[str, str]:
    """(LLVM IR after O3, PTX) from LLVM IR text or bitcode defining the kernel `kernel_name`."""
    llir = optimize_llvm_ir(llvm_ir, kernel_name, arch, ptx_version)
    return llir, emit_ptx(llir, arch, ptx_version)


_TARGET_CPU = re.compile(r'"target-cpu"="(sm_\w+)"')


def llvm_ir_target(llvm_ir: str) -> str | None:
    """The chip (`sm_90a`) named by the `target-cpu` of LLVM IR made by `mlir_to_llvm_ir`."""
    match = _TARGET_CPU.search(llvm_ir)
    return match.group(1) if match else None
