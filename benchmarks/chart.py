"""Draw docs/benchmarks.png from the JSON that run.py writes: GB/s of tritonc and Triton."""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(results: str, out: str) -> None:
    data = json.loads(open(results).read())
    rows = data["rows"]
    names = [r["case"] for r in rows]
    xs = range(len(rows))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.38
    ax.bar([x - width / 2 for x in xs], [r.get("tritonc") or 0 for r in rows], width,
           label="tritonc")
    ax.bar([x + width / 2 for x in xs], [r.get("triton") or 0 for r in rows], width,
           label="Triton 3.6")
    ax.axhline(data["copy_gbps"], color="gray", linestyle="--", linewidth=1,
               label="device copy")
    ax.set_xticks(list(xs), names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (bytes that must move / median time)")
    ax.set_title("Memory-bound kernels on an H200, same source, same run")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
