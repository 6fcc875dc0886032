"""The CUDA backend: from TTIR to TTGIR, LLVM IR, PTX and cubin.

`compiler` (the backend object: options and ordered stages), `options` (`CUDAOptions`),
`stages` (each stage as a flat list of passes), `tools` (finding ptxas and libdevice),
`llvm_to_ptx` (LLVM/NVVM-dialect MLIR to LLVM IR and PTX) and `ptxas` (PTX to cubin plus
its resource report). Importing this package imports no MLIR and no LLVM.
"""

from __future__ import annotations

import re


def parse_arch(arch: int | str) -> tuple[int, str]:
    """Split a compute capability (90, "90", "90a", "sm_90a") into its number and suffix.

    The suffix is "" or an arch-specific letter ("a" for sm_90a's wgmma and setmaxnreg,
    "f" for a family target); the PTX target is then f"sm_{number}{suffix}".
    """
    match = re.fullmatch(r"(?:sm_)?(\d+)([af]?)", str(arch))
    if match is None:
        raise ValueError(f"not a CUDA compute capability: {arch!r} (expected e.g. 80, 90, '90a')")
    return int(match.group(1)), match.group(2)
