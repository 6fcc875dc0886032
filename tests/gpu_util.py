"""Whether GPU tests can run here: torch sees a CUDA device (checked lazily, once)."""

from __future__ import annotations

import functools

import pytest


@functools.cache
def cuda_available() -> bool:
    """True when torch is installed and a CUDA device is visible to it."""
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def skip_gpu_tests_without_cuda(items: list[pytest.Item]) -> None:
    """Mark every `gpu` test in `items` skipped when no CUDA device is visible."""
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_items and not cuda_available():
        skip = pytest.mark.skip(reason="no CUDA device visible to torch")
        for item in gpu_items:
            item.add_marker(skip)
