"""`@autotune` and `@heuristics`: pick launch configurations per call, as Triton does.

`@autotune(configs, key)` wraps a kernel (a `JITFunction`, or another `Autotuner` or
`Heuristics`) in an `Autotuner`. On `kernel[grid](*args)` it computes the tuning key
(the values of the arguments named in `key`, a tensor standing for its dtype, plus the
dtype of every tensor argument), and, the first time it sees that key, benchmarks each
config left after `prune_configs_by`, keeps the fastest in `self.cache` and launches
with it. `reset_to_zero` / `restore_value` name tensor arguments that are zeroed /
saved and restored around every benchmarked run, so a kernel that accumulates into its
output still gives the right result. With `cache_results=True` (or
`TRITONC_CACHE_AUTOTUNING=1`) the best config of a key is also stored in the on-disk
cache (`runtime/cache.py`) under the kernel's source hash, the key and the configs, so
a new process reuses it without benchmarking.

On the GPU every config is compiled before benchmarking (`Autotuner.precompile`) and
timed with `tritonc.testing.do_bench`. In the interpreter there is nothing to compile
and no CUDA events: configs are timed with `time.perf_counter` over a few runs.

`@heuristics({"NAME": lambda args: ...})` computes extra constexpr arguments from the
bound arguments (and the config's values, when under `@autotune`) before each launch.
"""

from __future__ import annotations

import builtins
import concurrent.futures
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from tritonc import knobs

QUANTILES = (0.5, 0.2, 0.8)
_INTERPRETER_REPS = 3
_PROGRESS_AFTER_S = 1.0


class Config:
    """One launch configuration: constexpr values (`kwargs`) plus compiler options."""

    def __init__(self, kwargs: dict[str, Any], num_warps: int = 4, num_stages: int = 3,
                 num_ctas: int = 1, maxnreg: int | None = None,
                 pre_hook: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict[str, Any]:
        """The constexprs and the options (those not None), as launch keyword arguments."""
        options = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                   ("num_stages", self.num_stages), ("maxnreg", self.maxnreg))
        return {**self.kwargs, **{k: v for k, v in options if v is not None}}

    def _identity(self) -> tuple:
        return (tuple(sorted(self.kwargs.items())), self.num_warps, self.num_stages,
                self.num_ctas, self.maxnreg, self.pre_hook)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __str__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    def __repr__(self) -> str:
        return f"Config({self})"


def _base_jit(fn: Any) -> Any:
    """The JITFunction under any stack of Autotuner / Heuristics wrappers."""
    while isinstance(fn, KernelWrapper):
        fn = fn.fn
    return fn


