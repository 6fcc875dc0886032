"""The matmul zoo: every way a matmul is written, tritonc beside Triton on the same source
in the same run, with torch.matmul (cuBLAS) for scale.

    python3 benchmarks/matmul_zoo.py [--quick] [--dtypes fp16,bf16] [--sizes 4096,8192]
                                     [--sources "pointers,block pointers"] [--rounds N]
                                     [--c-dtype operand] [--out results.json]

Rows: {fp16, bf16, fp8 e4m3, tf32} x {A row-, column-major} x {B row-, column-major} x
{pointer tiles, B as N x K with `.T`, block pointers, tensor descriptors made in the
kernel (row-major only) or on the host (row-major A; a column-major B read as N x K
with `.T`), tutorial 09's persistent kernel over descriptors made in the kernel, its tile
loop warp-specialized (row-major A; B either way)} x two tile configurations (128 x 128
x 64 on 4 warps, 128 x 256 x 64 on 8, 3 stages) x sizes 4096^3, 8192^3 and 4000^3
(kernels of benchmarks/matmul_kernels.py); tf32 tiles take half the BLOCK_K. Every
dtype accumulates in fp32; each result is checked against the product of the same
operands in float64 before it is timed; a case a compiler cannot run is reported with
its error, and the run goes on. C is fp32 unless `--c-dtype operand` asks for the dtype
of the product cuBLAS is timed on: fp16 and bf16 for theirs, fp32 for tf32, bf16 for fp8
(torch._scaled_mm, which takes B column-major: a row-major B is copied so before the
timing). `--quick`: fp16 and bf16, the 128 x 256 x 64 tiles, sizes 4096^3 and 4000^3
(about one minute for each dtype). The whole zoo is more than one run of a few minutes:
split it by `--dtypes` and `--sizes` (one dtype at one size, both tiles: about one
minute). Each row times the two compilers
`--rounds` times (2 by default), alternating which goes first, and keeps each side's
median: under a sustained 8192^3 load the card's clock drifts from one timing to the
next by several per cent, which a single timing per side would credit to one of them.
Prints one line per row and the geometric mean of tritonc / Triton.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from run import finish_row, load_kernels, print_geomean, triton_allocator  # noqa: E402

from tritonc.testing import do_bench  # noqa: E402

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp8": torch.float8_e4m3fn,
          "tf32": torch.float32}
TILES = [(128, 128, 64, 4), (128, 256, 64, 8)]  # and warps; BLOCK_K halved for tf32
SIZES = [4096, 8192, 4000]
ORDERS = [(False, False), (False, True), (True, False), (True, True)]  # A col, B col
SOURCES = ["pointers", "pointers .T", "block pointers", "descriptors", "host descriptors",
           "persistent"]


def tflops(ms: float, m: int, n: int, k: int) -> float:
    return 2 * m * n * k / ms / 1e9


def _operands(size: int, dtype: str, a_col: bool, b_col: bool):
    a = torch.randn(size, size, device="cuda")
    b = torch.randn(size, size, device="cuda")
    if dtype == "fp8":
        a, b = a.clamp(-4, 4), b.clamp(-4, 4)
    a, b = a.to(DTYPES[dtype]), b.to(DTYPES[dtype])
    ref = (a.float().double() @ b.float().double()).float()  # the operands as read
    if a_col:
        a = a.t().contiguous().t()
    if b_col:
        b = b.t().contiguous().t()
    return a, b, ref


def _cublas(a, b, dtype: str, size: int) -> float | None:
    try:
        if dtype == "fp8":
            one = torch.ones((), device="cuda")
            bt = b.t().contiguous().t()
            fn = lambda: torch._scaled_mm(a.contiguous(), bt, one, one,  # noqa: E731
                                          out_dtype=torch.bfloat16)
        else:
            torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
            fn = lambda: a @ b  # noqa: E731
        return tflops(do_bench(fn, return_mode="median"), size, size, size)
    except Exception:  # cuBLAS has no kernel for this case
        return None


def _tile(tile, dtype: str) -> tuple:
    """The tile of `dtype`: half the BLOCK_K for tf32, whose 3-stage ring of 128 x 256 x 64
    fp32 tiles would be over the 228 KB of shared memory."""
    bm, bn, bk = tile[:3]
    return (bm, bn, bk // 2) if dtype == "tf32" else (bm, bn, bk)


def _launcher(module, source: str, a, b, c, size: int, tile, dtype: str):
    bm, bn, bk = _tile(tile, dtype)
    grid = (math.ceil(size / bm) * math.ceil(size / bn),)
    precision = "tf32" if dtype == "tf32" else "ieee"
    meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, PRECISION=precision,
                num_warps=tile[3], num_stages=3)
    m = n = k = size
    strides = (a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    if source.startswith("pointers"):
        kernel = module.matmul_ptr
        meta["B_TRANS"] = 1 if source.endswith(".T") else 0
        args = (a, b, c, m, n, k, *strides)
    elif source == "block pointers":
        kernel = module.matmul_block_ptr
        meta["A_ORDER"] = (1, 0) if a.stride(1) == 1 else (0, 1)
        meta["B_ORDER"] = (1, 0) if b.stride(1) == 1 else (0, 1)
        args = (a, b, c, m, n, k, *strides)
    elif source == "descriptors":
        kernel = module.matmul_descriptor
        args = (a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0), c.stride(1))
    elif source == "persistent":
        kernel = module.matmul_persistent
        meta["B_TRANS"] = int(b.stride(0) == 1)
        meta["NUM_SMS"] = torch.cuda.get_device_properties(a.device).multi_processor_count
        grid = (min(grid[0], meta["NUM_SMS"]),)
        args = (a, b, c, m, n, k, a.stride(0), b.stride(1) if meta["B_TRANS"] else b.stride(0),
                c.stride(0), c.stride(1))
    else:
        tools = importlib.import_module(f"{module.triton.__name__}.tools.tensor_descriptor")
        make = tools.TensorDescriptor.from_tensor
        kernel = module.matmul_host_descriptor
        meta["B_TRANS"] = int(b.stride(0) == 1)
        b_desc = make(b.t(), [bn, bk]) if meta["B_TRANS"] else make(b, [bk, bn])
        args = (make(a, [bm, bk]), b_desc, c, m, n, k, c.stride(0), c.stride(1))
    return lambda: kernel[grid](*args, **meta)


def _c_dtype(dtype: str, c_dtype: str) -> torch.dtype:
    """C's dtype: fp32, or with `c_dtype` "operand" the dtype of cuBLAS's product."""
    if c_dtype == "fp32" or dtype == "tf32":
        return torch.float32
    return torch.bfloat16 if dtype == "fp8" else DTYPES[dtype]


def _checked_launch(module, source, a, b, ref, size, tile, dtype, c_dtype):
    """The launch of one row's kernel, run once (compiling it) and its result checked."""
    c = torch.full((size, size), float("nan"), device="cuda", dtype=c_dtype)
    launch = _launcher(module, source, a, b, c, size, tile, dtype)
    launch()
    torch.cuda.synchronize()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    limit = 1e-2
    if not err < limit:
        raise AssertionError(f"relative error {err:.3g}")
    return launch


