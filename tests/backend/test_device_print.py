"""device_print / print compiled for CUDA: the printf format of each line, as Triton
prints it (`pid (x, y, z) idx (  i)<prefix>[(operand k) ]<value>`), read from the LLVM IR
on the CPU. The interpreter's lines are checked in tests/interpreter/test_interp_ops.py."""

from __future__ import annotations

import re

import pytest

import tritonc
import tritonc.language as tl


@tritonc.jit
def prints(X, M: tl.constexpr, N: tl.constexpr, HEX: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.device_print("x ", x, hex=HEX)
    print("sum:", tl.sum(x, 1))
    print("", tl.program_id(0))
    tl.device_print("", x, x + 1)
    print("no arg")


def formats(ty: str, hex_: bool) -> list[str]:
    k = tritonc.compile(prints, {"X": f"*{ty}"}, {"M": 4, "N": 128, "HEX": hex_},
                        target="cuda:90")
    found = [f.replace("\\0A\\00", "") for f in re.findall(r'c"(pid[^"]*)"', k.asm["llir"])]
    return list(dict.fromkeys(found))  # one call per register: each format once, in order


@pytest.mark.parametrize("ty, value", [("i32", "%d"), ("u8", "%u"), ("fp16", "%f"),
                                       ("i64", "%lld")])
def test_formats_follow_triton(ty, value):
    assert formats(ty, False) == [
        f"pid (%u, %u, %u) idx (%1u, %3u) x: {value}",  # "x " becomes " x: "
        f"pid (%u, %u, %u) idx (%1u) sum: {value}",  # a u8 sum is a u32
        "pid (%u, %u, %u) idx (): %d",
        f"pid (%u, %u, %u) idx (%1u, %3u): (operand 0) {value}",
        f"pid (%u, %u, %u) idx (%1u, %3u): (operand 1) {value}",
        "pid (%u, %u, %u) no arg",
    ]


@pytest.mark.parametrize("ty, digits", [("i16", "0x%04x"), ("i32", "0x%08x"),
                                        ("i64", "0x%016llx")])
def test_hex_is_zero_padded_to_the_width(ty, digits):
    assert formats(ty, True)[0] == f"pid (%u, %u, %u) idx (%1u, %3u) x: {digits}"


def test_the_formats_print_the_lines_triton_prints():
    """printf's conversions, applied as C applies them (Python's % has the same ones but
    for the length modifier), give the lines Triton's own print test expects."""
    first, _, scalar, *_, no_arg = formats("i32", False)
    assert first % (0, 1, 0, 2, 7, 7) == "pid (0, 1, 0) idx (2,   7) x: 7"
    assert scalar % (0, 0, 0, 0) == "pid (0, 0, 0) idx (): 0"
    assert no_arg % (0, 0, 0) == "pid (0, 0, 0) no arg"
    hex64 = formats("i64", True)[0].replace("ll", "")
    assert hex64 % (0, 0, 0, 1, 12, 255) == "pid (0, 0, 0) idx (1,  12) x: 0x00000000000000ff"
