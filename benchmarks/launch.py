"""Launch cost: 10,000 launches of a kernel with 4 tensor and 2 integer arguments.

    python3 benchmarks/launch.py

Times the Python path from `kernel[grid](...)` to `cuLaunchKernel` for tritonc and for
Triton on the same kernel source in the same run (the kernel itself does almost
nothing, so launches queue faster than the GPU drains them only if the host path is
slow), and prints microseconds per launch and the ratio tritonc / Triton.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

SOURCE = '''
import tritonc as triton
import tritonc.language as tl


@triton.jit
def tiny_kernel(a_ptr, b_ptr, c_ptr, d_ptr, n, m, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(d_ptr + offs, tl.load(a_ptr + offs, mask=mask) + m, mask=mask)
'''


def load(flavour: str):
    from run import load_kernels  # the same import-twice helper as the bandwidth runs

    path = HERE / "_launch_kernels.py"
    path.write_text(SOURCE)
    try:
        return load_kernels(flavour, path)
    finally:
        path.unlink()


def per_launch_us(kernel, args, n_launches: int = 10_000) -> float:
    for _ in range(100):
        kernel[(1,)](*args, BLOCK=128)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n_launches):
            kernel[(1,)](*args, BLOCK=128)
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / n_launches * 1e6)
    return best


def main() -> None:
    tensors = [torch.randn(128, device="cuda") for _ in range(4)]
    args = (*tensors, 100, 3)
    result = {}
    for flavour in ("tritonc", "triton"):
        module = load(flavour)
        result[flavour] = per_launch_us(module.tiny_kernel, args)
    expected = tensors[0][:100] + 3
    torch.testing.assert_close(tensors[3][:100], expected)
    result["ratio"] = result["tritonc"] / result["triton"]
    print(f"launch cost: tritonc {result['tritonc']:.2f} us, Triton {result['triton']:.2f} us, "
          f"ratio {result['ratio']:.2f}")
    out = sys.argv[1] if len(sys.argv) > 1 else None
    if out:
        Path(out).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