def _time_rounds(launches: dict, size: int, rounds: int) -> dict:
    """TFLOP/s of each launch: the median over `rounds` timings, the sides alternating."""
    times: dict = {name: [] for name in launches}
    names = list(launches)
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            ms = do_bench(launches[name], warmup=10, rep=40, return_mode="median")
            times[name].append(tflops(ms, size, size, size))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dtypes", default=None)
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--sources", default=None,
                        help=f"a comma-separated subset of: {', '.join(SOURCES)}")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--c-dtype", choices=("fp32", "operand"), default="fp32")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    dtypes = args.dtypes.split(",") if args.dtypes else (
        ["fp16", "bf16"] if args.quick else list(DTYPES))
    for d in dtypes:
        if d not in DTYPES:
            parser.error(f"unknown dtype {d!r} (choose from {', '.join(DTYPES)})")
    tiles = TILES[1:] if args.quick else TILES
    sizes = [4096, 4000] if args.quick else SIZES
    if args.sizes:
        try:
            sizes = [int(x) for x in args.sizes.split(",")]
        except ValueError:
            parser.error(f"--sizes takes integers separated by commas, got {args.sizes!r}")
    sources = args.sources.split(",") if args.sources else SOURCES
    for s in sources:
        if s not in SOURCES:
            parser.error(f"unknown source {s!r} (choose from {', '.join(SOURCES)})")
    path = HERE / "matmul_kernels.py"
    flavours = {name: load_kernels(name, path) for name in ("tritonc", "triton")}
    triton_allocator(flavours)
    rows = []
    for dtype in dtypes:
        for size in sizes:
            for a_col, b_col in ORDERS:
                a, b, ref = _operands(size, dtype, a_col, b_col)
                cublas = _cublas(a, b, dtype, size)
                for source in sources:
                    if source == "pointers .T" and not b_col:
                        continue
                    if source == "descriptors" and (a_col or b_col):
                        continue
                    if source in ("host descriptors", "persistent") and a_col:
                        continue
                    for tile in tiles:
                        row = {"dtype": dtype, "size": size, "a": "col" if a_col else "row",
                               "b": "col" if b_col else "row", "source": source,
                               "tile": "x".join(map(str, _tile(tile, dtype)))
                               + f"/{tile[3]}w",
                               "c": args.c_dtype, "cublas": cublas}
                        launches = {}
                        for name, module in flavours.items():
                            try:
                                launches[name] = _checked_launch(
                                    module, source, a, b, ref, size, tile, dtype,
                                    _c_dtype(dtype, args.c_dtype))
                            except Exception as e:  # report, go on
                                row[name] = None
                                row[f"{name}_error"] = f"{type(e).__name__}: {str(e)[:200]}"
                        row.update(_time_rounds(launches, size, args.rounds))
                        finish_row(row, flavours)
                        rows.append(row)
                        _print(row)
    print_geomean(rows)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


def _print(row: dict) -> None:
    def fmt(v):
        return f"{v:6.0f}" if v else "     -"

    print(f"{row['dtype']:4} {row['size']:5} A {row['a']} B {row['b']} {row['source']:14} "
          f"{row['tile']:13} tritonc {fmt(row.get('tritonc'))} Triton {fmt(row.get('triton'))} "
          f"cuBLAS {fmt(row['cublas'])} ratio {row['ratio'] or 0:.2f}", flush=True)


if __name__ == "__main__":
    main()
