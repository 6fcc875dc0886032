"""Kernel specializations written as text: `FILE.py:KERNEL`, signatures and constexprs.

A signature is a comma list with one entry per runtime parameter of the kernel (those
not given with `--constexpr`):

    *fp16        a pointer to fp16
    *fp32:16     a pointer whose address is a multiple of 16 bytes
    i32, i64     integers; `i32:16` is a multiple of 16, `i32:1` is equal to 1
    fp32         a float
    1024         a bare number: the parameter is that constant

The suffixes are those of the specialization table (`runtime/specialization.py`).
`:1` and bare numbers turn the parameter into a constant of the compiled kernel; an
ahead-of-time launcher still takes it as an argument and checks its value. Nothing here
imports MLIR.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tritonc.compiler.targets import check_arch
from tritonc.runtime.specialization import DIV16, DIVISIBILITY, EQUAL_TO_1, RULES


class UsageError(Exception):
    """A bad kernel path, signature, constexpr or target: reported in one line."""


@dataclass
class KernelSpec:
    """One specialization of a kernel.

    `signature` maps the compiled kernel's runtime parameters to their types, in order;
    `constexprs` holds every constant (from --constexpr and from the signature);
    `fixed` maps the runtime parameters that the signature made constant to their type
    and value; `divisible` names the parameters known to be multiples of 16.
    """

    text: str
    signature: dict[str, str]
    constexprs: dict[str, Any]
    divisible: frozenset[str]
    fixed: dict[str, tuple[str, Any]] = field(default_factory=dict)

    def conditions(self) -> list[tuple[str, str, Any]]:
        """What the arguments must satisfy: (name, "div16" | "eq", value)."""
        conds = [(name, DIV16.name, DIVISIBILITY) for name in self.signature
                 if name in self.divisible]
        conds += [(name, "eq", value) for name, (_, value) in self.fixed.items()]
        return conds


def load_kernel(spec: str):
    """`path/to/file.py:kernel` -> the JITFunction `kernel` defined in that file."""
    from tritonc.runtime.jit import JITFunction

    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise UsageError(f"expected FILE.py:KERNEL, got {spec!r}")
    module = load_module_file(path)
    kernel = getattr(module, name, None)
    if not isinstance(kernel, JITFunction):
        kernels = [k for k, v in vars(module).items() if isinstance(v, JITFunction)]
        raise UsageError(f"{path} has no @jit kernel named {name!r} "
                         f"(kernels: {', '.join(kernels) or 'none'})")
    return kernel


def load_module_file(path: str, module_name: str | None = None):
    """Import the Python file `path` (under `module_name`, default a private name)."""
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    module_name = module_name or f"_tritonc_cli_{Path(path).stem}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise UsageError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[module_name]
        raise UsageError(f"importing {path} failed: {type(e).__name__}: {e}") from e
    return module


def parse_value(text: str) -> Any:
    """A constexpr value from the command line: int, float, bool, or a string."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_constexprs(kernel, text: str | dict[str, Any]) -> dict[str, Any]:
    """`NAME=VALUE,...` (or a dict) -> {name: value}, checked against the kernel."""
    if isinstance(text, dict):
        items = list(text.items())
    else:
        items = []
        for item in filter(None, (i.strip() for i in text.split(","))):
            name, sep, value = item.partition("=")
            if not sep or not name:
                raise UsageError(f"bad --constexpr entry {item!r}: expected NAME=VALUE")
            items.append((name.strip(), parse_value(value.strip())))
    constexprs = {}
    for name, value in items:
        if name not in kernel.arg_names:
            raise UsageError(f"{kernel.__name__} has no parameter {name!r}")
        if name in constexprs:
            raise UsageError(f"constexpr {name!r} is given twice")
        constexprs[name] = value
    return constexprs


