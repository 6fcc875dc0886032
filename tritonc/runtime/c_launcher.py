"""A CPython extension per kernel signature that calls cuLaunchKernel without ctypes.

A ctypes call costs microseconds per launch; a tiny C function that converts the
Python arguments and calls the driver costs well under one. `load_module(signature)`
generates the C source of such a module for one signature, builds it with the system C
compiler and loads it; `KernelLauncher` wraps a loaded kernel around it, falling back
to the ctypes `Launcher` of `driver.py` when the module cannot be built (no compiler,
no `Python.h`, a type the generator does not handle, or `TRITONC_C_LAUNCHER=0`).

The C source includes no CUDA header and links against no CUDA library: it declares
the few types and the `cuLaunchKernel` prototype itself, and receives the function's
address from Python (`ctypes.cast(lib.cuLaunchKernel, c_void_p)`) with every call,
bound once per kernel with `functools.partial`. Its entry point is

    launch(entry, function, bx, by, bz, shared, gx, gy, gz, stream, *args) -> CUresult

where `args` follow the signature: pointers as int addresses, integers, floats; a
`None` entry in the signature is a slot whose value is accepted and ignored (a
parameter that the specialization turned into a constant). An empty grid launches
nothing. The built `.so` files are cached under `<cache dir>/c_launchers/`, keyed by
the source, the Python ABI and the compiler, and written atomically.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from tritonc.runtime.cache import cache_dir, make_key

# How each argument type is read from Python: (C type, conversion). Integers narrower
# than 64 bits are range-checked; an i1 is any 64-bit int, passed as 0 or 1 (true when
# nonzero) in an int32; floats are converted with PyFloat_AsDouble, fp16 and bf16 then
# rounded to nearest even (fp16 with PyFloat_Pack2, struct's rule: OverflowError for a
# finite value beyond the type).
_INT_RANGES = {
    "i8": ("int8_t", "-128LL", "127LL"), "i16": ("int16_t", "-32768LL", "32767LL"),
    "i32": ("int32_t", "-2147483648LL", "2147483647LL"),
    "u8": ("uint8_t", "0LL", "255LL"),
    "u16": ("uint16_t", "0LL", "65535LL"), "u32": ("uint32_t", "0LL", "4294967295LL"),
}

_PRELUDE = r"""#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef int CUresult;
typedef void *CUfunction;
typedef void *CUstream;
typedef CUresult (*cu_launch_t)(CUfunction, unsigned int, unsigned int, unsigned int,
                                unsigned int, unsigned int, unsigned int, unsigned int,
                                CUstream, void **, void **);

static int as_u64(PyObject *o, unsigned long long *out) {
    *out = PyLong_AsUnsignedLongLong(o);
    return !(*out == (unsigned long long)-1 && PyErr_Occurred());
}

static int as_i64(PyObject *o, long long *out) {
    *out = PyLong_AsLongLong(o);
    return !(*out == -1 && PyErr_Occurred());
}

static int as_range(PyObject *o, long long lo, long long hi, int index, long long *out) {
    if (!as_i64(o, out)) return 0;
    if (*out < lo || *out > hi) {
        PyErr_Format(PyExc_OverflowError, "argument %d out of range: %lld", index, *out);
        return 0;
    }
    return 1;
}

static int as_double(PyObject *o, double *out) {
    *out = PyFloat_AsDouble(o);
    return !(*out == -1.0 && PyErr_Occurred());
}

static int as_fp16(PyObject *o, uint16_t *out) {
    double d;
    unsigned char bytes[2];
    if (!as_double(o, &d)) return 0;
#if PY_VERSION_HEX >= 0x030B0000
    if (PyFloat_Pack2(d, (char *)bytes, 1) < 0) return 0;
#else
    if (_PyFloat_Pack2(d, bytes, 1) < 0) return 0;
#endif
    *out = (uint16_t)(bytes[0] | (bytes[1] << 8));
    return 1;
}

