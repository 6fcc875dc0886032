"""Build-time AOT: the example package's wheel carries cubins for sm_80 and sm_90 and an
index, and `find_precompiled` finds them for matching launches without importing MLIR."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "aot_package"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The example's wheel, built from a copy of it (so no build/ lands in the repo)."""
    tmp = tmp_path_factory.mktemp("aot_wheel")
    project = tmp / "aot_package"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(
        "build", "dist", "*.egg-info", "__tritonc_aot__", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(project), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(tmp / "dist")], check=True)
    (found,) = (tmp / "dist").glob("aot_example-*.whl")
    return found


def test_wheel_holds_cubins_for_sm80_and_sm90(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        index = json.loads(z.read("aot_example/__tritonc_aot__/index.json"))
        cubins = {n: z.read(n) for n in names if n.endswith(".cubin")}
    assert {e["arch"] for e in index["entries"]} == {80, 90}
    assert len(index["entries"]) == 8  # add: 2 signatures x 2 archs; scale: 2 BLOCKs x 2 archs
    for entry in index["entries"]:
        data = cubins[f"aot_example/__tritonc_aot__/{entry['cubin']}"]
        assert data[:4] == b"\x7fELF"
        assert {"name", "shared", "num_warps"} <= set(entry["metadata"])
    from tritonc.aot.cubin import parse_cubin

    assert {parse_cubin(d).arch for d in cubins.values()} == {80, 90}


LOOKUP = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import aot_example
    from tritonc.aot.registry import find_precompiled, PrecompiledKernelMissing
    from tritonc.runtime.gpu_launch import specialize
    from tritonc.backends.cuda.options import CUDAOptions

    class FakeTensor:
        def __init__(self, dtype, ptr):
            self.dtype, self.ptr = dtype, ptr
        def data_ptr(self):
            return self.ptr

    def lookup(kernel, arch, *args, options=CUDAOptions(), **kw):
        bound = kernel.bind(args, kw)
        sig, consts, div = specialize(kernel, bound)
        entry = find_precompiled(kernel, sig, consts, div, options, arch)
        return entry and json.loads(entry["metadata.json"])

    x = FakeTensor("float32", 4096)
    out = {}
    out["div"] = lookup(aot_example.add_kernel, 90, x, x, x, 4096, BLOCK_SIZE=1024)
    out["nodiv"] = lookup(aot_example.add_kernel, 90, x, x, x, 4097, BLOCK_SIZE=1024)
    out["sm86"] = lookup(aot_example.add_kernel, 86, x, x, x, 4097, BLOCK_SIZE=1024)
    out["sm75"] = lookup(aot_example.add_kernel, 75, x, x, x, 4097, BLOCK_SIZE=1024)
    out["nofusion"] = lookup(aot_example.add_kernel, 90, x, x, x, 4096, BLOCK_SIZE=1024,
                             options=CUDAOptions(enable_fp_fusion=False))
    out["warps"] = lookup(aot_example.add_kernel, 90, x, x, x, 4096, BLOCK_SIZE=1024,
                          options=CUDAOptions(num_warps=8))
    out["block"] = lookup(aot_example.add_kernel, 90, x, x, x, 4097, BLOCK_SIZE=512)
    out["unaligned"] = lookup(aot_example.add_kernel, 90, FakeTensor("float32", 4100), x, x,
                              4097, BLOCK_SIZE=1024)
    h = FakeTensor("float16", 4096)
    out["scale"] = lookup(aot_example.scale_kernel, 80, h, h, 1000, 2.0, BLOCK_SIZE=2048)
    try:
        bound = aot_example.add_kernel.bind((x, x, x, 4097), {"BLOCK_SIZE": 64})
        find_precompiled(aot_example.add_kernel, *specialize(aot_example.add_kernel, bound),
                         CUDAOptions(), 90, required=True)
    except PrecompiledKernelMissing as e:
        out["required"] = str(e)
    out["mlir"] = sorted(m for m in sys.modules if "mlir" in m or m == "llvmlite"
                         or m in ("tritonc.compiler.compiler", "tritonc.compiler.frontend"))
    print(json.dumps(out))
""")


def test_find_precompiled_from_the_unpacked_wheel(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path / "site")
    done = subprocess.run([sys.executable, "-c", LOOKUP, str(tmp_path / "site")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["div"]["precompiled"].endswith(".sm_90.cubin") and out["div"]["name"] == "add_kernel"
    assert out["nodiv"]["precompiled"].endswith(".sm_90.cubin")
    assert out["div"]["precompiled"] != out["nodiv"]["precompiled"]
    assert out["sm86"]["precompiled"].endswith(".sm_80.cubin")
    assert out["sm75"] is None and out["block"] is None and out["unaligned"] is None
    assert out["nofusion"] is None and out["warps"] is None
    assert out["scale"]["precompiled"].startswith("scale_kernel.")
    assert "no precompiled add_kernel matches sm_90" in out["required"]
    assert out["mlir"] == []


def test_stale_source_does_not_match(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path / "site")
    kernels = tmp_path / "site" / "aot_example" / "kernels.py"
    kernels.write_text(kernels.read_text().replace("mask=mask)\n\n\n@triton.jit",
                                                   "mask=mask)  # edited\n\n\n@triton.jit"))
    done = subprocess.run([sys.executable, "-c", LOOKUP, str(tmp_path / "site")],
                          capture_output=True, text=True, cwd=tmp_path)
    out = json.loads(done.stdout)
    assert out["div"] is None and out["scale"] is not None


def test_compile_kernels_api_and_config_errors(tmp_path):
    from tritonc.aot.spec import UsageError
    from tritonc.build import compile_kernels, load_config

    config = load_config(EXAMPLE / "pyproject.toml")
    config["kernels"] = config["kernels"][:1]
    config["targets"] = ["cuda:80"]
    files = compile_kernels(config, out_dir=tmp_path)
    assert sorted(p.suffix for p in files) == [".cubin", ".cubin", ".json"]
    assert all(p.is_relative_to(tmp_path / "aot_example" / "__tritonc_aot__") for p in files)
    index = json.loads((tmp_path / "aot_example/__tritonc_aot__/index.json").read_text())
    assert {e["options"]["enable_fp_fusion"] for e in index["entries"]} == {True}
    compile_kernels({**config, "enable-fp-fusion": False, "maxnreg": 64}, out_dir=tmp_path)
    index = json.loads((tmp_path / "aot_example/__tritonc_aot__/index.json").read_text())
    assert [(e["options"]["enable_fp_fusion"], e["options"]["maxnreg"])
            for e in index["entries"]] == [(False, 64)] * 2
    for bad, message in [({"kernels": []}, "lists no kernels"),
                         ({"num-warps": 3}, "num_warps must be a power of 2"),
                         ({"kernels": [{"kernel": "aot_example.kernels:nope"}]}, "no @jit"),
                         ({"kernels": [{**config["kernels"][0], "targets": ["cuda:9x"]}]},
                          "unknown target")]:
        with pytest.raises(UsageError, match=message):
            compile_kernels({**config, **bad}, out_dir=tmp_path)
