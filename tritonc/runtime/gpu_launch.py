"""Launching on the GPU: specialize the arguments, compile (or hit a cache), launch.

The specialization of a call maps each argument to a type string and a key, as Triton
does: tensors become `*<dtype>`, integers `i32`/`i64`/`u64` by value, floats `fp32`,
bools `i1`, and a parameter annotated with a dtype (`v: tl.int8`) that type; None,
constexprs, @jit functions and dtypes join the constexpr values. A tuple's entry is the
tuple of its items' entries, a constant item standing for itself (`ConstantItem`).
What a value lets the compiler assume (divisible by 16, equal to 1) is the table of
`specialization.py`.
Options (`num_warps`, `num_stages`, `maxnreg`, `enable_fp_fusion`, ...) become one
`CUDAOptions` before anything is compiled, so a bad value fails with its name. The
sm compiled for is the device's, unless the `arch` launch option or
`knobs.runtime.override_arch` names another (`target_arch`); a warmup for an sm other
than the device's compiles without loading the kernel, and a launch for one loads its
PTX, which the driver compiles for the device (sm_80 code on an sm_90 device).

Two caches sit in front of the compiler: a dict per kernel keyed by the call's
specialization (in front of it, the generated hot path of `launch.py` keeps its own
dict of launch entries, see `fast_entry`), and the on-disk cache keyed
by a hash of the kernel's source and its @jit callees, the constexprs and dtypes it
reads from its closure and globals, the specialization (a @jit function passed as an
argument by the same hash of its own), the options, the target and the compiler
version. A disk hit loads the cubin without importing MLIR.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tritonc import knobs
from tritonc.backends.base import Target, get_backend
from tritonc.backends.cuda.options import CUDAOptions
from tritonc.errors import OutOfResources
from tritonc.language.core import constexpr
from tritonc.language.dtypes import dtype as tl_dtype
from tritonc.runtime import descriptors, scalar_annotations, specialization
from tritonc.runtime.cache import Cache, compiler_key, make_key
from tritonc.runtime.jit import JITFunction

TORCH_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
                "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
                "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}
COMPILER_VERSION = "tritonc-0.1.0"
COMPILE_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                   "launch_tensormaps")


_SHORT_INT_NAMES = {f"{kind}{bits}": f"{kind[0]}{bits}" for kind in ("int", "uint")
                    for bits in (8, 16, 32, 64)} | {"int1": "i1"}


def tensor_type_name(arg: Any) -> str:
    """The language type name of a tensor argument's elements (torch or numpy, or a
    `reinterpret` wrapper, whose dtype is the language's)."""
    if isinstance(arg.dtype, tl_dtype):
        return _SHORT_INT_NAMES.get(arg.dtype.name, arg.dtype.name)
    name = str(arg.dtype).replace("torch.", "")
    if name not in TORCH_DTYPES:
        raise TypeError(f"unsupported tensor dtype {arg.dtype}")
    return TORCH_DTYPES[name]


def _scalar_type(value: Any) -> str:
    if hasattr(value, "data_ptr"):
        return "*" + tensor_type_name(value)
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return specialization.int_type(value)
    if isinstance(value, float):
        return "fp32"
    raise TypeError(f"unsupported argument type {type(value).__name__}")


