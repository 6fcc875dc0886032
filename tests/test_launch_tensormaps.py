"""Tensor descriptors made in a kernel from its arguments, copied by TMA through maps the
launch encodes (hoist-tensormaps, `runtime/tensormap.launch_maps`): the recipes the
compiler records, the PTX on sm_90 and sm_80, the maps the launch asks the driver for,
and the launcher's arguments; on the GPU, matmuls through such descriptors against
torch in float64."""

import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.backends.cuda.options import CUDAOptions


@triton.jit
def desc_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B^T with A (M x K) and B (N x K) row-major, both through descriptors made
    here; C row-major through pointers."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_bn, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=mask)


SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
       "K": "i32", "stride_am": "i32", "stride_bn": "i32", "stride_cm": "i32"}
TILE = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
ALIGNED = {"a_ptr", "b_ptr", "c_ptr", "stride_am", "stride_bn", "stride_cm"}
A_MAP = {"map": 9, "base": 0, "shape": ["%3", "%5"], "strides": ["%6", "1"],
         "block": [128, 64], "element_bytes": 2}


def _compile(arch: int, divisible: set, **options):
    return triton.compile(desc_matmul, SIG, TILE, target=f"cuda:{arch}",
                          divisible_by_16=divisible, options=CUDAOptions(**options))


def _params(ptx: str) -> int:
    return ptx.count(".param .")


def test_sm90_kernel_takes_a_map_per_aligned_descriptor_and_copies_by_tma():
    k = _compile(90, ALIGNED)
    b_map = {**A_MAP, "map": 10, "base": 1, "shape": ["%4", "%5"], "strides": ["%7", "1"]}
    assert k.metadata["tensormaps"] == [A_MAP, b_map]
    ptx = k.asm["ptx"]
    assert _params(ptx) == 11  # nine arguments and two maps
    assert "cp.async.bulk.tensor.2d" in ptx and "mbarrier.try_wait.parity" in ptx
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_a_row_stride_not_known_aligned_keeps_its_descriptor_off_tma():
    k = _compile(90, ALIGNED - {"stride_bn"})
    assert k.metadata["tensormaps"] == [A_MAP]
    assert _params(k.asm["ptx"]) == 10


@pytest.mark.parametrize("arch, options", [(80, {}), (90, {"launch_tensormaps": False})])
def test_no_maps_on_sm80_or_when_turned_off(arch, options):
    k = _compile(arch, ALIGNED, **options)
    assert "tensormaps" not in k.metadata
    assert _params(k.asm["ptx"]) == 9
    assert "cp.async.bulk.tensor" not in k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_the_option_is_validated():
    with pytest.raises(ValueError, match="launch_tensormaps must be True or False"):
        CUDAOptions(launch_tensormaps=1)


