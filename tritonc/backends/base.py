"""What a compiling backend supplies: its target, its options and its ordered stages.

A stage is a function `(source, metadata, options) -> output`: it takes the previous
stage's output (an MLIR module for ttir/ttgir, text for llir/ptx), may record facts in
the kernel's `metadata` dict, and returns its own output. `add_stages` returns the
stages in order, keyed by the file extension of their output, so the compile loop can
start from any stage's file and keep every stage's output under its extension.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Stage = Callable[[Any, dict, Any], Any]


@dataclass(frozen=True)
class Target:
    """A compilation target: `Target("cuda", 90)` is written `cuda:90`."""

    backend: str
    arch: int

    def __str__(self) -> str:
        return f"{self.backend}:{self.arch}"


def parse_target(text: str) -> Target:
    """`cuda:90` (or `cuda:90a`) -> Target("cuda", 90); ValueError for anything else."""
    backend, _, arch = str(text).partition(":")
    if backend != "cuda" or not arch.rstrip("a").isdigit():
        raise ValueError(f"unknown target {text!r}; expected 'cuda:<sm>' such as cuda:90")
    return Target(backend, int(arch.rstrip("a")))


class Backend(ABC):
    """A compiling target: options, stages and a hash that joins every cache key."""

    name: str

    def __init__(self, target: Target) -> None:
        self.target = target

    @abstractmethod
    def parse_options(self, values: Mapping[str, Any]) -> Any:
        """The backend's frozen options value from a mapping of option names."""

    @abstractmethod
    def add_stages(self, options: Any) -> dict[str, Stage]:
        """The stages after TTIR in order, keyed by the extension of their output."""

    @abstractmethod
    def hash(self) -> str:
        """What identifies the target's code generation (architecture, tool versions)."""


def get_backend(target: Target | str) -> Backend:
    """The backend compiling for `target`."""
    target = parse_target(target) if isinstance(target, str) else target
    if target.backend == "cuda":
        from tritonc.backends.cuda.compiler import CUDABackend

        return CUDABackend(target)
    raise ValueError(f"no backend for target {target}")