def _tuple_entry(value: Any, specialize: bool) -> Any:
    """The signature entry of a tuple argument (or of one of its items): the same
    structure, with each item's type, or a `ConstantItem` for a constant item (an int
    equal to 1 is one, unless the parameter is not specialized)."""
    if isinstance(value, tuple):
        items = [_tuple_entry(v, specialize) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if specialization.is_constant_value(value):
        return specialization.ConstantItem(specialization.constant_value(value))
    if specialization.specialize_value(value, specialize) is specialization.EQUAL_TO_1:
        return specialization.ConstantItem(1)
    if descriptors.is_descriptor(value):
        return descriptors.signature_text(tensor_type_name(value.base), value.block_shape,
                                          value.padding)
    return _scalar_type(value)


def _is_constant_entry(entry: Any) -> bool:
    """Whether a tuple entry is made of constant items only."""
    if isinstance(entry, tuple):
        return all(_is_constant_entry(e) for e in entry)
    return isinstance(entry, specialization.ConstantItem)


def _unwrap_items(entry: Any) -> Any:
    """The value of a tuple entry of constant items only."""
    if isinstance(entry, tuple):
        items = [_unwrap_items(e) for e in entry]
        return type(entry)(*items) if hasattr(entry, "_fields") else tuple(items)
    return entry.value


def specialize(fn, bound: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], set[str]]:
    """(signature, constexprs, names divisible by 16) of one call. A tuple argument's
    signature entry is the tuple of its items' types (passed flattened), with a
    `ConstantItem` for each constant item (None, a constexpr, a @jit function); a
    tuple of constants only is a constexpr."""
    signature: dict[str, Any] = {}
    constexprs: dict[str, Any] = {}
    divisible: set[str] = set()
    for p in fn.params:
        value = bound[p.name]
        if p.is_constexpr or specialization.is_constant_value(value):
            constexprs[p.name] = specialization.constant_value(value)
            continue
        if p.annotation_type is not None:  # a typed scalar (scalar_annotations.py)
            try:
                scalar_annotations.check_value(p.annotation_type, value)
            except (TypeError, OverflowError) as e:
                raise type(e)(f"argument {p.name!r} of {fn.__name__}: {e}") from None
            signature[p.name] = p.annotation_type
            if (scalar_annotations.is_integer_type(p.annotation_type)
                    and not p.do_not_specialize and not isinstance(value, bool)
                    and specialization.is_divisible(int(value))):
                divisible.add(p.name)
            continue
        if isinstance(value, tuple):
            try:
                entry = _tuple_entry(value, not p.do_not_specialize)
            except (TypeError, OverflowError) as e:
                raise type(e)(f"argument {p.name!r} of {fn.__name__}: {e}") from None
            if value and _is_constant_entry(entry):
                constexprs[p.name] = _unwrap_items(entry)
            else:
                signature[p.name] = entry
            continue
        if descriptors.is_descriptor(value):
            signature[p.name] = descriptors.signature_text(
                tensor_type_name(value.base), value.block_shape, value.padding)
            if not p.do_not_specialize and descriptors.is_aligned(value):
                divisible.add(p.name)
            continue
        try:
            signature[p.name] = _scalar_type(value)
        except (TypeError, OverflowError) as e:
            raise type(e)(f"argument {p.name!r} of {fn.__name__}: {e}") from None
        rule = specialization.specialize_value(value, not p.do_not_specialize)
        if rule is specialization.EQUAL_TO_1:
            del signature[p.name]
            constexprs[p.name] = 1
        elif rule is specialization.DIV16:
            divisible.add(p.name)
    return signature, constexprs, divisible


def _flatten(entry: Any) -> list:
    """The types of the kernel's arguments of signature entries: tuples item by item
    (a constant item takes none), descriptors as their base, shape and strides."""
    if isinstance(entry, tuple):
        return [x for e in entry for x in _flatten(e)]
    if isinstance(entry, specialization.ConstantItem):
        return []
    if descriptors.parse(entry) is not None:
        return descriptors.flat_types(entry)
    return [entry]


def argument_values(entry: Any, value: Any) -> list:
    """The kernel's arguments of one argument `value` of signature entry `entry`, as
    `_flatten(entry)` types them."""
    if isinstance(entry, tuple):
        return [x for e, v in zip(entry, value, strict=True) for x in argument_values(e, v)]
    if isinstance(entry, specialization.ConstantItem):
        return []
    if descriptors.is_descriptor(value):
        return descriptors.flat_values(value)
    return [value]


