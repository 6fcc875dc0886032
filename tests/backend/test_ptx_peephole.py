"""fuse-mad-wide (backends/cuda/ptx_peephole.py): a single-use `mul.wide` feeding an
`add.s64` of the same block becomes one `mad.wide`; every other shape is left alone."""

import pytest
from test_cuda_filecheck import _column_sums, filecheck

import tritonc
from tritonc.backends.cuda.ptx_peephole import fuse_mad_wide

FUSED = """\
\tmul.wide.s32 \t%rd21, %r63, 4;
\tadd.s64 \t%rd5, %rd1, %rd21;
\tmul.wide.u32 \t%rd22, %r64, %r9;
\tsetp.lt.s32 \t%p6, %r59, %r22;
\tadd.s64 \t%rd6, %rd22, %rd2;
\tld.global.b32 %r1, [%rd5];
\tld.global.b32 %r2, [%rd6];"""


def test_pairs_in_one_block_fuse() -> None:
    out = fuse_mad_wide(FUSED)
    assert out.splitlines() == [
        "\tmad.wide.s32 \t%rd5, %r63, 4, %rd1;",
        "\tsetp.lt.s32 \t%p6, %r59, %r22;",
        "\tmad.wide.u32 \t%rd6, %r64, %r9, %rd2;",
        "\tld.global.b32 %r1, [%rd5];",
        "\tld.global.b32 %r2, [%rd6];"]


@pytest.mark.parametrize("ptx", [
    # the product has a second use
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n\tadd.s64 \t%rd5, %rd1, %rd21;\n"
    "\tst.global.u64 [%rd7], %rd21;",
    # a label between: another block
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n$L__BB0_3:\n\tadd.s64 \t%rd5, %rd1, %rd21;",
    # a branch between
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n\t@%p1 bra \t$L__BB0_2;\n\tadd.s64 \t%rd5, %rd1, %rd21;",
    # the multiplied register is written again before the add (a loop-carried copy)
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n\tmov.b32 \t%r63, %r70;\n\tadd.s64 \t%rd5, %rd1, %rd21;",
    # written again as one register of a vector
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n\tmov.b64 \t{%r62, %r63}, %rd9;\n"
    "\tadd.s64 \t%rd5, %rd1, %rd21;",
    # the add's other operand is written between the two
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n\tld.param.b64 \t%rd1, [p];\n\tadd.s64 \t%rd5, %rd1, %rd21;",
    # the product doubled: no single other operand
    "\tmul.wide.s32 \t%rd21, %r63, 4;\n\tadd.s64 \t%rd5, %rd21, %rd21;",
], ids=["second-use", "label", "branch", "operand-rewritten", "operand-in-vector",
        "addend-rewritten", "doubled"])
def test_other_shapes_stay(ptx: str) -> None:
    assert fuse_mad_wide(ptx) == ptx


@pytest.mark.parametrize("arch", [80, 90])
def test_kernel_addresses_are_mad_wide(arch: int, tmp_path) -> None:
    """The loads of a strided tile take their addresses from `mad.wide`, and the PTX
    still assembles."""
    kernel = tritonc.compile(_column_sums, signature={
        "x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride_m": "i32"},
        constexprs={"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=8, target=f"cuda:{arch}")
    ptx = kernel.asm["ptx"]
    filecheck(ptx, "CHECK: mad.wide.s32\nCHECK: ld.global\nCHECK-NOT: mul.wide.s32\n"
              "CHECK: bra\n", tmp_path)
    assert ptx.count("ld.global") == 16
    assert kernel.metadata["ptxas"]["registers"] > 0
