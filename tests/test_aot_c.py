"""`tritonc aot`: the generated C builds with the system compiler against cuda_min.h, and
its launcher, linked with a fake libcuda that records calls, picks the right variant and
cubin, computes the grid, passes the arguments and returns errors as CUresult."""

from __future__ import annotations

import ctypes
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import tritonc as triton
import tritonc.language as tl
from tritonc.aot.cgen import Variant, generate
from tritonc.aot.grid import evaluate, parse_grid
from tritonc.aot.spec import parse_signature
from tritonc.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "vector_add.py")
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")

FAKE_CUDA = r"""
#include <stdint.h>
#include <string.h>
#include "cuda_min.h"
CUcontext fake_ctx = (CUcontext)0x1000;
int fake_cc_major = 9, fake_cc_minor = 0, fake_loads = 0, fake_unloads = 0, fake_launches = 0;
int fake_attrs[16], fake_nparams = 0, fake_param_sizes[16];  /* value per attribute */
const void *fake_image = 0;
char fake_name[128];
unsigned int fake_grid[3], fake_block[3], fake_shared;
void *fake_stream;
unsigned char fake_params[16][8];
CUresult cuCtxGetCurrent(CUcontext *p) { *p = fake_ctx; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute a, CUdevice dev) {
  (void)dev;
  *pi = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? fake_cc_major : fake_cc_minor;
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  fake_loads++; fake_image = image; *m = (CUmodule)(uintptr_t)(0x2000 + fake_loads);
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) { (void)m; fake_unloads++; return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  strncpy(fake_name, name, sizeof fake_name - 1); *f = (CUfunction)m; return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  (void)f; fake_attrs[a] = v; return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        CUstream stream, void **params, void **extra) {
  int i;
  (void)f; (void)extra;
  fake_grid[0] = gx; fake_grid[1] = gy; fake_grid[2] = gz;
  fake_block[0] = bx; fake_block[1] = by; fake_block[2] = bz;
  fake_shared = shared; fake_stream = stream; fake_launches++;
  for (i = 0; i < fake_nparams; i++) memcpy(fake_params[i], params[i], fake_param_sizes[i]);
  return CUDA_SUCCESS;
}
"""


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, m, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * alpha, mask=offs < n)


