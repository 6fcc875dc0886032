"""The `triton` alias for the tests that drive Inductor's own code through tritonc."""

import sys

import pytest

import tritonc.inductor


@pytest.fixture(scope="module")
def triton():
    """`triton` as tritonc's alias (installed for the module); skipped where a real triton
    is already imported in this process, since the two cannot share the name."""
    if "triton" in sys.modules and not tritonc.inductor.is_installed():
        pytest.skip("a real triton is imported in this process")
    tritonc.inductor.install()
    yield sys.modules["triton"]
