"""Build-time compilation for Python packages: `[tool.tritonc]` -> cubins in the wheel.

The table in the package's pyproject.toml (every key but `kernels` is optional):

    [tool.tritonc]
    targets = ["cuda:80", "cuda:90"]  # default for every kernel
    num-warps = 4                     # an int or a list: one build per value
    num-stages = 3
    maxnreg = 128                     # a register cap per thread (default: none)
    enable-fp-fusion = true           # fused multiply-adds (default: true)
    package-dir = "src"               # where the packages live (default: "src" if it
                                      # exists, else the project root)

    [[tool.tritonc.kernels]]
    kernel = "aot_example.kernels:add_kernel"      # module:@jit function
    signatures = ["*fp32:16,*fp32:16,*fp32:16,i32:16", "*fp32:16,*fp32:16,*fp32:16,i32"]
    constexprs = {BLOCK_SIZE = 1024}               # a table, or a list of tables
    # targets, num-warps, num-stages, maxnreg, enable-fp-fusion: per-kernel overrides

Every kernel is compiled for signatures x constexpr tables x num-warps x targets. The
cubins and `__tritonc_aot__/index.json` (see `registry.py`) land next to the kernel's
module in the output tree: the build directory under setuptools (`build_py` below),
or the source tree itself with `compile_kernels(config)` and no `out_dir`.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from tritonc.aot.registry import INDEX_DIR, INDEX_FILE, INDEX_VERSION, constexpr_key
from tritonc.aot.spec import (
    UsageError,
    parse_constexprs,
    parse_signature,
    parse_targets,
    require_constexprs,
)


def load_config(pyproject: str | Path) -> dict[str, Any]:
    """The `[tool.tritonc]` table of a pyproject.toml, with `root` set to its directory."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    path = Path(pyproject)
    with open(path, "rb") as f:
        table = tomllib.load(f).get("tool", {}).get("tritonc")
    if table is None:
        raise UsageError(f"{path} has no [tool.tritonc] table")
    return {**table, "root": str(path.resolve().parent)}


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _package_root(config: dict[str, Any], root: Path) -> Path:
    if "package-dir" in config:
        return root / config["package-dir"]
    return root / "src" if (root / "src").is_dir() else root


def _import_kernel(name: str, package_root: Path):
    from tritonc.runtime.jit import JITFunction

    module_name, sep, attr = name.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"bad kernel {name!r}: expected 'package.module:function'")
    sys.path.insert(0, str(package_root))
    try:
        module = importlib.import_module(module_name)
    except Exception as e:
        raise UsageError(f"importing {module_name} failed: {type(e).__name__}: {e}") from e
    finally:
        sys.path.remove(str(package_root))
    kernel = getattr(module, attr, None)
    if not isinstance(kernel, JITFunction):
        raise UsageError(f"{module_name} has no @jit function {attr!r}")
    return module_name, kernel


def _options(**values: Any):
    """`CUDAOptions` of one build; a bad value is a UsageError naming the table key."""
    from tritonc.backends.cuda.options import CUDAOptions

    try:
        return CUDAOptions.parse(values)
    except ValueError as e:
        raise UsageError(f"[tool.tritonc]: {e}") from None


def compile_kernels(config: dict[str, Any] | str | Path, out_dir: str | Path | None = None,
                    root: str | Path | None = None) -> list[Path]:
    """Compile every kernel x specialization x target of `config` (a `[tool.tritonc]`
    table or the path of a pyproject.toml); returns the files written (cubins and
    indexes) under `out_dir` (default: next to the sources)."""
    from tritonc.aot.variants import entry_metadata
    from tritonc.compiler.compiler import compile as compile_kernel
    from tritonc.runtime.gpu_launch import dependencies_key

    if not isinstance(config, dict):
        config = load_config(config)
    root = Path(root or config.get("root") or ".").resolve()
    package_root = _package_root(config, root)
    out = Path(out_dir).resolve() if out_dir is not None else package_root
    indexes: dict[Path, list[dict]] = {}
    written: list[Path] = []
    kernels = config.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        raise UsageError("[tool.tritonc] lists no kernels: add [[tool.tritonc.kernels]] tables")
    for item in kernels:
        module_name, kernel = _import_kernel(str(item.get("kernel", "")), package_root)
        archs = parse_targets(list(item.get("targets", config.get("targets", ["cuda:90"]))))
        warps = _as_list(item.get("num-warps", config.get("num-warps", 4)))
        stages = int(item.get("num-stages", config.get("num-stages", 3)))
        extra = {name.replace("-", "_"): item.get(name, config.get(name))
                 for name in ("maxnreg", "enable-fp-fusion")}
        signatures = _as_list(item.get("signatures", []))
        if not signatures:
            raise UsageError(f"kernel {item['kernel']!r} lists no signatures")
        directory = out.joinpath(*module_name.split(".")[:-1]) / INDEX_DIR
        entries = indexes.setdefault(directory, [])
        source_key = dependencies_key(kernel)
        for table in _as_list(item.get("constexprs", {})):
            constexprs = parse_constexprs(kernel, dict(table))
            for text in signatures:
                spec = parse_signature(kernel, text, dict(constexprs))
                require_constexprs(kernel, spec)
                for num_warps in warps:
                    options = _options(num_warps=int(num_warps), num_stages=stages, **extra)
                    for arch in archs:
                        compiled = compile_kernel(kernel, spec.signature, spec.constexprs,
                                                  f"cuda:{arch}", spec.divisible,
                                                  options=options)
                        cubin = compiled.asm["cubin"]
                        digest = hashlib.sha256(cubin).hexdigest()[:16]
                        file_name = f"{kernel.__name__}.{digest}.sm_{arch}.cubin"
                        directory.mkdir(parents=True, exist_ok=True)
                        (directory / file_name).write_bytes(cubin)
                        written.append(directory / file_name)
                        entries.append({
                            "file": module_name.split(".")[-1] + ".py",
                            "module": module_name, "kernel": kernel.__name__,
                            "source_key": source_key, "signature": spec.signature,
                            "constexprs": constexpr_key(spec.constexprs),
                            "divisible": sorted(spec.divisible), "num_warps": int(num_warps),
                            "num_stages": stages, "options": options.as_dict(),
                            "arch": arch, "cubin": file_name,
                            "spec": text, "metadata": entry_metadata(compiled.metadata)})
    for directory, entries in indexes.items():
        index = directory / INDEX_FILE
        index.write_text(json.dumps({"version": INDEX_VERSION, "entries": entries}, indent=1))
        written.append(index)
    return written


try:
    from setuptools.command.build_py import build_py as _setuptools_build_py
except ImportError:  # setuptools is needed only to build packages
    _setuptools_build_py = object  # type: ignore[misc,assignment]


class build_py(_setuptools_build_py):  # type: ignore[misc,valid-type]
    """setuptools' build_py, then the kernels of `[tool.tritonc]` compiled into build_lib.

    Use it from setup.py: `setup(cmdclass={"build_py": tritonc.build.build_py})`.
    """

    def run(self) -> None:
        super().run()
        pyproject = Path(self.distribution.src_root or ".") / "pyproject.toml"
        config = load_config(pyproject)
        if self.distribution.package_dir and "" in self.distribution.package_dir:
            config.setdefault("package-dir", self.distribution.package_dir[""])
        self._tritonc_outputs = [str(p) for p in compile_kernels(config, self.build_lib)]
        for path in self._tritonc_outputs:
            self.announce(f"tritonc: wrote {path}", level=2)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return super().get_outputs(include_bytecode) + getattr(self, "_tritonc_outputs", [])