def _arg_key(value: Any) -> Any:
    """The part of the in-memory cache key one argument contributes (cheap to build)."""
    if hasattr(value, "data_ptr"):
        return (value.dtype, specialization.is_divisible(value.data_ptr()))
    if isinstance(value, bool):
        return ("b",)
    if isinstance(value, int):
        return ("i", specialization.int_class(value))
    if isinstance(value, float):
        return ("f",)
    if isinstance(value, tuple):
        return tuple(_arg_key(v) for v in value)
    if descriptors.is_descriptor(value):
        return ("d", value.base.dtype, tuple(value.block_shape), value.padding,
                descriptors.is_aligned(value))
    return constant_key(value)


def constant_key(value: Any) -> tuple:
    """The in-memory key part of a constant argument: a @jit function by identity (two
    functions may share a name), anything else by its repr."""
    value = specialization.constant_value(value)
    if isinstance(value, JITFunction):
        return ("j", value)
    return ("c", type(value).__name__, repr(value))


def constant_text(value: Any) -> str:
    """The disk-cache key text of a constant: a @jit function by the hash of its source
    and its callees' (`dependencies_key`), tuples item by item, others by their repr."""
    if isinstance(value, specialization.ConstantItem):
        value = value.value
    if isinstance(value, JITFunction):
        return f"@jit:{dependencies_key(value)}"
    if isinstance(value, tuple):
        return f"{type(value).__name__}({', '.join(constant_text(v) for v in value)})"
    return repr(value)


def dependencies_key(fn, seen: set | None = None) -> str:
    """A hash of `fn`'s source, its @jit callees' sources and the constexprs and dtypes it
    reads from its closure and its globals (looked up in that order, as the code
    generator does)."""
    seen = seen if seen is not None else set()
    if fn in seen:
        return ""
    seen.add(fn)
    scopes = [fn.__globals__]
    if getattr(fn.fn, "__closure__", None):
        scopes.insert(0, inspect.getclosurevars(fn.fn).nonlocals)
    parts = [fn.src]
    for node in ast.walk(fn.parse()):
        if not isinstance(node, ast.Name):
            continue
        scope = next((table for table in scopes if node.id in table), None)
        value = scope[node.id] if scope is not None else None
        if isinstance(value, JITFunction) and not value.__module__.startswith("tritonc."):
            parts.append(dependencies_key(value, seen))
        elif isinstance(value, constexpr):
            parts.append(f"{node.id}={value.value!r}")
        elif isinstance(value, tl_dtype):
            parts.append(f"{node.id}={value!r}")
    return make_key(*parts)


@dataclass
class CompiledLaunch:
    """A loaded kernel and how to call it."""

    launcher: Any
    signature: dict[str, Any]  # the runtime parameters' signature entries, in order
    num_warps: int
    metadata: dict
    c_launcher: Any = field(default=None, repr=False, compare=False)  # built on first launch
    asm: dict = field(default_factory=dict, repr=False, compare=False)  # stage -> text
    name: str = ""

    @property
    def runtime_params(self) -> list[str]:
        return list(self.signature)

    def kernel_launcher(self) -> Any:
        """The kernel's `c_launcher.KernelLauncher` (C extension, else ctypes), built once."""
        if self.c_launcher is None:
            from tritonc.runtime.c_launcher import KernelLauncher

            self.c_launcher = KernelLauncher(self.launcher)
        return self.c_launcher


_TEXT_STAGES = ("ttir", "ttgir", "llir", "ptx")  # kept beside the cubin: a launch's `.asm`


