"""Compile the specializations of a kernel for several targets (imports the compiler)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tritonc.aot.cgen import Variant
from tritonc.aot.spec import KernelSpec


def entry_metadata(kernel_metadata: dict[str, Any]) -> dict[str, Any]:
    """The metadata a precompiled entry carries: what `tritonc.compile` recorded (name,
    num_warps, num_stages, shared, ptxas report, ...), made JSON-safe."""
    return json.loads(json.dumps(kernel_metadata, default=repr))


def compile_variant(kernel, spec: KernelSpec, archs: list[int], options: Any = None) -> Variant:
    """Compile `spec` of `kernel` for every sm in `archs` with `options` (a `CUDAOptions`;
    None: the defaults)."""
    from tritonc.compiler.compiler import compile as compile_kernel

    variant = Variant(spec)
    for arch in archs:
        compiled = compile_kernel(kernel, spec.signature, spec.constexprs, f"cuda:{arch}",
                                  spec.divisible, options=options)
        variant.cubins[arch] = compiled.asm["cubin"]
        variant.metadata[arch] = entry_metadata(compiled.metadata)
    return variant


def manifest(kernel_name: str, variants: list[Variant], grid: str) -> dict[str, Any]:
    """A JSON-able description of generated launcher variants (written next to the C)."""
    out = []
    for i, v in enumerate(variants):
        for arch, cubin in sorted(v.cubins.items()):
            meta = v.metadata[arch]
            out.append({"variant": i, "signature": v.spec.text, "arch": arch,
                        "conditions": [list(c) for c in v.spec.conditions()],
                        "sha256": hashlib.sha256(cubin).hexdigest(), "size": len(cubin),
                        "shared": meta.get("shared", 0), "num_warps": meta.get("num_warps"),
                        "registers": meta.get("ptxas", {}).get("registers")})
    return {"kernel": kernel_name, "grid": grid, "variants": out}
