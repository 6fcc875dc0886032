"""Operand tiles converted between their load and their dot (read_back_kernels.py) stream
through the ring of software-pipeline and are read back into registers: which loads the
pass marks, the PTX (cp.async into the ring, no spills; for an mma.sync dot whose
conversions take no other tensor, the int8 weights read byte by byte straight into the
operand's registers and nothing staged for the dot) for sm_90 and sm_80; in the
interpreter against torch in float64, and on the GPU at ragged sizes for wgmma and
mma.sync tiles, both orders of B, fp16 and fp32 A, the weights scaled in the loop or the
product after it."""

import re

import pytest
import torch
from read_back_kernels import dequant_matmul, nibble_matmul

import tritonc

# (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages): decode-sized mma.sync tiles, wgmma tiles
TILES = [(16, 64, 128, 4, 4), (128, 128, 64, 8, 3)]
SIZES = [(37, 200, 300), (300, 129, 520)]


def _signature(a_dtype: str) -> dict:
    sig = {"a_ptr": f"*{a_dtype}", "b_ptr": "*i8", "scale_ptr": "*fp16", "c_ptr": "*fp32"}
    return {**sig, **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk",
                                        "stride_bn", "stride_cm")}}


def _compile(arch: int, tile, a_dtype: str = "fp16", b_col: bool = False,
             scale_in_loop: bool = True, wrap: bool = False):
    """The kernel as a launch on contiguous operands specializes it: unit strides are
    constants, the others and the sizes multiples of 16."""
    bm, bn, bk, warps, stages = tile
    unit = {"stride_ak": 1, "stride_bk" if b_col else "stride_bn": 1}
    sig = {name: ty for name, ty in _signature(a_dtype).items() if name not in unit}
    constexprs = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "SCALE_IN_LOOP": scale_in_loop,
                  "WRAP": wrap, **unit}
    divisible = {"a_ptr", "b_ptr", "scale_ptr", "c_ptr", "stride_am", "stride_cm", "K", "N",
                 "stride_bn" if b_col else "stride_bk"}
    return tritonc.compile(dequant_matmul, sig, constexprs, target=f"cuda:{arch}",
                           divisible_by_16=divisible, num_warps=warps, num_stages=stages)


