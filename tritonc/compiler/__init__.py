"""The compiler: the front end (`frontend.py`, `code_generator.py`), the stages
(`compiler.py`) and its errors. `ASTSource`, the kernel-with-signature form
`tritonc.compile` also takes, lives with the Inductor entry point (`inductor/compile.py`)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "ASTSource":
        from tritonc.inductor.compile import ASTSource

        return ASTSource
    raise AttributeError(f"module 'tritonc.compiler' has no attribute {name!r}")
