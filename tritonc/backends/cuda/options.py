"""`CUDAOptions`: every knob of one CUDA compilation, as one frozen, validated value.

The options travel from `@jit` launches, the CLI and AOT builds to the stages as this
object; its `hash()` is part of every cache key. Validation happens on construction, so
a bad value (`num_warps=3`) fails where it was given, with its name and the allowed range.

    num_warps         warps per program: a power of two from 1 to 32 (default 4)
    num_stages        software-pipelining depth of loops feeding a dot; 1 turns it off (3)
    num_ctas          CTAs per program, a power of two up to 16 (1): accepted for Triton's
                      sake, but a program always runs as one CTA (the results are those
                      of any num_ctas; thread-block clusters are not used)
    maxnreg           a cap on registers per thread passed to ptxas, or None
    enable_fp_fusion  contract a*b+c into fused multiply-adds, as Triton does (the
                      default is `knobs.language.default_fp_fusion`, read when the
                      options are made: True unless changed)
    threads_per_warp  32 on every NVIDIA GPU
    launch_tensormaps on sm_90, tensor descriptors the kernel makes from its arguments
                      take CUtensorMaps the launch encodes, for TMA (True); the kernel
                      then has one argument more per map (metadata `tensormaps`), which
                      launchers that cannot encode them (`tritonc aot`'s C) turn off
    extern_libs       {"libdevice": path}: the libdevice bitcode to link instead of the
                      one found (`knobs.nvidia.libdevice_path`); no other library
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

THREADS_PER_WARP = 32


def planned_conversions() -> bool:
    """Whether layout conversions are lowered from their plan (`passes/to_llvm/convert.py`);
    `TRITONC_PLANNED_CONVERSIONS=0` brings back the older exchange, to isolate a fault. It
    changes the code, so it joins the backend's hash and with it every cache key."""
    return os.environ.get("TRITONC_PLANNED_CONVERSIONS", "1").lower() not in (
        "0", "false", "no", "off")


def async_wgmma() -> bool:
    """Whether a pipelined loop's wgmma stays in flight while the next iteration's copies
    are issued (`passes/to_llvm/pipeline.py`); `TRITONC_ASYNC_WGMMA=0` waits for every
    dot at once instead, to isolate a fault. It changes the code, so it joins the
    backend's hash and with it every cache key."""
    return os.environ.get("TRITONC_ASYNC_WGMMA", "1").lower() not in (
        "0", "false", "no", "off")


def tma_copies() -> bool:
    """Whether the ring loads of aligned host descriptors copy by TMA on sm_90
    (`passes/ttgir/software_pipeline.py`); `TRITONC_TMA=0` copies them by cp.async, to
    compare the two or isolate a fault. It joins the backend's hash as `async_wgmma`."""
    return os.environ.get("TRITONC_TMA", "1").lower() not in ("0", "false", "no", "off")


def warp_specialization() -> bool:
    """Whether a loop of `tl.range(warp_specialize=True)` gets a producer warpgroup on
    sm_90 (`passes/ttgir/warp_specialize.py`); `TRITONC_WARP_SPECIALIZE=0` runs such
    loops as any other, to compare the two or isolate a fault. It joins the backend's
    hash as `async_wgmma`."""
    return os.environ.get("TRITONC_WARP_SPECIALIZE", "1").lower() not in (
        "0", "false", "no", "off")


def line_info() -> bool:
    """Whether the PTX carries the kernel's source lines (`.loc`) and ptxas keeps them in
    the cubin (`-lineinfo`), for profilers' source views and compute-sanitizer's reports,
    as Triton does; `knobs.compilation.disable_line_info` (TRITONC_DISABLE_LINE_INFO=1)
    leaves them out. It changes the PTX, so it joins the backend's hash."""
    from tritonc import knobs

    return not knobs.compilation.disable_line_info


class NumWarpsError(ValueError, AssertionError):
    """`num_warps` is not a power of two from 1 to 32. A ValueError, as every bad option
    is, and an AssertionError too: the error Triton raises for it."""


def default_fp_fusion() -> bool:
    """`enable_fp_fusion` when a compilation does not give it:
    `knobs.language.default_fp_fusion`."""
    from tritonc import knobs

    return knobs.language.default_fp_fusion


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class CUDAOptions:
    """The options of one CUDA compilation (see the module docstring)."""

    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: int | None = None
    enable_fp_fusion: bool = field(default_factory=default_fp_fusion)
    threads_per_warp: int = THREADS_PER_WARP
    launch_tensormaps: bool = True
    extern_libs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        libs = self.extern_libs
        libs = tuple(sorted(libs.items() if isinstance(libs, Mapping) else
                             (tuple(pair) for pair in libs)))
        object.__setattr__(self, "extern_libs", libs)
        for name, path in libs:
            if name != "libdevice":
                raise ValueError(f"extern_libs: only 'libdevice' can be linked, got {name!r}")
            if not os.path.isfile(path):
                raise ValueError(f"extern_libs: no file {path!r} for {name!r}")
        if not _is_int(self.num_warps) or self.num_warps not in (1, 2, 4, 8, 16, 32):
            raise NumWarpsError(f"num_warps must be a power of 2 from 1 to 32, got "
                                f"{self.num_warps!r}")
        if not _is_int(self.num_stages) or self.num_stages < 1:
            raise ValueError(f"num_stages must be an integer >= 1, got {self.num_stages!r}")
        if not _is_int(self.num_ctas) or self.num_ctas not in (1, 2, 4, 8, 16):
            raise ValueError(f"num_ctas must be a power of two from 1 to 16, got "
                             f"{self.num_ctas!r}")
        if self.maxnreg is not None and (not _is_int(self.maxnreg)
                                         or not 24 <= self.maxnreg <= 255):
            raise ValueError(f"maxnreg must be an integer from 24 to 255 or None, got "
                             f"{self.maxnreg!r}")
        if not isinstance(self.enable_fp_fusion, bool):
            raise ValueError(f"enable_fp_fusion must be True or False, got "
                             f"{self.enable_fp_fusion!r}")
        if not isinstance(self.launch_tensormaps, bool):
            raise ValueError(f"launch_tensormaps must be True or False, got "
                             f"{self.launch_tensormaps!r}")
        if self.threads_per_warp != THREADS_PER_WARP:
            raise ValueError(f"threads_per_warp must be {THREADS_PER_WARP}, got "
                             f"{self.threads_per_warp!r}")

    @classmethod
    def parse(cls, values: Mapping[str, Any]) -> CUDAOptions:
        """Options from a mapping (launch keywords, a config table); None means the
        default and an unknown name is an error naming the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (options: {', '.join(sorted(known))})")
        return cls(**{k: v for k, v in values.items() if v is not None})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def libdevice(self) -> str | None:
        """The libdevice `extern_libs` names, or None for the one found."""
        return dict(self.extern_libs).get("libdevice")

    def hash(self) -> str:
        """A stable digest of every field, for cache keys."""
        text = ",".join(f"{k}={v!r}" for k, v in sorted(self.as_dict().items()))
        return hashlib.sha256(text.encode()).hexdigest()
