"""convert-ttgir-to-llvm: per-thread code for a TTGIR kernel, one rule per op.

Before (TTGIR):
    func.func public @k(%p: !tt.ptr<f32, 1 : i32>) {
      %r = "tt.make_range"() {...} : () -> tensor<256xi32, #ttg.blocked<[2], [32], [4], [0]>>
      ...
After:
    module attributes {gpu.container_module} {
      gpu.module @kernels {
        llvm.mlir.global external @global_smem() {addr_space = 3 : i32} : !llvm.array<0 x i8>
        gpu.func @k(%p: !llvm.ptr<1>) kernel { <scalar arith/llvm/nvvm/scf per register> }
      }
    }

A rule `@lowering("tt.load") def lower_load(ctx, op) -> list[list[Value]]` returns, for
each result of `op`, the values this thread holds (one per register of the result's
layout). Rules live by family in `elementwise.py`, `memory.py`, `shape.py`,
`reduce.py` and `control.py`; an op without a rule is an error naming it and its
location. Option: `num_warps`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tritonc.passes.to_llvm.context import LoweringContext, LoweringError, ir, pointee_text

Rule = Callable[[LoweringContext, object], list]
RULES: dict[str, Rule] = {}


def lowering(*names: str) -> Callable[[Rule], Rule]:
    """Register a rule for the ops `names`."""

    def register(fn: Rule) -> Rule:
        for name in names:
            RULES[name] = fn
        return fn

    return register


def lower_block(ctx: LoweringContext, block) -> None:
    """Lower every op of `block` at the context's insertion point."""
    for op in block.operations:
        op = op.operation
        rule = RULES.get(op.name)
        if rule is None:
            raise LoweringError(f"{op.location}: the CUDA backend has no lowering for "
                                f"'{op.name}' yet")
        saved = ctx.loc
        ctx.loc = op.location
        try:
            results = rule(ctx, op)
        finally:
            ctx.loc = saved
        for old, regs in zip(op.results, results or []):
            ctx.set(old, regs)


def inline_function(ctx: LoweringContext, func_op, args: list[list]) -> list[list]:
    """Lower the body of a private func.func in place, with `args` for its arguments;
    return the lowered values of its `func.return` operands."""
    block = func_op.regions[0].blocks[0]
    for arg, regs in zip(block.arguments, args):
        ctx.set(arg, regs)
    *body, ret = list(block.operations)
    for op in body:
        op = op.operation
        rule = RULES.get(op.name)
        if rule is None:
            raise LoweringError(f"{op.location}: no lowering for '{op.name}'")
        for old, regs in zip(op.results, rule(ctx, op) or []):
            ctx.set(old, regs)
    return [ctx.get(v) for v in ret.operation.operands]


def _arg_type_text(ty) -> str:
    ptr = pointee_text(ty)
    return f"!llvm.ptr<{ptr[1]}>" if ptr else str(ty)


@dataclass
class LoweredKernel:
    """The result of `lower_module`."""

    module: ir.Module
    name: str
    smem_bytes: int
    arch_specific: bool  # uses instructions of the arch-specific target (sm_90a's wgmma)
    producer_warps: int  # warps launched beyond num_warps (warp_roles.py)