@triton.jit
def block_ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_a, stride_b, A_COL: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B through block pointers: A row- or column-major, B column-major."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if A_COL:
        a = tl.make_block_ptr(a_ptr, (M, K), (1, stride_a), (pid_m * BLOCK_M, 0),
                              (BLOCK_M, BLOCK_K), (0, 1))
    else:
        a = tl.make_block_ptr(a_ptr, (M, K), (stride_a, 1), (pid_m * BLOCK_M, 0),
                              (BLOCK_M, BLOCK_K), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (1, stride_b), (0, pid_n * BLOCK_N),
                          (BLOCK_K, BLOCK_N), (0, 1))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)))
        a = tl.advance(a, (0, BLOCK_K))
        b = tl.advance(b, (BLOCK_K, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                          (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


BP_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
          "K": "i32", "stride_a": "i32", "stride_b": "i32"}


@pytest.mark.parametrize("a_col", [False, True])
@pytest.mark.parametrize("arch", [80, 90])
def test_block_pointers_of_a_dot_loop_copy_by_tma_on_sm90(a_col, arch):
    """On sm_90 the block pointers become descriptors with maps, each over its tensor as
    it lies in memory: a row-major A read M x K, a column-major A read K x M and a
    column-major B read N x K, both `tl.trans`ed back (wgmma reads them transposed from
    the ring); on sm_80 they stay tiles of pointers copied by cp.async."""
    k = triton.compile(block_ptr_matmul, BP_SIG, {**TILE, "A_COL": a_col},
                       target=f"cuda:{arch}", divisible_by_16=set(BP_SIG))
    maps = k.metadata.get("tensormaps", [])
    ptx = k.asm["ptx"]
    if arch == 80:
        assert not maps and "cp.async.bulk.tensor" not in ptx and "cp.async.cg" in ptx
        return
    a_map = {**A_MAP, "map": 8, "strides": ["%6", "1"]}
    if a_col:
        a_map.update(shape=["%5", "%3"], block=[64, 128])
    b_map = {"map": 9, "base": 1, "shape": ["%4", "%5"], "strides": ["%7", "1"],
             "block": [128, 64], "element_bytes": 2}
    assert maps == [a_map, b_map]
    assert "cp.async.bulk.tensor.2d" in ptx and "cp.async.cg" not in ptx
    assert k.asm["cubin"][:4] == b"\x7fELF"


class _FakeDriver:
    def __init__(self) -> None:
        self.calls = []

    def encode_tiled(self, data_type, address, dims, strides, box, swizzle):
        if max(dims) > 2 ** 32:
            raise ValueError("a dimension the driver refuses")
        self.calls.append((data_type, address, dims, strides, box, swizzle))
        return bytes(128)


@pytest.fixture
def fake_maps(monkeypatch):
    """The driver's encoder recorded, device buffers as ("buffer", address) pairs."""
    torch = pytest.importorskip("torch")
    import tritonc.runtime.driver as driver_mod
    from tritonc.runtime import tensormap

    fake = _FakeDriver()
    made = []

    class Buffer:
        def __init__(self) -> None:
            made.append(self)

        def data_ptr(self) -> int:
            return 0x9000 + 128 * made.index(self)

    monkeypatch.setattr(driver_mod, "get_driver", lambda: fake)
    monkeypatch.setattr(tensormap, "_on_device", lambda raw, device: Buffer())
    monkeypatch.setattr(tensormap, "_MAPS", type(tensormap._MAPS)())
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    return fake


def test_launch_maps_read_the_recipe_from_the_arguments(fake_maps):
    from tritonc.runtime.tensormap import launch_maps

    b_map = {**A_MAP, "map": 10, "base": 1, "shape": ["%4", "300"], "strides": ["320", "1"],
             "block": [64, 64]}
    args = (0x7000_0000, 0x7100_0000, 0x7200_0000, 1000, 200, 4000, 4096, 0, 208)
    first = launch_maps([A_MAP, b_map], args)
    assert first == [0x9000, 0x9080]
    # dimensions innermost first, the byte stride of rows, the ring's box and swizzle
    assert fake_maps.calls == [(1, 0x7000_0000, [4000, 1000], [8192], [64, 128], 3),
                               (1, 0x7100_0000, [300, 200], [640], [64, 64], 3)]
    assert launch_maps([A_MAP, b_map], args) == first  # one encoding per tensor and block
    assert len(fake_maps.calls) == 2
    other = args[:5] + (4001,) + args[6:]
    assert launch_maps([A_MAP], other) == [0x9100]
    empty = args[:5] + (0,) + args[6:]  # no K: no tile is ever copied
    assert launch_maps([A_MAP], empty) == [0]
    assert len(fake_maps.calls) == 3


def test_a_map_written_under_graph_capture_is_the_encoded_bytes(monkeypatch):
    """Under capture the map is written by 8-byte fills (here into a CPU buffer): the
    bytes are the driver's, and the buffer is kept for the graph."""
    torch = pytest.importorskip("torch")
    from tritonc.runtime import tensormap

    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    monkeypatch.setattr(tensormap, "_CAPTURED", [])
    raw = bytes((7 * i + 200) % 256 for i in range(128))  # words of either sign
    buffer = tensormap._on_device(raw, torch.device("cpu"))
    assert bytes(buffer.tolist()) == raw
    assert tensormap._CAPTURED == [buffer]


class _Lib:
    def __init__(self) -> None:
        self.launches = 0

    def cuLaunchKernel(self, *args) -> int:  # noqa: N802 (the driver's name)
        self.launches += 1
        return 0


def _launcher(recipes):
    from types import SimpleNamespace

    from tritonc.runtime.driver import Launcher

    driver = SimpleNamespace(lib=_Lib(), kernel_name=lambda function: "desc_matmul",
                             last_kernel=None)
    return Launcher(driver, 1, ["*fp16", "i32", "i32"], (128, 1, 1), 0, recipes)


def test_the_launcher_passes_the_maps_after_the_arguments(fake_maps):
    from tritonc.runtime.c_launcher import KernelLauncher

    recipe = {**A_MAP, "base": 0, "shape": ["%1", "%2"], "strides": ["%2", "1"]}
    launcher = _launcher([recipe])
    assert launcher.packer.signature == ("*fp16", "i32", "i32", "*i8")
    launcher((3, 1, 1), 0, 0x7000_0000, 500, 4096)
    packer = launcher.packer
    assert packer._struct.unpack_from(packer.buffer) == (0x7000_0000, 500, 4096, 0x9000)
    assert launcher.driver.lib.launches == 1
    launcher((0, 1, 1), 0, 0x7000_0000, 500, 4096)  # an empty grid: nothing encoded
    assert launcher.driver.lib.launches == 1 and len(fake_maps.calls) == 1
    assert not KernelLauncher(launcher).uses_c  # the maps are appended in Python


def test_a_map_the_driver_refuses_names_the_kernel(fake_maps):
    recipe = {**A_MAP, "base": 0, "shape": ["%1", str(2 ** 33)], "strides": ["%2", "1"]}
    with pytest.raises(ValueError, match="kernel 'desc_matmul': the CUtensorMap"):
        _launcher([recipe])((1, 1, 1), 0, 0x7000_0000, 64, 64)


# (M, N, K): rows 16 elements apart or not (300: no maps, the tiles load without TMA),
# one tile, no K
SIZES = [(304, 272, 336), (300, 257, 144), (200, 136, 300), (129, 48, 528), (64, 64, 0)]


@pytest.mark.gpu
@pytest.mark.parametrize("m, n, k", SIZES)
@pytest.mark.parametrize("a_col", [False, True])
def test_matmul_through_block_pointers_of_both_orders(m, n, k, a_col):
    import torch

    torch.manual_seed(12)
    width = max(k, 64)
    a = torch.randn(m, width, device="cuda").half()[:, :k]
    if a_col:
        a = torch.randn(width, m, device="cuda").half()[:k].t()
    b = torch.randn(n, width, device="cuda").half()[:, :k].t()  # K x N, column-major
    c = torch.full((m, n), float("nan"), device="cuda")
    grid = (triton.cdiv(m, 128), triton.cdiv(n, 128))
    strides = a.stride(1 if a_col else 0), b.stride(1)
    compiled = block_ptr_matmul[grid](a, b, c, m, n, k, *strides, A_COL=a_col, **TILE,
                                      num_warps=8)
    if torch.cuda.get_device_capability()[0] == 9:  # a map per stride divisible by 16
        want = sum(stride % 16 == 0 for stride in strides)
        assert len(compiled.metadata.get("tensormaps", [])) == want
    if k == 0:
        assert (c == 0).all()
    else:
        want = a.double() @ b.double()
        err = ((c.double() - want).norm() / want.norm()).item()
        assert err < 1e-3, err


@pytest.mark.gpu
@pytest.mark.parametrize("m, n, k", SIZES)
@pytest.mark.parametrize("warps", [4, 8])
def test_matmul_through_descriptors_made_in_the_kernel(m, n, k, warps):
    import torch

    torch.manual_seed(11)
    width = max(k, 64)  # rows 64 elements apart at least, so an empty K stays aligned
    a = torch.randn(m, width, device="cuda").half()[:, :k]
    b = torch.randn(n, width, device="cuda").half()[:, :k]
    c = torch.full((m, n), float("nan"), device="cuda")
    grid = (triton.cdiv(m, 128), triton.cdiv(n, 128))
    compiled = desc_matmul[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0),
                                 **TILE, num_warps=warps)
    if torch.cuda.get_device_capability()[0] == 9:
        assert len(compiled.metadata.get("tensormaps", [])) == (0 if width % 16 else 2)
    want = a.double() @ b.double().T
    if k == 0:
        assert (c == 0).all()
    else:
        err = ((c.double() - want).norm() / want.norm()).item()
        assert err < 1e-3, err


@pytest.mark.gpu
def test_maps_made_while_a_cuda_graph_is_captured():
    """A kernel compiled before, launched for the first time on these tensors inside a
    CUDA graph capture: their maps are written by the graph's own fills (no copy from
    host memory, no synchronization), and every replay reads them, also after the inputs
    change in place."""
    import torch

    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("maps are made on sm_90")
    torch.manual_seed(13)
    m, n, k = 300, 257, 144
    a, b = torch.randn(m, k, device="cuda").half(), torch.randn(n, k, device="cuda").half()
    c = torch.full((m, n), float("nan"), device="cuda")
    grid = (triton.cdiv(m, 128), triton.cdiv(n, 128))
    args = (m, n, k, a.stride(0), b.stride(0), c.stride(0))
    desc_matmul[grid](a.clone(), b.clone(), torch.empty_like(c), *args, **TILE)  # compiles
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        desc_matmul[grid](a, b, c, *args, **TILE)
    for _ in range(2):
        graph.replay()
        torch.cuda.synchronize()
        want = a.double() @ b.double().T
        err = ((c.double() - want).norm() / want.norm()).item()
        assert err < 1e-3, err
        a.copy_(torch.randn_like(a))
        c.fill_(float("nan"))
