"""The CUDA driver wrapper: argument packing and errors on the CPU, launches on a GPU."""

from __future__ import annotations

import ctypes
import math
import pickle
import shutil
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tritonc.runtime import driver as drv
from tritonc.runtime.driver import ArgPacker, CudaError, Driver, Launcher

REPO = Path(__file__).resolve().parent.parent

# x[i] += 1.0f for i < n
ADD_ONE_PTX = b"""\
.version 8.0
.target sm_80
.address_size 64

.visible .entry add_one(
    .param .u64 add_one_param_0,
    .param .u32 add_one_param_1
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [add_one_param_0];
    ld.param.u32 %r2, [add_one_param_1];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.s32 %p1, %r1, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd4], %f2;
DONE:
    ret;
}
"""

# *p = 1.0f through whatever pointer it is given: pass a bogus one.
BAD_STORE_PTX = b"""\
.version 8.0
.target sm_80
.address_size 64

.visible .entry bad_store(
    .param .u64 bad_store_param_0
)
{
    .reg .f32 %f<2>;
    .reg .b64 %rd<3>;

    ld.param.u64 %rd1, [bad_store_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.f32 %f1, 0f3F800000;
    st.global.f32 [%rd2], %f1;
    ret;
}
"""

ERROR_NAMES = {
    201: (b"CUDA_ERROR_INVALID_CONTEXT", b"invalid device context"),
    700: (b"CUDA_ERROR_ILLEGAL_ADDRESS", b"an illegal memory access was encountered"),
}


# ---------------------------------------------------------------- CPU: packing, errors


def read_params(kernel_params: int, sizes: list[int]) -> list[bytes]:
    """What the driver reads: follow each pointer of the void** array."""
    pointers = (ctypes.c_void_p * len(sizes)).from_address(kernel_params)
    return [ctypes.string_at(pointers[i], size) for i, size in enumerate(sizes)]


def test_packer_lays_out_each_type_with_c_alignment() -> None:
    signature = ["i1", "*fp32", "i8", "i32", "i64", "u64", "fp32", "fp64", "fp16", "bf16",
                 "*i8"]
    packer = ArgPacker(signature)
    values = [True, 0x7F00_1234_5678, -3, -2, -(2**40), 2**64 - 1, 1.5, math.pi, 0.5, 1.0,
              0xDEAD_BEEF_0000]
    packer.pack(*values)
    assert packer.offsets == (0, 8, 16, 20, 24, 32, 40, 48, 56, 58, 64)
    params = read_params(packer.kernel_params, [4, 8, 1, 4, 8, 8, 4, 8, 2, 2, 8])
    assert params == [
        struct.pack("<i", 1),
        struct.pack("<Q", 0x7F00_1234_5678),
        struct.pack("<b", -3),
        struct.pack("<i", -2),
        struct.pack("<q", -(2**40)),
        b"\xff" * 8,
        struct.pack("<I", 0x3FC0_0000),  # IEEE bits of 1.5f
        struct.pack("<d", math.pi),
        struct.pack("<H", 0x3800),  # fp16 0.5
        struct.pack("<H", 0x3F80),  # bf16 1.0
        struct.pack("<Q", 0xDEAD_BEEF_0000),
    ]


def test_packer_overwrites_in_place() -> None:
    packer = ArgPacker(["*fp32", "i32"])
    address = packer.kernel_params
    packer.pack(16, 7)
    packer.pack(32, 9)
    assert packer.kernel_params == address
    assert read_params(address, [8, 4]) == [struct.pack("<Q", 32), struct.pack("<i", 9)]


def test_bf16_rounds_to_nearest_even() -> None:
    assert drv._bf16_bits(1.0) == 0x3F80
    assert drv._bf16_bits(-2.0) == 0xC000
    assert drv._bf16_bits(1.0 + 2**-8) == 0x3F80  # tie: stays even
    assert drv._bf16_bits(1.0 + 3 * 2**-8) == 0x3F82  # tie: rounds up to even
    assert drv._bf16_bits(float("inf")) == 0x7F80
    assert drv._bf16_bits(float("nan")) == 0x7FC0


def test_packer_without_arguments() -> None:
    packer = ArgPacker([])
    packer.pack()
    assert packer.kernel_params is None


def test_packer_refuses_unknown_types() -> None:
    with pytest.raises(ValueError, match="unsupported kernel argument type 'fp8e4nv'"):
        ArgPacker(["fp8e4nv"])