class FakeCuda:
    """A launcher library built with the fake driver; attribute access reads its globals."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib

    def get(self, name: str, ctype=ctypes.c_int):
        return ctype.in_dll(self.lib, name).value

    def set(self, name: str, value, ctype=ctypes.c_int) -> None:
        ctype.in_dll(self.lib, name).value = value

    def array(self, name: str, n: int) -> list[int]:
        return list((ctypes.c_uint * n).in_dll(self.lib, name))

    def expect_params(self, sizes: list[int]) -> None:
        self.set("fake_nparams", len(sizes))
        arr = (ctypes.c_int * 16).in_dll(self.lib, "fake_param_sizes")
        for i, size in enumerate(sizes):
            arr[i] = size

    def param(self, i: int, fmt: str) -> int | float:
        import struct

        raw = bytes((ctypes.c_ubyte * 8).from_address(
            ctypes.addressof(ctypes.c_ubyte.in_dll(self.lib, "fake_params")) + 8 * i))
        return struct.unpack_from("<" + fmt, raw)[0]


def build(out: Path, name: str) -> FakeCuda:
    (out / "fake_cuda.c").write_text(FAKE_CUDA)
    lib = out / f"lib{name}.so"
    subprocess.run([CC, "-shared", "-fPIC", "-std=c99", "-Wall", "-Wextra", "-Werror",
                    "-DTRITONC_CUDA_MIN", f"-I{out}", str(out / f"{name}.c"),
                    str(out / "fake_cuda.c"), "-o", str(lib), "-lpthread"], check=True)
    return FakeCuda(ctypes.CDLL(str(lib)))


def fake_variant(spec_text: str, archs=(80, 90), shared: int = 0, num_warps: int = 4,
                 constexprs=None, **metadata) -> Variant:
    spec = parse_signature(scale_kernel, spec_text, dict(constexprs or {"BLOCK": 256}))
    return Variant(spec, {a: f"cubin {spec_text} sm_{a}\0".encode() for a in archs},
                   {a: {"shared": shared, "num_warps": num_warps, "threads": 32 * num_warps,
                        **metadata} for a in archs})


def write_generated(tmp_path: Path, variants: list[Variant], grid: str) -> FakeCuda:
    header, source = generate(scale_kernel, {"BLOCK": 256}, variants, parse_grid(grid))
    (tmp_path / "scale_kernel.h").write_text(header)
    (tmp_path / "scale_kernel.c").write_text(source)
    shutil.copy(ROOT / "tritonc" / "aot" / "cuda_min.h", tmp_path)
    fake = build(tmp_path, "scale_kernel")
    fake.lib.scale_kernel.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                                      ctypes.c_int32, ctypes.c_int32, ctypes.c_float]
    fake.lib.scale_kernel.restype = ctypes.c_int
    return fake


def loaded_image(fake: FakeCuda) -> bytes:
    return ctypes.string_at(fake.get("fake_image", ctypes.c_void_p))  # up to the NUL


@needs_cc
def test_dispatch_grid_params_and_shared(tmp_path):
    variants = [fake_variant("*fp32,*fp32,i32,i32,fp32"),
                fake_variant("*fp32:16,*fp32:16,i32:16,i32,fp32", shared=100_000),
                fake_variant("*fp32,*fp32,i32,i32:1,fp32", num_warps=8)]
    fake = write_generated(tmp_path, variants, "cdiv(n, BLOCK), max(m, 2) % 5, 1")
    launch = fake.lib.scale_kernel
    fake.expect_params([8, 8, 4, 4, 4])
    assert launch(0x77, 4096, 8192, 1000, 3, 2.5) == 0
    assert loaded_image(fake).startswith(b"cubin *fp32,*fp32,i32,i32,fp32 sm_90")
    assert fake.array("fake_grid", 3) == [4, 3, 1] and fake.array("fake_block", 3) == [128, 1, 1]
    assert fake.get("fake_stream", ctypes.c_void_p) == 0x77
    assert [fake.param(0, "Q"), fake.param(1, "Q"), fake.param(2, "i"), fake.param(3, "i"),
            fake.param(4, "f")] == [4096, 8192, 1000, 3, 2.5]
    assert fake.get("fake_name", ctypes.c_char * 128) == b"scale_kernel"
    # all divisible: the most specialized variant, with > 48 KB of dynamic shared memory
    assert launch(0, 4096, 8192, 1024, 3, 1.0) == 0
    assert loaded_image(fake).startswith(b"cubin *fp32:16,*fp32:16,i32:16")
    assert fake.get("fake_shared") == 100_000
    # opted in to its dynamic shared memory, with the largest carveout asked for
    assert fake.array("fake_attrs", 10)[8:] == [100_000, 100]
    # m == 1: the variant without m; four parameters, eight warps
    fake.expect_params([8, 8, 4, 4])
    assert launch(0, 4096, 8200, 1024, 1, 1.0) == 0
    assert loaded_image(fake).startswith(b"cubin *fp32,*fp32,i32,i32:1")
    assert fake.array("fake_block", 3) == [256, 1, 1]
    assert fake.param(3, "f") == 1.0  # alpha moved up: m is not passed
    assert fake.get("fake_loads") == 3


@needs_cc
def test_a_warp_specialized_variant_launches_its_producer_warps(tmp_path):
    """A kernel compiled with a producer warpgroup runs num_warps + 4 warps."""
    fake = write_generated(tmp_path, [fake_variant("*fp32,*fp32,i32,i32,fp32", archs=(90,),
                                                   num_warps=8, threads=384)], "1")
    fake.expect_params([8, 8, 4, 4, 4])
    assert fake.lib.scale_kernel(0, 4096, 8192, 1000, 3, 2.5) == 0
    assert fake.array("fake_block", 3) == [384, 1, 1]


@needs_cc
def test_modules_load_once_per_context_and_arch_pick(tmp_path):
    fake = write_generated(tmp_path, [fake_variant("*fp32,*fp32,i32,i32,fp32", archs=(80, 86))],
                           "cdiv(n, 128)")
    launch = fake.lib.scale_kernel
    fake.set("fake_cc_major", 8)
    fake.set("fake_cc_minor", 9)  # sm_89 runs the sm_86 cubin
    for _ in range(3):
        assert launch(0, 16, 16, 1, 1, 1.0) == 0
    assert fake.get("fake_loads") == 1 and fake.get("fake_launches") == 3
    assert loaded_image(fake).endswith(b"sm_86")
    fake.set("fake_ctx", 0x2000, ctypes.c_void_p)
    fake.set("fake_cc_minor", 0)
    assert launch(0, 16, 16, 1, 1, 1.0) == 0
    assert fake.get("fake_loads") == 2 and loaded_image(fake).endswith(b"sm_80")
    assert fake.lib.scale_kernel_unload() == 0 and fake.get("fake_unloads") == 1
    assert launch(0, 16, 16, 1, 1, 1.0) == 0 and fake.get("fake_loads") == 3
    fake.set("fake_cc_major", 9)  # no sm_9x cubin
    fake.set("fake_ctx", 0x3000, ctypes.c_void_p)
    assert launch(0, 16, 16, 1, 1, 1.0) == 209  # CUDA_ERROR_NO_BINARY_FOR_GPU
    fake.set("fake_ctx", None, ctypes.c_void_p)
    assert launch(0, 16, 16, 1, 1, 1.0) == 201  # CUDA_ERROR_INVALID_CONTEXT


@needs_cc
def test_grid_errors_and_empty_grid(tmp_path):
    fake = write_generated(tmp_path, [fake_variant("*fp32:16,*fp32,i32,i32,fp32")],
                           "n / m, 1, 1")
    launch = fake.lib.scale_kernel
    assert launch(0, 16, 16, 10, 0, 1.0) == 1  # division by zero: CUDA_ERROR_INVALID_VALUE
    assert launch(0, 16, 16, -10, 1, 1.0) == 1  # negative grid
    assert launch(0, 16, 16, 0, 1, 1.0) == 0 and fake.get("fake_launches") == 0
    assert launch(0, 8, 16, 10, 1, 1.0) == 1  # no variant takes an unaligned x_ptr
    assert launch(0, 16, 16, 10, 1, 1.0) == 0 and fake.array("fake_grid", 3) == [10, 1, 1]


@needs_cc
@pytest.mark.parametrize("formula", ["cdiv(n, 7) * 2 - m", "min(n, m) + max(n, 3) % 4",
                                     "(n + m) // 3", "-m + n * BLOCK / 100"])
def test_grid_formula_c_matches_python(formula, tmp_path):
    fake = write_generated(tmp_path, [fake_variant("*fp32,*fp32,i32,i32,fp32")], formula)
    for n, m in [(1000, 3), (17, 5), (64, 64)]:
        expected = evaluate(parse_grid(formula)[0], {"n": n, "m": m, "BLOCK": 256})
        assert fake.lib.scale_kernel(0, 0, 0, n, m, 1.0) == (0 if expected >= 0 else 1)
        if expected > 0:
            assert fake.array("fake_grid", 3)[0] == expected


@needs_cc
def test_cli_aot_builds_and_dispatches_real_cubins(tmp_path):
    result = CliRunner().invoke(main, [
        "aot", f"{EXAMPLE}:add_kernel", "-c", "BLOCK_SIZE=1024",
        "-s", "*fp32,*fp32,*fp32,i32", "-s", "*fp32:16,*fp32:16,*fp32:16,i32:16",
        "--grid", "cdiv(n_elements, BLOCK_SIZE)", "--target", "cuda:80,cuda:90",
        "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    header = (tmp_path / "add_kernel.h").read_text()
    assert ("CUresult add_kernel(CUstream stream, CUdeviceptr x_ptr, CUdeviceptr y_ptr, "
            "CUdeviceptr output_ptr, int32_t n_elements);") in header
    assert "exit(" not in (tmp_path / "add_kernel.c").read_text()
    manifest = json.loads((tmp_path / "add_kernel.aot.json").read_text())
    assert sorted((v["variant"], v["arch"]) for v in manifest["variants"]) == [
        (0, 80), (0, 90), (1, 80), (1, 90)]
    fake = build(tmp_path, "add_kernel")
    fake.lib.add_kernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 3 + [ctypes.c_int32]
    fake.expect_params([8, 8, 8, 4])

    def launched() -> dict:
        ptr = fake.get("fake_image", ctypes.c_void_p)
        for entry in sorted(manifest["variants"], key=lambda v: v["size"]):
            if hashlib.sha256(ctypes.string_at(ptr, entry["size"])).hexdigest() == entry["sha256"]:
                return entry
        raise AssertionError("the loaded image is none of the cubins")

    assert fake.lib.add_kernel(None, 4096, 8192, 12288, 98_432) == 0
    assert (launched()["variant"], launched()["arch"]) == (0, 90)
    assert fake.array("fake_grid", 3) == [97, 1, 1] and fake.param(3, "i") == 98_432
    fake.set("fake_cc_major", 8)
    fake.set("fake_ctx", 0x5000, ctypes.c_void_p)
    assert fake.lib.add_kernel(None, 4100, 8192, 12288, 98_432) == 0
    assert (launched()["variant"], launched()["arch"]) == (1, 80)


@pytest.mark.parametrize("args, message", [
    (["--grid", "cdiv(q, 4)"], "the grid uses 'q'"),
    (["--grid", "n_elements ** 2"], "unsupported grid syntax"),
    (["--grid", "1,2,3,4"], "1 to 3 dimensions"),
    (["--grid", "4", "--target", "cuda:80,rocm"], "unknown target 'rocm'"),
    (["--grid", "4", "-s", "*fp32,*fp32,*fp32,fp32"], "different types"),
])
def test_aot_bad_arguments(args, message, tmp_path):
    result = CliRunner().invoke(main, ["aot", f"{EXAMPLE}:add_kernel", "-c", "BLOCK_SIZE=64",
                                       "-s", "*fp32,*fp32,*fp32,i32", *args, "-o", str(tmp_path)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output


def test_aot_subprocess_missing_grid():
    done = subprocess.run([sys.executable, "-m", "tritonc.cli.main", "aot", f"{EXAMPLE}:add_kernel",
                           "-s", "*fp32,*fp32,*fp32,i32"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--grid" in done.stderr


def _libcuda() -> str | None:
    for candidate in ("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1",
                      "/usr/lib/wsl/lib/libcuda.so.1"):
        if Path(candidate).exists():
            return candidate
    # elsewhere: where the dynamic loader finds it (the linker needs a path, not a name)
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    for line in Path("/proc/self/maps").read_text().splitlines():
        if "libcuda.so" in line:
            return line.split()[-1]
    return None


@pytest.mark.gpu
@needs_cc
def test_generated_launcher_adds_vectors_on_the_gpu(tmp_path):
    import torch

    libcuda = _libcuda()
    assert libcuda, "libcuda.so.1 not found"
    major, minor = torch.cuda.get_device_capability()
    result = CliRunner().invoke(main, [
        "aot", f"{EXAMPLE}:add_kernel", "-c", "BLOCK_SIZE=1024", "-s", "*fp32,*fp32,*fp32,i32",
        "-s", "*fp32:16,*fp32:16,*fp32:16,i32:16", "--grid", "cdiv(n_elements, BLOCK_SIZE)",
        "--target", f"cuda:{major * 10 + minor}", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lib = tmp_path / "libadd.so"
    subprocess.run([CC, "-shared", "-fPIC", "-std=c99", "-DTRITONC_CUDA_MIN", f"-I{tmp_path}",
                    str(tmp_path / "add_kernel.c"), libcuda, "-o", str(lib), "-lpthread"],
                   check=True)
    add = ctypes.CDLL(str(lib)).add_kernel
    add.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 3 + [ctypes.c_int32]
    for n in (98_432, 1000):  # the divisible variant, then the generic one
        x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
        out = torch.full_like(x, float("nan"))
        stream = torch.cuda.current_stream().cuda_stream
        assert add(stream, x.data_ptr(), y.data_ptr(), out.data_ptr(), n) == 0
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + y)
