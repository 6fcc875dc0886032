"""What the zoo's reductions compile to: the layouts chosen (TTGIR) and the shape of the
PTX (loops, shuffles, barriers), so a reduction along any axis stays a register, shuffle
and one shared-memory round trip, never a loop over the reduced axis."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tritonc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import zoo  # noqa: E402
from test_zoo_ptx import KERNELS, compile_case  # noqa: E402

from tritonc.compiler import mlir_loader  # noqa: E402

BY_NAME = {b.__name__: b for b in zoo.CASES}


def loops(ptx: str) -> int:
    """Backward branches: one per loop the PTX runs."""
    labels, count = {}, 0
    lines = ptx.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\$L__\w+):", line.strip())
        if m:
            labels[m.group(1)] = i
    for i, line in enumerate(lines):
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
        if m and labels.get(m.group(1), i + 1) < i:
            count += 1
    return count


def filecheck(text: str, checks: str, tmp_path: Path) -> None:
    check_file = tmp_path / "checks.txt"
    check_file.write_text(checks)
    done = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(check_file)], input=text,
                          text=True, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr


def test_persistent_softmax_statistics_broadcast_in_registers(tmp_path):
    k = compile_case(BY_NAME["softmax_persistent_inductor"], 90)
    filecheck(k.asm["ttgir"], """
