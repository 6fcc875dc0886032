"""The CUDA pipeline, stage by stage: ttir -> ttgir -> llir -> ptx -> cubin.

Each stage is a function `(source, metadata, options) -> output` (see `backends/base.py`);
the TTIR and TTGIR stages are flat lists of pass names (`tritonc.passes`), upstream MLIR
passes and tritonc's side by side (the names `tritonc opt --passes` takes).

    ttir   ttir_passes(): rewrite-block-pointers (loads and stores through block pointers
           become tensors of pointers and masks, as pointer tiles are written; on sm_90
           with `launch_tensormaps`, a dot's tile in a loop that TMA can copy becomes a
           descriptor load),
           cleanup (CSE and DCE of pure tt ops, canonicalize, cse), while-to-for (a
           while loop counting up to a bound is an scf.for), reduce-to-dot
           (a sum of broadcast products is a dot), combine
           (`acc += tl.dot(a, b)` accumulates in the dot), loop-invariant code motion,
           loop-unroll (`tl.range(loop_unroll_factor=k)`), symbol-dce
    ttgir  ttgir_passes(): convert-to-ttgir (module attributes ttg.num-warps,
           ttg.threads-per-warp, ttg.target, ttg.num-stages; default blocked layouts),
           coalesce (loads and stores along the dimension their addresses run along),
           slice-layouts (row statistics in the sliced layout of their rows),
           operand-order (dot tiles of transposed views load along their contiguous
           dimension; fp8 and tf32 tiles wgmma reads K-major hold runs along K),
           mma-layouts, propagate-mma, blocked-views (reshape, trans, split and join of
           blocked tensors move no data where that lowers the bytes moved between
           threads), carried-layouts (a loop accumulating a load
           whose layout coalesce changed accumulates in that layout), thread-locality
           (loop-carried row reductions accumulate within each thread, crossing threads
           after the loop),
           cleanup (a layout conversion the passes above left in a loop that repeats
           one before it is the earlier one: no conversion of an invariant in the body),
           hoist-tensormaps (sm_90, `launch_tensormaps`: a descriptor made from kernel
           arguments gets a map argument the launch encodes, `tt.tensormaps`),
           software-pipeline (the loops whose dot tiles stream through a cp.async ring:
           its depth and buffers, the loads it takes, the wgmma left in flight; else the
           tiles prefetched into registers), warp-specialize (sm_90: the TMA ring of a
           `warp_specialize` loop is filled by a producer warpgroup), read-back-operands
           (a tile read back from the ring for an mma.sync dot goes straight into the
           operand's registers),
           rematerialize-loads (a tensor of fewer elements than threads, loaded and
           converted, is loaded in the converted layout)
    llir   convert-ttgir-to-llvm (options read from the module's attributes), the upstream
           conversions to the LLVM dialect, the `contract` flag on float arithmetic when
           `enable_fp_fusion`, gpu-module-to-binary and O3 (llvm_to_ptx.py): LLVM IR
    ptx    the NVPTX target machine for the `target-cpu` the LLVM IR names, then
           fuse-mad-wide (ptx_peephole.py: `mul.wide` + `add.s64` -> `mad.wide`)
    cubin  ptxas for the `.target` the PTX names; its -v report joins the metadata. A
           kernel that fits a full SM's registers is assembled again for half an SM
           (`.minnctapersm`, `blocks_for_half_sm`), one an eighth of its registers short
           of another block per SM for that block, unless it then spills or ptxas
           refuses the bound (`one_more_block`)

Every stage reads what it needs from its input (module attributes, the LLVM IR's
`target-cpu`, the PTX's `.target` and `.entry`), so a dumped .ttgir, .llir or .ptx
compiles on its own.
"""

from __future__ import annotations

import re
import warnings

from tritonc.aot.occupancy import occupancy, sm_limits
from tritonc.backends.cuda import llvm_to_ptx, ptx_peephole
from tritonc.backends.cuda.options import CUDAOptions, line_info
from tritonc.backends.cuda.ptxas import PtxasError, compile_ptx
from tritonc.passes import run_passes
from tritonc.passes.ttgir import ops_named


def ttir_passes(options: CUDAOptions, target: str) -> tuple[str, ...]:
    """The TTIR stage's passes for `options` on `target` (`cuda:90`). The tt ops (IRDL)
    have no traits: `cleanup` merges and erases the pure ones by the op tables, then runs
    canonicalize and cse; the upstream passes after it hoist and drop only the
    arith/scf/math ops and functions around them."""
    tma = target == "cuda:90" and options.launch_tensormaps
    return (
        f"rewrite-block-pointers{{descriptors={'true' if tma else 'false'}}}",
        "cleanup",
        "while-to-for",
        "reduce-to-dot",
        "combine",
        "loop-invariant-code-motion",
        "loop-unroll",
        "symbol-dce",
    )