class FakeLib:
    """Stands in for libcuda: records launches with the argument bytes the driver would read.

    Launches return `results` in turn, then 0.
    """

    def __init__(self, *results: int, sizes: list[int] | None = None) -> None:
        self.results = list(results)
        self.sizes = sizes or []
        self.launches: list[tuple] = []
        self.contexts_set: list[int] = []

    def cuLaunchKernel(self, *args: object) -> int:
        params = args[9]
        read = read_params(params, self.sizes) if params else []
        self.launches.append((*args[:9], read))
        return self.results.pop(0) if self.results else 0

    def cuCtxSetCurrent(self, context: int) -> int:
        self.contexts_set.append(context)
        return 0

    def cuGetErrorName(self, code: int, out: object) -> int:
        out._obj.value = ERROR_NAMES[code][0]
        return 0

    def cuGetErrorString(self, code: int, out: object) -> int:
        out._obj.value = ERROR_NAMES[code][1]
        return 0


def fake_launcher(lib: FakeLib, signature: list[str]) -> Launcher:
    driver = Driver(lib)
    driver._kernel_names[0x1000] = "add_kernel"
    driver._contexts[0x1000] = 0xC0
    return driver.launcher(0x1000, signature, block=(128, 1, 1), shared=512)


def test_launcher_passes_grid_block_stream_and_packed_arguments() -> None:
    lib = FakeLib(sizes=[8, 4, 4])
    launch = fake_launcher(lib, ["*fp32", "i32", "fp32"])
    launch((3, 2, 1), 0xABC, 0x7000_0000, 1000, 2.0)
    assert lib.launches == [(0x1000, 3, 2, 1, 128, 1, 1, 512, 0xABC, [
        struct.pack("<Q", 0x7000_0000), struct.pack("<i", 1000), struct.pack("<f", 2.0)])]
    assert launch.driver.last_kernel == "add_kernel"


def test_launcher_skips_an_empty_grid() -> None:
    lib = FakeLib()
    fake_launcher(lib, ["i32"])((0, 1, 1), 0, 5)
    assert lib.launches == []


def test_launcher_names_the_kernel_on_bad_arguments() -> None:
    launch = fake_launcher(FakeLib(), ["*fp32", "i32"])
    with pytest.raises(TypeError, match="kernel 'add_kernel'"):
        launch((1, 1, 1), 0, 0x1000)  # one argument missing
    with pytest.raises(TypeError, match="kernel 'add_kernel'"):
        launch((1, 1, 1), 0, 0x1000, 2**31)  # out of range for i32


def test_launch_error_is_a_cuda_error_naming_the_kernel() -> None:
    launch = fake_launcher(FakeLib(700, sizes=[4]), ["i32"])
    with pytest.raises(CudaError) as info:
        launch((1, 1, 1), 0, 1)
    assert info.value.code == 700
    assert info.value.kernel == "add_kernel"
    assert str(info.value) == ("cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory "
                               "access was encountered) in kernel 'add_kernel'")


def test_launch_without_a_current_context_enters_the_kernels_context_and_retries() -> None:
    lib = FakeLib(201, sizes=[4])
    fake_launcher(lib, ["i32"])((1, 1, 1), 0, 7)
    assert lib.contexts_set == [0xC0]
    assert len(lib.launches) == 2 and lib.launches[0] == lib.launches[1]
    lib = FakeLib(201, 201, sizes=[4])
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_CONTEXT"):
        fake_launcher(lib, ["i32"])((1, 1, 1), 0, 7)
    assert len(lib.launches) == 2


def test_cuda_error_message_and_pickling() -> None:
    error = CudaError(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was "
                      "encountered", kernel="add_kernel")
    assert str(error) == ("CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was "
                          "encountered) in kernel 'add_kernel'")
    assert isinstance(error, RuntimeError)
    with_log = CudaError(218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed",
                         call="cuModuleLoadDataEx (PTX JIT)", detail="line 3: syntax error")
    assert str(with_log) == ("cuModuleLoadDataEx (PTX JIT): CUDA_ERROR_INVALID_PTX (a PTX JIT "
                             "compilation failed)\nline 3: syntax error")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.code, copy.kernel, str(copy)) == (700, "add_kernel", str(error))


