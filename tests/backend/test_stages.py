"""The CUDA backend as an object: options, the stage list, the IR carrying the options,
resuming from any stage's file (API and CLI), per-loop num_stages and fp fusion."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import tritonc
import tritonc.language as tl
from tritonc import knobs
from tritonc.backends import get_backend
from tritonc.backends.cuda.options import CUDAOptions
from tritonc.cli.main import main
from tritonc.compiler import mlir_loader

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from vector_add import add_kernel  # noqa: E402

ADD = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}


def filecheck(text: str, checks: str, tmp_path: Path) -> None:
    check_file = tmp_path / "checks.txt"
    check_file.write_text(checks)
    done = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(check_file)], input=text,
                          text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr


@tritonc.jit
def fma_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y + z, mask=mask)


FMA = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@tritonc.jit
def staged_matmul(a_ptr, b_ptr, c_ptr, K, LOOP_STAGES: tl.constexpr, BLOCK: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    rm = tl.arange(0, BLOCK)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BLOCK + rm[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for _ in tl.range(0, K, BLOCK_K, num_stages=LOOP_STAGES):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * BLOCK
    tl.store(c_ptr + rm[:, None] * BLOCK + rm[None, :], acc.to(tl.float16))


MATMUL = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"}


# -- options ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [dict(num_warps=3), dict(num_warps=64), dict(num_warps=0),
                                 dict(num_stages=0), dict(maxnreg=8), dict(num_ctas=3),
                                 dict(enable_fp_fusion="yes"), dict(num_warps=4.0)])
def test_bad_options_raise_naming_the_option(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        CUDAOptions(**bad)


def test_num_ctas_is_accepted_and_each_program_stays_one_cta():
    """Triton's tests and autotuning configs pass num_ctas=2 or 4 on Hopper; a program still
    runs as one CTA, so the compiled code is that of num_ctas=1."""
    two = CUDAOptions(num_ctas=2)
    assert two.num_ctas == 2 and two.hash() != CUDAOptions().hash()
    one = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90")
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        options=two)
    assert k.asm["ptx"] == one.asm["ptx"]
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+ \(Hopper\)"):
        tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:80", options=two)


def test_options_are_frozen_and_hash_every_field():
    default = CUDAOptions()
    with pytest.raises(AttributeError):
        default.num_warps = 8  # type: ignore[misc]
    variants = [CUDAOptions(num_warps=8), CUDAOptions(num_stages=2), CUDAOptions(maxnreg=128),
                CUDAOptions(enable_fp_fusion=False), CUDAOptions(num_warps=8, num_stages=2)]
    hashes = {default.hash()} | {v.hash() for v in variants}
    assert len(hashes) == 1 + len(variants)
    assert CUDAOptions(num_warps=8).hash() == CUDAOptions.parse({"num_warps": 8}).hash()
    with pytest.raises(ValueError, match="unknown option 'num_warp'"):
        CUDAOptions.parse({"num_warp": 8})


def test_num_warps_3_is_an_error_in_compile_and_on_the_command_line(tmp_path):
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90", num_warps=3)
    result = CliRunner().invoke(main, [
        "compile", str(ROOT / "examples/vector_add.py") + ":add_kernel",
        "-s", "*fp32,*fp32,*fp32,i32", "-c", "BLOCK_SIZE=1024", "--num-warps", "3",
        "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "--num-warps must be a power of 2" in result.output


def test_num_warps_3_is_an_error_at_launch():
    import numpy as np

    x = np.ones(8, np.float32)
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        add_kernel.warmup(x, x, x, 8, BLOCK_SIZE=1024, num_warps=3)


def test_stages_are_ordered_and_named_by_extension():
    backend = get_backend("cuda:90")
    stages = backend.add_stages(backend.parse_options({"num_warps": 8}))
    assert list(stages) == ["ttir", "ttgir", "llir", "ptx", "cubin"]


# -- the IR carries the options; resuming from every stage ------------------------------


def test_ttgir_carries_the_options(tmp_path):
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:80",
                        divisible_by_16=set(ADD), num_warps=8, num_stages=2)
    filecheck(k.asm["ttgir"], """
