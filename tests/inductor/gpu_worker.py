"""Run the model set under torch.compile on the GPU, with one Triton, and write JSON.

    python3 tests/inductor/gpu_worker.py --triton tritonc --out results.json [names...]
    python3 tests/inductor/gpu_worker.py --triton triton --out results.json

`--triton tritonc` installs tritonc as `triton` first; `--triton triton` uses the real
package. Both cannot be `triton` in one process, so each side runs in its own. For each
workload the JSON records whether compiled outputs (and gradients) match eager, the
first call's wall time (compilation included), the median time of a call after warm-up
(CUDA events), the GPU time of the kernels one call runs (torch profiler, summed over a
call's kernels: what the compiled code costs, without the host's share) and how many
kernels a call runs, how many launchers Inductor made of each kind (its static CUDA
launcher, or the compiled kernel's `run`), and the modules named `triton*` whose code
lies outside tritonc.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _foreign_triton_modules() -> list[str]:
    """Modules named triton* that are not tritonc's alias (a real Triton's files)."""
    return sorted(n for n, m in sys.modules.items()
                  if (n == "triton" or n.startswith("triton.")) and getattr(m, "__file__", None))


LAUNCHERS = {"static": 0, "run": 0}


def _count_launchers() -> None:
    """Count the launchers Inductor makes: its static CUDA launcher's, and those calling
    the compiled kernel's `run`."""
    from torch._inductor.runtime import triton_heuristics as th

    for cls, kind in ((getattr(th, "StaticTritonCompileResult", None), "static"),
                      (th.TritonCompileResult, "run")):
        if cls is None:
            continue
        make = cls.make_launcher

        def counted(self, make=make, kind=kind):
            LAUNCHERS[kind] += 1
            return make(self)

        cls.make_launcher = counted


def _time_calls(fn, reps: int = 20) -> float:
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / reps)
    return statistics.median(times)


def _kernel_ms(fn, reps: int = 20) -> tuple[float, float]:
    """The GPU time of the kernels `fn` runs, per call, in milliseconds, and how many
    kernels a call runs."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    return sum(e.time_range.elapsed_us() for e in kernels) / reps / 1000, len(kernels) / reps


def run_workload(workload, models) -> dict:
    import torch

    result: dict = {"name": workload.name}
    before = dict(LAUNCHERS)
    try:
        torch._dynamo.reset()
        torch.manual_seed(0)
        fn, args = workload.make("cuda", False)
        compiled = models.compile_fn(workload, fn)

        def call(f=compiled):
            if workload.backward:
                outs, grads = models._grads(f, args, True)
                return outs
            with torch.no_grad():
                return f(*args)

        torch.cuda.synchronize()
        start = time.perf_counter()
        call()
        torch.cuda.synchronize()
        result["first_call_s"] = time.perf_counter() - start
        torch.manual_seed(1)
        models.check(workload, "cuda", False)
        result["ok"] = True
        result["ms"] = _time_calls(call)
        result["kernel_ms"], result["kernels"] = _kernel_ms(call)
    except Exception as e:  # a failed workload is a row of the report, not the end of it
        result["ok"] = False
        result["error"] = f"{type(e).__name__}: {e}"[:4000]
        result["traceback"] = traceback.format_exc()[-6000:]
    result["launchers"] = {k: LAUNCHERS[k] - before[k] for k in LAUNCHERS}
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triton", choices=("tritonc", "triton"), required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("names", nargs="*")
    ns = parser.parse_args(argv)
    if ns.triton == "tritonc":
        import tritonc.inductor

        tritonc.inductor.install()
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", f"/tmp/inductor-cache-{ns.triton}")
    import inductor_models as models
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    _count_launchers()
    names = ns.names or [w.name for w in models.WORKLOADS]
    results = []
    for name in names:
        row = run_workload(models.BY_NAME[name], models)
        print(json.dumps({k: v for k, v in row.items() if k != "traceback"}), flush=True)
        results.append(row)
    report = {"triton": ns.triton, "torch": torch.__version__,
              "device": torch.cuda.get_device_name(), "results": results,
              "foreign_triton_modules": _foreign_triton_modules()}
    Path(ns.out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
