"""The demo: compile every example with the tritonc CLI, then run each and check it.

Each example module defines its @jit kernel, the kernel's CLI `SIGNATURE` and
`CONSTEXPRS`, `check(device)` returning the largest error against a torch reference, and
optionally its `TOLERANCE` and the name of its `KERNEL` (else the first @jit function).
Kernels run on the GPU when one is present, else in the interpreter.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = ("vector_add", "softmax", "layer_norm", "fused_attention")
TOLERANCE = 1e-5
HERE = Path(__file__).resolve().parent


def compile_example(module, out_dir: Path) -> str | None:
    """Run `tritonc compile`; return the missing stage's message, if any."""
    kernel = getattr(module, "KERNEL", None) or next(
        k for k, v in vars(module).items() if type(v).__name__ == "JITFunction")
    base = [sys.executable, "-m", "tritonc.cli.main", "compile",
            f"{module.__file__}:{kernel}", "--signature", module.SIGNATURE,
            "--constexpr", module.CONSTEXPRS, "--target", "cuda:90", "-o", str(out_dir)]
    done = subprocess.run(base + ["--emit", "ttir,ttgir,llir,ptx,cubin"], capture_output=True,
                          text=True)
    if done.returncode == 0:
        print("  " + done.stdout.strip().replace("\n", "\n  "))
        return None
    missing = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
    ttir = subprocess.run(base + ["--emit", "ttir"], capture_output=True, text=True)
    if ttir.returncode != 0:
        sys.exit(f"compiling {kernel} to TTIR failed:\n{ttir.stderr}")
    print("  " + ttir.stdout.strip())
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="build", help="where compiled stages go")
    out_dir = Path(parser.parse_args().out)
    sys.path.insert(0, str(HERE))
    import torch

    on_gpu = torch.cuda.is_available()
    if not on_gpu:
        os.environ["TRITONC_INTERPRET"] = "1"
    device = "cuda" if on_gpu else "cpu"
    missing, failed = None, []
    for name in EXAMPLES:
        module = importlib.import_module(name)
        print(f"{name}:")
        missing = compile_example(module, out_dir) or missing
        error = module.check(device)
        tolerance = getattr(module, "TOLERANCE", TOLERANCE)
        status = "ok" if error <= tolerance else "MISMATCH"
        where = "GPU" if on_gpu else "interpreter"
        print(f"  ran in the {where}: max |error| vs torch (float64) = {error:.3g}  {status}")
        if error > tolerance:
            failed.append(name)
    if failed:
        print(f"demo failed: {', '.join(failed)} disagree with the reference")
        return 1
    if missing:
        print(f"demo incomplete: {missing.removeprefix('tritonc: error: ')}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
