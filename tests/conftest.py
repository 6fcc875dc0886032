"""Shared pytest hooks: `gpu` tests are skipped when no CUDA device is visible."""

from __future__ import annotations

import pytest
from gpu_util import skip_gpu_tests_without_cuda


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_gpu_tests_without_cuda(items)
