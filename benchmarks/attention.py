"""Flash-attention forward (fp16, fp32 softmax), tritonc beside Triton on the same source.

    python3 benchmarks/attention.py [results.json]

Batch 4, 16 heads, head_dim 64 and 128, causal and not; TFLOP/s counts the two matrix
products (halved when causal). Both results are checked against torch first.
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


def main() -> None:
    flavours = {name: load_kernels(name, HERE.parent / "examples" / "fused_attention.py")
                for name in ("tritonc", "triton")}
    z, h, n_ctx = 4, 16, 4096
    rows = []
    for head_dim in (64, 128):
        for causal in (False, True):
            q, k, v = (torch.randn(z, h, n_ctx, head_dim, device="cuda", dtype=torch.float16)
                       for _ in range(3))
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                   scale=0.5)
            flops = 4 * z * h * n_ctx * n_ctx * head_dim * (0.5 if causal else 1)
            row = {"head_dim": head_dim, "causal": causal}
            for name, module in flavours.items():
                out = torch.full_like(q, float("nan"))
                m = torch.empty(z * h, n_ctx, device="cuda")
                grid = (n_ctx // 128, z * h)

                args = (q, k, v, 0.5, m, out, *q.stride(), *k.stride(), *v.stride(),
                        *out.stride(), z, h)
                meta = dict(N_CTX=n_ctx, HEAD_DIM=head_dim, BLOCK_M=128, BLOCK_N=64,
                            STAGE=3 if causal else 1, num_warps=8, num_stages=3)

                def launch(kernel=module._attn_fwd, grid=grid, args=args, meta=meta):
                    kernel[grid](*args, **meta)

                try:
                    launch()
                    torch.cuda.synchronize()
                    err = ((out.float() - ref.float()).norm() / ref.float().norm()).item()
                    assert err < 1e-2, f"relative error {err}"
                    row[name] = flops / do_bench(launch, return_mode="median") / 1e9
                except Exception as e:  # report, go on
                    row[name] = None
                    row[f"{name}_error"] = f"{type(e).__name__}: {str(e)[:300]}"
            rows.append(row)
            finish_row(row, flavours)
            print(f"attention d={head_dim} causal={causal}: tritonc {row.get('tritonc') or 0:.0f} "
                  f"TFLOP/s, Triton {row.get('triton') or 0:.0f}, ratio {row['ratio'] or 0:.2f}")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
