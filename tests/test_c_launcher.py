"""The C launcher extension, against a fake libcuda built from C in the test.

The fake `cuLaunchKernel` records the grid, block, shared size, stream and function
and copies out the bytes behind each kernel parameter (`void**` -> values), so the
test checks what the driver would have received. No GPU is needed.
"""

from __future__ import annotations

import ctypes
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tritonc.runtime import c_launcher
from tritonc.runtime.c_launcher import KernelLauncher, generate_source
from tritonc.runtime.driver import _PROTOTYPES, CudaError, Driver

FAKE_LIBCUDA = r"""
#include <string.h>
unsigned int rec_grid[3], rec_block[3], rec_shared;
void *rec_function, *rec_stream;
int rec_calls, next_results[4], n_results, sizes[16], n_sizes;
unsigned char rec_params[16][8];

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned shared, void *stream,
                   void **params, void **extra) {
    rec_function = f; rec_stream = stream; rec_shared = shared;
    rec_grid[0] = gx; rec_grid[1] = gy; rec_grid[2] = gz;
    rec_block[0] = bx; rec_block[1] = by; rec_block[2] = bz;
    for (int i = 0; i < n_sizes; i++) memcpy(rec_params[i], params[i], sizes[i]);
    return rec_calls < n_results ? next_results[rec_calls++] : (rec_calls++, 0);
}
int cuGetErrorName(int code, const char **out) { *out = "CUDA_ERROR_FAKE"; return 0; }
int cuGetErrorString(int code, const char **out) { *out = "a fake error"; return 0; }
int cuCtxSetCurrent(void *ctx) { return 0; }
"""

SIGNATURE = ["*fp32", "*fp32", "i32", "i64", "fp32"]
SIZES = [8, 8, 4, 8, 4]

needs_cc = pytest.mark.skipif(
    c_launcher.find_compiler() is None or c_launcher.python_include() is None,
    reason="no C compiler or no Python headers")


@pytest.fixture
def fake_lib(tmp_path: Path) -> ctypes.CDLL:
    compiler = c_launcher.find_compiler() or [shutil.which("cc") or "cc"]
    src, lib = tmp_path / "fake_cuda.c", tmp_path / "libfakecuda.so"
    src.write_text(FAKE_LIBCUDA)
    subprocess.run([*compiler, "-O2", "-shared", "-fPIC", str(src), "-o", str(lib)],
                   check=True)
    cdll = ctypes.CDLL(str(lib))
    for name in ("cuLaunchKernel", "cuGetErrorName", "cuGetErrorString", "cuCtxSetCurrent"):
        getattr(cdll, name).argtypes = _PROTOTYPES[name]
        getattr(cdll, name).restype = ctypes.c_int
    return cdll


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(c_launcher, "_modules", {})


def make_launcher(lib: ctypes.CDLL, signature: list[str], sizes: list[int]):
    driver = Driver(lib)
    driver._kernel_names[0x1000] = "add_kernel"
    driver._contexts[0x1000] = 0xC0
    sizes_array = (ctypes.c_int * 16).in_dll(lib, "sizes")
    for i, size in enumerate(sizes):
        sizes_array[i] = size
    ctypes.c_int.in_dll(lib, "n_sizes").value = len(sizes)
    return driver, driver.launcher(0x1000, signature, block=(128, 1, 1), shared=512)


def recorded(lib: ctypes.CDLL, sizes: list[int]) -> dict:
    grid = (ctypes.c_uint * 3).in_dll(lib, "rec_grid")
    block = (ctypes.c_uint * 3).in_dll(lib, "rec_block")
    params = ((ctypes.c_ubyte * 8) * 16).in_dll(lib, "rec_params")
    return {"calls": ctypes.c_int.in_dll(lib, "rec_calls").value,
            "grid": tuple(grid), "block": tuple(block),
            "shared": ctypes.c_uint.in_dll(lib, "rec_shared").value,
            "stream": ctypes.c_void_p.in_dll(lib, "rec_stream").value,
            "function": ctypes.c_void_p.in_dll(lib, "rec_function").value,
            "params": [bytes(params[i])[:size] for i, size in enumerate(sizes)]}