def test_import_loads_neither_libcuda_nor_torch_nor_mlir() -> None:
    script = (
        "import ctypes, sys\n"
        "opened = []\n"
        "real = ctypes.CDLL\n"
        "ctypes.CDLL = lambda name, *a, **k: opened.append(name) or real(name, *a, **k)\n"
        "import tritonc, tritonc.runtime.driver\n"
        "maps = open('/proc/self/maps').read()\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'mlir'))\n"
        "print(opened, 'libcuda' in maps, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[] False []"


def test_missing_libcuda_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_library(name: str, *args: object, **kwargs: object) -> None:
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(drv, "_driver", None)
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    with pytest.raises(drv.CudaUnavailable, match="libcuda.so.1"):
        drv.get_driver()


# ---------------------------------------------------------------- GPU


def run_script(script: str) -> str:
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def cuda() -> tuple:
    """(torch, driver, add_one function), with torch's context current."""
    import torch

    torch.ones(1, device="cuda")  # torch makes the primary context current first
    driver = drv.get_driver()
    module = driver.load_module(ADD_ONE_PTX, kernel="add_one")
    return torch, driver, driver.get_function(module, "add_one")


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


@pytest.mark.gpu
def test_add_one_from_ptx(cuda: tuple) -> None:
    torch, driver, add_one = cuda
    n = 1000
    x = torch.arange(n + 24, dtype=torch.float32, device="cuda")
    expected = x.clone()
    expected[:n] += 1
    launch = driver.launcher(add_one, ["*fp32", "i32"], block=(128, 1, 1))
    launch((cdiv(n, 128), 1, 1), torch.cuda.current_stream().cuda_stream, x.data_ptr(), n)
    torch.cuda.synchronize()
    assert torch.equal(x, expected)  # elements past n untouched
    assert driver.last_kernel == "add_one"


@pytest.mark.gpu
def test_driver_launch_with_a_packer(cuda: tuple) -> None:
    torch, driver, add_one = cuda
    x = torch.zeros(256, device="cuda")
    params = ArgPacker(["*fp32", "i32"])
    params.pack(x.data_ptr(), 256)
    for _ in range(3):
        driver.launch(add_one, (2, 1, 1), (128, 1, 1), 0, 0, params)
    driver.synchronize()
    assert torch.equal(x, torch.full_like(x, 3.0))


@pytest.mark.gpu
def test_launch_on_a_non_default_stream(cuda: tuple) -> None:
    torch, driver, add_one = cuda
    launch = driver.launcher(add_one, ["*fp32", "i32"], block=(256, 1, 1))
    n = 1 << 20
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        x = torch.empty(n, device="cuda")
        torch.cuda._sleep(50_000_000)  # keep the stream busy: a launch elsewhere runs early
        x.fill_(1.0)
        launch((cdiv(n, 256), 1, 1), stream.cuda_stream, x.data_ptr(), n)
        x.mul_(2.0)
    stream.synchronize()
    assert torch.equal(x, torch.full_like(x, 4.0))  # (1 + 1) * 2: ordered on the stream


@pytest.mark.gpu
def test_launch_from_a_thread_without_a_current_context(cuda: tuple) -> None:
    torch, driver, add_one = cuda
    x = torch.zeros(128, device="cuda")
    launch = driver.launcher(add_one, ["*fp32", "i32"], block=(128, 1, 1))
    errors: list[BaseException] = []

    def work() -> None:
        try:
            launch((1, 1, 1), 0, x.data_ptr(), 128)
            driver.synchronize()
        except BaseException as e:  # noqa: B036 - reported by the assertion below
            errors.append(e)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == []
    assert torch.equal(x, torch.ones_like(x))


@pytest.mark.gpu
def test_device_and_function_attributes(cuda: tuple) -> None:
    torch, driver, add_one = cuda
    device = driver.device_attributes()
    assert device.compute_capability == torch.cuda.get_device_capability()
    assert device.sm_count == torch.cuda.get_device_properties(0).multi_processor_count
    assert device.warp_size == 32
    assert device.max_shared_per_block_optin >= device.max_shared_per_block == 48 * 1024
    assert device.name == torch.cuda.get_device_name()
    function = driver.function_attributes(add_one)
    assert 0 < function.num_regs <= 255
    assert function.shared_bytes == 0 and function.local_bytes == 0
    assert function.max_threads_per_block >= 128


@pytest.mark.gpu
def test_dynamic_shared_memory_above_48kb_needs_opt_in(cuda: tuple) -> None:
    torch, driver, _ = cuda
    nbytes = 64 * 1024
    if driver.device_attributes().max_shared_per_block_optin < nbytes:
        pytest.skip("device has less than 64 KB of shared memory per block")
    add_one = driver.get_function(driver.load_module(ADD_ONE_PTX), "add_one")
    x = torch.zeros(128, device="cuda")
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_VALUE.*in kernel 'add_one'"):
        driver.launcher(add_one, ["*fp32", "i32"], (128, 1, 1), nbytes)((1, 1, 1), 0,
                                                                         x.data_ptr(), 128)
    driver.set_max_dynamic_shared(add_one, nbytes)
    attributes = driver.function_attributes(add_one)
    assert (attributes.max_dynamic_shared_bytes, attributes.shared_carveout) == (nbytes, 100)
    driver.launcher(add_one, ["*fp32", "i32"], (128, 1, 1), nbytes)((1, 1, 1), 0,
                                                                     x.data_ptr(), 128)
    driver.synchronize()
    assert torch.equal(x, torch.ones_like(x))


def find_ptxas() -> str | None:
    from importlib.util import find_spec

    spec = find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(root, "cu13", "bin", "ptxas")
        if candidate.exists():
            return str(candidate)
    return shutil.which("ptxas")


@pytest.mark.gpu
def test_load_a_cubin(cuda: tuple, tmp_path: Path) -> None:
    torch, driver, _ = cuda
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("no ptxas to build a cubin with")
    major, minor = driver.device_attributes().compute_capability
    (tmp_path / "add_one.ptx").write_bytes(ADD_ONE_PTX)
    subprocess.run([ptxas, f"-arch=sm_{major}{minor}", "-o", str(tmp_path / "add_one.cubin"),
                    str(tmp_path / "add_one.ptx")], check=True)
    cubin = (tmp_path / "add_one.cubin").read_bytes()
    add_one = driver.get_function(driver.load_module(cubin), "add_one")
    x = torch.zeros(100, device="cuda")
    driver.launcher(add_one, ["*fp32", "i32"], (64, 1, 1))((2, 1, 1), 0, x.data_ptr(), 100)
    driver.synchronize()
    assert torch.equal(x, torch.ones_like(x))


@pytest.mark.gpu
def test_bad_ptx_error_carries_the_jit_log(cuda: tuple) -> None:
    _, driver, _ = cuda
    broken = ADD_ONE_PTX.replace(b"add.f32 %f2, %f1", b"add.f33 %f2, %f1")
    with pytest.raises(CudaError) as info:
        driver.load_module(broken, kernel="add_one")
    assert info.value.error_name == "CUDA_ERROR_INVALID_PTX"
    assert info.value.kernel == "add_one"
    assert "add.f33" in info.value.detail or "line" in info.value.detail


@pytest.mark.gpu
def test_unknown_function_name(cuda: tuple) -> None:
    _, driver, _ = cuda
    module = driver.load_module(ADD_ONE_PTX)
    with pytest.raises(CudaError, match="CUDA_ERROR_NOT_FOUND.*in kernel 'add_two'"):
        driver.get_function(module, "add_two")


@pytest.mark.gpu
def test_driver_first_then_torch_share_the_primary_context() -> None:
    script = (
        "from tritonc.runtime.driver import get_driver\n"
        "driver = get_driver()\n"
        "ctx = driver.current_context()\n"
        "import torch\n"
        "x = torch.zeros(64, device='cuda')\n"
        "assert driver.current_context() == ctx\n"
        f"f = driver.get_function(driver.load_module({ADD_ONE_PTX!r}), 'add_one')\n"
        "driver.launcher(f, ['*fp32', 'i32'], (64, 1, 1))((1, 1, 1), 0, x.data_ptr(), 64)\n"
        "print(x.sum().item())\n"
    )
    assert run_script(script).strip() == "64.0"


@pytest.mark.gpu
def test_illegal_address_raises_cuda_error_naming_the_kernel() -> None:
    # In a subprocess: the error is sticky and leaves the context unusable.
    script = (
        "from tritonc.runtime.driver import CudaError, get_driver\n"
        "driver = get_driver()\n"
        f"f = driver.get_function(driver.load_module({BAD_STORE_PTX!r}), 'bad_store')\n"
        "try:\n"
        "    driver.launcher(f, ['*fp32'], (1, 1, 1))((1, 1, 1), 0, 0)\n"
        "    driver.synchronize()\n"
        "except CudaError as e:\n"
        "    print(e.code, e.kernel)\n"
        "    print(e)\n"
    )
    out = run_script(script)
    assert out.splitlines()[0] == "700 bad_store", out
    assert ("CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered) "
            "in kernel 'bad_store'") in out
