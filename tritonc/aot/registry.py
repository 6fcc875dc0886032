"""Find a precompiled cubin shipped next to a kernel's module (no MLIR, no ptxas).

A package built with `tritonc.build` carries, in each directory holding a module with
precompiled kernels, `__tritonc_aot__/index.json` and the cubins it names:

    {"version": 1, "entries": [{"file": "kernels.py", "kernel": "add_kernel",
      "source_key": "...", "signature": {"x_ptr": "*fp32", ...},
      "constexprs": {"BLOCK_SIZE": "1024"}, "divisible": ["x_ptr", ...],
      "num_warps": 4, "num_stages": 3, "options": {"num_warps": 4, ...},
      "arch": 90,
      "cubin": "add_kernel.3f2a...sm_90.cubin", "metadata": {"name": ..., "shared": 0, ...}}]}

An entry matches a call when the file, the kernel name and the source key (the hash the
runtime uses for its disk cache: the kernel's source, its @jit callees and the constexpr
globals it reads) agree, the signature, the constexprs (compared by repr) and the
options (`CUDAOptions`; an entry without "options" was built with the defaults but its
num_warps and num_stages) are equal, every parameter the entry assumes divisible by 16
is divisible in the call, and the cubin runs on the device: the same sm, else an older
minor of the same major. Among matches the one assuming the most divisibility wins, then
the closest sm.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tritonc.backends.cuda.options import CUDAOptions

INDEX_DIR = "__tritonc_aot__"
INDEX_FILE = "index.json"
INDEX_VERSION = 1

_indexes: dict[Path, tuple[float, list[dict]]] = {}


class PrecompiledKernelMissing(RuntimeError):
    """TRITONC_REQUIRE_AOT=1 and no precompiled entry matches a launch."""


def aot_required() -> bool:
    """True when `TRITONC_REQUIRE_AOT=1`: launches must not fall back to the JIT."""
    return os.environ.get("TRITONC_REQUIRE_AOT", "") == "1"


def constexpr_key(constexprs: Mapping[str, Any]) -> dict[str, str]:
    """Constexpr values as the index stores them (their repr, as in the cache key)."""
    return {k: repr(getattr(v, "value", v)) for k, v in constexprs.items()}


def _index(directory: Path) -> list[dict]:
    path = directory / INDEX_DIR / INDEX_FILE
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return []
    cached = _indexes.get(path)
    if cached is None or cached[0] != mtime:
        try:
            data = json.loads(path.read_bytes())
            entries = data["entries"] if data.get("version") == INDEX_VERSION else []
        except (OSError, ValueError, KeyError, AttributeError):
            entries = []
        _indexes[path] = cached = (mtime, entries)
    return cached[1]


def _source_key(fn) -> str:
    from tritonc.runtime.gpu_launch import dependencies_key

    return dependencies_key(fn)


def candidates(fn) -> list[dict]:
    """The index entries shipped for `fn` (any specialization), from next to its file."""
    filename = getattr(fn, "filename", None)
    if not filename or not os.path.isfile(filename):
        return []
    base = os.path.basename(filename)
    return [e for e in _index(Path(filename).resolve().parent)
            if e.get("file") == base and e.get("kernel") == fn.__name__]


def _arch_rank(entry_arch: int, arch: int) -> int | None:
    """0 for the same sm, a positive distance for an older minor of the same major."""
    if entry_arch == arch:
        return 0
    if entry_arch // 10 == arch // 10 and entry_arch < arch:
        return arch - entry_arch
    return None


def entry_options(entry: dict) -> CUDAOptions | None:
    """The options an index entry was compiled with (None when they do not parse)."""
    values = entry.get("options") or {"num_warps": entry.get("num_warps"),
                                      "num_stages": entry.get("num_stages")}
    try:
        return CUDAOptions.parse(values)
    except (TypeError, ValueError):
        return None


def find_precompiled(fn, signature: dict, constexprs: dict, divisible: set,
                     options: CUDAOptions, arch: int, *, required: bool = False
                     ) -> dict[str, bytes] | None:
    """`{"kernel.cubin": ..., "metadata.json": ...}` of the best precompiled entry for this
    specialization of `fn` on an sm_`arch` device, else None (or, with `required`,
    PrecompiledKernelMissing naming what the package does ship)."""
    entries = candidates(fn)
    best, best_rank = None, None
    if entries:
        source_key = _source_key(fn)
        wanted = constexpr_key(constexprs)
        for entry in entries:
            rank = _arch_rank(int(entry.get("arch", 0)), arch)
            if (rank is None or entry.get("source_key") != source_key
                    or entry.get("signature") != dict(signature)
                    or entry.get("constexprs") != wanted
                    or entry_options(entry) != options
                    or not set(entry.get("divisible", ())) <= set(divisible)):
                continue
            key = (-len(entry.get("divisible", ())), rank)
            if best_rank is None or key < best_rank:
                best, best_rank = entry, key
    if best is not None:
        directory = Path(fn.filename).resolve().parent / INDEX_DIR
        try:
            cubin = (directory / best["cubin"]).read_bytes()
        except OSError:
            best = None
        else:
            metadata = dict(best.get("metadata", {}))
            metadata.setdefault("name", fn.__name__)
            metadata.setdefault("num_warps", options.num_warps)
            metadata.setdefault("shared", 0)
            # an index written before entries recorded their block's threads
            metadata.setdefault("threads", 32 * (int(metadata["num_warps"])
                                                 + int(metadata.get("producer_warps", 0))))
            metadata["precompiled"] = f"{best['cubin']}"
            return {"kernel.cubin": cubin, "metadata.json": json.dumps(metadata).encode()}
    if required:
        shipped = "; ".join(sorted({f"sm_{e.get('arch')} {e.get('signature')} "
                                    f"{e.get('constexprs')} divisible={e.get('divisible')}"
                                    for e in entries})) or "none"
        raise PrecompiledKernelMissing(
            f"TRITONC_REQUIRE_AOT=1 but no precompiled {fn.__name__} matches sm_{arch}, "
            f"signature {dict(signature)}, constexprs {constexpr_key(constexprs)}, divisible "
            f"{sorted(divisible)}, num_warps={options.num_warps}, "
            f"num_stages={options.num_stages} "
            f"(shipped: {shipped})")
    return None
