"""torch.compile with tritonc as `triton` against torch.compile with Triton, same GPU, same run.

    python3 benchmarks/torch_compile.py [--rounds N] [--only tritonc|triton] [names...]

Runs the model set (tests/inductor/inductor_models.py) on each side in its own process
(tests/inductor/gpu_worker.py) with cold Inductor, tritonc and Triton caches, `--rounds`
times (2 by default), the sides alternating (tritonc first in odd rounds, Triton in
even ones); each time is the best of its side's rounds, since a side's times move
between processes (Inductor's autotuning picks its configs by timing them; the host's
share of a call moves with the machine's load). Then prints one row per workload:
whether tritonc's outputs match eager (in every round), the first call's time of each
side (compilation included), the steady-state time of a call of each side, the GPU time
of the kernels a call runs (torch profiler) of each side and how many kernels a call
launches (tritonc/Triton), the speed ratios of both (Triton's time / tritonc's: above 1
is faster) and their geometric means. The kernel-time ratio is the compiled code's; the
call-time ratio adds the host's share (launches, autograd, guards). The JSON of every
round is written to build/torch_compile/.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "inductor" / "gpu_worker.py"


def run_side(triton: str, names: list[str], out: Path) -> dict | None:
    with tempfile.TemporaryDirectory(prefix=f"torch-compile-{triton}-") as tmp:
        env = {**os.environ,
               "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [
                   os.environ.get("PYTHONPATH")])]),
               "TORCHINDUCTOR_CACHE_DIR": f"{tmp}/inductor", "TRITONC_CACHE_DIR": f"{tmp}/tc",
               "TRITON_CACHE_DIR": f"{tmp}/triton"}
        print(f"== {triton}", flush=True)
        out.unlink(missing_ok=True)
        proc = subprocess.run([sys.executable, str(WORKER), "--triton", triton, "--out",
                               str(out), *names], env=env, check=False)
    if not out.exists():
        print(f"the {triton} run failed (exit code {proc.returncode}); no results", flush=True)
        return None
    return json.loads(out.read_text())


_BEST = ("first_call_s", "ms", "kernel_ms")


def best_of(rounds: list[dict]) -> dict | None:
    """One side's results over its rounds: each time the best of the rounds, `ok` only
    when every round matched, the rest (launchers, kernel counts) from the first round."""
    if not rounds:
        return None
    merged = {**rounds[0], "results": [],
              "foreign_triton_modules": sorted({m for r in rounds
                                                for m in r["foreign_triton_modules"]})}
    by_name = [{row["name"]: row for row in r["results"]} for r in rounds]
    for row in rounds[0]["results"]:
        same = [b[row["name"]] for b in by_name if row["name"] in b]
        best = {**row, "ok": all(r.get("ok") for r in same)}
        for key in _BEST:
            times = [r[key] for r in same if r.get(key) is not None]
            best[key] = min(times) if times else None
        merged["results"].append(best)
    return merged


def _fmt(value: float | None, spec: str) -> str:
    return "-".rjust(int(spec.split(".")[0])) if value is None else format(value, spec)


def _geomean(ratios: list[float]) -> float:
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def _ratio(tc: dict, tr: dict, key: str) -> float | None:
    if tc.get("ok") and tr.get("ok") and tc.get(key) and tr.get(key):
        return tr[key] / tc[key]
    return None


def report(ours: dict | None, theirs: dict | None) -> str:
    rows = {}
    for side, data in (("tc", ours), ("tr", theirs)):
        for row in (data or {}).get("results", []):
            rows.setdefault(row["name"], {})[side] = row
    lines = [f"{'workload':32} {'match':>5} {'compile tc s':>12} {'compile tr s':>12} "
             f"{'tc ms':>9} {'triton ms':>9} {'call':>6} "
             f"{'tc kern ms':>10} {'tr kern ms':>10} {'kernels':>7} {'launches':>9}"]
    ratios: dict[str, list[float]] = {"ms": [], "kernel_ms": []}
    for name, sides in rows.items():
        tc, tr = sides.get("tc", {}), sides.get("tr", {})
        call, kern = _ratio(tc, tr, "ms"), _ratio(tc, tr, "kernel_ms")
        for key, ratio in (("ms", call), ("kernel_ms", kern)):
            if ratio is not None:
                ratios[key].append(ratio)
        match = "-" if not tc else ("yes" if tc.get("ok") else "NO")
        lines.append(f"{name:32} {match:>5} "
                     f"{_fmt(tc.get('first_call_s'), '12.1f')} "
                     f"{_fmt(tr.get('first_call_s'), '12.1f')} {_fmt(tc.get('ms'), '9.3f')} "
                     f"{_fmt(tr.get('ms'), '9.3f')} {_fmt(call, '5.2f')}{'x' if call else ' '} "
                     f"{_fmt(tc.get('kernel_ms'), '10.3f')} {_fmt(tr.get('kernel_ms'), '10.3f')} "
                     f"{_fmt(kern, '6.2f')}{'x' if kern else ' '} "
                     f"{_fmt(tc.get('kernels'), '4.0f')}/"
                     f"{_fmt(tr.get('kernels'), '4.0f').strip():4}")
        if tc and not tc.get("ok"):
            lines.append(f"    tritonc: {tc.get('error', '')[:300]}")
    for key, what in (("ms", "call time"), ("kernel_ms", "kernel time")):
        if ratios[key]:
            lines.append(f"geomean speed, {what}, over {len(ratios[key])} workloads: "
                         f"{_geomean(ratios[key]):.3f}x (min {min(ratios[key]):.2f}x)")
    for side, data in (("tritonc", ours), ("Triton", theirs)):
        made = [row.get("launchers", {}) for row in (data or {}).get("results", [])]
        if made:
            lines.append(f"launchers Inductor made, {side}: "
                         f"{sum(m.get('static', 0) for m in made)} static, "
                         f"{sum(m.get('run', 0) for m in made)} through the kernel's run")
    if ours is not None:
        lines.append(f"real triton modules in the tritonc run: "
                     f"{ours['foreign_triton_modules'] or 'none'}")
        lines.append(f"torch {ours['torch']} on {ours['device']}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("tritonc", "triton"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("names", nargs="*")
    ns = parser.parse_args(argv)
    out_dir = ROOT / "build" / "torch_compile"
    out_dir.mkdir(parents=True, exist_ok=True)
    sides = [s for s in ("tritonc", "triton") if ns.only in (None, s)]
    runs: dict[str, list[dict]] = {s: [] for s in sides}
    for n in range(ns.rounds):
        for side in sides if n % 2 == 0 else sides[::-1]:
            data = run_side(side, ns.names, out_dir / f"{side}-{n + 1}.json")
            if data is not None:
                runs[side].append(data)
    text = report(best_of(runs.get("tritonc", [])), best_of(runs.get("triton", [])))
    (out_dir / "report.txt").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