static int as_bf16(PyObject *o, uint16_t *out) {
    double d;
    float f;
    uint32_t bits;
    if (!as_double(o, &d)) return 0;
    f = (float)d;
    if (f != f) { *out = 0x7FC0; return 1; }
    memcpy(&bits, &f, sizeof bits);
    *out = (uint16_t)((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    return 1;
}
"""

_BODY = r"""
static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long entry, function, stream;
    long long bx, by, bz, shared, gx, gy, gz;
    if (nargs != %(nargs)d) {
        PyErr_Format(PyExc_TypeError, "expected %(nparams)d kernel arguments, got %%zd",
                     nargs - 10);
        return NULL;
    }
    if (!as_u64(args[0], &entry) || !as_u64(args[1], &function)
        || !as_range(args[2], 0, 0xFFFFFFFFLL, -1, &bx)
        || !as_range(args[3], 0, 0xFFFFFFFFLL, -1, &by)
        || !as_range(args[4], 0, 0xFFFFFFFFLL, -1, &bz)
        || !as_range(args[5], 0, 0xFFFFFFFFLL, -1, &shared)
        || !as_range(args[6], 0, 0xFFFFFFFFLL, -1, &gx)
        || !as_range(args[7], 0, 0xFFFFFFFFLL, -1, &gy)
        || !as_range(args[8], 0, 0xFFFFFFFFLL, -1, &gz)
        || !as_u64(args[9], &stream))
        return NULL;
%(convert)s
    if (gx == 0 || gy == 0 || gz == 0) return PyLong_FromLong(0);
    void *params[] = {%(params)s};
    CUresult result;
    Py_BEGIN_ALLOW_THREADS
    result = ((cu_launch_t)(uintptr_t)entry)(
        (CUfunction)(uintptr_t)function, (unsigned int)gx, (unsigned int)gy,
        (unsigned int)gz, (unsigned int)bx, (unsigned int)by, (unsigned int)bz,
        (unsigned int)shared, (CUstream)(uintptr_t)stream, params, NULL);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(result);
}

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, "Launch a kernel."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "%(name)s", NULL, -1, methods};

PyMODINIT_FUNC PyInit_%(name)s(void) { return PyModule_Create(&module); }
"""


def _convert(index: int, ty: str | None) -> tuple[str, str | None]:
    """C statements reading argument `index` of type `ty`, and the address to pass."""
    arg, var = f"args[{index + 10}]", f"a{index}"
    if ty is None:
        return "", None
    if ty.startswith("*") or ty == "u64":
        return f"    unsigned long long {var};\n    if (!as_u64({arg}, &{var})) return NULL;", var
    if ty == "i64":
        return f"    long long {var};\n    if (!as_i64({arg}, &{var})) return NULL;", var
    if ty in ("i1", "u1"):
        return (f"    long long w{index};\n    if (!as_i64({arg}, &w{index})) return NULL;\n"
                f"    int32_t {var} = w{index} != 0;"), var
    if ty in ("fp16", "bf16"):
        return (f"    uint16_t {var};\n    if (!as_{ty}({arg}, &{var})) return NULL;"), var
    if ty in ("fp32", "fp64"):
        ctype = "float" if ty == "fp32" else "double"
        return (f"    double d{index};\n    if (!as_double({arg}, &d{index})) return NULL;\n"
                f"    {ctype} {var} = ({ctype})d{index};"), var
    if ty in _INT_RANGES:
        ctype, lo, hi = _INT_RANGES[ty]
        return (f"    long long w{index};\n"
                f"    if (!as_range({arg}, {lo}, {hi}, {index}, &w{index})) return NULL;\n"
                f"    {ctype} {var} = ({ctype})w{index};"), var
    raise ValueError(f"no C conversion for kernel argument type {ty!r}")


def generate_source(signature: Sequence[str | None], name: str) -> str:
    """The C source of extension module `name` launching kernels of `signature`."""
    convert, params = [], []
    for index, ty in enumerate(signature):
        code, address = _convert(index, ty)
        if code:
            convert.append(code)
            params.append(f"&{address}")
    return _PRELUDE + _BODY % {
        "nargs": 10 + len(signature), "nparams": len(signature), "name": name,
        "convert": "\n".join(convert), "params": ", ".join(params) or "NULL"}


def find_compiler() -> list[str] | None:
    """The C compiler command: $CC, else Python's configured CC, else cc / gcc / clang."""
    for candidate in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc",
                      "clang"):
        if not candidate:
            continue
        words = shlex.split(candidate)
        path = shutil.which(words[0]) if words else None
        if path:
            return [path, *words[1:]]
    return None


def python_include() -> str | None:
    """The directory holding `Python.h`, if this Python's headers are installed."""
    include = sysconfig.get_paths().get("include")
    if include and os.path.isfile(os.path.join(include, "Python.h")):
        return include
    return None


def enabled() -> bool:
    """False when `TRITONC_C_LAUNCHER` is 0/false/no/off (then ctypes launches)."""
    return os.environ.get("TRITONC_C_LAUNCHER", "1").lower() not in ("0", "false", "no", "off")


_modules: dict[tuple, ModuleType | None] = {}
_lock = threading.Lock()
_warned = False


def load_module(signature: Sequence[str | None]) -> ModuleType | None:
    """The launch module of `signature` (built and cached once), or None if unavailable."""
    key = tuple(signature)
    if key in _modules:
        return _modules[key]
    with _lock:
        if key not in _modules:
            _modules[key] = _build_and_load(key)
    return _modules[key]