def expected_params() -> list[bytes]:
    return [struct.pack("<Q", 0x7000_0000), struct.pack("<Q", 0x7000_0040),
            struct.pack("<i", -5), struct.pack("<q", 2**40), struct.pack("<f", 2.5)]


def test_source_declares_the_driver_types_itself() -> None:
    source = generate_source(SIGNATURE + [None], "m")
    assert "cuda.h" not in source
    assert "typedef int CUresult;" in source
    assert "PyInit_m" in source
    with pytest.raises(ValueError, match="fp8e4nv"):
        generate_source(["fp8e4nv"], "m")


@needs_cc
def test_c_launch_passes_grid_block_stream_and_params(fake_lib: ctypes.CDLL) -> None:
    driver, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    kernel = KernelLauncher(launcher)
    assert kernel.uses_c
    kernel((3, 2, 1), 0xABC, 0x7000_0000, 0x7000_0040, -5, 2**40, 2.5)
    assert recorded(fake_lib, SIZES) == {
        "calls": 1, "grid": (3, 2, 1), "block": (128, 1, 1), "shared": 512,
        "stream": 0xABC, "function": 0x1000, "params": expected_params()}
    assert driver.last_kernel == "add_kernel"
    assert list(Path(c_launcher.cache_dir(), "c_launchers").glob("*.so"))


@needs_cc
def test_ignored_slots_and_empty_grid(fake_lib: ctypes.CDLL) -> None:
    _, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    kernel = KernelLauncher(launcher, ["*fp32", None, "*fp32", "i32", "i64", None, "fp32"])
    assert kernel.raw(1, 1, 1, 0, 0x7000_0000, "ignored", 0x7000_0040, -5, 2**40, None,
                      2.5) == 0
    assert recorded(fake_lib, SIZES)["params"] == expected_params()
    assert kernel.raw(0, 1, 1, 0, 0x7000_0000, 1, 0x7000_0040, -5, 2**40, 1, 2.5) == 0
    assert recorded(fake_lib, SIZES)["calls"] == 1


NARROW = ["i1", "i8", "u16", "fp16", "bf16", "fp64"]
NARROW_SIZES = [4, 1, 2, 2, 2, 8]


def narrow_expected(values: list) -> list[bytes]:
    """The bytes each NARROW argument should reach the driver as, computed with numpy
    and struct (independently of both launchers)."""
    flag, small, wide, half, brain, double = values
    bits = np.array([brain], np.float32).view(np.uint32)[0]
    rounded = (int(bits) + 0x7FFF + ((int(bits) >> 16) & 1)) >> 16
    return [struct.pack("<i", int(flag != 0)), struct.pack("<b", small),
            struct.pack("<H", wide), np.array([half], np.float16).tobytes(),
            struct.pack("<H", rounded), struct.pack("<d", double)]


@pytest.mark.parametrize("path", ["c", "ctypes"])
def test_narrow_scalars_are_packed_as_their_types(fake_lib: ctypes.CDLL,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  path: str) -> None:
    if path == "c" and (c_launcher.find_compiler() is None or c_launcher.python_include() is None):
        pytest.skip("no C compiler or no Python headers")
    if path == "ctypes":
        monkeypatch.setenv("TRITONC_C_LAUNCHER", "0")
    _, launcher = make_launcher(fake_lib, NARROW, NARROW_SIZES)
    kernel = KernelLauncher(launcher)
    assert kernel.uses_c == (path == "c")
    rng = np.random.default_rng(7)
    cases = [[int(rng.integers(-9, 9)), int(rng.integers(-128, 128)),
              int(rng.integers(0, 65536)), float(rng.standard_normal() * 100),
              float(rng.standard_normal() * 1e4), float(rng.standard_normal())]
             for _ in range(5)]
    cases.append([3, -128, 65535, 65504.0, float("nan"), float("inf")])
    cases.append([0, 127, 0, float("-inf"), 1.0 + 2**-8, -0.0])
    for values in cases:
        kernel((1, 1, 1), 0, *values)
        got = recorded(fake_lib, NARROW_SIZES)["params"]
        want = narrow_expected(values)
        assert got[:4] + got[5:] == want[:4] + want[5:], values
        if values[4] != values[4]:
            assert got[4] == struct.pack("<H", 0x7FC0)  # NaN stays a quiet NaN
        else:
            assert got[4] == want[4], values
    with pytest.raises((TypeError, OverflowError)):
        kernel((1, 1, 1), 0, 1, 0, 0, 1e6, 0.0, 0.0)  # beyond fp16's range
    with pytest.raises((TypeError, OverflowError)):
        kernel((1, 1, 1), 0, 1, 128, 0, 0.0, 0.0, 0.0)  # beyond int8's range


