"""The model set under torch.compile on the GPU, with tritonc as `triton`.

One child process (`gpu_worker.py --triton tritonc`) compiles and runs every workload,
so the alias is the only `triton` it ever imports; each test reads its row: outputs and
gradients matched eager, and no real Triton module was loaded. `INDUCTOR_MODELS=a,b`
limits the run to those workloads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

try:
    import inductor_models as models

    NAMES = [w.name for w in models.WORKLOADS]
    if os.environ.get("INDUCTOR_MODELS"):
        NAMES = [n for n in NAMES if n in os.environ["INDUCTOR_MODELS"].split(",")]
except ImportError:  # no torch: the gpu tests are skipped anyway
    NAMES = []


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu_models") / "tritonc.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "TORCHINDUCTOR_CACHE_DIR": str(out.parent / "inductor"),
        "TRITONC_CACHE_DIR": str(out.parent / "tritonc")}
    proc = subprocess.run([sys.executable, str(HERE / "gpu_worker.py"), "--triton", "tritonc",
                           "--out", str(out), *NAMES], env=env, capture_output=True,
                          text=True, timeout=3000)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    data = json.loads(out.read_text())
    return data, {row["name"]: row for row in data["results"]}


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_workload_matches_eager(report, name):
    row = report[1][name]
    assert row["ok"], row.get("traceback") or row.get("error")


@pytest.mark.gpu
def test_no_real_triton_module_loaded(report):
    assert report[0]["foreign_triton_modules"] == []


@pytest.mark.gpu
def test_inductor_launches_through_its_static_launcher(report):
    """The cubins lie where Inductor's static CUDA launcher looks, so it launches them."""
    counts = [row.get("launchers", {}) for row in report[1].values()]
    assert sum(c.get("static", 0) for c in counts) > 0, counts
