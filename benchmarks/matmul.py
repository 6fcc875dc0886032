"""fp16 matmul (fp32 accumulation), tritonc beside Triton on the same source in the same run.

    python3 benchmarks/matmul.py [results.json]

The kernel is Triton's tutorial matmul (`benchmarks/kernels.py`), one configuration for
both compilers: 128 x 128 x 64 tiles, 8 warps, 3 stages. Reports TFLOP/s (2 M N K over
the median time), the fraction of the measured cuBLAS rate, and tritonc / Triton.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from run import finish_row, load_kernels  # noqa: E402

from tritonc.testing import do_bench  # noqa: E402

CONFIG = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3)


def tflops(ms: float, m: int, n: int, k: int) -> float:
    return 2 * m * n * k / ms / 1e9


def main() -> None:
    flavours = {"tritonc": load_kernels("tritonc"), "triton": load_kernels("triton")}
    rows = []
    for size in (4096, 8192):
        m = n = k = size
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        cublas = tflops(do_bench(lambda a=a, b=b: a @ b, return_mode="median"), m, n, k)
        row = {"size": size, "cublas": cublas}
        for name, module in flavours.items():
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            grid = ((m // 128) * (n // 128),)

            args = (a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    c.stride(0), c.stride(1))

            def launch(kernel=module.matmul_kernel, grid=grid, args=args):
                kernel[grid](*args, **CONFIG)

            try:
                launch()
                torch.cuda.synchronize()
                err = ((c.float() - ref).norm() / ref.norm()).item()
                assert err < 1e-2, f"relative error {err}"
                row[name] = tflops(do_bench(launch, return_mode="median"), m, n, k)
            except Exception as e:  # report, go on
                row[name] = None
                row[f"{name}_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        rows.append(row)
        finish_row(row, flavours)
        print(f"fp16 matmul {size}^3: tritonc {row.get('tritonc') or 0:.0f} TFLOP/s, Triton "
              f"{row.get('triton') or 0:.0f}, cuBLAS {cublas:.0f}, ratio {row['ratio'] or 0:.2f}")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
