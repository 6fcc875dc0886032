"""From PTX to a cubin with `ptxas`, and the kernel's resource usage from its `-v` report.

In: PTX text, a compute capability (80, 90, "90a": sm_90a is needed for wgmma and
setmaxnreg), the kernel's name. Out: the cubin bytes and a dict of what ptxas reports for
the kernel:
  registers, barriers        per-thread registers, named barriers used
  spill_stores, spill_loads  bytes spilled to local memory
  stack_frame                bytes of per-thread stack
  shared_mem                 bytes of static shared memory
  const_mem                  bytes of constant memory over all banks (cmem[0], cmem[2], ...;
                             ptxas 13 no longer reports it for sm_90)
  gmem                       bytes of global-memory variables
  warnings                   ptxas's warning lines and its "Potential Performance Loss"
                             notes (serialized wgmma)

On failure `PtxasError` carries ptxas's output and a command line that reproduces it; the
PTX it names is kept in a temporary directory (removed after a success).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile

from tritonc import knobs
from tritonc.backends.cuda import parse_arch


class PtxasError(RuntimeError):
    """ptxas rejected a PTX file; the message has its output and a repro command line."""


# Counters of the `-v` report; each regex captures the number.
_REPORT_FIELDS = {
    "registers": r"Used (\d+) registers",
    "barriers": r"used (\d+) barriers",
    "stack_frame": r"(\d+) bytes stack frame",
    "spill_stores": r"(\d+) bytes spill stores",
    "spill_loads": r"(\d+) bytes spill loads",
    "shared_mem": r"(\d+) bytes smem",
}
_FUNCTION_HEADER = re.compile(
    r"(?:Compiling entry function '([^']+)'|Function properties for (\S+))"
)
_CONST_MEM = re.compile(r"(\d+) bytes cmem\[\d+\]")
_GLOBAL_MEM = re.compile(r"(\d+) bytes gmem")


def parse_report(report: str, kernel_name: str) -> dict:
    """Resource usage of `kernel_name` from the text of `ptxas -v`.

    The report is a sequence of per-function sections ("Compiling entry function 'k'",
    "Function properties for k", then the counters); counters count for the function of
    the section they appear in. Counters absent from the kernel's sections are 0.
    """
    info: dict = dict.fromkeys(_REPORT_FIELDS, 0)
    info.update(const_mem=0, gmem=0, warnings=[])
    function = None
    seen = False
    for line in report.splitlines():
        if line.startswith("ptxas warning") or "Potential Performance Loss" in line:
            info["warnings"].append(line.strip())
        if match := _GLOBAL_MEM.search(line):
            info["gmem"] = int(match.group(1))
        if match := _FUNCTION_HEADER.search(line):
            function = match.group(1) or match.group(2)
            seen |= function == kernel_name
        if function != kernel_name:
            continue
        for key, pattern in _REPORT_FIELDS.items():
            if match := re.search(pattern, line):
                info[key] = int(match.group(1))
        info["const_mem"] += sum(int(n) for n in _CONST_MEM.findall(line))
    if not seen:
        raise PtxasError(f"ptxas reported nothing for kernel {kernel_name!r}:\n{report}")
    return info


def _file_stem(kernel_name: str) -> str:
    """A file name for the kernel's PTX: its name, cut to fit a file system's 255 bytes
    (Inductor names a fused kernel after every op it fuses)."""
    return re.sub(r"[^\w.-]", "_", kernel_name)[:200] or "kernel"


def compile_ptx(ptx: str, arch: int | str, kernel_name: str,
                maxnreg: int | None = None) -> tuple[bytes, dict]:
    """(cubin, resource usage of `kernel_name`) from `ptxas -arch=sm_<arch> -v -O3`, with at
    most `maxnreg` registers per thread when given, and `-lineinfo` when the PTX has line
    directives."""
    number, suffix = parse_arch(arch)
    ptxas = knobs.ptxas_path()
    workdir = tempfile.mkdtemp(prefix="tritonc-ptxas-")
    stem = os.path.join(workdir, _file_stem(kernel_name))
    with open(f"{stem}.ptx", "w") as f:
        f.write(ptx)
    command = [ptxas, f"-arch=sm_{number}{suffix}", "-v", "-O3", f"{stem}.ptx"]
    if "\t.loc\t" in ptx:  # the kernel's source lines, kept in the cubin
        command.append("-lineinfo")
    if maxnreg:
        command.append(f"-maxrregcount={maxnreg}")
    command += ["-o", f"{stem}.cubin"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    report = result.stdout + result.stderr
    if result.returncode != 0:
        raise PtxasError(
            f"ptxas failed with exit code {result.returncode}:\n{report.rstrip()}\n"
            f"repro: {shlex.join(command)}"
        )
    with open(f"{stem}.cubin", "rb") as f:
        cubin = f.read()
    shutil.rmtree(workdir)
    return cubin, parse_report(report, kernel_name)