def compiled_binary(fn, signature: dict[str, Any], constexprs: dict[str, Any],
                    divisible: set[str], options: CUDAOptions, arch: int,
                    name: str | None = None) -> dict[str, bytes]:
    """The cubin and metadata of one specialization: precompiled in the kernel's package,
    else from the on-disk cache, else compiled (and stored). A hit reads two files and
    never imports MLIR. `name` is the kernel's name (`fn.kernel_name`), part of the key."""
    if name is None:
        name = fn.kernel_name(signature, constexprs, divisible)
    spec_text = json.dumps([signature, {k: constant_text(v) for k, v in constexprs.items()},
                            sorted(divisible)], sort_keys=True, default=constant_text)
    key = make_key(COMPILER_VERSION, compiler_key(), dependencies_key(fn), spec_text, name,
                   options.hash(), get_backend(Target("cuda", arch)).hash())
    from tritonc.aot.registry import aot_required, find_precompiled

    cache = Cache()
    # a kernel shipped precompiled in its package comes first (TRITONC_REQUIRE_AOT=1:
    # nothing else is acceptable), then the on-disk cache, then the compiler
    entry = find_precompiled(fn, signature, constexprs, divisible, options, arch,
                             required=aot_required())
    entry = entry or cache.get(key, required=("kernel.cubin", "metadata.json"))
    if entry is None:
        from tritonc.compiler.compiler import compile as compile_kernel

        kernel = compile_kernel(fn, signature, constexprs, f"cuda:{arch}", divisible,
                                options=options)
        entry = {"kernel.cubin": kernel.asm["cubin"],
                 "metadata.json": json.dumps(kernel.metadata).encode(),
                 **{f"kernel.{stage}": kernel.asm[stage].encode() for stage in _TEXT_STAGES
                    if stage in kernel.asm}}
        cache.put(key, entry)
    return entry


_LAUNCH_ONLY = ("stream", "arch", "launch_cooperative_grid", "launch_pdl")


def launch_options(options: dict[str, Any]) -> CUDAOptions:
    """The compile options among a launch's keywords (those of `_LAUNCH_ONLY` are not),
    validated."""
    return CUDAOptions.parse({k: v for k, v in options.items() if k not in _LAUNCH_ONLY})


def target_arch(capability: tuple[int, int], arch: str | int | None = None) -> int:
    """The sm a launch compiles for: `arch` (the launch option) when given, else
    `knobs.runtime.override_arch` when set, else the device's `capability` (major,
    minor). Names are written "sm80", "sm_90a", "90" or 80."""
    chosen = arch if arch is not None else knobs.runtime.override_arch
    if chosen is None or chosen == "":
        return capability[0] * 10 + capability[1]
    match = re.fullmatch(r"(?:sm_?)?(\d+)[af]?", str(chosen).strip())
    if match is None:
        raise ValueError(f"not a CUDA architecture: {chosen!r} (expected e.g. 'sm80', "
                         "'sm90a' or 90)")
    return int(match.group(1))


def _compiled_entry(fn, bound: dict[str, Any], compile_options: CUDAOptions,
                    arch: int) -> tuple[dict[str, Any], dict[str, bytes], dict, str, dict]:
    """(signature, cache entry, metadata, kernel name, stage texts) of one call."""
    signature, constexprs, divisible = specialize(fn, bound)
    name = fn.kernel_name(signature, constexprs, divisible)
    entry = compiled_binary(fn, signature, constexprs, divisible, compile_options, arch, name)
    metadata = json.loads(entry["metadata.json"])
    asm = {stage: entry[f"kernel.{stage}"].decode() for stage in _TEXT_STAGES
           if f"kernel.{stage}" in entry}
    asm["cubin"] = entry["kernel.cubin"]
    return signature, entry, metadata, metadata.get("name", name), asm


