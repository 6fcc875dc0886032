"""Pointers as values in memory (`**fp32` tables): loaded, stored and exchanged as their
64-bit addresses, compiled through ptxas for sm_80 and sm_90."""

import pytest

import tritonc
import tritonc.language as tl


@tritonc.jit
def gather_rows(tab_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.load(tab_ptr + tl.program_id(0))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.program_id(0) * n + offs, tl.load(row + offs, mask=offs < n) + 1,
             mask=offs < n)


@tritonc.jit
def gather_blocks(tab_ptr, out_ptr, n, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.load(tab_ptr + tl.arange(0, ROWS))
    cols = tl.arange(0, BLOCK)
    values = tl.load(rows[:, None] + cols[None, :], mask=cols[None, :] < n)
    tl.store(out_ptr + tl.arange(0, ROWS)[:, None] * n + cols[None, :], values * 2,
             mask=cols[None, :] < n)


@tritonc.jit
def store_pointer(tab_ptr, x_ptr):
    tl.store(tab_ptr, x_ptr + 3)


@tritonc.jit
def exchange_pointer(tab_ptr, x_ptr):
    tl.store(tl.atomic_xchg(tab_ptr, x_ptr), 1.0)


CASES = [
    (gather_rows, {"tab_ptr": "**fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 64},
     "ld.global.b64"),
    (gather_blocks, {"tab_ptr": "**fp32", "out_ptr": "*fp32", "n": "i32"},
     {"ROWS": 4, "BLOCK": 32}, "ld.global"),
    (store_pointer, {"tab_ptr": "**fp32", "x_ptr": "*fp32"}, {}, "st.global.b64"),
    (exchange_pointer, {"tab_ptr": "**fp32", "x_ptr": "*fp32"}, {}, "exch.b64"),
]


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("fn, signature, constexprs, access", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_pointer_tables_compile(fn, signature, constexprs, access, arch):
    k = tritonc.compile(fn, signature, constexprs, target=f"cuda:{arch}",
                        divisible_by_16=set(signature) - {"n"})
    assert access in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"
