"""Check an installed aot_example on a GPU: results against torch, and no compiler loaded.

    pip install --target /tmp/site aot_example-*.whl && \\
        PYTHONPATH=/tmp/site:<tritonc checkout> python3 -P examples/aot_package/check_installed.py

Run it where the MLIR packages are not installed: a launch that matches a precompiled
specialization must load the shipped cubin and never import the compiler. (`-P` keeps
this script's folder, which holds the package's sources, off the import path.)
"""

import sys

import aot_example
import torch

x = torch.randn(1_000_000, device="cuda")
y = torch.randn(1_000_000, device="cuda")
torch.testing.assert_close(aot_example.add(x, y), x + y)
h = torch.randn(3000, device="cuda", dtype=torch.float16)
torch.testing.assert_close(aot_example.scale(h, 0.5), (h.float() * 0.5).half())
loaded = [m for m in ("mlir", "llvmlite", "tritonc.compiler.compiler") if m in sys.modules]
assert not loaded, f"the compiler was loaded: {loaded}"
print("aot_example: results match torch; no compiler module was imported")
