"""Benchmarking and comparison helpers, as in `triton.testing`.

`do_bench` times a callable on the GPU with CUDA events: it estimates the runtime from
five runs, derives the warm-up and repetition counts from the `warmup` / `rep` budgets
(in ms), and flushes the L2 cache before every timed run by zeroing a 256 MB buffer.
`assert_close` compares torch tensors, numpy arrays and scalars in float64 and reports
the largest difference and where it is. torch is imported only when needed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Any

L2_FLUSH_BYTES = 256 * 1024 * 1024
_RETURN_MODES = ("min", "max", "mean", "median", "all")


def _quantile(values: Sequence[float], q: Iterable[float]) -> list[float]:
    """Quantiles with linear interpolation between order statistics (as torch.quantile)."""
    data = sorted(values)
    n = len(data)
    out = []
    for p in q:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"quantiles must be in [0, 1], got {p}")
        pos = (n - 1) * p
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        out.append(data[lo] + (data[hi] - data[lo]) * (pos - lo))
    return out


def _summarize(times: list[float], quantiles: Sequence[float] | None,
               return_mode: str) -> float | list[float]:
    if quantiles is not None:
        ret = _quantile(times, quantiles)
        return ret[0] if len(ret) == 1 else ret
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "median":
        return statistics.median(times)
    return statistics.mean(times)


def _cuda_torch() -> Any:
    """torch, when it is installed and sees a CUDA device; otherwise a clear error."""
    try:
        import torch
    except ImportError as e:
        raise RuntimeError("tritonc.testing.do_bench needs torch with CUDA: torch is not "
                           "installed") from e
    if not torch.cuda.is_available():
        raise RuntimeError("tritonc.testing.do_bench needs a CUDA device, and none is visible "
                           "(it times kernels with CUDA events; in the interpreter, time "
                           "with time.perf_counter instead)")
    return torch


def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100,
             grad_to_none: Sequence[Any] | None = None, quantiles: Sequence[float] | None = None,
             return_mode: str = "mean") -> float | list[float]:
    """The runtime of `fn` in milliseconds, measured with CUDA events.

    `warmup` and `rep` are time budgets in ms; the number of runs of each is derived from
    a first estimate over five runs. `grad_to_none`: tensors whose `.grad` is reset before
    every run. Returns the `quantiles` of the times when given (one value when a single
    quantile is asked for), else their `return_mode` ("mean", "median", "min", "max" or
    "all" for the list).
    """
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {_RETURN_MODES}, got {return_mode!r}")
    torch = _cuda_torch()
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)]
    return _summarize(times, quantiles, return_mode)


def _to_float64(value: Any) -> Any:
    """A float64 numpy array of a torch tensor, numpy array, or (nested list of) scalars."""
    import numpy as np

    if type(value).__module__.startswith("torch"):
        value = value.detach()
        if value.is_complex():
            raise TypeError("assert_close does not compare complex tensors")
        value = value.to(device="cpu").double().numpy()
    array = np.asarray(value)
    if array.dtype.kind == "c":
        raise TypeError("assert_close does not compare complex values")
    return array.astype(np.float64)


def _dtype_of(value: Any) -> Any:
    return getattr(value, "dtype", type(value))


def assert_close(x: Any, y: Any, atol: float | Callable[[Any], float] | None = None,
                 rtol: float | Callable[[Any], float] | None = None, err_msg: str = "") -> None:
    """Fail unless |x - y| <= atol + rtol * |y| everywhere (NaNs must match NaNs).

    `x`, `y`: torch tensors, numpy arrays or scalars, compared in float64 after
    broadcasting. `atol` defaults to 1e-2 and `rtol` to 0, as in Triton; either may be a
    function of x's dtype. The message gives the largest difference and its index.
    """
    import numpy as np

    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(_dtype_of(x)) if callable(atol) else float(atol)
    rtol = rtol(_dtype_of(x)) if callable(rtol) else float(rtol)
    a, b = _to_float64(x), _to_float64(y)
    prefix = f"{err_msg}: " if err_msg else ""
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise AssertionError(f"{prefix}shapes {a.shape} and {b.shape} do not match") from None
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    with np.errstate(invalid="ignore"):
        same = (a == b) | (nan_a & nan_b)  # equal infinities count as close
        diff = np.where(same, 0.0, np.abs(a - b))
        diff = np.where(np.isnan(diff), np.inf, diff)
        tolerance = atol + rtol * np.abs(b)
        # A NaN or infinity is close only to itself (the tolerance there may be inf or NaN).
        bad = (diff > tolerance) | (~same & ~(np.isfinite(a) & np.isfinite(b)))
    if not bad.any():
        return
    worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), a.shape)
    where = f" at index {tuple(int(i) for i in worst)}" if a.ndim else ""
    raise AssertionError(
        f"{prefix}{int(bad.sum())} of {bad.size} elements are not close "
        f"(atol={atol}, rtol={rtol}); the largest difference is {diff[worst]}{where}: "
        f"{a[worst]} vs {b[worst]}")