@needs_cc
def test_bad_arguments_name_the_kernel(fake_lib: ctypes.CDLL) -> None:
    _, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    kernel = KernelLauncher(launcher)
    with pytest.raises(TypeError, match="kernel 'add_kernel'.*out of range"):
        kernel((1, 1, 1), 0, 0x7000_0000, 0x7000_0040, 2**31, 0, 1.0)
    with pytest.raises(TypeError, match="kernel 'add_kernel'"):
        kernel((1, 1, 1), 0, 0x7000_0000)  # arguments missing
    assert recorded(fake_lib, SIZES)["calls"] == 0


@needs_cc
def test_nonzero_result_becomes_a_cuda_error(fake_lib: ctypes.CDLL) -> None:
    (ctypes.c_int * 4).in_dll(fake_lib, "next_results")[0] = 700
    ctypes.c_int.in_dll(fake_lib, "n_results").value = 1
    _, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    kernel = KernelLauncher(launcher)
    assert kernel.raw(1, 1, 1, 0, 1, 2, 3, 4, 5.0) == 700
    with pytest.raises(CudaError) as info:
        kernel.failed(700, 1, 1, 1, 0, 1, 2, 3, 4, 5.0)
    assert info.value.code == 700 and info.value.kernel == "add_kernel"
    assert "cuLaunchKernel: CUDA_ERROR_FAKE (a fake error) in kernel 'add_kernel'" in str(
        info.value)


@needs_cc
def test_invalid_context_is_retried_in_the_kernels_context(fake_lib: ctypes.CDLL) -> None:
    (ctypes.c_int * 4).in_dll(fake_lib, "next_results")[0] = 201
    ctypes.c_int.in_dll(fake_lib, "n_results").value = 1
    _, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    KernelLauncher(launcher)((2, 1, 1), 0, 0x7000_0000, 0x7000_0040, -5, 2**40, 2.5)
    assert recorded(fake_lib, SIZES)["calls"] == 2  # C launch, then the ctypes retry
    assert recorded(fake_lib, SIZES)["params"] == expected_params()


@pytest.mark.parametrize("missing", ["compiler", "headers", "disabled"])
def test_falls_back_to_ctypes(fake_lib: ctypes.CDLL, monkeypatch: pytest.MonkeyPatch,
                              missing: str) -> None:
    if missing == "compiler":
        monkeypatch.setattr(c_launcher, "find_compiler", lambda: None)
    elif missing == "headers":
        monkeypatch.setattr(c_launcher, "python_include", lambda: None)
    else:
        monkeypatch.setenv("TRITONC_C_LAUNCHER", "0")
    _, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    kernel = KernelLauncher(launcher, ["*fp32", "*fp32", None, "i32", "i64", "fp32"])
    assert not kernel.uses_c
    kernel((3, 2, 1), 0xABC, 0x7000_0000, 0x7000_0040, 1, -5, 2**40, 2.5)
    record = recorded(fake_lib, SIZES)
    assert record["calls"] == 1 and record["grid"] == (3, 2, 1)
    assert record["params"] == expected_params()


def test_a_failing_build_warns_and_falls_back(fake_lib: ctypes.CDLL,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(c_launcher, "find_compiler", lambda: [shutil.which("false")])
    monkeypatch.setattr(c_launcher, "_warned", False)
    monkeypatch.setattr(c_launcher, "python_include", lambda: "/nonexistent")
    _, launcher = make_launcher(fake_lib, SIGNATURE, SIZES)
    with pytest.warns(RuntimeWarning, match="ctypes"):
        kernel = KernelLauncher(launcher)
    assert not kernel.uses_c
