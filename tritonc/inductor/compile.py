"""`triton.compile(ASTSource(...), target=, options=)`: the path Inductor compiles through.

Takes an `ASTSource` (a @jit function, its signature of type strings with `constexpr`
for compile-time parameters, the constant values, and the attributes Inductor computed:
`{(i,): [["tt.divisibility", 16]]}`), a `GPUTarget` and the options dict. Gives a
`CompiledKernel` shaped as Triton's: `metadata` (a namedtuple: num_warps, num_stages,
shared, name, target, ...), `asm` (`ptx`, `cubin`), `n_regs`, `n_spills`, `hash`, and
`run(gx, gy, gz, stream, function, metadata, launch_metadata, enter_hook, exit_hook,
*args)` taking every parameter of the kernel in order, constexprs included (they are
ignored). CUDA targets compile with tritonc's stages (cached on disk under a key of the
kernel's sources, the specialization, the options and the target); `cpu` targets run
in the interpreter (`interpreter_launch.py`). A CUDA kernel's cubin is also written
where Inductor's static launcher finds Triton's (`_publish_cubin`), so Inductor can
launch it without the kernel's `run`.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import namedtuple
from collections.abc import Mapping
from typing import Any

from tritonc.inductor.backends import GPUTarget, make_backend
from tritonc.inductor.errors import OutOfResources

_DIVISIBILITY = "tt.divisibility"


class ASTSource:
    """A kernel to compile: the function, its signature, constants and attributes."""

    ext = "ttir"

    def __init__(self, fn: Any, signature: Mapping[str, str],
                 constexprs: Mapping[Any, Any] | None = None,
                 attrs: Mapping[Any, Any] | None = None) -> None:
        self.fn = fn
        self.signature = dict(signature)
        self.constants = {self._name(k): v for k, v in (constexprs or {}).items()}
        self.attrs = dict(attrs or {})
        for name, ty in self.signature.items():
            if ty == "constexpr" and name not in self.constants:
                param = next((p for p in fn.params if p.name == name), None)
                if param is None or not param.has_default:
                    raise ValueError(f"constexpr argument {name!r} of {fn.__name__} has no "
                                     "value in the constants")
                self.constants[name] = param.default

    def _name(self, key: Any) -> str:
        """A constant's parameter name from a name or Triton's index path `(i,)`."""
        if isinstance(key, str):
            return key
        index = key[0] if isinstance(key, tuple) else key
        return self.fn.arg_names[index]

    def divisible_by_16(self) -> set[str]:
        """Parameters the attributes mark as divisible by 16."""
        names = set()
        for key, props in self.attrs.items():
            for prop in props:
                if prop[0] == _DIVISIBILITY and int(prop[1]) % 16 == 0:
                    names.add(self._name(key))
        return names

    def runtime_signature(self) -> dict[str, str]:
        """The parameters passed at launch, with their types (constants left out)."""
        return {name: ty for name, ty in self.signature.items()
                if ty != "constexpr" and name not in self.constants}

    def hash(self) -> str:
        from tritonc.runtime.cache import make_key
        from tritonc.runtime.gpu_launch import dependencies_key

        return make_key(dependencies_key(self.fn), json.dumps(self.signature, sort_keys=True),
                        repr(sorted(self.constants.items(), key=lambda kv: kv[0])),
                        repr(sorted(self.divisible_by_16())))


def _metadata_class(fields: tuple[str, ...]) -> type:
    return namedtuple("KernelMetadata", fields)


class CompiledKernel:
    """A compiled kernel with Triton's attributes and launcher (see the module doc)."""

    launch_enter_hook = None
    launch_exit_hook = None

    def __init__(self, src: ASTSource, target: GPUTarget, options: Any, kernel_hash: str,
                 asm: dict[str, Any], meta: dict[str, Any]) -> None:
        self.src = src
        self.target = target
        self.hash = kernel_hash
        self.name = src.fn.__name__
        self.asm = asm
        self.kernel = asm.get("cubin")
        report = meta.get("ptxas") or {}
        fields = {"hash": kernel_hash, "name": self.name, "target": target,
                  "num_warps": options.num_warps, "num_stages": options.num_stages,
                  "num_ctas": 1, "cluster_dims": (1, 1, 1), "shared": int(meta.get("shared", 0)),
                  "debug": options.debug, "launch_pdl": False,
                  "launch_cooperative_grid": options.launch_cooperative_grid,
                  "ptx_arch": meta.get("ptx_arch"), "backend_name": target.backend}
        self.metadata = _metadata_class(tuple(fields))(**fields)
        self.packed_metadata = self.metadata
        self.num_warps = options.num_warps
        self.num_ctas = 1
        self.cluster_dims = (1, 1, 1)
        self.shared = self.metadata.shared
        self.n_regs = report.get("registers")
        self.n_spills = report.get("spill_stores")
        self.n_max_threads = int(meta["threads"])
        self.tensormaps = meta.get("tensormaps", [])  # maps its launch encodes (sm_90)
        self.module = None
        self.function = None
        self.run = None

    def _init_handles(self) -> None:
        """Load the kernel (once): the cubin into the current context, or the interpreter."""
        if self.run is not None:
            return
        if self.target.backend == "cpu":
            from tritonc.inductor.interpreter_launch import interpreter_runner

            self.function = 0
            self.run = interpreter_runner(self.src)
            return
        from tritonc.inductor.cuda_launch import load_runner

        self.module, self.function, self.run = load_runner(self)

    def launch_metadata(self, grid: tuple, stream: int, *args: Any) -> Any:
        """What a launch-enter hook receives: the kernel's name, grid and stream."""
        return {"name": self.name, "grid": grid, "stream": stream}

    def __getitem__(self, grid: tuple) -> Any:
        self._init_handles()
        gx, gy, gz = (tuple(grid) + (1, 1))[:3]

        def launch(*args: Any, stream: int | None = None) -> None:
            if stream is None:
                from tritonc.runtime.gpu_launch import _current_stream

                stream = 0 if self.target.backend == "cpu" else _current_stream()
            self.run(gx, gy, gz, stream, self.function, self.packed_metadata, None, None, None,
                     *args)

        return launch