def _compile_for_other_arch(fn, bound: dict[str, Any],
                            options: dict[str, Any]) -> CompiledLaunch | None:
    """A warmup's kernel, compiled but not loaded, when the `arch` option or
    `knobs.runtime.override_arch` names an sm other than the device's; else None."""
    if options.get("arch") is None and not knobs.runtime.override_arch:
        return None
    from tritonc.runtime.driver import get_driver

    driver = get_driver()
    driver.current_context()
    capability = driver.device_attributes().compute_capability
    arch = target_arch(capability, options.get("arch"))
    if arch == capability[0] * 10 + capability[1]:
        return None
    compile_options = launch_options(options)
    signature, _, metadata, name, asm = _compiled_entry(fn, bound, compile_options, arch)
    return CompiledLaunch(None, signature, compile_options.num_warps, metadata, asm=asm,
                          name=name)


def _compile_and_load(fn, bound: dict[str, Any], options: dict[str, Any]) -> CompiledLaunch:
    from tritonc.runtime.driver import get_driver

    compile_options = launch_options(options)
    driver = get_driver()
    driver.current_context()
    arch = target_arch(driver.device_attributes().compute_capability, options.get("arch"))
    num_warps = compile_options.num_warps
    signature, entry, metadata, name, asm = _compiled_entry(fn, bound, compile_options, arch)
    capability = driver.device_attributes().compute_capability
    # a cubin runs on its own sm only; another sm's PTX is compiled by the driver for the
    # device (an older sm's code runs on a newer device)
    image = entry["kernel.cubin"] if arch == capability[0] * 10 + capability[1] or \
        "kernel.ptx" not in entry else entry["kernel.ptx"]
    module = driver.load_module(image, name)
    function = driver.get_function(module, name)
    shared = int(metadata.get("shared", 0))
    limit = driver.device_attributes().max_shared_per_block_optin
    if shared > limit:
        raise OutOfResources(shared, limit, f"shared memory of {name}")
    if shared > 48 * 1024:
        driver.set_max_dynamic_shared(function, shared)
    launcher = driver.launcher(function, _flatten(tuple(signature.values())),
                               (int(metadata["threads"]), 1, 1), shared,
                               metadata.get("tensormaps", ()))
    return CompiledLaunch(launcher, signature, num_warps, metadata, asm=asm,
                          name=name)


class _NoTensor:
    """Stands for torch.Tensor where torch is missing: no argument is exactly one."""


def stream_functions() -> tuple[Callable[[int], int], Callable[[], int]]:
    """(raw stream of a device, current device) from torch's C API, or slower stand-ins."""
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    device = getattr(torch._C, "_cuda_getDevice", None)
    if raw is not None and device is not None:
        return raw, device
    return (lambda _device: torch.cuda.current_stream().cuda_stream), (lambda: 0)


def hot_path_functions() -> dict[str, Any]:
    """What the generated launch functions (`launch.py`) read from torch: the tensor
    class whose arguments they specialize inline, and the current-stream getters."""
    try:
        import torch
    except ImportError:
        return {"_tc_T": _NoTensor, "_tc_rs": lambda _device: _current_stream(),
                "_tc_dev": lambda: 0}
    raw, device = stream_functions()
    return {"_tc_T": torch.Tensor, "_tc_rs": raw, "_tc_dev": device}


def fast_entry(compiled: CompiledLaunch, names: tuple[str, ...]) -> tuple:
    """The hot path's entry for one call shape: (raw launch, KernelLauncher, compiled).

    `names` are the kernel's non-constexpr parameters, whose values the hot path passes
    in order; those the specialization made constant become ignored slots."""
    from tritonc.runtime.c_launcher import KernelLauncher

    entries = [compiled.signature.get(name) for name in names]  # None: made constant
    if any(descriptors.parse(entry) for entry in entries):
        launcher = DescriptorLauncher(compiled.kernel_launcher(), entries)
        return launcher.raw, launcher, compiled
    packer = getattr(compiled.launcher, "packer", None)
    if packer is not None and len(packer.signature) == len(compiled.runtime_params):
        types = dict(zip(compiled.runtime_params, packer.signature, strict=True))
    else:
        types = {name: "?" for name in compiled.runtime_params}
    launcher = KernelLauncher(compiled.launcher, [types.get(name) for name in names])
    return launcher.raw, launcher, compiled