CHECK: module attributes {"ttg.num-stages" = 2 : i32, "ttg.num-warps" = 8 : i32,
CHECK-SAME: ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32}
CHECK: #ttg.blocked<[4], [32], [8], [0]>
""", tmp_path)
    assert 'target-cpu"="sm_80"' in k.asm["llir"]
    assert k.metadata["num_warps"] == 8 and k.metadata["enable_fp_fusion"] is True


@pytest.mark.parametrize("stage", ["ttir", "ttgir", "llir", "ptx"])
def test_resuming_from_a_stage_file_gives_the_same_later_stages(stage, tmp_path):
    # without line info: the .ttir and .ttgir texts carry no locations, so a kernel
    # resumed from them has the file's own lines where the full compile has the kernel's
    with knobs.compilation.scope():
        knobs.compilation.disable_line_info = True
        full = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90",
                               divisible_by_16=set(ADD), num_warps=8)
        path = tmp_path / f"add_kernel.{stage}"
        path.write_text(full.asm[stage])
        # a .ttgir names its own target and warps; the other files get them from the call
        resumed = tritonc.compile(path, target="cuda:90",
                                  num_warps=8 if stage == "ttir" else 2)
    later = ["ttir", "ttgir", "llir", "ptx", "cubin"]
    for name in later[later.index(stage) + 1:]:
        assert resumed.asm[name] == full.asm[name], name
    assert resumed.metadata["ptxas"]["registers"] == full.metadata["ptxas"]["registers"]
    assert resumed.name == "add_kernel"


def test_resuming_a_wgmma_kernel_from_llir_keeps_sm_90a(tmp_path):
    k = tritonc.compile(staged_matmul, MATMUL,
                        {"LOOP_STAGES": 3, "BLOCK": 128, "BLOCK_K": 64}, target="cuda:90",
                        divisible_by_16=set(MATMUL), num_warps=8)
    assert k.metadata["ptx_arch"] == "90a"
    path = tmp_path / "m.llir"
    path.write_text(k.asm["llir"])
    resumed = tritonc.compile(path, target="cuda:90")
    assert ".target sm_90a" in resumed.asm["ptx"]
    assert resumed.asm["cubin"][:4] == b"\x7fELF"


def test_a_ttgir_without_the_attributes_is_a_clear_error(tmp_path):
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="ttir")
    path = tmp_path / "k.ttgir"
    path.write_text(k.asm["ttir"])
    with pytest.raises(ValueError, match="no 'ttg.num-warps' attribute"):
        tritonc.compile(path, target="cuda:90")


def test_cli_compiles_from_a_ttgir_file(tmp_path):
    with knobs.compilation.scope():  # line info: see the test above
        knobs.compilation.disable_line_info = True
        k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90")
        src = tmp_path / "add_kernel.ttgir"
        src.write_text(k.asm["ttgir"])
        out = tmp_path / "out"
        result = CliRunner().invoke(main, ["compile", str(src), "--emit", "llir,ptx,cubin",
                                           "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "add_kernel.sm_90.ptx").read_text() == k.asm["ptx"]
    assert (out / "add_kernel.sm_90.cubin").read_bytes()[:4] == b"\x7fELF"
    missing = CliRunner().invoke(main, ["compile", str(tmp_path / "nope.ttgir")])
    assert missing.exit_code == 2 and "no such file" in missing.output


# -- per-loop num_stages; fp fusion ------------------------------------------------------


@pytest.mark.parametrize("launch_stages,loop_stages,pipelined", [(3, 1, False), (1, 2, True)])
def test_tl_range_num_stages_overrides_the_launch_option(launch_stages, loop_stages,
                                                         pipelined, tmp_path):
    k = tritonc.compile(staged_matmul, MATMUL,
                        {"LOOP_STAGES": loop_stages, "BLOCK": 64, "BLOCK_K": 32},
                        target="cuda:80", divisible_by_16=set(MATMUL), num_warps=4,
                        num_stages=launch_stages)
    ttgir = k.asm["ttgir"]
    assert f"}} {{tt.num_stages = {loop_stages} : i32" in ttgir
    assert (f"ttg.pipeline_stages = {loop_stages} : i32" in ttgir) == pipelined
    assert ("cp.async.commit_group" in k.asm["ptx"]) == pipelined
    if pipelined:
        assert k.metadata["shared"] == loop_stages * (64 * 32 + 32 * 64) * 2


@pytest.mark.parametrize("arch", [80, 90])
def test_fp_fusion_contracts_multiply_add_by_default(arch, tmp_path):
    k = tritonc.compile(fma_kernel, FMA, {"BLOCK": 256}, target=f"cuda:{arch}")
    filecheck(k.asm["llir"], "CHECK: fmul contract float\nCHECK: fadd contract float\n",
              tmp_path)
    filecheck(k.asm["ptx"], "CHECK-NOT: mul.rn.f32\nCHECK: fma.rn.f32\nCHECK-NOT: add.rn.f32\n",
              tmp_path)


def test_fp_fusion_off_keeps_separate_rounding(tmp_path):
    k = tritonc.compile(fma_kernel, FMA, {"BLOCK": 256}, target="cuda:90",
                        enable_fp_fusion=False)
    filecheck(k.asm["llir"], "CHECK-NOT: contract\nCHECK: fmul float\nCHECK: fadd float\n",
              tmp_path)
    filecheck(k.asm["ptx"], "CHECK-NOT: fma.rn.f32\nCHECK: mul.rn.f32\nCHECK: add.rn.f32\n",
              tmp_path)


def test_an_overridden_stage_feeds_the_later_ones(tmp_path):
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90")
    assert "add.f32" in k.asm["ptx"] and "mul.f32" not in k.asm["ptx"]
    edited = k.asm["ttgir"].replace("arith.addf", "arith.mulf")
    assert edited != k.asm["ttgir"]
    o = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        override={"ttgir": edited})
    assert o.asm["ttgir"] == edited
    assert "mul.f32" in o.asm["ptx"] and "add.f32" not in o.asm["ptx"]
    with pytest.raises(ValueError, match="cannot override 'ttgr'"):
        tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        override={"ttgr": edited})


@tritonc.jit(noinline=True)
def _store_one(x_ptr):
    tl.store(x_ptr, 1)


@tritonc.jit
def _calls_a_function(x_ptr):
    _store_one(x_ptr)
    tl.store(x_ptr + 1, 2)


def test_maxnreg_is_a_directive_of_the_kernel_entry_only():
    """`maxnreg` puts `.maxnreg N` on the `.entry` (never on a `.func` it calls), and
    ptxas keeps the kernel within it."""
    sig = {"x_ptr": "*i32"}
    k = tritonc.compile(_calls_a_function, sig, {}, target="cuda:90", maxnreg=40)
    ptx = k.asm["ptx"]
    assert re.search(r"\.visible \.entry [^{;]*\)\s*\.reqntid 128, 1, 1\s*\.maxnreg 40\s*\{",
                     ptx)
    assert not re.search(r"\.func [^{;]*\.maxnreg", ptx)
    assert k.metadata["ptxas"]["registers"] <= 40
    assert ".maxnreg" not in tritonc.compile(_calls_a_function, sig, {},
                                             target="cuda:90").asm["ptx"]


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_entry_requires_the_block_of_num_warps(num_warps):
    """The `.entry` states its block size (`.reqntid`), so ptxas budgets registers for
    that many threads, and assembles it."""
    k = tritonc.compile(add_kernel, ADD, {"BLOCK_SIZE": 1024}, target="cuda:90",
                        num_warps=num_warps)
    entry = re.search(r"\.visible \.entry [^{]*\{", k.asm["ptx"]).group(0)
    assert f".reqntid {32 * num_warps}, 1, 1" in entry
    assert k.metadata["ptxas"]["registers"] > 0


def test_cli_options_reach_the_compiler(tmp_path):
    spec = str(ROOT / "examples/vector_add.py") + ":add_kernel"
    args = ["compile", spec, "-s", "*fp32,*fp32,*fp32,i32", "-c", "BLOCK_SIZE=1024",
            "--emit", "llir", "-o", str(tmp_path)]
    assert CliRunner().invoke(main, [*args, "--no-fp-fusion"]).exit_code == 0
    assert "contract" not in (tmp_path / "add_kernel.sm_90.llir").read_text()
    assert CliRunner().invoke(main, args).exit_code == 0
    assert "fadd contract" in (tmp_path / "add_kernel.sm_90.llir").read_text()
    bad = CliRunner().invoke(main, [*args, "--maxnreg", "8"])
    assert bad.exit_code == 2 and "--maxnreg must be" in bad.output


def test_the_conversion_switch_joins_the_backend_hash(monkeypatch):
    from tritonc.backends.base import Target

    monkeypatch.delenv("TRITONC_PLANNED_CONVERSIONS", raising=False)
    planned = get_backend(Target("cuda", 90)).hash()
    monkeypatch.setenv("TRITONC_PLANNED_CONVERSIONS", "0")
    assert get_backend(Target("cuda", 90)).hash() != planned


@tritonc.jit
def _strided_row_sums(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < M)


ROW_SUMS = {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride": "i32"}
ALIGNED = {"x_ptr", "out_ptr", "M", "N"}


@tritonc.jit
def _doubled(x_ptr, out_ptr):
    offs = tl.arange(0, 128)
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs))


@pytest.mark.parametrize("arch", [80, 90])
def test_a_kernel_fitting_a_full_sm_is_assembled_for_half_of_one(arch):
    """ptxas fits this loop of 16 loads into 32 registers (a full SM) with one load in
    flight; the cubin comes from the PTX asking for half an SM, in more registers.
    The PTX stage itself is unchanged, so resuming from it gives the same cubin."""
    k = tritonc.compile(_strided_row_sums, ROW_SUMS, {"BLOCK_M": 32, "BLOCK_N": 128},
                        target=f"cuda:{arch}", num_warps=8, divisible_by_16=ALIGNED)
    assert ".minnctapersm" not in k.asm["ptx"]
    assert k.metadata["ptxas"]["min_ctas_per_sm"] == 4
    assert 32 < k.metadata["ptxas"]["registers"] <= 64
    resumed = tritonc.compile(_strided_row_sums, ROW_SUMS, {"BLOCK_M": 32, "BLOCK_N": 128},
                              target=f"cuda:{arch}", num_warps=8, divisible_by_16=ALIGNED,
                              override={"ptx": k.asm["ptx"]})
    assert resumed.asm["cubin"] == k.asm["cubin"]


def test_kernels_needing_more_or_capped_keep_their_first_assembly():
    """A kernel over a full SM's registers, one with a single global load and one
    compiled with `maxnreg` are assembled once, as their PTX says."""
    big = tritonc.compile(staged_matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16",
                                          "c_ptr": "*fp16", "K": "i32"},
                          {"LOOP_STAGES": 2, "BLOCK": 64, "BLOCK_K": 32}, target="cuda:90")
    assert "min_ctas_per_sm" not in big.metadata["ptxas"]
    single = tritonc.compile(_doubled, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {},
                             target="cuda:90")
    assert single.asm["ptx"].count("ld.global") == 1
    assert single.metadata["ptxas"]["registers"] <= 32
    assert "min_ctas_per_sm" not in single.metadata["ptxas"]
    capped = tritonc.compile(_strided_row_sums, ROW_SUMS, {"BLOCK_M": 32, "BLOCK_N": 128},
                             target="cuda:90", num_warps=8, divisible_by_16=ALIGNED,
                             maxnreg=32)
    assert "min_ctas_per_sm" not in capped.metadata["ptxas"]


def test_ptx_with_its_own_occupancy_bound_is_assembled_as_it_is():
    k = tritonc.compile(_strided_row_sums, ROW_SUMS, {"BLOCK_M": 32, "BLOCK_N": 128},
                        target="cuda:90", num_warps=8, divisible_by_16=ALIGNED)
    bounded = k.asm["ptx"].replace(".reqntid 256, 1, 1", ".reqntid 256, 1, 1\n.minnctapersm 2")
    again = tritonc.compile(_strided_row_sums, ROW_SUMS, {"BLOCK_M": 32, "BLOCK_N": 128},
                            target="cuda:90", num_warps=8, divisible_by_16=ALIGNED,
                            override={"ptx": bounded})
    assert "min_ctas_per_sm" not in again.metadata["ptxas"]
    assert again.metadata["ptxas"]["registers"] > 32


@pytest.mark.parametrize("registers, shared, warps, blocks", [
    (175, 65536, 4, 3),      # 2 blocks by registers, 3 by shared memory: 168 registers
    (200, 65536, 4, None),   # 168 is more than an eighth below 200
    (175, 100 * 1024, 4, None),  # shared memory takes no third block
    (136, 16384, 8, 2),      # 256 threads: one block at 136 registers, two at 128
])
def test_one_more_block_asks_for_a_block_the_registers_alone_keep_out(registers, shared,
                                                                      warps, blocks):
    from tritonc.aot.occupancy import occupancy
    from tritonc.backends.cuda.stages import one_more_block

    ptx = f".visible .entry k()\n.reqntid {32 * warps}, 1, 1\n{{\n}}\n"
    got = one_more_block(ptx, "90a", registers, shared)
    assert got == blocks
    if blocks:
        assert blocks == occupancy(90, registers, shared, warps).blocks_per_sm + 1
    assert one_more_block(ptx.replace(".reqntid", ".maxnreg 200\n.reqntid"), "90a",
                          registers, shared) is None


def _broadcast_chain():
    """The zoo's broadcast chain over a transposed view (fp32 + fp16 -> fp16) on 4 warps:
    62 registers as first assembled, 8 blocks per SM; 9 at 56 registers."""
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "benchmarks"))
    sys.path.insert(0, str(root / "tests"))
    import zoo
    from test_zoo_ptx import compile_case

    return compile_case(zoo.broadcast_mixed, 90)


def test_a_kernel_the_registers_keep_to_8_blocks_assembles_for_9_without_spilling():
    k = _broadcast_chain()
    report = k.metadata["ptxas"]
    assert report["min_ctas_per_sm"] == 9 and report["registers"] <= 56
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0


def test_a_bound_ptxas_cannot_meet_keeps_the_first_cubin(monkeypatch):
    """ptxas may refuse the register bound of one more block (an instruction that needs
    more, `C7602 Insufficient registers`): the kernel keeps its first assembly."""
    from tritonc.backends.cuda import stages

    real, calls = stages.compile_ptx, []

    def refuse_the_bound(ptx, arch, name, maxnreg=None):
        calls.append(".minnctapersm" in ptx)
        if ".minnctapersm" in ptx:
            raise stages.PtxasError("ptxas fatal   : (C7602) Insufficient registers (56)")
        return real(ptx, arch, name, maxnreg)

    monkeypatch.setattr(stages, "compile_ptx", refuse_the_bound)
    k = _broadcast_chain()
    assert calls == [False, True]
    assert "min_ctas_per_sm" not in k.metadata["ptxas"] and k.asm["cubin"][:4] == b"\x7fELF"


def test_a_kernel_that_spills_keeps_its_first_assembly(monkeypatch):
    """A first assembly that spills (ptxas fitting a kernel into few registers by spilling
    most of it) is not bounded further for more blocks per SM: that would only spill more.
    The row-sum loop, fitting a full SM, is assembled once when ptxas reports a spill."""
    from tritonc.backends.cuda import stages

    real, calls = stages.compile_ptx, []

    def spilling(ptx, arch, name, maxnreg=None):
        calls.append(".minnctapersm" in ptx)
        cubin, report = real(ptx, arch, name, maxnreg)
        return cubin, {**report, "spill_stores": 8, "spill_loads": 8}

    monkeypatch.setattr(stages, "compile_ptx", spilling)
    k = tritonc.compile(_strided_row_sums, ROW_SUMS, {"BLOCK_M": 32, "BLOCK_N": 128},
                        target="cuda:90", num_warps=8, divisible_by_16=ALIGNED)
    assert calls == [False]
    assert "min_ctas_per_sm" not in k.metadata["ptxas"]