def _build_and_load(signature: tuple) -> ModuleType | None:
    global _warned
    compiler, include = find_compiler(), python_include()
    if compiler is None or include is None:
        return None
    try:
        source_key = make_key(generate_source(signature, "m"), sys.version,
                              sysconfig.get_config_var("SOABI") or "", " ".join(compiler))
    except ValueError:
        return None
    name = f"_tritonc_launch_{source_key[:24]}"
    directory = cache_dir() / "c_launchers"
    path = directory / f"{name}.so"
    try:
        if not path.is_file():
            _compile(compiler, include, generate_source(signature, name), directory, path)
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        return module
    except (OSError, ImportError, subprocess.SubprocessError) as e:
        if isinstance(e, ImportError):  # a damaged file: let the next process rebuild it
            path.unlink(missing_ok=True)
        if not _warned:
            _warned = True
            warnings.warn(f"tritonc: launching through ctypes, the C launcher failed: {e}",
                          RuntimeWarning, stacklevel=3)
        return None


def _compile(compiler: list[str], include: str, source: str, directory: Path,
             path: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".tmp-", dir=directory) as tmp:
        src, out = Path(tmp) / "launcher.c", Path(tmp) / path.name
        src.write_text(source)
        flags = ["-O2", "-shared", "-fPIC", f"-I{include}"]
        if sys.platform == "darwin":
            flags += ["-undefined", "dynamic_lookup"]
        done = subprocess.run([*compiler, *flags, str(src), "-o", str(out)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise OSError(f"{' '.join(compiler)} exited with {done.returncode}:\n"
                          f"{done.stderr.strip()}")
        os.replace(out, path)  # atomic: readers see the whole file or none


def entry_address(lib: Any) -> int | None:
    """The address of `lib.cuLaunchKernel` if it is a ctypes function, else None."""
    try:
        return ctypes.cast(lib.cuLaunchKernel, ctypes.c_void_p).value
    except (AttributeError, TypeError, ctypes.ArgumentError):
        return None


class KernelLauncher:
    """Launches one loaded kernel: `raw(gx, gy, gz, stream, *args)` returns the CUresult.

    `launcher` is the ctypes `Launcher` of the kernel (or any callable with its
    `(grid, stream, *args)` interface); `signature` gives each argument's type, None
    for an ignored slot (by default the launcher's own signature). `raw` is the C
    module's launch bound to the kernel when it could be built, else a ctypes adapter
    that raises its own errors and returns 0. After a nonzero result call `failed`.
    """

    def __init__(self, launcher: Any, signature: Sequence[str | None] | None = None) -> None:
        packer = getattr(launcher, "packer", None)
        self.launcher = launcher
        self.driver = getattr(launcher, "driver", None) or SimpleNamespace(last_kernel=None)
        self.name = getattr(launcher, "name", None)
        self.keep: tuple[int, ...] | None = None  # None: pass every argument on
        if signature is None and packer is not None:
            signature = packer.signature
        self.signature = tuple(signature) if signature is not None else ()
        if signature is not None:
            self.keep = tuple(i for i, ty in enumerate(self.signature) if ty is not None)
        self.uses_c = False
        self.raw: Callable[..., int] = self._ctypes_raw
        # a kernel whose launch encodes tensor maps (`Launcher.tensormaps`) launches
        # through its `Launcher`, which appends them
        direct = packer is not None and enabled() and not getattr(launcher, "tensormaps", None)
        module = load_module(self.signature) if direct else None
        entry = entry_address(self.driver.lib) if module is not None else None
        if module is not None and entry:
            self.raw = functools.partial(module.launch, entry, launcher.function,
                                         *launcher.block, launcher.shared)
            self.uses_c = True

    def _ctypes_raw(self, gx: int, gy: int, gz: int, stream: int, *args: Any) -> int:
        if self.keep is not None and len(self.keep) != len(args):
            args = tuple(args[i] for i in self.keep if i < len(args))
        self.launcher((gx, gy, gz), stream, *args)
        return 0

    def __call__(self, grid: tuple[int, int, int], stream: int, *args: Any) -> None:
        """Launch with the `Launcher` interface: errors raise."""
        gx, gy, gz = grid
        try:
            result = self.raw(gx, gy, gz, stream, *args)
        except (TypeError, OverflowError) as e:
            self.bad_args(e)
        if self.driver is not None:
            self.driver.last_kernel = self.name
        if result:
            self.failed(result, gx, gy, gz, stream, *args)

    def bad_args(self, error: BaseException) -> None:
        """Re-raise an argument conversion error of `raw` as a TypeError naming the kernel."""
        if not self.uses_c:
            raise error
        signature = tuple(ty for ty in self.signature if ty is not None)
        raise TypeError(f"kernel '{self.name}' {signature}: {error}") from error

    def failed(self, result: int, gx: int, gy: int, gz: int, stream: int, *args: Any) -> None:
        """A nonzero CUresult: retry in the kernel's context if there was none, else raise
        the driver's CudaError naming the kernel."""
        launcher = self.launcher
        if not self.uses_c:  # the ctypes Launcher raised already; only a fake gets here
            raise RuntimeError(f"kernel '{self.name}': launch failed with CUresult {result}")
        launcher.packer.pack(*(args[i] for i in self.keep))
        self.driver._launch_failed(result, self.name, (
            launcher.function, gx, gy, gz, *launcher.block, launcher.shared, stream,
            launcher.packer.kernel_params, None))
