"""`@autotune` and `@heuristics` through the interpreter: choice, caching, pruning, hooks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.runtime import autotuner as autotuner_module
from tritonc.runtime.autotuner import Autotuner, Config, Heuristics

BLOCKS = (32, 64, 128)
CONFIGS = [Config({"BLOCK": b}, num_warps=w) for b, w in zip(BLOCKS, (1, 2, 4), strict=True)]


@triton.jit(interpret=True)
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit(interpret=True)
def sum_kernel(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(x, axis=0))


@triton.jit(interpret=True)
def affine_inplace(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)


@triton.jit(interpret=True)
def even_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    else:
        mask = offs < n
        tl.store(out_ptr + offs,
                 tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def grid(n: int):
    return lambda meta: (triton.cdiv(n, meta["BLOCK"]),)


def inputs(n: int, seed: int, dtype=torch.float32):
    rng = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=rng).to(dtype)
    y = torch.randn(n, generator=rng).to(dtype)
    return x, y, torch.full((n,), float("nan"), dtype=dtype)


class FakeBench:
    """A `do_bench` that runs the kernel once and reports a chosen time per BLOCK."""

    def __init__(self, times: dict[int, float] | None = None) -> None:
        self.times = times or {32: 3.0, 64: 1.0, 128: 2.0}
        self.blocks: list[int] = []
        self.seen: int | None = None

    def pre_hook(self, nargs: dict) -> None:
        self.seen = nargs["BLOCK"]

    def __call__(self, fn, quantiles=None):
        fn()
        self.blocks.append(self.seen)
        return [self.times[self.seen]] * 3


def tuned(kernel, bench: FakeBench | None = None, configs=CONFIGS, **options) -> Autotuner:
    if bench is not None:
        options.update(do_bench=bench, pre_hook=bench.pre_hook)
    return triton.autotune(configs, key=["n"], **options)(kernel)


@pytest.mark.parametrize("n", [1000, 4097])
def test_picks_fastest_config_and_result_is_right(n):
    bench = FakeBench()
    kernel = tuned(add_kernel, bench)
    x, y, out = inputs(n, n)
    kernel[grid(n)](x, y, out, n)
    assert sorted(bench.blocks) == list(BLOCKS)
    assert kernel.best_config == CONFIGS[1]
    assert kernel.cache[(n,) + ("torch.float32",) * 3] == CONFIGS[1]
    assert set(kernel.configs_timings) == set(CONFIGS)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_default_wallclock_bench_gives_right_results_per_key():
    kernel = tuned(add_kernel)
    for n in (100, 1000, 777):
        x, y, out = inputs(n, n)
        kernel[grid(n)](x, y, out, n)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
        assert kernel.best_config in CONFIGS
    assert len(kernel.cache) == 3 and kernel.bench_time > 0


def test_cache_hit_does_not_benchmark_again(monkeypatch):
    calls = []
    real = Autotuner._bench
    monkeypatch.setattr(Autotuner, "_bench", lambda self, *a: calls.append(a[2]) or real(self, *a))
    kernel = tuned(add_kernel)
    for seed in range(3):
        x, y, out = inputs(500, seed)
        kernel[grid(500)](x, y, out, 500)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert calls == CONFIGS  # the second and third launches hit the cache


def test_new_key_value_or_dtype_tunes_again():
    bench = FakeBench()
    kernel = tuned(add_kernel, bench)
    for n, dtype in [(300, torch.float32), (301, torch.float32), (300, torch.float16),
                     (300, torch.float32)]:
        x, y, out = inputs(n, n, dtype)
        kernel[grid(n)](x, y, out, n)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert len(bench.blocks) == 3 * len(CONFIGS)
    assert set(kernel.cache) == {(300, "torch.float32", "torch.float32", "torch.float32"),
                                 (301, "torch.float32", "torch.float32", "torch.float32"),
                                 (300, "torch.float16", "torch.float16", "torch.float16")}


def test_early_config_prune_sees_the_arguments():
    seen = {}

    def prune(configs, named, **kwargs):
        seen.update(named)
        return [c for c in configs if c.kwargs["BLOCK"] <= named["n"] // 4]

    bench = FakeBench()
    kernel = tuned(add_kernel, bench, prune_configs_by={"early_config_prune": prune})
    x, y, out = inputs(200, 1)
    kernel[grid(200)](x, y, out, 200)
    assert sorted(bench.blocks) == [32] and kernel.best_config.kwargs == {"BLOCK": 32}
    assert seen["n"] == 200 and seen["x_ptr"] is x
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.parametrize("top_k, expected", [(1, [128]), (2, [64, 128]), (0.4, [128]),
                                             (1.0, [32, 64, 128])])
def test_perf_model_keeps_top_k(top_k, expected):
    def perf_model(**meta):
        assert meta["n"] == 999 and "x_ptr" in meta and "num_warps" in meta
        return -meta["BLOCK"]  # the model believes bigger blocks are faster

    bench = FakeBench()
    kernel = tuned(add_kernel, bench,
                   prune_configs_by={"perf_model": perf_model, "top_k": top_k})
    x, y, out = inputs(999, 2)
    kernel[grid(999)](x, y, out, 999)
    assert sorted(bench.blocks) == expected
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.parametrize("reset", [True, False])
def test_reset_to_zero_clears_the_accumulator_before_each_run(reset):
    n = 1000
    x = torch.randint(-8, 8, (n,), generator=torch.Generator().manual_seed(3)).float()
    acc = torch.full((1,), 12345.0)
    kernel = tuned(sum_kernel, reset_to_zero=["acc_ptr"] if reset else None)
    acc.zero_()
    kernel[grid(n)](x, acc, n)
    if reset:
        assert acc.item() == x.sum().item()
    else:  # every benchmarked run added its sum too
        assert acc.item() != x.sum().item() or x.sum().item() == 0


def test_restore_value_puts_the_input_back_after_each_run():
    n = 777
    x0 = torch.randn(n, generator=torch.Generator().manual_seed(4))
    x = x0.clone()
    kernel = tuned(affine_inplace, restore_value=["x_ptr"])
    kernel[grid(n)](x, n)
    torch.testing.assert_close(x, x0 * 2 + 1, rtol=0, atol=0)


def test_restore_value_works_on_numpy_arrays():
    n = 100
    x0 = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    x = x0.copy()
    kernel = tuned(affine_inplace, restore_value=["x_ptr"])
    kernel[grid(n)](x, n)
    np.testing.assert_array_equal(x, x0 * 2 + 1)
    assert (100, "float32") in kernel.cache


def test_heuristics_compute_constexprs_used_by_the_kernel():
    seen = []

    def even(args):
        seen.append((args["n"], args["BLOCK"]))
        return args["n"] % args["BLOCK"] == 0

    kernel = triton.heuristics({"EVEN": even})(even_add)
    assert isinstance(kernel, Heuristics) and kernel.arg_names == even_add.arg_names
    for n in (1024, 1000):  # an unmasked access past n would fault in the interpreter
        x, y, out = inputs(n, n)
        kernel[grid(n)](x, y, out, n, BLOCK=128)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert seen == [(1024, 128), (1000, 128)]


def test_autotune_over_heuristics_sees_each_config():
    evens = []

    def even(args):
        evens.append((args["BLOCK"], args["n"] % args["BLOCK"] == 0))
        return evens[-1][1]

    kernel = triton.autotune(CONFIGS, key=["n"])(triton.heuristics({"EVEN": even})(even_add))
    n = 96
    x, y, out = inputs(n, 6)
    kernel[grid(n)](x, y, out, n)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert {(32, True), (64, False), (128, False)} <= set(evens)
    assert kernel.base_fn is even_add and kernel.src == even_add.src


def test_single_config_runs_without_tuning():
    bench = FakeBench()
    kernel = tuned(add_kernel, bench, configs=[Config({"BLOCK": 64})])
    x, y, out = inputs(130, 7)
    kernel[grid(130)](x, y, out, 130)
    assert bench.blocks == [] and kernel.best_config.kwargs == {"BLOCK": 64}
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_redefining_a_tuned_constexpr_is_an_error():
    kernel = tuned(add_kernel)
    x, y, out = inputs(64, 8)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        kernel[grid(64)](x, y, out, 64, BLOCK=64)


def test_unknown_hook_argument_is_an_error():
    with pytest.raises(ValueError, match="'acc' is not an argument"):
        tuned(sum_kernel, reset_to_zero=["acc"])


def test_progress_line_on_stderr_for_slow_tuning(monkeypatch, capsys):
    monkeypatch.setattr(autotuner_module, "_PROGRESS_AFTER_S", 0.0)
    kernel = tuned(add_kernel, FakeBench())
    x, y, out = inputs(50, 9)
    kernel[grid(50)](x, y, out, 50)
    err = capsys.readouterr().err
    assert "autotune add_kernel" in err and f"{len(CONFIGS)}/{len(CONFIGS)} configs" in err


def test_config_kwargs_and_str():
    config = Config({"BLOCK": 128}, num_warps=8, num_stages=2, maxnreg=128)
    assert config.all_kwargs() == {"BLOCK": 128, "num_warps": 8, "num_ctas": 1,
                                   "num_stages": 2, "maxnreg": 128}
    assert str(config) == "BLOCK: 128, num_warps: 8, num_ctas: 1, num_stages: 2, maxnreg: 128"
    assert "maxnreg" not in Config({}).all_kwargs()
    assert Config({"A": 1}) == Config({"A": 1}) and Config({"A": 1}) != Config({"A": 2})


class FakeCompiledKernel:
    """Stands for a GPU JITFunction: records the `warmup` calls and their threads."""

    arg_names = ["x", "BLOCK"]
    params = ()
    interpret = False
    __name__ = "fake"
    __doc__ = None

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def warmup(self, *args, grid, **kwargs):
        self.calls.append((kwargs["BLOCK"], threading.get_ident()))
        if kwargs["BLOCK"] == 64:
            raise RuntimeError("does not compile")
        return f"compiled {kwargs['BLOCK']}"


def test_precompile_compiles_every_config_on_the_gpu_path():
    fake = FakeCompiledKernel()
    kernel = Autotuner(fake, None, CONFIGS, key=["x"])
    results = kernel.precompile((0,), {}, CONFIGS, (1,))
    assert sorted(b for b, _ in fake.calls) == list(BLOCKS)
    assert results[0] == "compiled 32" and isinstance(results[1], RuntimeError)
    assert threading.get_ident() not in {t for _, t in fake.calls}
    assert tuned(add_kernel).precompile((), {}, CONFIGS, (1,)) == []  # interpreter: skipped


SCRIPT = """
import sys
import torch
import tritonc as triton
import tritonc.language as tl