def check_type(ty: str, name: str) -> None:
    """Raise UsageError unless `ty` names a scalar or pointer type of the language."""
    from tritonc.language import dtypes

    inner = ty[2:] if ty.startswith("*k") else ty[1:] if ty.startswith("*") else ty
    try:
        dtypes.from_name(inner)
    except ValueError:
        raise UsageError(f"unknown type {ty!r} for parameter {name} (expected e.g. *fp32, "
                         "i32, i64, fp32)") from None


def parse_signature(kernel, text: str, constexprs: dict[str, Any]) -> KernelSpec:
    """Map the comma list `text` onto the kernel's runtime parameters (see the module doc)."""
    params = [p for p in kernel.params if p.name not in constexprs and not p.is_constexpr]
    entries = [e.strip() for e in text.split(",")] if text.strip() else []
    if len(entries) != len(params):
        names = ", ".join(p.name for p in params)
        raise UsageError(f"the signature has {len(entries)} entries but {kernel.__name__} has "
                         f"{len(params)} runtime parameters ({names})")
    consts = {p.name: p.default for p in kernel.params
              if p.is_constexpr and p.has_default and p.name not in constexprs}
    consts.update(constexprs)
    signature: dict[str, str] = {}
    divisible: set[str] = set()
    fixed: dict[str, tuple[str, Any]] = {}
    for p, entry in zip(params, entries):
        ty, sep, attr = entry.partition(":")
        rule = RULES.get(sep + attr)
        if attr and rule is None:
            raise UsageError(f"bad specialization {entry!r} for {p.name}: use "
                             f"{' or '.join(RULES)}")
        if ty.lstrip("-").replace(".", "", 1).isdigit():
            value = parse_value(ty)
            consts[p.name] = value
            fixed[p.name] = ("fp32" if isinstance(value, float) else "i64", value)
            continue
        check_type(ty, p.name)
        if rule is EQUAL_TO_1:
            if ty.startswith("*") or ty.startswith("fp") or ty.startswith("bf"):
                raise UsageError(f"{entry!r} for {p.name}: only integers can be :1")
            consts[p.name] = 1
            fixed[p.name] = (ty, 1)
            continue
        signature[p.name] = ty
        if rule is DIV16:
            if not (ty.startswith("*") or ty[0] in "iu"):
                raise UsageError(f"{entry!r} for {p.name}: only pointers and integers can be :16")
            divisible.add(p.name)
    return KernelSpec(text, signature, consts, frozenset(divisible), fixed)


def require_constexprs(kernel, spec: KernelSpec) -> None:
    """UsageError when a constexpr parameter without a default has no value in `spec`."""
    missing = [p.name for p in kernel.params if p.is_constexpr and p.name not in spec.constexprs]
    if missing:
        raise UsageError(f"{kernel.__name__} needs a value for the constexpr "
                         f"{missing[0]!r}: pass --constexpr {missing[0]}=VALUE")


def parse_targets(text: str | list[str]) -> list[int]:
    """`cuda:80,cuda:90` -> [80, 90]; UsageError for anything else."""
    items = text if isinstance(text, list) else [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise UsageError("no target given: expected e.g. --target cuda:90")
    archs = []
    for item in items:
        backend, _, arch = item.partition(":")
        if backend != "cuda" or not arch.isdigit() or int(arch) < 50:
            raise UsageError(f"unknown target {item!r}; expected 'cuda:<sm>' such as cuda:90")
        try:
            archs.append(check_arch(int(arch), item))
        except ValueError as e:
            raise UsageError(str(e)) from None
    return archs


def parse_options(**values: Any):
    """`CUDAOptions` from command-line option values (None: the default); a bad value is a
    UsageError naming the flag (`--num-warps must be ...`)."""
    from tritonc.backends.cuda.options import CUDAOptions

    try:
        return CUDAOptions.parse(values)
    except ValueError as e:
        text = str(e)
        for name in values:
            if text.startswith(name):
                text = "--" + name.replace("_", "-") + text[len(name):]
        raise UsageError(text) from None
