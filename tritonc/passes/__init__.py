"""The passes of tritonc, by name, and a runner for lists that mix them with MLIR's own.

Every tritonc pass is registered here under the name `tritonc opt --passes` and the
stage lists of `backends/cuda/stages.py` use. A pass is a function
`(module, **options)` that changes `module` in place or returns a new module; its
documentation (the IR before and after) is the docstring of the module that defines it,
which `tritonc opt --list` prints. Importing this package imports no MLIR: each pass is
imported when it is first run.

    convert-to-ttgir       TTIR -> TTGIR: module attributes and default blocked layouts
    assign-layouts         a blocked layout on every tensor without one
    coalesce               loads and stores along the dimension their addresses run along
    slice-layouts          row statistics in the sliced layout of the rows they meet
    operand-order          dot tiles of transposed views load along their contiguous dim
    mma-layouts            fp16/bf16 dot accumulators in the tensor-core layout
    propagate-mma          the users of a dot's result compute in its layout too
    blocked-views          view ops of blocked tensors move no data where that saves moves
    carried-layouts        loops accumulating what they load do so in the load's layout
    thread-locality        loop-carried row reductions accumulate within each thread
    hoist-tensormaps       descriptors made from kernel arguments get launch-encoded maps
    software-pipeline      loops feeding dots: ring depth, pipelined loads, dot in flight
    warp-specialize        a warp_specialize loop's TMA ring copied by a producer warpgroup
    read-back-operands     tiles read back from the ring go straight into mma.sync operands
    rematerialize-loads    a small tensor converted after its load is loaded in that layout
    convert-ttgir-to-llvm  TTGIR -> a gpu.module of per-thread llvm/nvvm/arith/scf code
    cleanup                CSE and DCE of pure tt/ttg ops, then canonicalize and cse
    loop-unroll            loops of `tl.range(loop_unroll_factor=k)` unrolled k times (TTIR)
    rewrite-block-pointers block pointers as tensors of pointers and masks (TTIR)
    combine                x + dot(a, b, 0) is dot(a, b, x) (TTIR)
    while-to-for           a while loop counting up to a bound is an scf.for (TTIR)

A name in a pass list that is not registered here is an upstream MLIR pass
(`canonicalize`, `cse`, `loop-invariant-code-motion`, `symbol-dce`, ...), run through
`PassManager.parse`. Options follow the name in braces, as in MLIR:
`convert-to-ttgir{num-warps=8 target=cuda:80}`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PassInfo:
    """A registered pass: where its function lives and which options it takes."""

    name: str
    module: str
    function: str
    options: tuple[str, ...] = ()
    doc_module: str | None = None

    def load(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.function)

    @property
    def doc(self) -> str:
        """The docstring of the module that defines the pass (IR before and after)."""
        return importlib.import_module(self.doc_module or self.module).__doc__ or ""


def _ttgir_options(module):
    from tritonc.passes.ttgir.convert_to_ttgir import module_options

    return module_options(module)


def assign_layouts_pass(module, num_warps: int | None = None) -> None:
    """assign-layouts with the module's `ttg.num-warps` (or the option)."""
    from tritonc.passes.ttgir.assign_layouts import assign_layouts

    assign_layouts(module, num_warps or _ttgir_options(module).num_warps)


def mma_layouts_pass(module) -> None:
    """mma-layouts for the module's `ttg.num-warps` and `ttg.target`."""
    from tritonc.passes.ttgir.mma_layouts import assign_mma_layouts

    options = _ttgir_options(module)
    assign_mma_layouts(module, options.num_warps, options.arch)


def coalesce_pass(module, num_warps: int | None = None) -> None:
    """coalesce with the module's `ttg.num-warps` (or the option)."""
    from tritonc.passes.ttgir.coalesce import coalesce

    coalesce(module, num_warps or _ttgir_options(module).num_warps)


def operand_order_pass(module) -> None:
    """operand-order with the module's `ttg.num-warps` and `ttg.target`."""
    from tritonc.passes.ttgir.operand_order import order_dot_operands

    options = _ttgir_options(module)
    order_dot_operands(module, options.num_warps, options.arch)


def convert_ttgir_to_llvm_pass(module):
    """convert-ttgir-to-llvm with the module's options; returns the new gpu.module's module."""
    from tritonc.passes.to_llvm.lowering import lower_module

    options = _ttgir_options(module)
    return lower_module(module, options.num_warps, options.num_stages, options.arch).module


