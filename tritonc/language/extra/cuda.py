"""CUDA-specific builtins: `tl.extra.cuda.globaltimer()`, `smid()`, `num_warps()`,
`num_threads()`.

`globaltimer` and `smid` read PTX special registers (`nvvm.read.ptx.sreg.*` from TTIR
on); every `globaltimer()` call is its own read, never merged with another or moved. In
the interpreter they are the host's nanosecond clock and 0. `num_warps` and `num_threads`
are constexprs of the launch the kernel is compiled (or interpreted) for.
"""

from __future__ import annotations

from tritonc.language import dtypes as T
from tritonc.language.core import builtin, constexpr, tensor


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
