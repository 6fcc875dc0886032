"""CUDA-specific builtins: `tl.extra.cuda.globaltimer()`, `smid()`, `num_warps()`,
`num_threads()`, `gdc_wait()`, `gdc_launch_dependents()`.

`globaltimer` and `smid` read PTX special registers (`nvvm.read.ptx.sreg.*` from TTIR
on); every `globaltimer()` call is its own read, never merged with another or moved. In
the interpreter they are the host's nanosecond clock and 0. `num_warps` and `num_threads`
are constexprs of the launch the kernel is compiled (or interpreted) for.

`gdc_wait` and `gdc_launch_dependents` are the grid-dependency controls of programmatic
dependent launch (`griddepcontrol.wait` / `.launch_dependents`, sm_90 on): wait until the
grids this one depends on have finished (or flushed their memory), and let the grids that
depend on this one start. Without a dependent launch both return at once; in the
interpreter, whose programs run one after another, they do nothing.
"""

from __future__ import annotations

from tritonc.language import dtypes as T
from tritonc.language.core import builtin, constexpr, tensor
from tritonc.language.extra import libdevice  # noqa: F401 (`tl.extra.cuda.libdevice`, as in Triton)


@builtin
def globaltimer(_semantic=None) -> tensor:
    """The GPU's global nanosecond timer (`%globaltimer`), an int64."""
    return _semantic.special_register("globaltimer", T.int64)


@builtin
def smid(_semantic=None) -> tensor:
    """The id of the streaming multiprocessor running this thread (`%smid`), an int32."""
    return _semantic.special_register("smid", T.int32)


@builtin
def num_warps(_semantic=None) -> constexpr:
    """The warps of each program, a constexpr."""
    return constexpr(_semantic.num_warps)


@builtin
def num_threads(_semantic=None) -> constexpr:
    """The threads of each program (32 per warp), a constexpr."""
    return constexpr(32 * _semantic.num_warps)


def _grid_dependency_control(instruction: str, _semantic) -> None:
    if _semantic.builder.concrete:
        return None
    _semantic.inline_asm(f"griddepcontrol.{instruction}; // $0", "=r", [], [T.int32], False, 1)
    return None


@builtin
def gdc_wait(_semantic=None) -> None:
    """Wait for the grids this one depends on (`griddepcontrol.wait`, sm_90 on)."""
    return _grid_dependency_control("wait", _semantic)


@builtin
def gdc_launch_dependents(_semantic=None) -> None:
    """Let the grids that depend on this one start (`griddepcontrol.launch_dependents`)."""
    return _grid_dependency_control("launch_dependents", _semantic)
