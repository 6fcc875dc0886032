"""The CUDA driver API through ctypes on libcuda.so.1: load modules, launch kernels.

Only the driver is needed at run time, not the CUDA toolkit. libcuda is opened on
first use (`get_driver()`), never at import, so `import tritonc` works on machines
without a GPU. Every failing call raises `CudaError`, which names the CUresult and,
where known, the kernel.

Contexts: `Driver.current_context()` keeps the context current on the calling thread
if there is one (torch's), else makes the device's primary context current, which is
the one torch uses, so pointers from torch tensors are valid in our launches. A launch
from a thread with no current context makes current the context its kernel was loaded
in; that is checked only when cuLaunchKernel fails, so the hot path pays nothing.

The launch path is a hot loop. A `Launcher` is built once per (kernel, signature): its
`ArgPacker` lays the arguments out in one ctypes buffer and builds the `void**` array
of pointers into it once, so a launch is one `struct.pack_into` and one
`cuLaunchKernel` call.
"""

from __future__ import annotations

import ctypes
import functools
import operator
import struct
import threading
from collections.abc import Sequence
from ctypes import POINTER, byref, c_char_p, c_int, c_uint, c_void_p
from dataclasses import dataclass
from typing import Any

_P = POINTER

# CUresult is an int enum; handles (CUcontext, CUmodule, CUfunction, CUstream) are
# opaque pointers; CUdevice is an int. `void**` parameters that we fill from Python
# integers (kernelParams, extra) are declared c_void_p: the same ABI, cheaper to convert.
_PROTOTYPES: dict[str, tuple] = {
    "cuInit": (c_uint,),
    "cuGetErrorName": (c_int, _P(c_char_p)),
    "cuGetErrorString": (c_int, _P(c_char_p)),
    "cuDeviceGet": (_P(c_int), c_int),
    "cuDeviceGetAttribute": (_P(c_int), c_int, c_int),
    "cuDeviceGetName": (c_char_p, c_int, c_int),
    "cuDevicePrimaryCtxRetain": (_P(c_void_p), c_int),
    "cuCtxGetCurrent": (_P(c_void_p),),
    "cuCtxSetCurrent": (c_void_p,),
    "cuCtxGetDevice": (_P(c_int),),
    "cuCtxSynchronize": (),
    "cuModuleLoadData": (_P(c_void_p), c_char_p),
    "cuModuleLoadDataEx": (_P(c_void_p), c_char_p, c_uint, _P(c_int), _P(c_void_p)),
    "cuModuleGetFunction": (_P(c_void_p), c_void_p, c_char_p),
    "cuFuncGetAttribute": (_P(c_int), c_int, c_void_p),
    "cuFuncSetAttribute": (c_void_p, c_int, c_int),
    "cuLaunchKernel": (c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
                       c_void_p, c_void_p, c_void_p),
    "cuLaunchCooperativeKernel": (c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
                                  c_uint, c_void_p, c_void_p),
    "cuTensorMapEncodeTiled": (c_void_p, c_int, c_uint, c_void_p, _P(ctypes.c_uint64),
                               _P(ctypes.c_uint64), _P(c_uint), _P(c_uint), c_int, c_int,
                               c_int, c_int),
}

# CUtensorMapL2promotion of the tensor maps `encode_tiled` makes: L2_128B
L2_PROMOTION = 2
# CUjit_option values for cuModuleLoadDataEx.
_JIT_ERROR_LOG_BUFFER = 5
_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
# CUfunction_attribute values.
_FUNC_MAX_THREADS_PER_BLOCK = 0
_FUNC_SHARED_SIZE_BYTES = 1
_FUNC_LOCAL_SIZE_BYTES = 3
_FUNC_NUM_REGS = 4
_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
_FUNC_PREFERRED_SHARED_MEMORY_CARVEOUT = 9
# CUdevice_attribute values.
_DEV_MAX_THREADS_PER_BLOCK = 1
_DEV_MAX_SHARED_PER_BLOCK = 8
_DEV_WARP_SIZE = 10
_DEV_SM_COUNT = 16
_DEV_CC_MAJOR = 75
_DEV_CC_MINOR = 76
_DEV_MAX_SHARED_PER_BLOCK_OPTIN = 97

_CUDA_ERROR_INVALID_CONTEXT = 201

_ELF_MAGIC = b"\x7fELF"
_FATBIN_MAGIC = b"\x50\xed\x55\xba"


