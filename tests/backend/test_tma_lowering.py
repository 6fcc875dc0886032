"""TMA copies of host tensor descriptors on sm_90, checked without a GPU: which ring loads
software-pipeline gives `ttg.tma`, and the PTX of their loop (mbarriers, one
`cp.async.bulk.tensor` per 128-byte column block, wgmma reading the ring), through ptxas
without spills; on sm_80, or with descriptors that are not aligned, no TMA."""

import re
import sys
from pathlib import Path

import pytest
from test_cuda_filecheck import filecheck

import tritonc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import matmul_kernels as mk  # noqa: E402


def _compile(dtype: str, b_trans: int, arch: int = 90, aligned: bool = True,
             tile=(128, 256, 64), warps: int = 8, stages: int = 3):
    bm, bn, bk = tile
    b_block = [bn, bk] if b_trans else [bk, bn]
    sig = {"a_desc": f"tensordesc<{dtype}[{bm}, {bk}]>",
           "b_desc": f"tensordesc<{dtype}[{b_block[0]}, {b_block[1]}]>",
           "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32", "stride_cm": "i32"}
    const = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, B_TRANS=b_trans,
                 PRECISION="tf32" if dtype == "fp32" else "ieee", stride_cn=1)
    divisible = {"c_ptr", "stride_cm"} | ({"a_desc", "b_desc"} if aligned else set())
    return tritonc.compile(mk.matmul_host_descriptor, sig, const, target=f"cuda:{arch}",
                           divisible_by_16=divisible, num_warps=warps, num_stages=stages)


COPY = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"


def _loop(ptx: str) -> str:
    """The PTX of the pipelined loop: from its first mbarrier wait to its back edge."""
    start = ptx.index("mbarrier.try_wait.parity")
    return ptx[start:ptx.index("wgmma.wait_group.sync.aligned 0", start)]


@pytest.mark.parametrize("dtype, b_trans", [("fp16", 0), ("bf16", 0), ("fp16", 1),
                                            ("fp8e4nv", 1), ("fp32", 1)])
def test_ring_loads_of_aligned_host_descriptors_copy_by_tma(dtype, b_trans):
    tile = (128, 256, 32 if dtype == "fp32" else 64)
    k = _compile(dtype, b_trans, tile=tile)
    loads = [line for line in k.asm["ttgir"].splitlines() if '"tt.descriptor_load"' in line]
    assert len(loads) == 2 and all("ttg.pipelined" in x and "ttg.tma" in x for x in loads)
    assert "cp.async.cg" not in k.asm["ptx"] and "cp.async.commit_group" not in k.asm["ptx"]
    report = k.metadata["ptxas"]
    assert report.get("spill_stores", 0) == 0, report


def test_the_loop_of_a_tma_ring(tmp_path):
    """fp16, 128 x 256 x 64 tiles on 8 warps, 3 stages with the spare buffer: four
    mbarriers; A one 128 x 64 box, B (64 x 256, 512-byte rows) four 64 x 64 boxes 8 KB
    apart, 48 KB a stage; each iteration waits for its buffer's phase, issues the wgmmas,
    then the copies of the iteration two ahead, while its wgmma stays in flight."""
    k = _compile("fp16", 0)
    ptx = k.asm["ptx"]
    filecheck(ptx, """
CHECK: .target sm_90a
CHECK: fence.proxy.async.shared::cta;
CHECK: bar.sync 0;
CHECK: mbarrier.init.shared::cta.b64 [[[BAR:%r[0-9]+]]+0], 1;
CHECK: mbarrier.init.shared::cta.b64 [[[BAR]]+24], 1;
CHECK: fence.mbarrier_init.release.cluster;
CHECK: bar.sync 0;
CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[BAR]]], 49152;
CHECK: COPY [{{%r[0-9]+}}+0], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[BAR]]];
CHECK: COPY [[[B:%r[0-9]+]]+0], [[[BMAP:%rd[0-9]+]], {{{%r[0-9]+}}, {{%r[0-9]+}}}],
CHECK-SAME: [[[BAR]]];
CHECK-NEXT: COPY [[[B]]+8192], [[[BMAP]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[BAR]]];
CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [{{%r[0-9]+}}], {{%r[0-9]+}};
CHECK: bar.sync 0;
CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
CHECK: wgmma.commit_group.sync.aligned;
CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 49152;
CHECK: cp.async.bulk.tensor.2d
CHECK: wgmma.wait_group.sync.aligned 1;
CHECK: wgmma.wait_group.sync.aligned 0;
CHECK: mbarrier.inval.shared::cta.b64 [[[BAR]]+0];
""".replace("COPY", COPY), tmp_path)
    loop = _loop(ptx)
    assert loop.count("cp.async.bulk.tensor") == 5 and "ld.global" not in loop
    assert len(re.findall(r"wgmma\.mma_async", loop)) == 4
    assert k.metadata["shared"] >= 4 * 48 * 1024 + 4 * 8


@pytest.mark.parametrize("arch, aligned", [(80, True), (90, False)])
def test_no_tma_before_sm_90_or_for_unaligned_descriptors(arch, aligned):
    k = _compile("fp16", 1, arch=arch, aligned=aligned, tile=(128, 128, 64), warps=4)
    assert "ttg.tma" not in k.asm["ttgir"]
    assert "cp.async.bulk" not in k.asm["ptx"] and "mbarrier" not in k.asm["ptx"]
