"""convert-to-ttgir: TTIR -> TTGIR: the options on the module, a layout on every tensor.

Before (TTIR):
    module {
      func.func public @k(...) {
        %0 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
After (num-warps = 4, target = cuda:90, num-stages = 3):
    module attributes {ttg.num-stages = 3 : i32, ttg.num-warps = 4 : i32,
                       ttg.target = "cuda:90", ttg.threads-per-warp = 32 : i32} {
      func.func public @k(...) {
        %0 = "tt.make_range"() {...} : () -> tensor<1024xi32, #ttg.blocked<[8], [32], [4], [0]>>

The module attributes are what every later pass and stage reads (`module_options`), so a
printed .ttgir compiles on its own. The layouts are those of `assign_layouts`. On sm_90
a kernel of one warpgroup whose warp-specialized loop multiplies 128-row tiles runs two
consumer warpgroups (`ttg.num-warps = 8`, `warp_specialize.consumer_warps`).
Options: `num-warps`, `threads-per-warp`, `target`, `num-stages`; a module that already
carries an attribute keeps it unless the option is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from tritonc.passes.ttgir.assign_layouts import assign_layouts

NUM_WARPS = "ttg.num-warps"
THREADS_PER_WARP = "ttg.threads-per-warp"
TARGET = "ttg.target"
NUM_STAGES = "ttg.num-stages"


@dataclass(frozen=True)
class ModuleOptions:
    """The compilation options a TTGIR module carries."""

    num_warps: int
    threads_per_warp: int
    target: str
    num_stages: int

    @property
    def arch(self) -> int:
        from tritonc.backends.base import parse_target

        return parse_target(self.target).arch


def _int_attr(module, name: str) -> int | None:
    from mlir import ir

    attrs = module.operation.attributes
    return ir.IntegerAttr(attrs[name]).value if name in attrs else None


def module_options(module) -> ModuleOptions:
    """The options written by convert-to-ttgir; ValueError naming a missing attribute."""
    from mlir import ir

    attrs = module.operation.attributes
    missing = [n for n in (NUM_WARPS, TARGET) if n not in attrs]
    if missing:
        raise ValueError(f"the module has no {missing[0]!r} attribute: it is not TTGIR made "
                         "by convert-to-ttgir (run that pass first)")
    return ModuleOptions(_int_attr(module, NUM_WARPS),
                         _int_attr(module, THREADS_PER_WARP) or 32,
                         ir.StringAttr(attrs[TARGET]).value,
                         _int_attr(module, NUM_STAGES) or 1)


def set_module_options(module, num_warps: int | None = None, threads_per_warp: int | None = None,
                       target: str | None = None, num_stages: int | None = None) -> None:
    """Write the given options as module attributes (the others are left as they are)."""
    from mlir import ir

    with module.context:
        i32 = ir.IntegerType.get_signless(32)
        attrs = module.operation.attributes
        for name, value in ((NUM_WARPS, num_warps), (THREADS_PER_WARP, threads_per_warp),
                            (NUM_STAGES, num_stages)):
            if value is not None:
                attrs[name] = ir.IntegerAttr.get(i32, int(value))
        if target is not None:
            attrs[TARGET] = ir.StringAttr.get(str(target))


def convert_to_ttgir(module, num_warps: int | None = None, threads_per_warp: int | None = None,
                     target: str | None = None, num_stages: int | None = None) -> None:
    """Write the options on `module` (defaults: 4 warps of 32 threads, cuda:90, 3 stages,
    or what the module carries), then give every tensor its blocked layout."""
    attrs = module.operation.attributes
    defaults = {NUM_WARPS: 4, THREADS_PER_WARP: 32, TARGET: "cuda:90", NUM_STAGES: 3}
    given = {NUM_WARPS: num_warps, THREADS_PER_WARP: threads_per_warp, TARGET: target,
             NUM_STAGES: num_stages}
    values = {n: v if v is not None else (None if n in attrs else defaults[n])
              for n, v in given.items()}
    set_module_options(module, values[NUM_WARPS], values[THREADS_PER_WARP], values[TARGET],
                       values[NUM_STAGES])
    options = module_options(module)
    if options.arch == 90:
        from tritonc.passes.ttgir.warp_specialize import consumer_warps

        set_module_options(module, consumer_warps(module, options.num_warps))
        options = module_options(module)
    if options.threads_per_warp != 32:
        raise ValueError(f"threads-per-warp must be 32, got {options.threads_per_warp}")
    assign_layouts(module, options.num_warps)
