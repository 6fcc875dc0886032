"""Draw the zoos' tritonc / Triton ratios, one column of dots per group of rows, from the
JSON files `matmul_zoo.py --out` and `attention_zoo.py --out` write.

    python3 benchmarks/zoo_chart.py OUT.png ZOO.json [ZOO.json ...]

Matmul rows are grouped by dtype and size, attention rows by dtype and head_dim; each
group's geometric mean is drawn as a bar, the 0.95 line the zoos are held to as a dashed
line."""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

_SHORT = {"float16": "fp16", "bfloat16": "bf16"}


def _group(row: dict) -> str:
    if "head_dim" in row:
        return f"attention\n{_SHORT.get(row['dtype'], row['dtype'])} d{row['head_dim']}"
    return f"{row['dtype']}\n{row['size']}^3"


def ratios(paths: list[str]) -> dict[str, list[float]]:
    """tritonc / Triton of every row both compilers ran, by group, in file order."""
    groups: dict[str, list[float]] = defaultdict(list)
    for path in paths:
        for row in json.loads(open(path).read()):
            if row.get("tritonc") and row.get("triton"):
                groups[_group(row)].append(row["tritonc"] / row["triton"])
    return groups


def main(out: str, paths: list[str]) -> None:
    groups = ratios(paths)
    fig, ax = plt.subplots(figsize=(12, 4.5))
    for x, values in enumerate(groups.values()):
        geomean = math.exp(sum(map(math.log, values)) / len(values))
        ax.bar(x, geomean, 0.6, color="#c8d8ec", zorder=1)
        offsets = [x + 0.5 * ((i % 9) / 8 - 0.5) for i in range(len(values))]
        ax.scatter(offsets, values, s=9, color="#1f4e8c", zorder=2)
    ax.axhline(0.95, color="gray", linestyle="--", linewidth=1, label="0.95")
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(groups)), list(groups), fontsize=8)
    ax.set_ylim(0.8, max(max(v) for v in groups.values()) + 0.1)
    ax.set_ylabel("tritonc / Triton 3.6 (TFLOP/s, same run)")
    ax.set_title("Matmul and attention zoos: each dot a row, bars the geometric means")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: zoo_chart.py OUT.png ZOO.json [ZOO.json ...]")
    main(sys.argv[1], sys.argv[2:])
