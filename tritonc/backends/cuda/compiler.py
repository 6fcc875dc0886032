"""The CUDA backend object: `CUDAOptions` and the ordered stages of `stages.py`.

    backend = CUDABackend(Target("cuda", 90))
    options = backend.parse_options({"num_warps": 8})
    backend.add_stages(options)   # ttir, ttgir, llir, ptx, cubin: name -> stage function
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from tritonc.backends.base import Backend, Stage
from tritonc.backends.cuda.options import (
    CUDAOptions,
    async_wgmma,
    line_info,
    planned_conversions,
    tma_copies,
    warp_specialization,
)


class CUDABackend(Backend):
    """NVIDIA GPUs from sm_80 on: PTX through llvmlite, cubins through ptxas."""

    name = "cuda"

    def parse_options(self, values: Mapping[str, Any]) -> CUDAOptions:
        """The options as `CUDAOptions`, checked against the target: several CTAs per
        program (`num_ctas > 1`) need sm_90's thread-block clusters."""
        options = values if isinstance(values, CUDAOptions) else CUDAOptions.parse(values)
        if options.num_ctas > 1 and self.target.arch < 90:
            raise ValueError(f"num_ctas > 1 requires NVIDIA SM90+ (Hopper); the target is "
                             f"sm_{self.target.arch} (num_ctas={options.num_ctas})")
        return options

    def add_stages(self, options: CUDAOptions) -> dict[str, Stage]:
        from tritonc.backends.cuda import stages

        return {
            "ttir": functools.partial(stages.make_ttir, target=str(self.target)),
            "ttgir": functools.partial(stages.make_ttgir, target=str(self.target)),
            "llir": stages.make_llir,
            "ptx": stages.make_ptx,
            "cubin": stages.make_cubin,
        }

    def hash(self) -> str:
        from tritonc import knobs

        tools = "".join(f":{name}={path}"
                        for name, path in sorted(knobs.nvidia.overrides().items()))
        return (f"cuda:{self.target.arch}" + ("" if planned_conversions() else ":exchange")
                + ("" if async_wgmma() else ":wgmma-wait-all")
                + ("" if tma_copies() else ":no-tma")
                + ("" if warp_specialization() else ":no-warp-specialize")
                + ("" if line_info() else ":no-line-info") + tools)

