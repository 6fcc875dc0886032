"""Peak rates of the current GPU, as `triton.testing` reports them to Inductor's estimates.

Rates are the device's multiprocessor count times its clock times the work one
multiprocessor does per clock (dense tensor-core FLOPs by architecture and dtype; 128
fp32 FMAs on the CUDA cores); bandwidth is the memory clock times the bus width, both
read from the device.
"""

from __future__ import annotations

from typing import Any

# dense tensor-core FLOPs per multiprocessor per clock: {major: {bytes per element: flops}}
_TENSOR_FLOPS_PER_CLOCK = {8: {4: 1024, 2: 2048, 1: 4096}, 9: {4: 2048, 2: 4096, 1: 8192}}
_DEFAULT_CLOCK_KHZ = {8: 1_410_000, 9: 1_980_000}


def _props(device: Any = None) -> Any:
    import torch

    return torch.cuda.get_device_properties(torch.cuda.current_device() if device is None
                                            else device)


def _clock_khz(props: Any, clock_rate: float | None) -> float:
    if clock_rate:
        return clock_rate
    return getattr(props, "clock_rate", 0) or _DEFAULT_CLOCK_KHZ.get(props.major, 1_500_000)


def get_dram_gbps(device: Any = None) -> float:
    """Peak DRAM bandwidth in GB/s (double data rate over the bus)."""
    props = _props(device)
    clock_khz = getattr(props, "memory_clock_rate", 0)
    bus_bits = getattr(props, "memory_bus_width", 0)
    if not clock_khz or not bus_bits:
        return 4800.0 if props.major >= 9 else 2039.0
    return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9


def get_max_tensorcore_tflops(dtype: Any, clock_rate: float | None = None,
                              device: Any = None) -> float:
    """Dense tensor-core TFLOP/s for `dtype` (a torch dtype)."""
    props = _props(device)
    per_clock = _TENSOR_FLOPS_PER_CLOCK.get(min(props.major, 9), {4: 512, 2: 1024, 1: 2048})
    flops = per_clock.get(min(dtype.itemsize, 4), per_clock[4])
    return props.multi_processor_count * _clock_khz(props, clock_rate) * 1e3 * flops / 1e12


def get_max_simd_tflops(dtype: Any, clock_rate: float | None = None,
                        device: Any = None) -> float:
    """CUDA-core TFLOP/s for `dtype`: 128 fp32 FMAs per multiprocessor per clock, twice
    that for 16-bit types."""
    props = _props(device)
    flops = 256 * (2 if dtype.itemsize == 2 else 1)
    return props.multi_processor_count * _clock_khz(props, clock_rate) * 1e3 * flops / 1e12
