"""A warm compile searches for no Python module: the bindings' lookups of a Python module
for the tt/ttg dialects find the stand-ins `mlir_loader` puts in place."""

import importlib._bootstrap as bootstrap
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from vector_add import add_kernel  # noqa: E402

import tritonc  # noqa: E402

SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}


def test_a_warm_compile_imports_nothing(monkeypatch):
    def compile_once():
        tritonc.compile(add_kernel, SIG, {"BLOCK_SIZE": 1024}, target="cuda:90")

    compile_once()
    searched = []
    find_and_load = bootstrap._find_and_load

    def recording(name, import_):
        searched.append(name)
        return find_and_load(name, import_)

    monkeypatch.setattr(bootstrap, "_find_and_load", recording)
    compile_once()
    assert not [n for n in searched if n.startswith("mlir.dialects")], searched
