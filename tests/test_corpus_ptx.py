"""Every corpus kernel compiles to PTX and passes ptxas for sm_80 and sm_90."""

import pytest
from corpus import KERNELS

import tritonc


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("entry", KERNELS, ids=lambda k: k.name)
def test_compiles_through_ptxas(entry, arch):
    kernel = tritonc.compile(entry.fn, entry.signature, entry.constexprs, target=f"cuda:{arch}",
                             divisible_by_16=entry.divisible_by_16)
    assert f".target sm_{arch}" in kernel.asm["ptx"]
    assert f".visible .entry {entry.name}(" in kernel.asm["ptx"]
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    report = kernel.metadata["ptxas"]
    assert report["registers"] > 0