class CudaError(RuntimeError):
    """A CUDA driver call failed: the CUresult, its name and description, and the kernel."""

    def __init__(self, code: int, error_name: str, error_string: str, call: str = "",
                 kernel: str | None = None, detail: str = "") -> None:
        self.code = code
        self.error_name = error_name
        self.error_string = error_string
        self.call = call
        self.kernel = kernel
        self.detail = detail
        message = f"{error_name} ({error_string})"
        if kernel:
            message += f" in kernel '{kernel}'"
        if call:
            message = f"{call}: {message}"
        if detail:
            message += f"\n{detail}"
        super().__init__(message)

    def __reduce__(self) -> tuple:
        return (type(self), (self.code, self.error_name, self.error_string, self.call,
                             self.kernel, self.detail))


class CudaUnavailable(RuntimeError):
    """libcuda.so.1 cannot be loaded: no NVIDIA driver on this machine."""


@dataclass(frozen=True)
class DeviceAttributes:
    """What the compiler and launcher need to know about a device."""

    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    warp_size: int
    max_threads_per_block: int
    max_shared_per_block: int
    max_shared_per_block_optin: int


@dataclass(frozen=True)
class FunctionAttributes:
    """Resources a loaded kernel uses (static shared memory; local memory = spills)."""

    num_regs: int
    shared_bytes: int
    local_bytes: int
    max_threads_per_block: int
    max_dynamic_shared_bytes: int
    shared_carveout: int  # per cent of the SM's shared memory asked for; -1: no preference


# Argument types of a kernel signature and how each is stored in the parameter buffer
# (struct codes, little endian, standard sizes). Pointers (`*fp32`, ...) are u64 device
# addresses. i1 is stored as an int32, as Triton does: the driver reads as many bytes as
# the kernel's parameter has (.u8 or .u32), and little endian makes both read 0 or 1.
_FORMATS = {
    "i1": "i", "i8": "b", "i16": "h", "i32": "i", "i64": "q",
    "u1": "I", "u8": "B", "u16": "H", "u32": "I", "u64": "Q",
    "fp16": "e", "bf16": "H", "fp32": "f", "fp64": "d",
}


def _bf16_bits(value: float) -> int:
    """The bfloat16 bits of a float, rounded to nearest even (NaN stays a quiet NaN)."""
    if value != value:
        return 0x7FC0
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


class ArgPacker:
    """The parameter buffer of one kernel signature and the `void**` array into it.

    `pack(*values)` writes the values (ints for pointers and integers, floats for
    floating point) in place; `kernel_params` is the address to pass to cuLaunchKernel
    (None for a kernel without parameters).
    """

    def __init__(self, signature: Sequence[str]) -> None:
        self.signature = tuple(signature)
        codes = []
        for ty in self.signature:
            code = "Q" if ty.startswith("*") else _FORMATS.get(ty)
            if code is None:
                raise ValueError(f"unsupported kernel argument type {ty!r}")
            codes.append(code)
        fmt, offsets, size = "<", [], 0
        for code in codes:
            width = struct.calcsize("<" + code)
            pad = -size % width  # C alignment: every scalar is aligned to its size
            fmt += "x" * pad + code
            offsets.append(size + pad)
            size += pad + width
        self.offsets = tuple(offsets)
        self.buffer = ctypes.create_string_buffer(max(size, 1))
        base = ctypes.addressof(self.buffer)
        self.pointers = (c_void_p * len(offsets))(*(base + off for off in offsets))
        self.kernel_params = ctypes.addressof(self.pointers) if offsets else None
        self._struct = struct.Struct(fmt)
        self._bf16 = tuple(i for i, ty in enumerate(self.signature) if ty == "bf16")
        self._bools = tuple(i for i, ty in enumerate(self.signature) if ty in ("i1", "u1"))
        if self._bf16 or self._bools:
            self.pack = self._pack_converting
        else:
            self.pack = functools.partial(self._struct.pack_into, self.buffer, 0)

    def _pack_converting(self, *values: float) -> None:
        """Pack with bf16 values as their bits and i1 values as 0 or 1 (an int passed for
        a `tl.int1` parameter is true when nonzero)."""
        converted = list(values)
        for i in self._bf16:
            converted[i] = _bf16_bits(converted[i])
        for i in self._bools:
            converted[i] = int(operator.index(converted[i]) != 0)
        self._struct.pack_into(self.buffer, 0, *converted)


