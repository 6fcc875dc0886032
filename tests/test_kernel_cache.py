"""The on-disk kernel cache as the GPU launch path uses it: miss, hit without MLIR, repair."""

import os
import subprocess
import sys
from pathlib import Path

from tritonc.backends.cuda.options import CUDAOptions
from tritonc.runtime.cache import Cache
from tritonc.runtime.gpu_launch import compiled_binary

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

from vector_add import add_kernel  # noqa: E402

SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}
CONST = {"BLOCK_SIZE": 1024}


def build(arch: int = 90) -> dict:
    return compiled_binary(add_kernel, SIG, CONST, set(SIG), CUDAOptions(), arch)


def test_miss_then_hit_without_mlir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    entry = build()
    assert entry["kernel.cubin"][:4] == b"\x7fELF"
    code = "\n".join([
        f"import sys; sys.path.insert(0, {str(ROOT / 'examples')!r})",
        "from vector_add import add_kernel",
        "from tritonc.runtime.gpu_launch import compiled_binary",
        "from tritonc.backends.cuda.options import CUDAOptions",
        f"sig = {SIG!r}",
        "entry = compiled_binary(add_kernel, sig, {'BLOCK_SIZE': 1024}, set(sig),",
        "                        CUDAOptions(), 90)",
        "print(len(entry['kernel.cubin']), 'mlir' in sys.modules)",
    ])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "TRITONC_CACHE_DIR": str(tmp_path)})
    size, has_mlir = out.stdout.split()
    assert int(size) == len(entry["kernel.cubin"]) and has_mlir == "False"


def test_other_arch_or_options_miss(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    build(90)
    build(80)
    compiled_binary(add_kernel, SIG, CONST, set(SIG), CUDAOptions(num_warps=8), 90)
    assert len(list(Path(tmp_path).glob("*/*/kernel.cubin"))) == 3


def test_truncated_cubin_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    good = build()["kernel.cubin"]
    (cubin,) = Path(tmp_path).glob("*/*/kernel.cubin")
    cubin.write_bytes(cubin.read_bytes()[:100])
    assert build()["kernel.cubin"] == good
    assert Cache(tmp_path).get(cubin.parent.name)["kernel.cubin"] == good
