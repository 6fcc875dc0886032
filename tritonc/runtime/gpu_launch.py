"""Launching on the GPU: specialize the arguments, compile (or hit the cache), launch.

The specialization of a call maps each argument to a type string and a key, as Triton
does: tensors become `*<dtype>` (with `:16` when the address is 16-byte aligned),
integers `i32`/`i64`/`u64` by value (`:16` when divisible by 16, a constexpr when equal
to 1), floats `fp32`, bools `i1`, None and constexprs join the constexpr values.
"""

from __future__ import annotations

from typing import Any

from tritonc.language.core import constexpr

TORCH_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
                "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
                "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
                "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}


def tensor_type_name(arg: Any) -> str:
    """The language type name of a tensor argument's elements (torch or numpy)."""
    name = str(arg.dtype).replace("torch.", "")
    if name not in TORCH_DTYPES:
        raise TypeError(f"unsupported tensor dtype {arg.dtype}")
    return TORCH_DTYPES[name]


def specialize(fn, bound: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any], set[str]]:
    """(signature, constexprs, names divisible by 16) of one call."""
    signature: dict[str, str] = {}
    constexprs: dict[str, Any] = {}
    divisible: set[str] = set()
    for p in fn.params:
        value = bound[p.name]
        if p.is_constexpr or isinstance(value, constexpr) or value is None:
            constexprs[p.name] = value.value if isinstance(value, constexpr) else value
        elif hasattr(value, "data_ptr"):
            signature[p.name] = "*" + tensor_type_name(value)
            if value.data_ptr() % 16 == 0 and not p.do_not_specialize:
                divisible.add(p.name)
        elif isinstance(value, bool):
            signature[p.name] = "i1"
        elif isinstance(value, int):
            if value == 1 and not p.do_not_specialize:
                constexprs[p.name] = 1
                continue
            signature[p.name] = "i32" if -(2**31) <= value < 2**31 else (
                "i64" if -(2**63) <= value < 2**63 else "u64")
            if value % 16 == 0 and not p.do_not_specialize:
                divisible.add(p.name)
        elif isinstance(value, float):
            signature[p.name] = "fp32"
        else:
            raise TypeError(f"argument {p.name!r} of {fn.__name__}: unsupported type "
                            f"{type(value).__name__}")
    return signature, constexprs, divisible


def launch_on_gpu(fn, grid: Any, bound: dict[str, Any], options: dict[str, Any],
                  warmup: bool) -> Any:
    """Compile `fn` for this call's specialization and launch it on the current stream."""
    from tritonc.compiler.compiler import compile as compile_kernel

    for name, value in bound.items():
        device = getattr(value, "device", None)
        if device is not None and getattr(device, "type", "cuda") != "cuda":
            raise ValueError(f"argument {name!r} of {fn.__name__} is on {device}; a GPU launch "
                             "needs CUDA tensors (or set TRITONC_INTERPRET=1 to run on the CPU)")
    signature, constexprs, divisible = specialize(fn, bound)
    return compile_kernel(fn, signature, constexprs, "cuda:90", divisible,
                          options.get("num_warps", 4), options.get("num_stages", 3))