class Driver:
    """The CUDA driver of this process; get it with `get_driver()`."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.last_kernel: str | None = None  # for errors that surface at a later sync
        self._lock = threading.Lock()
        self._initialized = False
        self._primary: dict[int, int] = {}
        self._kernel_names: dict[int, str] = {}
        self._contexts: dict[int, int] = {}  # function -> context it was loaded in
        self._device_attributes: dict[int, DeviceAttributes] = {}

    def error(self, code: int, call: str, kernel: str | None = None,
              detail: str = "") -> CudaError:
        """The CudaError for CUresult `code`, with the driver's name and text for it."""
        name, text = c_char_p(), c_char_p()
        self.lib.cuGetErrorName(code, byref(name))
        self.lib.cuGetErrorString(code, byref(text))
        return CudaError(code, (name.value or b"CUresult %d" % code).decode(),
                         (text.value or b"unknown error").decode(), call, kernel, detail)

    def _check(self, result: int, call: str, kernel: str | None = None) -> None:
        if result:
            raise self.error(result, call, kernel)

    def init(self) -> None:
        """cuInit, once."""
        if not self._initialized:
            self._check(self.lib.cuInit(0), "cuInit")
            self._initialized = True

    def current_context(self, device: int = 0) -> int:
        """The context current on this thread; if none, make `device`'s primary one current."""
        self.init()
        ctx = c_void_p()
        self._check(self.lib.cuCtxGetCurrent(byref(ctx)), "cuCtxGetCurrent")
        if ctx.value:
            return ctx.value
        with self._lock:
            if device not in self._primary:
                dev, primary = c_int(), c_void_p()
                self._check(self.lib.cuDeviceGet(byref(dev), device), "cuDeviceGet")
                self._check(self.lib.cuDevicePrimaryCtxRetain(byref(primary), dev),
                            "cuDevicePrimaryCtxRetain")
                self._primary[device] = primary.value
        self._check(self.lib.cuCtxSetCurrent(self._primary[device]), "cuCtxSetCurrent")
        return self._primary[device]

    def load_module(self, image: bytes, kernel: str | None = None) -> int:
        """Load a cubin or fatbin, or JIT-compile PTX text; returns the CUmodule.

        `kernel` only names the kernel in errors. A PTX failure carries the JIT's log.
        """
        self.current_context()
        module = c_void_p()
        if image.startswith((_ELF_MAGIC, _FATBIN_MAGIC)) or b".version" not in image[:4096]:
            self._check(self.lib.cuModuleLoadData(byref(module), image), "cuModuleLoadData",
                        kernel)
            return module.value
        if not image.endswith(b"\0"):
            image += b"\0"
        log = ctypes.create_string_buffer(1 << 16)
        options = (c_int * 2)(_JIT_ERROR_LOG_BUFFER, _JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        values = (c_void_p * 2)(ctypes.addressof(log), len(log))
        result = self.lib.cuModuleLoadDataEx(byref(module), image, 2, options, values)
        if result:
            raise self.error(result, "cuModuleLoadDataEx (PTX JIT)", kernel,
                             log.value.decode(errors="replace").strip())
        return module.value

    def get_function(self, module: int, name: str) -> int:
        """The CUfunction `name` of a loaded module."""
        context = self.current_context()
        function = c_void_p()
        self._check(self.lib.cuModuleGetFunction(byref(function), module, name.encode()),
                    "cuModuleGetFunction", name)
        self._kernel_names[function.value] = name
        self._contexts[function.value] = context
        return function.value

    def kernel_name(self, function: int) -> str | None:
        """The name `function` was looked up by, for messages."""
        return self._kernel_names.get(function)

    def set_max_dynamic_shared(self, function: int, nbytes: int) -> None:
        """Opt a kernel in to `nbytes` of dynamic shared memory (needed above 48 KB), and
        prefer the SM's largest shared-memory carveout for it (the driver's choice is
        only a preference otherwise), so that as many of its blocks fit an SM as its
        shared memory allows; Triton's loader states the same preference."""
        for attribute, value in ((_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes),
                                 (_FUNC_PREFERRED_SHARED_MEMORY_CARVEOUT, 100)):
            self._check(self.lib.cuFuncSetAttribute(function, attribute, value),
                        "cuFuncSetAttribute", self.kernel_name(function))

    def function_attributes(self, function: int) -> FunctionAttributes:
        """Registers, shared and local memory and the thread limit of a loaded kernel."""
        def get(attribute: int) -> int:
            value = c_int()
            self._check(self.lib.cuFuncGetAttribute(byref(value), attribute, function),
                        "cuFuncGetAttribute", self.kernel_name(function))
            return value.value

        return FunctionAttributes(
            num_regs=get(_FUNC_NUM_REGS),
            shared_bytes=get(_FUNC_SHARED_SIZE_BYTES),
            local_bytes=get(_FUNC_LOCAL_SIZE_BYTES),
            max_threads_per_block=get(_FUNC_MAX_THREADS_PER_BLOCK),
            max_dynamic_shared_bytes=get(_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES),
            shared_carveout=get(_FUNC_PREFERRED_SHARED_MEMORY_CARVEOUT),
        )

    def device_attributes(self, device: int | None = None) -> DeviceAttributes:
        """Attributes of `device`, by default the device of the current context."""
        if device is None:
            self.current_context()
            dev = c_int()
            self._check(self.lib.cuCtxGetDevice(byref(dev)), "cuCtxGetDevice")
            device = dev.value
        else:
            self.init()
        if device not in self._device_attributes:
            def get(attribute: int) -> int:
                value = c_int()
                self._check(self.lib.cuDeviceGetAttribute(byref(value), attribute, device),
                            "cuDeviceGetAttribute")
                return value.value

            name = ctypes.create_string_buffer(256)
            self._check(self.lib.cuDeviceGetName(name, len(name), device), "cuDeviceGetName")
            self._device_attributes[device] = DeviceAttributes(
                name=name.value.decode(errors="replace"),
                compute_capability=(get(_DEV_CC_MAJOR), get(_DEV_CC_MINOR)),
                sm_count=get(_DEV_SM_COUNT),
                warp_size=get(_DEV_WARP_SIZE),
                max_threads_per_block=get(_DEV_MAX_THREADS_PER_BLOCK),
                max_shared_per_block=get(_DEV_MAX_SHARED_PER_BLOCK),
                max_shared_per_block_optin=get(_DEV_MAX_SHARED_PER_BLOCK_OPTIN),
            )
        return self._device_attributes[device]

    def encode_tiled(self, data_type: int, address: int, dims: Sequence[int],
                     strides: Sequence[int], box: Sequence[int], swizzle: int) -> bytes:
        """The 128-byte CUtensorMap of a tensor at `address` with `dims` (innermost first)
        and the byte `strides` of the outer dimensions, copied in `box` tiles
        (cuTensorMapEncodeTiled; CUtensorMapDataType `data_type`, CUtensorMapSwizzle
        `swizzle`, zeros outside the tensor, `L2_PROMOTION`)."""
        self.init()
        rank = len(dims)
        raw = (ctypes.c_uint8 * 192)()  # the driver writes a 64-byte aligned object
        at = -ctypes.addressof(raw) % 64
        u64, u32 = ctypes.c_uint64, c_uint
        self._check(self.lib.cuTensorMapEncodeTiled(
            ctypes.addressof(raw) + at, data_type, rank, address, (u64 * rank)(*dims),
            (u64 * max(1, rank - 1))(*strides), (u32 * rank)(*box), (u32 * rank)(*[1] * rank),
            0, swizzle, L2_PROMOTION, 0), "cuTensorMapEncodeTiled")
        return bytes(raw[at:at + 128])

    def launch(self, function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
               shared: int, stream: int, params: ArgPacker) -> None:
        """cuLaunchKernel with the arguments already packed in `params`."""
        name = self.kernel_name(function)
        args = (function, *grid, *block, shared, stream, params.kernel_params, None)
        result = self.lib.cuLaunchKernel(*args)
        self.last_kernel = name
        if result:
            self._launch_failed(result, name, args)

    def _launch_failed(self, result: int, name: str | None, args: tuple) -> None:
        # The slow path of a launch. A new thread has no current context: make current
        # the one the kernel was loaded in and launch again. Anything else is an error.
        if result == _CUDA_ERROR_INVALID_CONTEXT:
            context = self._contexts.get(args[0])
            if context is None:
                self.current_context()
            else:
                self._check(self.lib.cuCtxSetCurrent(context), "cuCtxSetCurrent", name)
            result = self.lib.cuLaunchKernel(*args)
        if result:
            raise self.error(result, "cuLaunchKernel", name)

    def synchronize(self) -> None:
        """Wait for all work in the current context; errors name the last kernel launched."""
        self.current_context()
        result = self.lib.cuCtxSynchronize()
        if result:
            detail = ""
            if self.last_kernel:
                detail = ("launches are asynchronous: the kernel named is the last one "
                          "launched, an earlier one may be at fault")
            raise self.error(result, "cuCtxSynchronize", self.last_kernel, detail)

    def launcher(self, function: int, signature: Sequence[str], block: tuple[int, int, int],
                 shared: int = 0, tensormaps: Sequence[dict] = ()) -> Launcher:
        """A fast launcher for `function` with a fixed signature, block and shared size;
        `tensormaps` are the recipes of the maps it passes after the arguments (the
        metadata's `tensormaps`)."""
        return Launcher(self, function, signature, block, shared, tensormaps)


class Launcher:
    """Launches one kernel: `launcher(grid, stream, *args)`, args in signature order.

    Block shape and dynamic shared memory are fixed per compiled kernel; the grid,
    stream and arguments change per call. Pointer arguments are int device addresses.
    An empty grid launches nothing. A thread with no current context gets the one the
    kernel was loaded in. A kernel with `tensormaps` (recipes of descriptors it makes from
    its arguments, `runtime/tensormap.py`) takes their maps after the arguments given.
    """

    def __init__(self, driver: Driver, function: int, signature: Sequence[str],
                 block: tuple[int, int, int], shared: int = 0,
                 tensormaps: Sequence[dict] = ()) -> None:
        self.driver = driver
        self.function = function
        self.name = driver.kernel_name(function) or f"<CUfunction {function:#x}>"
        self.tensormaps = list(tensormaps)
        self.packer = ArgPacker([*signature, *["*i8"] * len(self.tensormaps)])
        self.block = block
        self.shared = shared
        self._bx, self._by, self._bz = block
        self._pack = self.packer.pack
        self._cu_launch = driver.lib.cuLaunchKernel
        self._params = self.packer.kernel_params

    def __call__(self, grid: tuple[int, int, int], stream: int, *args: int | float) -> None:
        gx, gy, gz = grid
        if gx * gy * gz == 0:
            return
        if self.tensormaps:
            args = self._with_maps(args)
        try:
            self._pack(*args)
        except struct.error as e:
            raise TypeError(f"kernel '{self.name}' {self.packer.signature}: {e}") from e
        result = self._cu_launch(self.function, gx, gy, gz, self._bx, self._by, self._bz,
                                 self.shared, stream, self._params, None)
        self.driver.last_kernel = self.name
        if result:
            self.driver._launch_failed(result, self.name, (
                self.function, gx, gy, gz, self._bx, self._by, self._bz, self.shared, stream,
                self._params, None))

    def cooperative(self, grid: tuple[int, int, int], stream: int, *args: int | float) -> None:
        """The launch as `cuLaunchCooperativeKernel`: every program resident at once (a
        grid larger than the device holds fails, naming the kernel)."""
        gx, gy, gz = grid
        if gx * gy * gz == 0:
            return
        self.driver.current_context()
        if self.tensormaps:
            args = self._with_maps(args)
        try:
            self._pack(*args)
        except struct.error as e:
            raise TypeError(f"kernel '{self.name}' {self.packer.signature}: {e}") from e
        result = self.driver.lib.cuLaunchCooperativeKernel(
            self.function, gx, gy, gz, self._bx, self._by, self._bz, self.shared, stream,
            self._params)
        self.driver.last_kernel = self.name
        if result:
            raise self.driver.error(result, "cuLaunchCooperativeKernel", self.name)

    def _with_maps(self, args: tuple) -> tuple:
        """`args` and the maps of the kernel's descriptors (see above)."""
        from tritonc.runtime.tensormap import launch_maps

        try:
            return (*args, *launch_maps(self.tensormaps, args))
        except (CudaError, IndexError, OverflowError, TypeError, ValueError) as e:
            raise ValueError(f"kernel '{self.name}': the CUtensorMap of a tensor descriptor "
                             f"it makes from its arguments cannot be encoded: {e}") from e


def _open_libcuda() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise CudaUnavailable(
            f"cannot load libcuda.so.1 (is the NVIDIA driver installed?): {e}") from e
    for name, argtypes in _PROTOTYPES.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = c_int
    return lib


_driver: Driver | None = None
_driver_lock = threading.Lock()


def get_driver() -> Driver:
    """The process's Driver, loading libcuda.so.1 on the first call."""
    global _driver
    if _driver is None:
        with _driver_lock:
            if _driver is None:
                _driver = Driver(_open_libcuda())
    return _driver


def set_active(driver: Any) -> None:
    """Make `driver` what `driver.active` answers, as Triton's `driver.set_active`."""
    from tritonc.inductor.modules import _driver_config

    _driver_config().set_active(driver)


def reset_active() -> None:
    """Make `driver.active` the default driver again."""
    from tritonc.inductor.modules import _driver_config

    _driver_config().reset_active()


def __getattr__(name: str) -> Any:
    """`driver.active`, as Triton's `triton.runtime.driver.active`: the driver object of
    the current device (its stream, target and properties), shared with the `triton`
    alias of `tritonc.inductor`; `driver.default` is the one active unless replaced."""
    if name in ("active", "default"):
        from tritonc.inductor.modules import _driver_config

        return getattr(_driver_config(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