_SELF = "tritonc.passes"
PASSES: dict[str, PassInfo] = {p.name: p for p in (
    PassInfo("convert-to-ttgir", "tritonc.passes.ttgir.convert_to_ttgir", "convert_to_ttgir",
             ("num-warps", "threads-per-warp", "target", "num-stages")),
    PassInfo("assign-layouts", _SELF, "assign_layouts_pass", ("num-warps",),
             "tritonc.passes.ttgir.assign_layouts"),
    PassInfo("coalesce", _SELF, "coalesce_pass", ("num-warps",),
             "tritonc.passes.ttgir.coalesce"),
    PassInfo("slice-layouts", "tritonc.passes.ttgir.slice_layouts", "slice_layouts"),
    PassInfo("operand-order", _SELF, "operand_order_pass", (),
             "tritonc.passes.ttgir.operand_order"),
    PassInfo("mma-layouts", _SELF, "mma_layouts_pass", (), "tritonc.passes.ttgir.mma_layouts"),
    PassInfo("propagate-mma", "tritonc.passes.ttgir.propagate_mma", "propagate_mma_layouts"),
    PassInfo("blocked-views", "tritonc.passes.ttgir.blocked_views", "blocked_views"),
    PassInfo("carried-layouts", "tritonc.passes.ttgir.carried_layouts", "carried_layouts"),
    PassInfo("thread-locality", "tritonc.passes.ttgir.thread_locality", "thread_locality"),
    PassInfo("hoist-tensormaps", "tritonc.passes.ttgir.hoist_tensormaps", "hoist_tensormaps"),
    PassInfo("software-pipeline", "tritonc.passes.ttgir.software_pipeline",
             "software_pipeline"),
    PassInfo("warp-specialize", "tritonc.passes.ttgir.warp_specialize", "warp_specialize"),
    PassInfo("read-back-operands", "tritonc.passes.ttgir.read_back_operands",
             "read_back_operands"),
    PassInfo("rematerialize-loads", "tritonc.passes.ttgir.rematerialize_loads",
             "rematerialize_loads"),
    PassInfo("convert-ttgir-to-llvm", _SELF, "convert_ttgir_to_llvm_pass", (),
             "tritonc.passes.to_llvm.lowering"),
    PassInfo("cleanup", "tritonc.passes.ttgir.cleanup", "cleanup", ("upstream",)),
    PassInfo("loop-unroll", "tritonc.passes.ttir.loop_unroll", "loop_unroll"),
    PassInfo("reduce-to-dot", "tritonc.passes.ttir.reduce_to_dot", "reduce_to_dot"),
    PassInfo("combine", "tritonc.passes.ttir.combine", "combine"),
    PassInfo("while-to-for", "tritonc.passes.ttir.while_to_for", "while_to_for"),
    PassInfo("rewrite-block-pointers", "tritonc.passes.ttir.rewrite_block_pointers",
             "rewrite_block_pointers", ("descriptors",)),
)}


def split_pipeline(text: str) -> list[str]:
    """`a,b{x=1 y=2},c` -> ["a", "b{x=1 y=2}", "c"] (commas inside braces stay)."""
    items, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        current += ch
    items.append(current.strip())
    return [item for item in items if item]


def _parse_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    return int(text) if text.lstrip("-").isdigit() else text


def parse_pass(item: str) -> tuple[str, dict[str, Any]]:
    """`name{key=value key2=value2}` -> (name, {"key": value, ...}) for a tritonc pass."""
    name, _, rest = item.partition("{")
    name = name.strip()
    info = PASSES[name]
    options: dict[str, Any] = {}
    for entry in rest.rstrip("}").replace(",", " ").split():
        key, sep, value = entry.partition("=")
        if not sep or key not in info.options:
            known = ", ".join(info.options) or "none"
            raise ValueError(f"bad option {entry!r} for pass {name} (options: {known})")
        options[key.replace("-", "_")] = _parse_value(value)
    return name, options


def is_registered(item: str) -> bool:
    return item.partition("{")[0].strip() in PASSES


def check_upstream(names: Sequence[str], context) -> None:
    """ValueError naming the first of `names` that MLIR does not know as a pass."""
    from mlir.passmanager import PassManager

    for name in names:
        try:
            PassManager.parse(f"builtin.module({name})", context=context)
        except ValueError:
            raise ValueError(f"unknown pass {name!r} (tritonc passes: {', '.join(PASSES)}; "
                             "or an upstream MLIR pass such as canonicalize, cse)") from None


def run_passes(module, passes: Sequence[str],
               after: Callable[[str, Any], None] | None = None):
    """Run `passes` in order on `module`; return the resulting module (a pass such as
    convert-ttgir-to-llvm returns a new one). `after(name, module)` sees the IR after each
    pass. Consecutive upstream passes run in one PassManager."""
    from mlir.passmanager import PassManager

    index = 0
    while index < len(passes):
        item = passes[index]
        if is_registered(item):
            name, options = parse_pass(item)
            result = PASSES[name].load()(module, **options)
            module = result if hasattr(result, "operation") else module
            index += 1
            if after is not None:
                after(item, module)
            continue
        group = []
        while index < len(passes) and not is_registered(passes[index]):
            group.append(passes[index])
            index += 1
        check_upstream(group, module.context)
        if after is None:
            PassManager.parse(f"builtin.module({','.join(group)})",
                              context=module.context).run(module.operation)
            continue
        for name in group:
            PassManager.parse(f"builtin.module({name})", context=module.context).run(
                module.operation)
            after(name, module)
    return module