def _named_args(base: Any, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Positional and keyword arguments by name, with the kernel's defaults filled in."""
    named = dict(zip(base.arg_names, args, strict=False))
    named.update(kwargs)
    for p in base.params:
        if p.name not in named and p.has_default:
            named[p.name] = p.default
    return named


def _is_tensor(value: Any) -> bool:
    """A torch tensor or a numpy array (not a numpy scalar, which has a dtype too)."""
    return hasattr(value, "data_ptr") or type(value).__name__ == "ndarray"


def _zero(value: Any) -> None:
    if hasattr(value, "zero_"):
        value.zero_()  # torch
    else:
        value.fill(0)  # numpy


def _copy(value: Any) -> Any:
    return value.clone() if hasattr(value, "clone") else value.copy()


def _restore(dst: Any, src: Any) -> None:
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src


def _config_failures() -> tuple[type[BaseException], ...]:
    """Errors that rule a config out (it does not compile or does not fit) instead of failing."""
    from tritonc.compiler.errors import CompilationError
    from tritonc.errors import OutOfResources

    failures: list[type[BaseException]] = [CompilationError, OutOfResources]
    try:
        from tritonc.backends.cuda.ptxas import PtxasError

        failures.append(PtxasError)
    except ImportError:
        pass
    return tuple(failures)


def _wallclock_bench(fn: Callable[[], Any], reps: int = _INTERPRETER_REPS) -> list[float]:
    """Milliseconds per call of `fn` by `time.perf_counter`: the median and extremes of `reps`."""
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return [statistics.median(times), min(times), max(times)]


def _as_timing(result: Any) -> list[float]:
    if isinstance(result, (int, float)):
        return [float(result)]
    return [float(t) for t in result]


class KernelWrapper:
    """What `Autotuner` and `Heuristics` share: `kernel[grid](...)` and `kernel.warmup(...)`."""

    fn: Any

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.base_fn = _base_jit(fn)
        self.arg_names: list[str] = list(self.base_fn.arg_names)
        self.__name__ = self.base_fn.__name__
        self.__doc__ = self.base_fn.__doc__

    def __getitem__(self, grid: Any) -> Callable:
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.base_fn(*args, **kwargs)

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        """Launch over `grid`: what each wrapper (Autotuner, Heuristics) adds to a launch."""
        raise NotImplementedError(f"{type(self).__name__} does not define run()")

    def __getattr__(self, name: str) -> Any:
        # The kernel's own attributes (src, params, interpret, ...) read through.
        if name in ("fn", "base_fn"):
            raise AttributeError(name)
        return getattr(self.base_fn, name)


class Autotuner(KernelWrapper):
    """A kernel that benchmarks its configs once per tuning key and launches the fastest."""

    def __init__(self, fn: Any, arg_names: list[str] | None, configs: list[Config],
                 key: list[str], reset_to_zero: list[str] | None = None,
                 restore_value: list[str] | None = None,
                 pre_hook: Callable | None = None, post_hook: Callable | None = None,
                 prune_configs_by: dict[str, Any] | None = None, warmup: float | None = None,
                 rep: float | None = None, do_bench: Callable | None = None,
                 cache_results: bool = False) -> None:
        super().__init__(fn)
        if arg_names is not None:
            self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key)
        self.cache: dict[tuple, Config] = {}
        self.configs_timings: dict[Config, list[float]] | None = None
        self.best_config: Config | None = None
        self.bench_time = 0.0
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for name in set(self.reset_to_zero + self.restore_value) - set(self.arg_names):
            raise ValueError(f"autotune of {self.__name__}: {name!r} is not an argument")
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        prune = prune_configs_by or {}
        if unknown := set(prune) - {"perf_model", "top_k", "early_config_prune"}:
            raise ValueError(f"prune_configs_by: unknown entries {sorted(unknown)}")
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.num_warmups = 25 if warmup is None else warmup
        self.num_reps = 100 if rep is None else rep
        self.user_do_bench = do_bench
        self.cache_results = cache_results or knobs.autotuning.cache
        self._saved: dict[str, Any] = {}

    # -- hooks around every benchmarked run ---------------------------------------------

    def pre_hook(self, nargs: dict[str, Any], reset_only: bool = False) -> None:
        """Zero the `reset_to_zero` tensors; save the `restore_value` ones (unless reset_only)."""
        for name in self.reset_to_zero:
            _zero(nargs[name])
        if not reset_only:
            self._saved = {name: _copy(nargs[name]) for name in self.restore_value}
            if self.user_pre_hook is not None:
                self.user_pre_hook(nargs)

    def post_hook(self, nargs: dict[str, Any], exception: BaseException | None) -> None:
        """Put back the `restore_value` tensors saved by `pre_hook`."""
        for name, saved in self._saved.items():
            _restore(nargs[name], saved)
        self._saved = {}
        if self.user_post_hook is not None:
            self.user_post_hook(nargs, exception)

    # -- tuning -------------------------------------------------------------------------

    def interpreting(self) -> bool:
        from tritonc.runtime.launch import interpret_requested

        return interpret_requested(self.base_fn)

    def tuning_key(self, named: dict[str, Any]) -> tuple:
        """The `key` arguments' values (dtype for a tensor), then every tensor's dtype."""
        values: list[Any] = []
        for name in self.keys:
            if name in named:
                value = named[name]
                values.append(str(value.dtype) if _is_tensor(value) else value)
        values += [str(v.dtype) for v in named.values() if _is_tensor(v)]
        return tuple(values)

    def prune_configs(self, kwargs: dict[str, Any], named: dict[str, Any]) -> list[Config]:
        """The configs left by `early_config_prune`, then the `top_k` best by `perf_model`."""
        pruned = self.configs
        if self.early_config_prune is not None:
            pruned = list(self.early_config_prune(self.configs, named, **kwargs))
            if not pruned:
                raise ValueError(f"autotune of {self.__name__}: early_config_prune left no config")
        if self.perf_model is not None:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(self.configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("prune_configs_by['top_k'] must be an int or a float <= 1.0")
            if len(pruned) > top_k:
                estimate = {c: self.perf_model(**named, **kwargs, **c.all_kwargs())
                            for c in pruned}
                pruned = sorted(pruned, key=lambda c: estimate[c])[:top_k]
        return pruned

    def _check_conflicts(self, kwargs: dict[str, Any], config: Config) -> None:
        if conflicts := set(kwargs) & set(config.kwargs):
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. "
                             "Make sure that you don't re-define auto-tuned symbols.")

    def _bench(self, args: tuple, kwargs: dict[str, Any], config: Config, grid: Any) -> list[float]:
        """Timings (ms: median, low, high) of one config; `inf` if it fails to compile."""
        self._check_conflicts(kwargs, config)
        current = {**kwargs, **config.all_kwargs()}
        nargs = _named_args(self.base_fn, args, current)

        def kernel_call() -> None:
            if config.pre_hook is not None:
                config.pre_hook(nargs)
            self.pre_hook(nargs)
            try:
                self.fn[grid](*args, **current)
            except BaseException as e:
                self.post_hook(nargs, exception=e)
                raise
            self.post_hook(nargs, exception=None)

        try:
            if self.user_do_bench is not None:
                return _as_timing(self.user_do_bench(kernel_call, quantiles=QUANTILES))
            if self.interpreting():
                return _wallclock_bench(kernel_call)
            from tritonc.testing import do_bench

            return _as_timing(do_bench(kernel_call, warmup=self.num_warmups, rep=self.num_reps,
                                       quantiles=QUANTILES))
        except _config_failures():
            return [float("inf")] * 3

    def precompile(self, args: tuple, kwargs: dict[str, Any], configs: list[Config], grid: Any,
                   max_workers: int | None = None) -> list[Any]:
        """Compile every config before benchmarking, in parallel; skipped in the interpreter.

        This uses a thread pool, not a process pool: a kernel's arguments (CUDA tensors)
        and its JITFunction (closures, globals) do not pickle. Compilation errors are left
        for `_bench`, which marks the config as failed.
        """
        if self.interpreting() or len(configs) < 2:
            return []
        workers = max_workers or min(len(configs), os.cpu_count() or 1)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(self.fn.warmup, *args, grid=grid, **kwargs, **c.all_kwargs())
                       for c in configs]
        return [f.result() if f.exception() is None else f.exception() for f in futures]

    def _tune(self, args: tuple, kwargs: dict[str, Any], named: dict[str, Any], key: tuple,
              grid: Any) -> None:
        configs = self.prune_configs(kwargs, named)
        start = time.perf_counter()
        self.precompile(args, kwargs, configs, grid)
        timings: dict[Config, list[float]] = {}
        for i, config in enumerate(configs):
            timings[config] = self._bench(args, kwargs, config, grid)
            elapsed = time.perf_counter() - start
            if elapsed > _PROGRESS_AFTER_S:
                print(f"tritonc autotune {self.__name__} key={key}: {i + 1}/{len(configs)} "
                      f"configs in {elapsed:.1f}s", file=sys.stderr, flush=True)
        self.bench_time = time.perf_counter() - start
        if all(t[0] == float("inf") for t in timings.values()):
            raise RuntimeError(f"autotune of {self.__name__}: no config compiled for key {key}")
        self.cache[key] = builtins.min(timings, key=timings.get)
        self.configs_timings = timings
        if knobs.autotuning.print:
            print(f"tritonc autotune {self.__name__}: finished after {self.bench_time:.2f}s, "
                  f"best config for key {key}: {self.cache[key]}", file=sys.stderr)

    # -- the on-disk cache ----------------------------------------------------------------

    def _disk_key(self, key: tuple) -> str:
        from tritonc.runtime.cache import make_key

        mode = "interpreter" if self.interpreting() else "cuda"
        return make_key("autotune-v1", mode, self.base_fn.source_hash(), repr(key),
                        *[str(c) for c in self.configs])

    def _load(self, key: tuple) -> bool:
        from tritonc.runtime.cache import Cache

        files = Cache().get(self._disk_key(key), required=("autotune.json",))
        if files is None:
            return False
        try:
            record = json.loads(files["autotune.json"])
            best = self.configs[record["best"]]
            if str(best) != record["best_str"]:
                return False
        except (KeyError, IndexError, TypeError, ValueError):
            return False
        self.cache[key] = best
        self.configs_timings = None
        return True

    def _store(self, key: tuple) -> None:
        from tritonc.runtime.cache import Cache

        best = self.cache[key]
        timings = [[str(c), t] for c, t in (self.configs_timings or {}).items()]
        record = {"key": repr(key), "best": self.configs.index(best), "best_str": str(best),
                  "timings": timings}
        Cache().put(self._disk_key(key), {"autotune.json": json.dumps(record).encode()})

    # -- launching --------------------------------------------------------------------------

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        named = _named_args(self.base_fn, args, kwargs)
        if len(self.configs) > 1:
            key = self.tuning_key(named)
            if key not in self.cache and not (self.cache_results and self._load(key)):
                self._tune(args, kwargs, named, key, grid)
                if self.cache_results:
                    self._store(key)
                # Benchmark runs may have left garbage in the accumulators.
                self.pre_hook({**named, **self.cache[key].all_kwargs()}, reset_only=True)
            config = self.cache[key]
        else:
            config = self.configs[0]
        self._check_conflicts(kwargs, config)
        self.best_config = config
        current = {**kwargs, **config.all_kwargs()}
        if config.pre_hook is not None:
            config.pre_hook(_named_args(self.base_fn, args, current))
        return self.fn[grid](*args, **current)

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> list[Any]:
        """Compile the kernel for every (pruned) config without launching it."""
        named = _named_args(self.base_fn, args, kwargs)
        return [self.fn.warmup(*args, grid=grid, **kwargs, **c.all_kwargs())
                for c in self.prune_configs(kwargs, named)]

    def __repr__(self) -> str:
        return f"Autotuner({self.fn!r}, {len(self.configs)} configs, key={self.keys})"