class DescriptorLauncher:
    """The hot path's launcher of a kernel taking host descriptors: it gets one value per
    runtime parameter, as for any kernel, and hands the kernel's `KernelLauncher` the
    arguments each value travels as (a descriptor's base, shape, strides and CUtensorMap;
    nothing for a parameter the specialization made constant), as the generic path does."""

    def __init__(self, launcher: Any, entries: list) -> None:
        self.inner = launcher
        self.entries = entries  # each runtime parameter's signature entry; None: a constant
        self.driver = launcher.driver
        self.name = launcher.name

    def flat(self, values: tuple) -> list:
        args = []
        for entry, value in zip(self.entries, values, strict=True):
            for v in argument_values(entry, value) if entry is not None else ():
                args.append(v.data_ptr() if hasattr(v, "data_ptr") else v)
        return args

    def raw(self, gx: int, gy: int, gz: int, stream: int, *values: Any) -> int:
        return self.inner.raw(gx, gy, gz, stream, *self.flat(values))

    def bad_args(self, error: BaseException) -> None:
        self.inner.bad_args(error)

    def failed(self, result: int, gx: int, gy: int, gz: int, stream: int, *values: Any) -> None:
        self.inner.failed(result, gx, gy, gz, stream, *self.flat(values))


def _current_stream() -> int:
    raw, device = stream_functions()
    return raw(device())


def _check_devices(fn, bound: dict[str, Any]) -> None:
    """A clear error for a tensor argument that is not on a CUDA device (or in pinned host
    memory, which the GPU addresses directly)."""
    for name, value in bound.items():
        device = getattr(value, "device", None)
        if device is not None and getattr(device, "type", "cuda") != "cuda" and \
                not (callable(getattr(value, "is_pinned", None)) and value.is_pinned()):
            raise ValueError(f"argument {name!r} of {fn.__name__} is on {device}; a GPU "
                             "launch needs CUDA tensors (or set TRITONC_INTERPRET=1 to run "
                             "on the CPU)")


def code_knobs() -> tuple:
    """The knobs that change the code a launch compiles, as part of its in-memory key."""
    return (knobs.language.default_fp_fusion, knobs.runtime.override_arch,
            knobs.compilation.disable_line_info, tuple(sorted(knobs.nvidia.overrides().items())))


def launch_on_gpu(fn, grid: Any, bound: dict[str, Any], options: dict[str, Any],
                  warmup: bool) -> Any:
    """Compile `fn` for this call's specialization (once) and launch it."""
    from tritonc.runtime.launch import normalize_grid

    key = (tuple(constant_key(v) if p.is_constexpr else _arg_key(v)
                 for p, v in zip(fn.params, bound.values(), strict=True)),
           tuple(options.get(name) for name in COMPILE_OPTIONS), options.get("arch"),
           tuple(sorted(dict(options.get("extern_libs") or {}).items())), code_knobs())
    kernels = fn.__dict__.setdefault("_gpu_kernels", {})
    compiled = kernels.get(key)
    if compiled is None:
        _check_devices(fn, bound)
        other = _compile_for_other_arch(fn, bound, options) if warmup else None
        if other is not None:
            return other  # compiled for another sm: nothing to load, launch or keep
        compiled = kernels[key] = _compile_and_load(fn, bound, options)
    if warmup:
        return compiled
    args = []
    for name, entry in compiled.signature.items():
        for value in argument_values(entry, bound[name]):
            args.append(value.data_ptr() if hasattr(value, "data_ptr") else value)
    stream = options.get("stream")
    if stream is None:
        stream = _current_stream()
    if options.get("launch_cooperative_grid"):
        compiled.launcher.cooperative(normalize_grid(grid, bound), stream, *args)
    else:
        compiled.kernel_launcher()(normalize_grid(grid, bound), stream, *args)
    return compiled