def _loop(ttgir: str) -> str:
    return ttgir[ttgir.index("scf.for"):ttgir.index("ttg.pipeline_stages")]


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("a_dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("b_col,wrap", [(False, False), (True, False), (True, True)])
def test_converted_tiles_stream_through_the_ring(arch, tile, a_dtype, b_col, wrap):
    """Both tiles join the ring; those converted before the dot (the int8 B, an fp32 A;
    an fp16 A's `.to(tl.float16)` is no op) are read back into registers. A column-major
    int8 B loads down its columns (also behind offsets wrapped `% N`: coalesce) through
    pointers the loop advances in the load's layout (carried-layouts), so the ring
    evaluates them ahead as it does a row-major B's."""
    kernel = _compile(arch, tile, a_dtype, b_col, wrap=wrap)
    ptx = kernel.asm["ptx"]
    loop = _loop(kernel.asm["ttgir"])
    tiles = [line for line in loop.splitlines() if '"tt.load"' in line]
    assert len(tiles) == 2 and all("ttg.pipelined" in line for line in tiles)
    read_back = [line for line in tiles if "ttg.read_back" in line]
    assert len(read_back) == (2 if a_dtype == "fp32" else 1)
    assert "cp.async" in ptx and "ld.shared.v4" in ptx  # read back 16 bytes at a time
    assert not any('"ttg.convert_layout"(%arg' in line for line in loop.splitlines())
    assert kernel.metadata["ptxas"]["spill_stores"] == 0


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("b_col", [False, True])
def test_weights_go_straight_into_mma_sync_registers(arch, tile, b_col):
    """Scaled after the loop, the weights' conversion takes nothing else: on mma.sync it
    computes in `#ttg.dot_op<1, mma>`, read byte by byte from the ring, and the dot stages
    nothing (a barrier for the ring's wait, and one before the next copies with a ring of
    S - 1 buffers). A wgmma reads B
    from shared memory: there the weights are read back and staged as before."""
    kernel = _compile(arch, tile, b_col=b_col, scale_in_loop=False)
    loop = _loop(kernel.asm["ttgir"])
    ptx = kernel.asm["ptx"]
    body = ptx[ptx.index("cp.async.wait_group"):]
    body = body[:body.index("bra")]
    wgmma = "wgmma" in ptx
    assert ("#ttg.dot_op<1" in loop) != wgmma
    if not wgmma:
        # int8 weights read back from the ring: pairs along K in one load when the ring
        # holds K contiguous (B column-major), else byte by byte
        assert ("ld.shared.v2.b8" if b_col else "ld.shared.s8") in body
        assert "st.shared" not in body
        assert body.count("bar.sync") <= 2
    assert kernel.metadata["ptxas"]["spill_stores"] == 0


def _operands(m, n, k, a_dtype, b_col, device):
    a = torch.randn(m, k, device=device, dtype=a_dtype)
    b = torch.randint(-127, 128, (k, n), dtype=torch.int8, device=device)
    if b_col:
        b = b.t().contiguous().t()
    scale = (torch.rand(n, device=device) * 0.02 + 0.01).to(torch.float16)
    return a, b, scale


def _reference(a, b, scale, scale_in_loop: bool):
    """In float64, but with the weights scaled in fp16 (each product rounded as the
    kernel rounds it) when the kernel scales them in its loop."""
    if scale_in_loop:
        return a.to(torch.float16).double() @ (b.to(torch.float16) * scale).double()
    return (a.to(torch.float16).double() @ b.double()) * scale.double()


def _launch(a, b, scale, c, tile, scale_in_loop, wrap=False, **options):
    m, k = a.shape
    n = b.shape[1]
    bm, bn, bk, warps, stages = tile
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    dequant_matmul[grid](a, b, scale, c, m, n, k, *a.stride(), *b.stride(), c.stride(0),
                         BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SCALE_IN_LOOP=scale_in_loop,
                         WRAP=wrap, num_warps=warps, num_stages=stages, **options)


@pytest.mark.parametrize("b_col", [False, True])
@pytest.mark.parametrize("scale_in_loop", [False, True])
@pytest.mark.parametrize("wrap", [False, True])
def test_dequant_matmul_in_the_interpreter(b_col, scale_in_loop, wrap, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(3 + b_col)
    a, b, scale = _operands(21, 40, 70, torch.float32, b_col, "cpu")
    c = torch.full((21, 40), float("nan"))
    _launch(a, b, scale, c, (16, 32, 32, 4, 3), scale_in_loop, wrap)
    torch.testing.assert_close(c.double(), _reference(a, b, scale, scale_in_loop), rtol=2e-3,
                               atol=2e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("m,n,k", SIZES)
@pytest.mark.parametrize("a_dtype", ["float16", "float32"])
@pytest.mark.parametrize("b_col,wrap", [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("scale_in_loop", [False, True])
def test_dequant_matmul_on_the_gpu(arch, tile, m, n, k, a_dtype, b_col, wrap, scale_in_loop):
    torch.manual_seed(m + n + arch)
    a, b, scale = _operands(m, n, k, getattr(torch, a_dtype), b_col, "cuda")
    c = torch.full((m, n), float("nan"), device="cuda")
    _launch(a, b, scale, c, tile, scale_in_loop, wrap, arch=arch)
    torch.testing.assert_close(c.double(), _reference(a, b, scale, scale_in_loop), rtol=2e-3,
                               atol=2e-2)


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("tile", [(16, 64, 128, 4), (128, 128, 64, 8)])
def test_packed_weights_repeating_down_k_are_copied_through_l1(arch, tile):
    """4-bit weights packed eight to a word (benchmarks/inference_kernels.py, GPTQ style):
    the word tile's pointers repeat down each group of 8 rows (`offs_k // 8`), so its
    16-byte copies go through L1 (`cp.async.ca`), where the repeats hit; the activations',
    each address once, stay L2-only (`cp.async.cg`)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from inference_kernels import matmul_w4a16

    bm, bn, bk, warps = tile
    sig = {"a_ptr": "*fp16", "b_ptr": "*i32", "scales_ptr": "*fp16", "zeros_ptr": "*fp16",
           "c_ptr": "*fp16", **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk",
                                                  "stride_cm", "stride_g", "group_size")}}
    ptx = tritonc.compile(matmul_w4a16, sig, dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                                  GROUP_M=8),
                          target=f"cuda:{arch}", num_warps=warps, num_stages=3,
                          divisible_by_16={"a_ptr", "b_ptr", "scales_ptr", "zeros_ptr",
                                           "c_ptr", "N", "K", "stride_am", "stride_bk",
                                           "stride_cm", "stride_g"}).asm["ptx"]
    copies = re.findall(r"cp\.async\.(c[ag])\.shared\.global \[[^\]]*\], \[[^\]]*\], (\d+)", ptx)
    words = bk * bn * 4 // (16 * 32 * warps)  # 16-byte copies of the word tile a thread
    acts = bm * bk * 2 // (16 * 32 * warps)
    # issued for the prologue's two stages and in the loop
    assert copies.count(("ca", "16")) == words * 3
    assert copies.count(("cg", "16")) == max(acts, 1) * 3


# (word dtype, nibbles a word): int32 words as GPTQ packs them, int8 words two to a byte
WORDS = [("int32", 8), ("int8", 2)]


def _nibble_operands(m, n, k, word, per_word, device):
    a = torch.randn(m, k, device=device, dtype=torch.float16)
    nibbles = torch.randint(0, 16, (k, n), dtype=torch.int64)
    shifts = 4 * torch.arange(per_word).reshape(1, per_word, 1)
    packed = (nibbles.reshape(k // per_word, per_word, n) << shifts).sum(1)
    bits = 32 if word == "int32" else 8
    packed = torch.where(packed >= 1 << (bits - 1), packed - (1 << bits), packed)
    return a, nibbles, packed.to(getattr(torch, word)).to(device)


def _nibble_launch(a, packed, c, per_word, tile, **options):
    m, k = a.shape
    n = packed.shape[1]
    bm, bn, bk, warps, stages = tile
    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    return nibble_matmul[grid](a, packed, c, m, n, k, a.stride(0), packed.stride(0),
                               c.stride(0), PER_WORD=per_word, BLOCK_M=bm, BLOCK_N=bn,
                               BLOCK_K=bk, num_warps=warps, num_stages=stages, **options)


@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("word,per_word", WORDS)
def test_repeated_rows_are_stored_once(arch, tile, word, per_word):
    """The word tile's rows repeat in runs of PER_WORD, so its ring buffer keeps each
    distinct row once (`ttg.repeated_rows`): only the first row of each run is copied (a
    predicated cp.async through L1), and the reads back of row r read row r // PER_WORD;
    the activations' tile is stored whole."""
    bm, bn, bk, warps, stages = tile
    sig = {"a_ptr": "*fp16", "b_ptr": f"*{'i32' if word == 'int32' else 'i8'}",
           "c_ptr": "*fp32", **{n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk",
                                                  "stride_cm")}}
    kernel = tritonc.compile(nibble_matmul, sig, dict(PER_WORD=per_word, BLOCK_M=bm,
                                                      BLOCK_N=bn, BLOCK_K=bk),
                             target=f"cuda:{arch}", num_warps=warps, num_stages=stages,
                             divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "N", "K",
                                              "stride_am", "stride_bk", "stride_cm"})
    tiles = [line for line in _loop(kernel.asm["ttgir"]).splitlines() if '"tt.load"' in line]
    assert len(tiles) == 2 and all("ttg.pipelined" in line for line in tiles)
    words = next(line for line in tiles if "ttg.read_back" in line)
    assert f"ttg.repeated_rows = {per_word} : i32" in words
    assert sum("ttg.repeated_rows" in line for line in tiles) == 1
    ptx = kernel.asm["ptx"]
    copies = re.findall(r"(@%p\d+ )?cp\.async\.c[ag]\.shared\.global", ptx)
    assert any(copies) and not all(copies)  # the words' copies predicated, A's not
    assert kernel.metadata["ptxas"]["spill_stores"] == 0


@pytest.mark.parametrize("word,per_word", WORDS)
def test_nibble_matmul_in_the_interpreter(word, per_word, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(per_word)
    a, nibbles, packed = _nibble_operands(21, 40, 64, word, per_word, "cpu")
    c = torch.full((21, 40), float("nan"))
    _nibble_launch(a, packed, c, per_word, (16, 32, 32, 4, 3))
    torch.testing.assert_close(c.double(), a.double() @ (nibbles - 8).double(), rtol=1e-3,
                               atol=1e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
@pytest.mark.parametrize("tile", TILES)
@pytest.mark.parametrize("word,per_word", WORDS)
@pytest.mark.parametrize("m,n", [(37, 200), (300, 129)])
def test_nibble_matmul_on_the_gpu(arch, tile, word, per_word, m, n):
    torch.manual_seed(m + n + per_word)
    k = 4 * tile[2]
    a, nibbles, packed = _nibble_operands(m, n, k, word, per_word, "cuda")
    c = torch.full((m, n), float("nan"), device="cuda")
    _nibble_launch(a, packed, c, per_word, tile, arch=arch)
    want = a.double() @ (nibbles.cuda() - 8).double()
    torch.testing.assert_close(c.double(), want, rtol=1e-3, atol=2e-2)
