"""`tl.inline_asm_elementwise(..., pack=p)`: one asm statement per p elements of a thread,
operands and results narrower than 32 bits packed into 32-bit registers, the results'
registers first in the `$` numbering. On the CPU the PTX is checked (statement counts,
the packing around them, ptxas accepting it); GPU tests check the values against numpy,
with sizes whose per-thread element count is not a multiple of the pack."""

import re

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl


@triton.jit
def shift_bytes(X, Y, n, BLOCK: tl.constexpr, PACK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0)
    # each 32-bit register holds PACK int8 elements (four at most)
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r",
                                  [x], dtype=tl.int8, is_pure=True, pack=PACK)
    tl.store(Y + offs, y, mask=offs < n)


@triton.jit
def widen_and_max(A, B, C, D, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(A + offs, mask=offs < n, other=0)
    b = tl.load(B + offs, mask=offs < n, other=0.0)
    # $0-$3 the int32 results, $4-$7 the float ones, $8 four uint8 of a, $9-$12 b
    c, d = tl.inline_asm_elementwise(
        """{
        .reg .b8 t<4>;
        mov.b32 {t0, t1, t2, t3}, $8;
        cvt.u32.u8 $0, t0; cvt.u32.u8 $1, t1; cvt.u32.u8 $2, t2; cvt.u32.u8 $3, t3;
        }
        cvt.rn.f32.s32 $4, $0; cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2; cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9; max.f32 $5, $5, $10; max.f32 $6, $6, $11; max.f32 $7, $7, $12;""",
        "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", [a, b], dtype=(tl.int32, tl.float32),
        is_pure=True, pack=4)
    tl.store(C + offs, c, mask=offs < n)
    tl.store(D + offs, d, mask=offs < n)


@triton.jit
def double_halves(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x], dtype=tl.float16,
                                  is_pure=True, pack=2)
    tl.store(Y + offs, y, mask=offs < n)


@triton.jit
def store_through_asm(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.inline_asm_elementwise("ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;",
                              "=r,l,l", [X + offs, Y + offs], dtype=tl.int8, is_pure=False,
                              pack=1)


def _asm_statements(ptx: str, first_instruction: str) -> int:
    return len(re.findall(r"// begin inline asm\s*\n\s*" + re.escape(first_instruction), ptx))


@pytest.mark.parametrize("pack", [1, 2, 4])
def test_one_statement_per_pack_of_bytes(pack):
    k = tritonc.compile(shift_bytes, {"X": "*u8", "Y": "*u8", "n": "i32"},
                        dict(BLOCK=1024, PACK=pack), target="cuda:90", num_warps=4)
    ptx = k.asm["ptx"]
    # 1024 bytes on 128 threads: 8 a thread, in 8 / pack statements
    assert _asm_statements(ptx, "and.b32") == 8 // pack
    assert k.asm["cubin"][:4] == b"\x7fELF"
    # the pack's bytes in one register of 8 * pack bits, in and out
    word = f"i{8 * pack}"
    assert re.search(rf'call {word} asm "and.b32[^\n]*"=r,r"\({word} ', k.asm["llir"])


def test_packed_bytes_beside_unpacked_words():
    sig = {"A": "*u8", "B": "*fp32", "C": "*i32", "D": "*fp32", "n": "i32"}
    k = tritonc.compile(widen_and_max, sig, dict(BLOCK=512), target="cuda:90", num_warps=4)
    llir = k.asm["llir"]
    # one register of four bytes and four floats in, four ints and four floats out
    assert re.search(r"call \{ i32, i32, i32, i32, float, float, float, float \} asm "
                     r"[^\n]*\(i32 [^,]+, float [^,]+, float [^,]+, float [^,]+, float ", llir)
    assert _asm_statements(k.asm["ptx"], "{") == 1  # 4 elements a thread, one statement
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_fewer_elements_than_the_pack():
    """One element a thread and pack = 4: one statement, the element repeated in it."""
    k = tritonc.compile(shift_bytes, {"X": "*u8", "Y": "*u8", "n": "i32"},
                        dict(BLOCK=32, PACK=4), target="cuda:90", num_warps=1)
    assert _asm_statements(k.asm["ptx"], "and.b32") == 1
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_two_halves_to_a_register():
    k = tritonc.compile(double_halves, {"X": "*fp16", "Y": "*fp16", "n": "i32"},
                        dict(BLOCK=1024), target="cuda:90", num_warps=4)
    assert _asm_statements(k.asm["ptx"], "add.rn.f16x2") == 4
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_an_impure_asm_stays_when_its_result_is_unused():
    k = tritonc.compile(store_through_asm, {"X": "*u8", "Y": "*u8"}, dict(BLOCK=512),
                        target="cuda:90", num_warps=4)
    assert "asm sideeffect" in k.asm["llir"]
    assert _asm_statements(k.asm["ptx"], "ld.global.b8") == 4


@pytest.mark.gpu
@pytest.mark.parametrize("pack", [1, 2, 4])
def test_gpu_shift_bytes(pack):
    import torch
    n = 1000
    x = np.random.default_rng(pack).integers(0, 256, n).astype(np.uint8)
    xt, yt = torch.from_numpy(x).cuda(), torch.zeros(n, dtype=torch.uint8, device="cuda")
    shift_bytes[(triton.cdiv(n, 256),)](xt, yt, n, BLOCK=256, PACK=pack)
    np.testing.assert_array_equal(yt.cpu().numpy(), (x << 3).astype(np.uint8))


@pytest.mark.gpu
def test_gpu_widen_and_max():
    import torch
    n, g = 777, np.random.default_rng(1)
    a = g.integers(0, 256, n).astype(np.uint8)
    b = (g.standard_normal(n) * 200).astype(np.float32)
    at, bt = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    ct = torch.zeros(n, dtype=torch.int32, device="cuda")
    dt = torch.zeros(n, dtype=torch.float32, device="cuda")
    widen_and_max[(triton.cdiv(n, 512),)](at, bt, ct, dt, n, BLOCK=512)
    np.testing.assert_array_equal(ct.cpu().numpy(), a.astype(np.int32))
    np.testing.assert_array_equal(dt.cpu().numpy(), np.maximum(a.astype(np.float32), b))


@pytest.mark.gpu
def test_gpu_double_halves_and_a_short_tail():
    import torch
    n = 37  # 32 threads, one or two elements each: the last pack is partly filled
    x = np.random.default_rng(2).standard_normal(n).astype(np.float16)
    xt, yt = torch.from_numpy(x).cuda(), torch.zeros(n, dtype=torch.float16, device="cuda")
    double_halves[(1,)](xt, yt, n, BLOCK=64, num_warps=1)
    np.testing.assert_array_equal(yt.cpu().numpy(), x + x)