def ttgir_passes(options: CUDAOptions, target: str) -> tuple[str, ...]:
    """The TTGIR stage's passes for `options` on `target` (`cuda:90`)."""
    return (
        f"convert-to-ttgir{{num-warps={options.num_warps} "
        f"threads-per-warp={options.threads_per_warp} target={target} "
        f"num-stages={options.num_stages}}}",
        "coalesce",
        "slice-layouts",
        "operand-order",
        "mma-layouts",
        "propagate-mma",
        "blocked-views",
        "carried-layouts",
        "thread-locality",
        "cleanup",
        *(("hoist-tensormaps",) if options.launch_tensormaps else ()),
        "software-pipeline",
        "warp-specialize",
        "read-back-operands",
        "rematerialize-loads",
    )


def make_ttir(module, metadata: dict, options: CUDAOptions, target: str):
    """TTIR -> TTIR, in place. Warns, as Triton does, of fp8e4b15 dots from Hopper on."""
    if int(target.split(":")[1]) >= 90 and any(
            "f8E4M3B11FNUZ" in str(dot.operands[0].type) for dot in ops_named(module, "tt.dot")):
        warnings.warn("the use of fp8e4b15 is deprecated on Hopper and later architectures "
                      "and can be much slower than fp8e4nv (float8e4nv)", UserWarning,
                      stacklevel=2)
    return run_passes(module, ttir_passes(options, target))


def make_ttgir(module, metadata: dict, options: CUDAOptions, target: str):
    """TTIR -> TTGIR, in place."""
    return run_passes(module, ttgir_passes(options, target))


def make_llir(module, metadata: dict, options: CUDAOptions) -> str:
    """TTGIR -> LLVM IR after O3; a kernel using sm_90a-only instructions (wgmma) is
    compiled for that target (`ptx_arch` in the metadata); with the kernel's source lines
    as debug locations unless `knobs.compilation.disable_line_info`."""
    from tritonc.passes.to_llvm.lowering import lower_module
    from tritonc.passes.ttgir.convert_to_ttgir import module_options
    from tritonc.passes.ttgir.hoist_tensormaps import kernel_maps

    carried = module_options(module)
    maps = kernel_maps(module)
    if maps:
        metadata["tensormaps"] = maps
    lowered = lower_module(module, carried.num_warps, carried.num_stages, carried.arch)
    metadata.setdefault("name", lowered.name)
    metadata.update(num_warps=carried.num_warps, num_stages=carried.num_stages,
                    shared=lowered.smem_bytes)
    if lowered.producer_warps:  # launched beside num_warps (warp_roles.py)
        metadata["producer_warps"] = lowered.producer_warps
    metadata["threads"] = 32 * (carried.num_warps + lowered.producer_warps)  # a block's
    metadata["ptx_arch"] = f"{carried.arch}a" if lowered.arch_specific else str(carried.arch)
    return llvm_to_ptx.mlir_to_llvm_ir(lowered.module, lowered.name, metadata["ptx_arch"],
                                       fp_fusion=options.enable_fp_fusion,
                                       libdevice=options.libdevice(), line_info=line_info())


def make_ptx(llir: str, metadata: dict, options: CUDAOptions) -> str:
    """LLVM IR -> PTX for the chip the IR names (else the metadata's `ptx_arch`), with
    single-use widening multiplies fused into their adds (`ptx_peephole`); with
    `maxnreg`, the kernel's entry carries the `.maxnreg` directive (ptxas is given it too)."""
    chip = llvm_to_ptx.llvm_ir_target(llir)
    arch = chip[len("sm_"):] if chip else metadata["ptx_arch"]
    metadata["ptx_arch"] = arch
    ptx = ptx_peephole.fuse_mad_wide(llvm_to_ptx.emit_ptx(llir, arch))
    if options.maxnreg is not None:
        ptx = _ENTRY_BODY.sub(rf"\1.maxnreg {options.maxnreg}\n{{", ptx, count=1)
    return ptx


_PTX_TARGET = re.compile(r"^\.target\s+sm_(\w+)", re.MULTILINE)
_PTX_ENTRY = re.compile(r"^\.visible \.entry (\S+?)\(", re.MULTILINE)
_ENTRY_BODY = re.compile(r"(^\.visible \.entry [^{]*?\)[^{]*?\n)\{", re.MULTILINE)