def lower_module(module, num_warps: int, num_stages: int = 1, arch: int = 80) -> LoweredKernel:
    """Lower the public kernel of a TTGIR `module` for compute capability `arch`."""
    # importing the rule families fills RULES
    from tritonc.aot.occupancy import sm_limits
    from tritonc.passes.to_llvm import (  # noqa: F401
        blocks,
        control,
        debug,
        dot,
        elementwise,
        fp_convert,
        inline_asm,
        memory,
        reduce,
        shape,
        warp_roles,
    )
    from tritonc.passes.ttgir.warp_specialize import (
        PRODUCER_WARPS,
        producer_slice,
        without_producer,
    )

    functions = {}
    kernel = None
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        functions[name] = op
        visibility = op.attributes["sym_visibility"] if "sym_visibility" in op.attributes else None
        if visibility is None or ir.StringAttr(visibility).value == "public":
            kernel = op
    if kernel is None:
        raise LoweringError("the module has no public kernel function")
    kname = ir.StringAttr(kernel.attributes["sym_name"]).value
    block = kernel.regions[0].blocks[0]
    for a in block.arguments:
        if str(a.type).startswith("!tt.tensordesc"):
            raise LoweringError("tensor descriptors as kernel arguments are not supported yet; "
                                "make them inside the kernel with tl.make_tensor_descriptor")
    args = ", ".join(f"%a{i}: {_arg_type_text(a.type)}" for i, a in enumerate(block.arguments))
    # The block size is known to the IR and, as `.reqntid`, to ptxas, which then budgets
    # registers for that many threads instead of the 1024 a launch could otherwise have.
    producer_warps = ir.IntegerAttr(kernel.attributes[PRODUCER_WARPS]).value \
        if PRODUCER_WARPS in kernel.attributes else 0
    block_size = f"array<i32: {32 * (num_warps + producer_warps)}, 1, 1>"
    text = f"""
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
    llvm.mlir.global external @global_smem() {{addr_space = 3 : i32, alignment = 1024 : i64}}
        : !llvm.array<0 x i8>
    gpu.func @{kname}({args}) kernel attributes
        {{gpu.known_block_size = {block_size}, nvvm.reqntid = {block_size}}} {{
      gpu.return {kernel.location}
    }} {kernel.location}
  }}
}}"""
    with module.context, kernel.location:
        out = ir.Module.parse(text)
        gpu_module = out.body.operations[0]
        gfunc = gpu_module.regions[0].blocks[0].operations[1]
        body = gfunc.regions[0].blocks[0]
        ret = body.operations[0]
        loc = kernel.location
        ip = ir.InsertionPoint(ret)
        smem = ir.Operation.create("llvm.mlir.addressof", results=[ir.Type.parse("!llvm.ptr<3>")],
                                   attributes={"global_name": ir.FlatSymbolRefAttr.get(
                                       "global_smem")}, loc=loc, ip=ip).results[0]
        ctx = LoweringContext(num_warps, smem, loc)
        ctx.arch = arch
        ctx.functions = functions
        ctx.module_ip = ir.InsertionPoint(gpu_module.regions[0].blocks[0])
        ctx.ip = ip
        ctx.init_thread_ids()
        ctx.num_stages = num_stages
        ctx.pipeline_base = ctx.i32(0)
        ctx.resident_base = ctx.i32(0)
        ctx.entry_ip = ir.InsertionPoint(ctx.pipeline_base.owner)
        for old, new in zip(block.arguments, body.arguments):
            ctx.set(old, [new])
        if producer_warps:
            warp_roles.lower_roles(ctx, block, producer_slice(ctx, kernel), producer_warps)
        else:
            lower_block(ctx, block)
        # ring buffers of pipelined loops share the scratch area unless scratch was used
        # while they were live; then they sit after it
        # (at a 1024-byte boundary: the period of the 128-byte swizzle wgmma reads)
        base = (ctx.smem_bytes + 1023) // 1024 * 1024 if ctx.scratch_in_pipeline else 0
        ctx.pipeline_base.owner.attributes["value"] = ir.IntegerAttr.get(ctx.i32_type(), base)
        # operands stored before their loops (wgmma.py) sit after everything else
        used = max(ctx.smem_bytes, base + ctx.pipeline_bytes)
        resident = (used + 1023) // 1024 * 1024
        ctx.resident_base.owner.attributes["value"] = ir.IntegerAttr.get(ctx.i32_type(),
                                                                         resident)
        if ctx.resident_bytes:
            used = resident + ctx.resident_bytes
        if producer_warps and used > sm_limits(arch).smem_per_block:
            # the ring apart from the scratch area does not fit: no producer after all
            without_producer(kernel)
            return lower_module(module, num_warps, num_stages, arch)
    return LoweredKernel(out, kname, used, ctx.arch_specific, producer_warps)
