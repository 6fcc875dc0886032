"""Build-time compilation of a package's kernels (see `tritonc.aot.build` and docs/aot.md).

    # setup.py
    from setuptools import setup
    from tritonc.build import build_py
    setup(cmdclass={"build_py": build_py})

    # or by hand: compile [tool.tritonc] of a pyproject.toml next to the sources
    from tritonc.build import compile_kernels
    compile_kernels("pyproject.toml")
"""

from tritonc.aot.build import build_py, compile_kernels, load_config

__all__ = ["build_py", "compile_kernels", "load_config"]