def autotune(configs: list[Config], key: list[str],
             prune_configs_by: dict[str, Any] | None = None,
             reset_to_zero: list[str] | None = None, restore_value: list[str] | None = None,
             pre_hook: Callable | None = None, post_hook: Callable | None = None,
             warmup: float | None = None, rep: float | None = None,
             do_bench: Callable | None = None,
             cache_results: bool = False) -> Callable[[Any], Autotuner]:
    """Decorate a kernel to pick, per value of the `key` arguments, the fastest config.

    `prune_configs_by`: `early_config_prune(configs, named_args, **kwargs) -> configs`,
    `perf_model(**args, **config) -> estimate` with `top_k` (an int, or a fraction of the
    configs). `reset_to_zero` / `restore_value`: tensor arguments zeroed / saved and
    restored around each benchmarked run. `do_bench(fn, quantiles=...)` replaces the
    timer. `cache_results`: keep the best config of each key on disk.
    """

    def decorator(fn: Any) -> Autotuner:
        return Autotuner(fn, None, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         do_bench=do_bench, cache_results=cache_results)

    return decorator


class Heuristics(KernelWrapper):
    """A kernel whose extra constexpr arguments are computed from the others at launch."""

    def __init__(self, fn: Any, arg_names: list[str] | None,
                 values: dict[str, Callable[[dict[str, Any]], Any]]) -> None:
        super().__init__(fn)
        if arg_names is not None:
            self.arg_names = list(arg_names)
        self.values = dict(values)

    def _with_values(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs = dict(kwargs)
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic(_named_args(self.base_fn, args, kwargs))
        return kwargs

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        return self.fn[grid](*args, **self._with_values(args, kwargs))

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> Any:
        return self.fn.warmup(*args, grid=grid, **self._with_values(args, kwargs))

    def __repr__(self) -> str:
        return f"Heuristics({self.fn!r}, {sorted(self.values)})"


def heuristics(values: dict[str, Callable[[dict[str, Any]], Any]]) -> Callable[[Any], Heuristics]:
    """Decorate a kernel so that each `values[name](args)` is passed as the constexpr `name`."""

    def decorator(fn: Any) -> Heuristics:
        return Heuristics(fn, None, values)

    return decorator