calls = []

def bench(fn, quantiles=None):
    calls.append(1)
    fn()
    return [{{32: 3.0, 64: 2.0, 128: 1.0}}[seen[-1]]] * 3

seen = []

@triton.autotune([triton.Config({{"BLOCK": b}}) for b in (32, 64, 128)], key=["n"],
                 do_bench=bench, pre_hook=lambda nargs: seen.append(nargs["BLOCK"]),
                 cache_results=True)
@triton.jit(interpret=True)
def add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)

n = {n}
x = torch.randn(n)
out = torch.full((n,), float("nan"))
add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
assert torch.equal(out, x + 1.0)
print(len(calls), add_kernel.best_config.kwargs["BLOCK"])
"""


def test_best_config_persists_on_disk_across_processes(tmp_path):
    script = tmp_path / "tune.py"
    script.write_text(textwrap.dedent(SCRIPT.format(n=1000)))
    env = {**os.environ, "TRITONC_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> str:
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run() == ["3", "128"]  # tuned: three benchmarks, the fastest is BLOCK=128
    assert run() == ["0", "128"]  # reloaded from the disk cache: no benchmark
    script.write_text(textwrap.dedent(SCRIPT.format(n=1001)))
    assert run() == ["3", "128"]  # a new key value tunes again


class OutOfSharedMemoryBench(FakeBench):
    """A `do_bench` whose BLOCK=128 launch needs more shared memory than the device has,
    as a GPU launch of such a config reports it."""

    def __call__(self, fn, quantiles=None):
        fn()
        if self.seen == 128:
            from tritonc.errors import OutOfResources

            raise OutOfResources(300_000, 232_448, "shared memory")
        self.blocks.append(self.seen)
        return [self.times[self.seen]] * 3


def test_a_config_out_of_resources_is_ruled_out():
    bench = OutOfSharedMemoryBench({32: 3.0, 64: 2.0, 128: 0.5})
    kernel = tuned(add_kernel, bench)
    x, y, out = inputs(1000, 3)
    kernel[grid(1000)](x, y, out, 1000)
    assert kernel.best_config == CONFIGS[1]
    assert kernel.configs_timings[CONFIGS[2]] == [float("inf")] * 3
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
