"""`tritonc.testing`: assert_close on tensors, arrays and scalars; do_bench on CPU and GPU."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tritonc as triton
from tritonc.testing import _quantile, assert_close, do_bench


@pytest.mark.parametrize("x, y", [
    (torch.ones(3, 5), torch.ones(3, 5) + 5e-3),
    (np.arange(7, dtype=np.float16), np.arange(7, dtype=np.float64)),
    (torch.arange(4, dtype=torch.bfloat16), np.arange(4)),
    (2.0, 2.001),
    (3, np.int32(3)),
    ([1.0, float("nan")], np.array([1.0, np.nan])),
    (torch.tensor([float("inf"), -1.0]), [float("inf"), -1.0]),
    (torch.full((2, 3), 4.0), 4.0),
])
def test_assert_close_accepts_close_values(x, y):
    assert_close(x, y)


def test_assert_close_reports_count_largest_difference_and_index():
    x = torch.zeros(4, 6)
    y = x.clone()
    y[2, 5] = 1.5
    y[0, 1] = 0.5
    with pytest.raises(AssertionError) as info:
        assert_close(x, y, err_msg="matmul output")
    text = str(info.value)
    assert text.startswith("matmul output: 2 of 24 elements are not close")
    assert "largest difference is 1.5 at index (2, 5)" in text and "0.0 vs 1.5" in text


@pytest.mark.parametrize("x, y", [
    (np.array([1.0, np.nan]), np.array([1.0, 1.0])),
    (np.array([np.inf]), np.array([-np.inf])),
    (np.array([np.inf]), np.array([1e300])),
    (1.0, 1.1),
])
def test_assert_close_rejects_nan_inf_and_far_values(x, y):
    with pytest.raises(AssertionError, match="not close"):
        assert_close(x, y)


def test_assert_close_tolerances():
    assert_close(100.0, 101.0, atol=0, rtol=0.02)
    with pytest.raises(AssertionError, match=r"atol=0.0, rtol=0.001"):
        assert_close(100.0, 101.0, atol=0, rtol=1e-3)
    assert_close(torch.ones(3, dtype=torch.float16), torch.ones(3) * 1.05,
                 atol=lambda dtype: 0.1 if dtype == torch.float16 else 0.0)


def test_assert_close_shape_mismatch():
    with pytest.raises(AssertionError, match=r"shapes \(3,\) and \(4,\) do not match"):
        assert_close(np.zeros(3), np.zeros(4))


def test_quantiles_match_numpy():
    values = list(np.random.default_rng(0).random(11))
    qs = [0.0, 0.2, 0.5, 0.8, 1.0]
    np.testing.assert_allclose(_quantile(values, qs), np.quantile(values, qs))


def test_do_bench_without_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="do_bench needs a CUDA device"):
        do_bench(lambda: None)


def test_do_bench_checks_return_mode():
    with pytest.raises(ValueError, match="return_mode"):
        do_bench(lambda: None, return_mode="average")


def test_testing_is_reachable_from_the_package():
    assert triton.testing.assert_close is assert_close


@pytest.mark.gpu
def test_do_bench_times_a_gpu_function():
    x = torch.randn(1 << 22, device="cuda")
    ms = do_bench(lambda: x.mul_(1.0), warmup=5, rep=20)
    assert isinstance(ms, float) and ms > 0


@pytest.mark.gpu
def test_do_bench_quantiles_and_modes():
    x = torch.randn(1 << 20, device="cuda")
    lo_med_hi = do_bench(lambda: x.add_(1.0), warmup=5, rep=20, quantiles=[0.2, 0.5, 0.8])
    assert len(lo_med_hi) == 3 and 0 < lo_med_hi[0] <= lo_med_hi[1] <= lo_med_hi[2]
    one = do_bench(lambda: x.add_(1.0), warmup=5, rep=20, quantiles=[0.5])
    assert isinstance(one, float)
    times = do_bench(lambda: x.add_(1.0), warmup=5, rep=20, return_mode="all")
    assert len(times) >= 1 and all(t > 0 for t in times)
    assert do_bench(lambda: x.add_(1.0), warmup=5, rep=20, return_mode="min") <= max(times) * 10