def _target_arch(target: GPUTarget) -> int:
    """The sm to compile for: `knobs.runtime.override_arch` when set, else the target's."""
    from tritonc import knobs
    from tritonc.runtime.gpu_launch import target_arch

    if knobs.runtime.override_arch:
        return target_arch((0, 0))
    arch = str(target.arch).rstrip("a")
    if not arch.isdigit():
        raise ValueError(f"a CUDA target needs an integer architecture such as 90, got "
                         f"{target.arch!r}")
    return int(arch)


def _compile_cuda(src: ASTSource, arch: int, options: Any) -> tuple[str, dict, dict]:
    """(hash, asm, metadata) of the kernel for sm_`arch`, from the on-disk cache or compiled."""
    from tritonc import knobs
    from tritonc.runtime.cache import Cache, compiler_key, make_key

    key = make_key(compiler_key(), "inductor", src.hash(), options.hash(), str(arch),
                   repr(sorted(knobs.nvidia.overrides().items())))
    cache = Cache()
    entry = cache.get(key)
    if entry is None:
        from tritonc.compiler.compiler import compile as compile_kernel

        kernel = compile_kernel(src.fn, src.runtime_signature(), src.constants, f"cuda:{arch}",
                                src.divisible_by_16(), options.num_warps, options.num_stages,
                                options.maxnreg, enable_fp_fusion=options.enable_fp_fusion)
        entry = {"kernel.cubin": kernel.asm["cubin"], "kernel.ptx": kernel.asm["ptx"].encode(),
                 "metadata.json": json.dumps(kernel.metadata).encode()}
        cache.put(key, entry)
    asm = {"cubin": entry["kernel.cubin"], "ptx": entry["kernel.ptx"].decode()}
    return key, asm, json.loads(entry["metadata.json"])


def _check_legal(src: ASTSource) -> None:
    """Raise the compiler's `CompilationError` for a kernel its front end rejects."""
    from tritonc.compiler.frontend import Specialization, make_ttir

    make_ttir(src.fn, Specialization(src.runtime_signature(), dict(src.constants),
                                     frozenset(src.divisible_by_16())))


def compile(src: ASTSource, target: GPUTarget | None = None,
            options: Mapping[str, Any] | None = None) -> CompiledKernel:
    """Compile `src` for `target` (the active driver's target by default)."""
    if target is None:
        from tritonc.inductor.modules import active_driver

        target = active_driver().get_current_target()
    target = GPUTarget(*target)
    backend = make_backend(target)
    opts = backend.parse_options(dict(options or {}))
    if target.backend == "cpu":  # run in the interpreter; the front end still judges it
        _check_legal(src)
        return CompiledKernel(src, target, opts, src.hash(), {}, {"threads": 32 * opts.num_warps})
    kernel_hash, asm, meta = _compile_cuda(src, _target_arch(target), opts)
    kernel = CompiledKernel(src, target, opts, kernel_hash, asm, meta)
    _publish_cubin(kernel)
    return kernel


def _publish_cubin(kernel: CompiledKernel) -> None:
    """Write the cubin where Inductor's static launcher looks for Triton's:
    `$TRITON_CACHE_DIR/<path key of the hash>/<kernel name>.cubin` (Inductor sets the
    variable before it compiles). Written to a temporary name and renamed; a directory
    that cannot be written, or a kernel taking tensor maps its launch encodes, leaves
    Inductor on the kernel's own `run`."""
    directory = os.environ.get("TRITON_CACHE_DIR")
    if not directory or kernel.tensormaps:  # the static launcher passes no maps
        return
    try:
        from torch._inductor.runtime.runtime_utils import triton_hash_to_path_key

        folder = os.path.join(directory, triton_hash_to_path_key(kernel.hash))
        path = os.path.join(folder, f"{kernel.name}.cubin")
        if os.path.exists(path):
            return
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    except (ImportError, OSError):
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(kernel.asm["cubin"])
        os.replace(tmp, path)
    except OSError:
        os.unlink(tmp)


__all__ = ["ASTSource", "CompiledKernel", "OutOfResources", "compile"]