CHECK: "tt.reduce"({{.*}}) -> tensor<8xf32, #ttg.slice<1 : i64, #[[P:ttg.blocked<\\[1, 1\\], \\[1, 32\\], \\[1, 8\\], \\[1, 0\\]>]]>>
CHECK-NEXT: "tt.expand_dims"({{.*}}) -> tensor<8x1xf32, #[[P]]>
CHECK-NOT: ttg.convert_layout
CHECK: "tt.broadcast"({{.*}}) : (tensor<8x1xf32, #[[P]]>) -> tensor<8x1024xf32, #[[P]]>
CHECK: "tt.reduce"({{.*}}) -> tensor<8xf32, #ttg.slice<1 : i64, #[[P]]>>
""", tmp_path)
    ptx = k.asm["ptx"]
    assert loops(ptx) == 0
    assert len(re.findall(r"shfl\.sync\.bfly", ptx)) >= 2 * 5
    assert len(re.findall(r"bar\.sync", ptx)) <= 4  # one round trip per reduction


@pytest.mark.parametrize("name", ["sum_looped_inductor", "col_sum_looped_inductor",
                                  "var_mean_looped_inductor", "argmax_looped_inductor",
                                  "tile_sum_axis0", "tile_max_axis1"])
def test_looped_reduction_reduces_once_after_the_loop(name):
    ptx = compile_case(BY_NAME[name], 90).asm["ptx"]
    assert loops(ptx) == 1  # the loop over r0 blocks, no loop over the reduced axis
    if name not in ("col_sum_looped_inductor", "tile_sum_axis0"):
        # lanes run along the reduced axis (down the columns only warps do)
        assert re.search(r"shfl\.sync\.bfly", ptx)
    assert len(re.findall(r"bar\.sync", ptx)) <= 4


@pytest.mark.parametrize("name", ["reduce_3d_axis0", "reduce_3d_axis1", "reduce_3d_axis2",
                                  "cumsum_axis0", "cumsum_axis1",
                                  "argmax_tile_axis0", "argmax_tile_axis1",
                                  "layer_norm_persistent_inductor"])
def test_whole_tile_reduction_has_no_loop(name):
    assert loops(compile_case(BY_NAME[name], 90).asm["ptx"]) == 0


def test_store_down_columns_is_coalesced(tmp_path):
    """y + rn * M + rm runs along dimension 0: the store takes a layout with that
    dimension fastest (four elements per thread: M is specialised as divisible by 16),
    the tile moves there through shared memory, once (one barrier: nothing used shared
    memory before), and goes out as 16-byte stores."""
    k = compile_case(BY_NAME["transpose_strides"], 90)
    filecheck(k.asm["ttgir"], """
CHECK: "tt.load"({{.*}}) -> tensor<32x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
CHECK: "ttg.convert_layout"({{.*}}) -> tensor<32x32xf32, #[[COL:ttg.blocked<\\[4, 1\\], \\[8, 4\\], \\[1, 4\\], \\[0, 1\\]>]]>
CHECK: "tt.store"({{.*}} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #[[COL]]>, tensor<32x32xf32, #[[COL]]>, tensor<32x32xi1, #[[COL]]>)
""", tmp_path)
    assert len(re.findall(r"bar\.sync", k.asm["ptx"])) == 1
    assert k.asm["ptx"].count("st.global.v4.b32") == 2


def test_transposed_operand_load_is_coalesced(tmp_path):
    k = compile_case(BY_NAME["add_transposed_int"], 90)
    filecheck(k.asm["ttgir"], """
CHECK: "tt.load"({{.*}}) -> tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
CHECK: "tt.load"({{.*}}) -> tensor<64x64xf32, #ttg.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>>
CHECK-NEXT: "ttg.convert_layout"({{.*}}) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
""", tmp_path)


def test_stores_of_row_statistics_keep_their_layout(tmp_path):
    """out + x0 for an [XBLOCK, 1] tile runs along dimension 0, which the default layout
    already spreads over the lanes: no convert for the store."""
    k = compile_case(BY_NAME["sum_looped_inductor"], 90)
    assert "ttg.convert_layout" not in k.asm["ttgir"].split('"tt.reduce"')[-1]


def test_row_scan_goes_along_lanes_then_warps():
    """cumsum along rows of 256 held by 2 warps of 32 lanes x 4 registers: shuffles up
    (5 per row), one shared-memory round trip for the two warps (one barrier, between
    its writes and reads), no loop."""
    ptx = compile_case(BY_NAME["cumsum_axis1"], 90).asm["ptx"]
    assert loops(ptx) == 0
    assert len(re.findall(r"shfl\.sync\.up", ptx)) >= 5
    assert len(re.findall(r"bar\.sync", ptx)) == 1


def test_gathered_rows_load_as_vectors():
    """table + (xindex % D + D * idx[xindex // D]): the index is equal over runs of D, so
    the row it selects is read 16 bytes at a time."""
    ptx = compile_case(BY_NAME["index_select_inductor"], 90).asm["ptx"]
    assert len(re.findall(r"ld\.global[.\w:]*\.v4\.b32", ptx)) == 2


def test_loaded_indices_expand_in_registers(tmp_path):
    """rows = tl.load(idx + tokens) then rows[:, None]: the indices load in the sliced
    tile layout, so the expand moves nothing."""
    k = compile_case(BY_NAME["embedding_gather"], 90)
    filecheck(k.asm["ttgir"], """
CHECK: "tt.load"({{.*}}) -> tensor<4xi32, #ttg.slice<1 : i64, #[[P:ttg.blocked<[^>]*>]]>>
CHECK: "tt.expand_dims"({{.*}} : (tensor<4xi64, #ttg.slice<1 : i64, #[[P]]>>) -> tensor<4x1xi64, #[[P]]>
""", tmp_path)


@pytest.mark.parametrize("build", zoo.CASES, ids=lambda b: b.__name__)
def test_thread_locality_leaves_the_zoo_as_it_is(build):
    """The zoo's reductions (Inductor's elementwise accumulators, whole-tile reductions)
    are not the loop-carried row statistics thread-locality rewrites: its TTGIR is the
    same with and without the pass."""
    from tritonc import passes
    from tritonc.backends.cuda import stages
    from tritonc.backends.cuda.options import CUDAOptions
    from tritonc.runtime.gpu_launch import specialize

    case = build("meta", False)
    fn = getattr(KERNELS, case.kernel)
    meta = dict(case.meta)
    num_warps = meta.pop("num_warps", 4)
    signature, constexprs, divisible = specialize(fn, fn.bind(tuple(case.args), meta))
    ttir = tritonc.compile(fn, signature, constexprs, divisible_by_16=divisible).asm["ttir"]
    ir = mlir_loader.load()
    for target in ("cuda:80", "cuda:90"):
        options = CUDAOptions(num_warps=num_warps)
        before = [p for p in stages.ttgir_passes(options, target) if p != "thread-locality"]
        with mlir_loader.new_context():
            module = passes.run_passes(ir.Module.parse(ttir),
                                       [*stages.ttir_passes(options, target), *before])
            text = str(module)
            module = passes.run_passes(module, ["thread-locality"])
            assert str(module) == text, target
