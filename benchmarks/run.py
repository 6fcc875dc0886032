"""Memory-bound kernels, tritonc beside Triton on the same source in the same run.

    python3 benchmarks/run.py --out results.json

For each case: the median time of `do_bench` (CUDA events, L2 flushed between reps)
for tritonc and for Triton, the achieved bandwidth (bytes that must move / time), its
fraction of a measured device-to-device copy, and the ratio tritonc / Triton in GB/s.
Every result is checked against torch before it is timed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
sys.path.insert(0, str(HERE.parent))

from tritonc.testing import do_bench  # noqa: E402


def load_kernels(flavour: str, path: Path = HERE / "kernels.py"):
    """A kernel file as tritonc sees it, or the same source bound to Triton."""
    if path == HERE / "kernels.py":
        # one namespace with every kernel: benchmarks/kernels.py and the examples'
        merged = type(sys)(f"kernels_{flavour}")
        for file in (path, *(EXAMPLES / f"{n}.py" for n in ("vector_add", "softmax",
                                                             "layer_norm"))):
            merged.__dict__.update({k: v for k, v in vars(_load(flavour, file)).items()
                                    if not k.startswith("__")})
        return merged
    return _load(flavour, path)


def _load(flavour: str, path: Path):
    source = path.read_text()
    if flavour == "triton":
        source = source.replace("import tritonc as triton", "import triton").replace(
            "import tritonc.language as tl", "import triton.language as tl")
    name = f"{path.stem}_{flavour}"
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def finish_row(row: dict, flavours) -> None:
    """Add the ratio tritonc / Triton to a result row and print any flavour's error."""
    mine, theirs = row.get("tritonc"), row.get("triton")
    row["ratio"] = mine / theirs if mine and theirs else None
    for flavour in flavours:
        if f"{flavour}_error" in row:
            print(f"    {flavour}: {row[f'{flavour}_error']}")


def triton_allocator(flavours: dict) -> None:
    """Triton's in-kernel tensor descriptors need scratch memory from torch; without a
    `triton` package the Triton side is dropped from `flavours`."""
    try:
        import triton
    except ImportError:
        flavours.pop("triton")
        return
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))


def print_geomean(rows: list[dict]) -> float | None:
    """Print and return the geomean of the rows' ratios tritonc / Triton (None: no ratio)."""
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if not ratios:
        print("no ratios")
        return None
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geomean tritonc / Triton over {len(ratios)} rows: {geomean:.3f}; "
          f"lowest {min(ratios):.2f}")
    return geomean


def copy_bandwidth() -> float:
    x = torch.empty(2**28, device="cuda")
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), return_mode="median")
    return 2 * x.numel() * 4 / ms / 1e6


def cdiv(a, b):
    return (a + b - 1) // b


def cases():
    """(name, bytes moved, setup(k) -> (launch, check))."""
    def vector_add(n):
        x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")

        def setup(k):
            out = torch.full_like(x, float("nan"))

            def launch():
                k.add_kernel[(cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)

            return launch, lambda: torch.testing.assert_close(out, x + y)

        return f"vector add {n}", 3 * n * 4, setup

    def softmax(m, n):
        x = torch.randn(m, n, device="cuda")
        block = 1 << (n - 1).bit_length()
        warps = 4 if block <= 2048 else 8 if block <= 4096 else 16

        def setup(k):
            out = torch.full_like(x, float("nan"))

            def launch():
                k.softmax_kernel[(m,)](out, x, x.stride(0), out.stride(0), n, BLOCK_SIZE=block,
                                       num_warps=warps)

            return launch, lambda: torch.testing.assert_close(out, torch.softmax(x, 1))

        return f"softmax {m}x{n}", 2 * m * n * 4, setup

    def layer_norm(m, n):
        x = torch.randn(m, n, device="cuda")
        w, b = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")

        def setup(k):
            y = torch.full_like(x, float("nan"))
            mean = torch.empty(m, device="cuda")
            rstd = torch.empty(m, device="cuda")

            def launch():
                k.layer_norm_fwd[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                       BLOCK_SIZE=1024, num_warps=8)

            ref = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
            return launch, lambda: torch.testing.assert_close(y, ref, atol=1e-4, rtol=1e-4)

        return f"layer norm {m}x{n}", 2 * m * n * 4, setup

    def row_sum(m, n):
        x = torch.randn(m, n, device="cuda")

        def setup(k):
            out = torch.full((m,), float("nan"), device="cuda")

            def launch():
                k.row_sum_kernel[(m,)](x, out, x.stride(0), n, BLOCK_SIZE=1024, num_warps=4)

            return launch, lambda: torch.testing.assert_close(out, x.sum(1), atol=1e-3,
                                                              rtol=1e-4)

        return f"row sum {m}x{n}", m * n * 4, setup

    def cumsum(m, n):
        x = torch.randn(m, n, device="cuda")

        def setup(k):
            out = torch.full_like(x, float("nan"))

            def launch():
                k.cumsum_kernel[(m,)](x, out, x.stride(0), n, BLOCK_SIZE=n, num_warps=4)

            return launch, lambda: torch.testing.assert_close(out, x.cumsum(1), atol=1e-3,
                                                              rtol=1e-4)

        return f"cumsum {m}x{n}", 2 * m * n * 4, setup

    return [vector_add(2**28), softmax(4096, 4096), softmax(8192, 1024),
            softmax(2048, 16384), layer_norm(4096, 8192), row_sum(4096, 8192),
            cumsum(8192, 256)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="benchmark_results.json")
    args = parser.parse_args()
    flavours = {"tritonc": load_kernels("tritonc"), "triton": load_kernels("triton")}
    copy = copy_bandwidth()
    rows = []
    print(f"device-to-device copy: {copy:.0f} GB/s")
    print(f"{'case':28} {'tritonc GB/s':>13} {'Triton GB/s':>12} {'of copy':>8} {'ratio':>6}")
    for name, nbytes, setup in cases():
        row = {"case": name, "bytes": nbytes}
        for flavour, module in flavours.items():
            try:
                launch, check = setup(module)
                launch()
                torch.cuda.synchronize()
                check()
                ms = do_bench(launch, return_mode="median")
                row[flavour] = nbytes / ms / 1e6
            except Exception as e:  # report and go on: one failure must not hide the rest
                row[flavour] = None
                row[f"{flavour}_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        mine, theirs = row.get("tritonc"), row.get("triton")
        row["ratio"] = mine / theirs if mine and theirs else None
        row["fraction_of_copy"] = mine / copy if mine else None
        rows.append(row)

        def fmt(v, spec):
            return format(v, spec) if v is not None else "-"

        print(f"{name:28} {fmt(mine, '13.0f')} {fmt(theirs, '12.0f')} "
              f"{fmt(row['fraction_of_copy'], '8.2f')} {fmt(row['ratio'], '6.2f')}")
        for flavour in flavours:
            if f"{flavour}_error" in row:
                print(f"    {flavour}: {row[f'{flavour}_error']}")
    Path(args.out).write_text(json.dumps({"copy_gbps": copy, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
