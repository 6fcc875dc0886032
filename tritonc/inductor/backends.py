"""The backends and drivers `triton.backends` and `triton.runtime.driver` stand for.

Two backends answer for tritonc: `nvidia` compiles to cubin with the CUDA stages and
launches through the CUDA driver; `cpu` runs kernels in the numpy interpreter. Each
backend is a class with a `driver` (what `triton.runtime.driver.active` becomes) and a
compiler (`hash`, `parse_options`) as Triton's `BaseBackend` has. The drivers answer
device queries truthfully: the CUDA driver reads the device through libcuda, and is
active only where a device exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from tritonc.backends.cuda.options import default_fp_fusion
from tritonc.runtime.cache import compiler_key
from tritonc.runtime.gpu_launch import COMPILER_VERSION


class GPUTarget(NamedTuple):
    """A compilation target: backend name, architecture (sm as an int) and warp size."""

    backend: str
    arch: int | str
    warp_size: int


@dataclass(frozen=True)
class CUDAOptions:
    """The options `triton.compile` takes for the CUDA backend; unknown ones are kept in
    `extra` and do not change code generation."""

    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: int | None = None
    debug: bool = False
    enable_fp_fusion: bool = field(default_factory=default_fp_fusion)
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    sanitize_overflow: bool = False
    extern_libs: tuple = ()
    backend_name: str = "cuda"
    extra: tuple = field(default=())

    def hash(self) -> str:
        from tritonc.runtime.cache import make_key

        return make_key(repr(self))


def _parse_options(opts: dict[str, Any], backend_name: str) -> CUDAOptions:
    known = {f.name for f in fields(CUDAOptions)} - {"extra", "backend_name"}
    kwargs = {k: v for k, v in opts.items() if k in known and v is not None}
    extra = tuple(sorted((k, repr(v)) for k, v in opts.items() if k not in known))
    if "extern_libs" not in kwargs:
        kwargs["extern_libs"] = _libdevice_libs() if backend_name == "cuda" else ()
    return CUDAOptions(**kwargs, backend_name=backend_name, extra=extra)


def _libdevice_libs() -> tuple:
    from tritonc import knobs

    path = knobs.nvidia.libdevice_path
    return (("libdevice", path),) if path else ()


class BaseBackend:
    """What Inductor asks a backend: does it support a target, its hash, its options."""

    name = "base"
    driver: type = object

    def __init__(self, target: GPUTarget) -> None:
        self.target = target

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return False

    def parse_options(self, opts: dict[str, Any]) -> CUDAOptions:
        return _parse_options(opts, self.target.backend)

    def get_codegen_implementation(self, options: Any = None) -> dict[str, Any]:
        return {}

    def load_dialects(self, context: Any) -> None:
        return None


class CudaUtils:
    """`driver.active.utils`: device properties as Triton's CUDA utils report them."""

    def get_device_properties(self, device: int) -> dict[str, Any]:
        from tritonc.runtime.driver import get_driver

        attrs = get_driver().device_attributes(device)
        return {"max_shared_mem": attrs.max_shared_per_block_optin,
                "multiprocessor_count": attrs.sm_count, "warpSize": attrs.warp_size,
                "max_num_regs": 65536, "sm_clock_rate": 0, "mem_clock_rate": 0,
                "mem_bus_width": 0}


class CudaDriver:
    """The CUDA driver as `triton.runtime.driver.active` (libcuda, through ctypes)."""

    def __init__(self) -> None:
        self.utils = CudaUtils()

    @staticmethod
    def is_active() -> bool:
        """Whether torch sees a CUDA GPU. Asked of torch, not answered by cuInit: Inductor's
        compile workers are forked, and cuInit fails in a child of a process that called it,
        though the parent can launch what the child compiles."""
        import torch

        return torch.cuda.is_available() and torch.version.hip is None

    def get_current_device(self) -> int:
        import torch

        return torch.cuda.current_device()

    def set_current_device(self, device: int) -> None:
        import torch

        torch.cuda.set_device(device)

    def get_current_stream(self, device: int | None = None) -> int:
        import torch

        if device is None:
            device = self.get_current_device()
        return torch.cuda.current_stream(device).cuda_stream

    def get_current_target(self) -> GPUTarget:
        import torch

        major, minor = torch.cuda.get_device_capability(self.get_current_device())
        return GPUTarget("cuda", major * 10 + minor, 32)

    def get_active_torch_device(self) -> Any:
        import torch

        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self) -> Any:
        import torch

        return torch.cuda

    def get_benchmarker(self) -> Any:
        from tritonc.testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self) -> Any:
        import torch

        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")

    def clear_cache(self, cache: Any) -> None:
        cache.zero_()


class CpuDriver:
    """The interpreter as a driver: kernels run on the host, on CPU tensors."""

    def __init__(self) -> None:
        self.utils = self

    @staticmethod
    def is_active() -> bool:
        return False

    def get_device_properties(self, device: int) -> dict[str, Any]:
        import os

        return {"max_shared_mem": 0, "multiprocessor_count": os.cpu_count() or 1,
                "warpSize": 1, "max_num_regs": 0}

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device: int) -> None:
        return None

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cpu", "interpreter", 1)

    def get_active_torch_device(self) -> Any:
        import torch

        return torch.device("cpu")

    def get_benchmarker(self) -> Any:
        from tritonc.testing import do_bench

        return do_bench


class CUDABackend(BaseBackend):
    """Kernels compiled by tritonc's CUDA stages to cubin."""

    name = "nvidia"
    driver = CudaDriver
    binary_ext = "cubin"

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cuda"

    def hash(self) -> str:
        from tritonc.backends.cuda.tools import ToolNotFound, find_ptxas, ptxas_version

        try:
            ptxas = ".".join(map(str, ptxas_version(find_ptxas())))
        except ToolNotFound:
            ptxas = "none"
        return f"{COMPILER_VERSION}-{compiler_key()[:16]}-ptxas{ptxas}-{self.target.arch}"


class CPUBackend(BaseBackend):
    """Kernels run by tritonc's numpy interpreter on CPU tensors."""

    name = "cpu"
    driver = CpuDriver
    binary_ext = "py"

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cpu"

    def hash(self) -> str:
        return f"{COMPILER_VERSION}-{compiler_key()[:16]}-interpreter"


class Backend(NamedTuple):
    """An entry of `triton.backends.backends`: a compiler class and a driver class."""

    compiler: type
    driver: type


BACKENDS = {"nvidia": Backend(CUDABackend, CudaDriver), "cpu": Backend(CPUBackend, CpuDriver)}


def make_backend(target: GPUTarget) -> BaseBackend:
    """The backend compiling for `target` (a clear error for targets tritonc lacks)."""
    for backend in BACKENDS.values():
        if backend.compiler.supports_target(target):
            return backend.compiler(target)
    raise RuntimeError(f"tritonc has no backend for target {target}; it compiles for "
                       "'cuda' (NVIDIA GPUs) and runs 'cpu' kernels in its interpreter")


class DriverConfig:
    """`triton.runtime.driver`: the active driver (the CUDA one where a GPU exists)."""

    def __init__(self) -> None:
        self._active: Any = None
        self._default: Any = None

    @property
    def default(self) -> Any:
        if self._default is None:
            self._default = CudaDriver() if CudaDriver.is_active() else CpuDriver()
        return self._default

    @property
    def active(self) -> Any:
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver: Any) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = self.default
