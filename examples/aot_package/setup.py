"""Compile the kernels listed in [tool.tritonc] of pyproject.toml into the wheel."""

from setuptools import setup

from tritonc.build import build_py

setup(cmdclass={"build_py": build_py})
