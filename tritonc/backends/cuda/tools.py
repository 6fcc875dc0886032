"""Where the CUDA tools live: find `ptxas` and `libdevice.10.bc`, and read ptxas's version.

In: the process environment and the installed packages. Out: absolute paths.

Search order, the first hit wins:
  1. an explicit override, `TRITONC_PTXAS` / `TRITONC_LIBDEVICE` (an override that names
     a missing file is an error, never silently skipped);
  2. the NVIDIA wheels, found through the `nvidia` namespace package: `nvidia/cu13`
     (nvidia-cuda-nvcc and nvidia-nvvm for CUDA 13) and `nvidia/cuda_nvcc` (CUDA 12 layout);
  3. `$CUDA_HOME`;
  4. `/usr/local/cuda`.
Every candidate is a toolkit-shaped root holding `bin/ptxas` and
`nvvm/libdevice/libdevice.10.bc`. When nothing is found, `ToolNotFound` lists every
place tried. This module is the one place that reads these environment variables;
`find_ptxas()` and `find_libdevice()` read them once and cache the answer, while
`search()` takes the environment and roots explicitly (for tests and tools).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


class ToolNotFound(RuntimeError):
    """A CUDA tool or library was not found in any of the places searched."""


@dataclass(frozen=True)
class Tool:
    """One file to find: its override variable and its path inside a toolkit root."""

    name: str
    env_var: str
    relpath: str
    executable: bool
    hint: str


PTXAS = Tool(
    name="ptxas",
    env_var="TRITONC_PTXAS",
    relpath=os.path.join("bin", "ptxas"),
    executable=True,
    hint="pip install nvidia-cuda-nvcc, or set TRITONC_PTXAS or CUDA_HOME",
)
LIBDEVICE = Tool(
    name="libdevice",
    env_var="TRITONC_LIBDEVICE",
    relpath=os.path.join("nvvm", "libdevice", "libdevice.10.bc"),
    executable=False,
    hint="pip install nvidia-nvvm, or set TRITONC_LIBDEVICE or CUDA_HOME",
)

# Subdirectories of the `nvidia` namespace package laid out like a CUDA toolkit.
_WHEEL_SUBDIRS = ("cu13", "cuda_nvcc")
_SYSTEM_ROOT = "/usr/local/cuda"


def _wheel_roots() -> list[str]:
    """Toolkit-shaped directories inside the installed `nvidia` namespace package."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return []
    return [
        os.path.join(location, subdir)
        for location in spec.submodule_search_locations
        for subdir in _WHEEL_SUBDIRS
    ]


def toolkit_roots(env: Mapping[str, str]) -> list[str]:
    """Candidate toolkit roots in search order: the nvidia wheels, $CUDA_HOME, /usr/local/cuda."""
    roots = _wheel_roots()
    if env.get("CUDA_HOME"):
        roots.append(env["CUDA_HOME"])
    roots.append(_SYSTEM_ROOT)
    return list(dict.fromkeys(roots))


def _usable(path: str, tool: Tool) -> bool:
    if not os.path.isfile(path):
        return False
    return os.access(path, os.X_OK) if tool.executable else True


def search(tool: Tool, env: Mapping[str, str], roots: Sequence[str]) -> str:
    """Path of `tool`: the override in `env` if set, else the first root that holds it."""
    override = env.get(tool.env_var)
    if override:
        if _usable(override, tool):
            return os.path.abspath(override)
        raise ToolNotFound(
            f"{tool.env_var}={override} is not "
            + ("an executable file" if tool.executable else "a file")
        )
    tried = [f"${tool.env_var} (not set)"]
    for root in roots:
        path = os.path.join(root, tool.relpath)
        if _usable(path, tool):
            return os.path.abspath(path)
        tried.append(path)
    places = "\n".join(f"  {place}" for place in tried)
    raise ToolNotFound(f"{tool.name} not found; tried, in order:\n{places}\n({tool.hint})")


@functools.cache
def find_ptxas() -> str:
    """Path of the `ptxas` to use (searched once per process)."""
    return search(PTXAS, os.environ, toolkit_roots(os.environ))


@functools.cache
def find_libdevice() -> str:
    """Path of the `libdevice.10.bc` to link (searched once per process)."""
    return search(LIBDEVICE, os.environ, toolkit_roots(os.environ))


@functools.cache
def ptxas_version(path: str) -> tuple[int, int]:
    """(major, minor) of the CUDA release a ptxas belongs to, from `ptxas --version`."""
    result = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    match = re.search(r"release (\d+)\.(\d+)", result.stdout)
    if result.returncode != 0 or match is None:
        raise ToolNotFound(
            f"cannot read the version of {path} (exit code {result.returncode}):\n"
            f"{result.stdout}{result.stderr}"
        )
    return int(match.group(1)), int(match.group(2))
