"""Compilation targets: `cuda:<sm>` for the architectures ptxas builds cubins for, or `ttir`."""

from __future__ import annotations

# compute capabilities (sm_XX) the bundled ptxas accepts
CUDA_ARCHS = (75, 80, 86, 87, 88, 89, 90, 100, 103, 107, 110, 120, 121)


def parse_target(target: str) -> tuple[str, int]:
    """`cuda:90` -> ("cuda", 90); `ttir` compiles only to TTIR. ValueError for anything
    else, including an architecture no cubin can be built for."""
    if target == "ttir":
        return "ttir", 0
    backend, _, arch = target.partition(":")
    if backend != "cuda" or not arch.rstrip("a").isdigit():
        raise ValueError(f"unknown target {target!r}; expected 'cuda:<sm>' such as cuda:90, "
                         "or 'ttir'")
    return backend, check_arch(int(arch.rstrip("a")), target)


def check_arch(arch: int, target: str) -> int:
    """`arch` if it is one of `CUDA_ARCHS`, else a ValueError naming the choices."""
    if arch not in CUDA_ARCHS:
        raise ValueError(f"unsupported target {target!r}: sm_{arch} is not a CUDA architecture "
                         f"tritonc builds for (one of {', '.join(map(str, CUDA_ARCHS))})")
    return arch