def make_cubin(ptx: str, metadata: dict, options: CUDAOptions) -> bytes:
    """PTX -> cubin with ptxas for the PTX's own `.target` and `.entry`; a kernel ptxas
    fits into the registers of a full SM is assembled again for half of one
    (`blocks_for_half_sm`), one an eighth of its registers short of another block per SM
    for that block (`one_more_block`, kept if ptxas assembles it without spilling); a
    kernel that spills already is kept as it is (a bound would only spill more)."""
    target, entry = _PTX_TARGET.search(ptx), _PTX_ENTRY.search(ptx)
    if target is None or entry is None:
        raise ValueError("the PTX has no `.target sm_XX` line or no `.visible .entry`")
    arch, name = target.group(1), entry.group(1)
    metadata["ptx_arch"] = arch
    metadata.setdefault("name", name)
    cubin, report = compile_ptx(ptx, arch, name, options.maxnreg)
    if not (options.maxnreg or report["spill_stores"] or report["spill_loads"]):
        half = blocks_for_half_sm(ptx, arch, report["registers"])
        more = None if half else one_more_block(ptx, arch, report["registers"],
                                                metadata.get("shared", 0))
        if half:
            cubin, report = _assemble_for(ptx, arch, name, half)
        elif more:
            try:
                bound = _assemble_for(ptx, arch, name, more)
            except PtxasError:  # an instruction needs more registers than the bound
                bound = None
            if bound and not (bound[1]["spill_stores"] or bound[1]["spill_loads"]):
                cubin, report = bound
    metadata["ptxas"] = report
    return cubin


_REQNTID = re.compile(r"^\.reqntid (\d+).*$", re.MULTILINE)
# PTX that bounds its own registers or occupancy (a warp-specialized kernel moves
# registers between its warps with setmaxnreg, sized for one block per SM)
_OWN_BOUNDS = (".minnctapersm", ".maxnreg", ".maxntid", "setmaxnreg")


def _assemble_for(ptx: str, arch: str, name: str, blocks: int) -> tuple[bytes, dict]:
    """ptxas on `ptx` with `.minnctapersm blocks`; the report records the bound."""
    cubin, report = compile_ptx(_REQNTID.sub(rf"\g<0>\n.minnctapersm {blocks}", ptx, count=1),
                                arch, name)
    report["min_ctas_per_sm"] = blocks
    return cubin, report
_HALF_SM_THREADS = 1024


_REGISTER_TRIM = 8  # one more block may cost at most an eighth of a kernel's registers


def one_more_block(ptx: str, arch: str, registers: int, shared: int) -> int | None:
    """The `.minnctapersm` of one block per SM more than a kernel's `registers` let run,
    when its shared memory and threads would take that block and ptxas need give up at
    most an eighth of the registers for it (the caller keeps the first cubin if the
    second spills or ptxas refuses the bound); None for every other kernel.

    A kernel of 4 warps at 175 registers with 64 KB of shared memory per block (a
    128 x 128 x 64 fp8 matmul's ring): two blocks per SM by registers, three by shared
    memory; at 168 registers, three."""
    block = _REQNTID.search(ptx)
    if block is None or any(d in ptx for d in _OWN_BOUNDS):
        return None
    warps, sm = int(block.group(1)) // 32, int(re.match(r"\d+", arch).group(0))
    try:
        occ = occupancy(sm, registers, shared, warps)
    except KeyError:
        return None
    wanted = occ.blocks_per_sm + 1
    if occ.limiter != "registers" or min(occ.by_shared, occ.by_threads) < wanted:
        return None
    cap = sm_limits(sm).regs // (wanted * warps * 32) // 8 * 8  # whole allocation units
    return wanted if cap >= registers - registers // _REGISTER_TRIM else None


def blocks_for_half_sm(ptx: str, arch: str, registers: int) -> int | None:
    """The `.minnctapersm` that asks ptxas for half an SM's threads, for a kernel it fit
    into `registers` few enough for a full SM (2048 threads on sm_80 and sm_90, 32
    registers each); None for other kernels.

    For such a kernel ptxas schedules for full occupancy, issuing each load next to its
    first use: a loop of 16 independent loads keeps one in flight. Asked for half an SM,
    it keeps them in flight together (a tile reduction: 32 -> 48 registers, 1.4x faster).
    A kernel with one global load has nothing to overlap it with and keeps its occupancy
    (a welford loop loses a fifth of its speed at half); PTX that states its own register
    or occupancy bounds is assembled as it is."""
    block = _REQNTID.search(ptx)
    threads = int(block.group(1)) if block else 0
    limits = sm_limits(int(re.match(r"\d+", arch).group(0)))
    if not 0 < threads < _HALF_SM_THREADS or ptx.count("ld.global") < 2 \
            or registers > limits.regs // limits.threads \
            or any(d in ptx for d in _OWN_BOUNDS):
        return None
    return _HALF_SM_THREADS // threads
