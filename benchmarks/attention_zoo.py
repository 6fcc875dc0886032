"""The attention zoo: flash-attention forward written with pointer arithmetic, block
pointers and tensor descriptors, tritonc beside Triton on the same source in the same run,
with torch's scaled_dot_product_attention for scale.

    python3 benchmarks/attention_zoo.py [--quick] [--rounds N] [--out results.json]

Rows: {pointers, block pointers, descriptors made in the kernel or on the host} x head_dim
{64, 128} x {causal, not} x {fp16, bf16} x sequence {1024, 4096, 16384} (batch x heads =
64 x 16 / (seq / 1024), so every row moves the same number of tokens), 128 x 64 tiles,
8 warps, 3 stages (kernels: benchmarks/attention_kernels.py and
examples/fused_attention.py). TFLOP/s counts the two products (halved when causal). Each
result is checked against torch first; a case a compiler cannot run is reported with its
error. Each row times the two compilers `--rounds` times (2 by default), taking turns to go
first, and keeps each side's median. The block-pointer kernel (the tutorial's) is fp16
only. `--quick`: fp16, sequence 4096; `--seqs` and `--head-dims` pick rows.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from run import finish_row, load_kernels, print_geomean  # noqa: E402

from tritonc.testing import do_bench  # noqa: E402

SOURCES = ["pointers", "block pointers", "descriptors", "host descriptors"]


def _launch(flavour, source, q, k, v, out, causal, head_dim):
    z, h, n_ctx, _ = q.shape
    grid = (n_ctx // 128, z * h)
    meta = dict(N_CTX=n_ctx, HEAD_DIM=head_dim, BLOCK_M=128, BLOCK_N=64,
                STAGE=3 if causal else 1, num_warps=8, num_stages=3)
    if source == "block pointers":
        m = torch.empty(z * h, n_ctx, device="cuda")
        args = (q, k, v, 0.5, m, out, *q.stride(), *k.stride(), *v.stride(), *out.stride(),
                z, h)
        kernel = flavour["block"]._attn_fwd
    elif source == "host descriptors":
        mod = flavour["zoo"]
        make = importlib.import_module(
            f"{mod.triton.__name__}.tools.tensor_descriptor").TensorDescriptor.from_tensor
        rows = [t.reshape(-1, head_dim) for t in (q, k, v, out)]
        blocks = ([128, head_dim], [64, head_dim], [64, head_dim], [128, head_dim])
        args = (*(make(t, b) for t, b in zip(rows, blocks)), 0.5)
        kernel = mod.attn_fwd_host_desc
    else:
        args = (q, k, v, 0.5, out, h)
        mod = flavour["zoo"]
        kernel = mod.attn_fwd_ptr if source == "pointers" else mod.attn_fwd_desc
    return lambda: kernel[grid](*args, **meta)


def _triton_allocator() -> bool:
    try:
        import triton
    except ImportError:
        return False
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))
    return True


def _time_rounds(launches: dict, rounds: int) -> dict:
    """Milliseconds of each launch: the median over `rounds` timings, the sides taking
    turns to go first."""
    times: dict = {name: [] for name in launches}
    names = list(launches)
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            times[name].append(do_bench(launches[name], warmup=10, rep=40,
                                        return_mode="median"))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seqs", default=None, help="e.g. 4096,16384 (all three by default)")
    parser.add_argument("--head-dims", default="64,128")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    names = ["tritonc"] + (["triton"] if _triton_allocator() else [])
    flavours = {name: {"zoo": load_kernels(name, HERE / "attention_kernels.py"),
                       "block": load_kernels(name, HERE.parent / "examples" /
                                             "fused_attention.py")} for name in names}
    dtypes = [torch.float16] if args.quick else [torch.float16, torch.bfloat16]
    seqs = [4096] if args.quick else [1024, 4096, 16384]
    if args.seqs:
        seqs = [int(s) for s in args.seqs.split(",")]
    head_dims = [int(d) for d in args.head_dims.split(",")]
    rows = []
    for dtype in dtypes:
        for n_ctx in seqs:
            z, h = max(1, 64 * 1024 // n_ctx // 16), 16
            for head_dim in head_dims:
                for causal in (False, True):
                    q, k, v = (torch.randn(z, h, n_ctx, head_dim, device="cuda", dtype=dtype)
                               for _ in range(3))
                    ref = torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, scale=0.5).float()
                    flops = 4 * z * h * n_ctx * n_ctx * head_dim * (0.5 if causal else 1)
                    sdpa = flops / do_bench(
                        lambda q=q, k=k, v=v, c=causal:
                        torch.nn.functional.scaled_dot_product_attention(
                            q, k, v, is_causal=c, scale=0.5), return_mode="median") / 1e9
                    for source in SOURCES:
                        if source == "block pointers" and dtype != torch.float16:
                            continue  # the example kernel is written for fp16
                        row = {"dtype": str(dtype).split(".")[-1], "seq": n_ctx,
                               "head_dim": head_dim, "causal": causal, "source": source,
                               "sdpa": sdpa}
                        launches = {}
                        for name in names:
                            out = torch.full_like(q, float("nan"))
                            try:
                                launch = _launch(flavours[name], source, q, k, v, out, causal,
                                                 head_dim)
                                launch()
                                torch.cuda.synchronize()
                                err = ((out.float() - ref).norm() / ref.norm()).item()
                                if not err < 2e-2:
                                    raise AssertionError(f"relative error {err:.3g}")
                                launches[name] = launch
                            except Exception as e:  # report, go on
                                row[name] = None
                                row[f"{name}_error"] = f"{type(e).__name__}: {str(e)[:200]}"
                        row.update({name: flops / ms / 1e9 for name, ms
                                    in _time_rounds(launches, args.rounds).items()})
                        finish_row(row, flavours)
                        rows.append(row)
                        _print(row)
    print_geomean(rows)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


def _print(row: dict) -> None:
    def fmt(v):
        return f"{v:5.0f}" if v else "    -"

    print(f"{row['dtype']:8} seq {row['seq']:5} d {row['head_dim']:3} "
          f"{'causal' if row['causal'] else 'full  '} {row['source']:14} "
          f"tritonc {fmt(row.get('tritonc'))} Triton {fmt(row.get('triton'))} "
          f"SDPA {fmt(row['sdpa'])} ratio {row['ratio'] or 0:.2f}", flush=True)


if __name__ == "__main__":
    main()
