"""`kernel[grid](*args, **kwargs)`: bind the arguments, then run on the GPU or interpret.

Arguments are bound to the kernel's parameters once; constexprs (and the launch
options `num_warps`, `num_stages`, `stream`) are taken out of the keyword arguments.
With `TRITONC_INTERPRET=1` in the environment, or `@jit(interpret=True)`, the kernel
runs in the numpy interpreter (`backends/interpreter/launch.py`); otherwise it is
compiled for the current GPU and launched through the CUDA driver.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "stream", "maxnreg", "enable_fp_fusion")


def interpret_requested(fn) -> bool:
    """Whether `fn` runs in the interpreter: its own setting, else TRITONC_INTERPRET."""
    if fn.interpret is not None:
        return bool(fn.interpret)
    return os.environ.get("TRITONC_INTERPRET", "0").lower() in ("1", "true", "yes", "on")


def normalize_grid(grid: Any, bound: dict[str, Any]) -> tuple[int, int, int]:
    """A grid tuple (1 to 3 ints) or a callable of the bound arguments, as (x, y, z)."""
    if callable(grid):
        grid = grid(bound)
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"the grid must have 1 to 3 dimensions, got {grid}")
    if any(g < 0 for g in grid):
        raise ValueError(f"grid dimensions must not be negative, got {grid}")
    return grid + (1,) * (3 - len(grid))


def split_options(kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    options = {k: kwargs.pop(k) for k in LAUNCH_OPTIONS if k in kwargs}
    return kwargs, options


def make_launch(fn, grid: Any, warmup: bool = False) -> Callable:
    """The callable behind `fn[grid]`."""

    def launch(*args, **kwargs):
        kwargs, options = split_options(dict(kwargs))
        bound = fn.bind(args, kwargs)
        if interpret_requested(fn):
            from tritonc.backends.interpreter.launch import interpret

            if warmup:
                return None
            return interpret(fn, normalize_grid(grid, bound), bound)
        from tritonc.runtime.gpu_launch import launch_on_gpu

        return launch_on_gpu(fn, grid, bound, options, warmup)

    return launch
