"""Host `TensorDescriptor` arguments of compiled kernels: the signature type they get, the
descriptor the kernel's entry makes from base, shape and strides, and (on the GPU) loads
and stores through it against torch."""

import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.runtime import descriptors
from tritonc.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def add_one_blocks(in_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    out_desc.store([m, n], in_desc.load([m, n]) + 1)


SIG = {"in_desc": "tensordesc<fp32[16, 32]>", "out_desc": "tensordesc<fp32[16, 32]>"}


def test_signature_text_round_trips():
    text = descriptors.signature_text("fp16", [64, 128], "nan")
    assert text == "tensordesc<fp16[64, 128],nan>"
    assert descriptors.parse(text) == ("fp16", [64, 128], "nan")
    assert descriptors.flat_types(SIG["in_desc"]) == ["*fp32", "i32", "i32", "i64", "i64", "*i8"]
    assert descriptors.aligned_arguments(SIG["in_desc"]) == {0, 2, 3}
    assert descriptors.parse("*fp32") is None


@pytest.mark.parametrize("arch", [80, 90])
def test_descriptor_arguments_compile_through_ptxas(arch):
    k = triton.compile(add_one_blocks, SIG, {"BLOCK_M": 16, "BLOCK_N": 32},
                       target=f"cuda:{arch}", divisible_by_16=set(SIG))
    ttir = k.asm["ttir"]
    assert ttir.count('"tt.make_tensor_descriptor"') == 2
    # six arguments per descriptor; each aligned one's base pointer, row length and row
    # stride claim divisibility by 16, and its make_tensor_descriptor names its
    # CUtensorMap argument
    header = next(line for line in ttir.splitlines() if "func.func" in line)
    assert header.count("tt.divisibility") == 6 and header.count("i64") == 4
    assert header.count("!tt.ptr<i8") == 2
    assert "tt.tensormap = 5 : i32" in ttir and "tt.tensormap = 11 : i32" in ttir
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_specialization_of_a_host_descriptor():
    torch = pytest.importorskip("torch")
    from tritonc.runtime.gpu_launch import specialize

    aligned = TensorDescriptor.from_tensor(torch.empty(40, 64, device="meta"), [16, 32])
    rows_apart_70 = TensorDescriptor.from_tensor(torch.empty(40, 70, device="meta"), [16, 32])
    bound = add_one_blocks.bind((aligned, rows_apart_70), {"BLOCK_M": 16, "BLOCK_N": 32})
    signature, constexprs, divisible = specialize(add_one_blocks, bound)
    assert signature == SIG and divisible == {"in_desc"}
    assert constexprs == {"BLOCK_M": 16, "BLOCK_N": 32}
    assert descriptors.is_aligned(aligned) and not descriptors.is_aligned(rows_apart_70)


def test_tma_boxes_of_blocks():
    """Rows of 32, 64 or 128 bytes are one box each; wider rows are cut into 128-byte
    column blocks; blocks of other rows, over 256 rows or not 2-D take no box."""
    assert descriptors.tma_box(2, [128, 64]) == ([64, 128], 128)
    assert descriptors.tma_box(2, [64, 256]) == ([64, 64], 128)
    assert descriptors.tma_box(1, [128, 64]) == ([64, 128], 64)
    assert descriptors.tma_box(4, [64, 8]) == ([8, 64], 32)
    assert descriptors.tma_box(2, [64, 8]) is None  # 16-byte rows
    assert descriptors.tma_box(2, [512, 64]) is None
    assert descriptors.tma_box(2, [8, 64, 64]) is None


@pytest.mark.gpu
@pytest.mark.parametrize("m,n", [(40, 70), (16, 32), (33, 100)])
def test_loads_and_stores_through_host_descriptors(m, n):
    import torch

    x = torch.randn(m, n + 5, device="cuda")[:, :n]  # rows 4 * (n + 5) bytes apart
    out = torch.full((m, n), float("nan"), device="cuda")
    grid = (triton.cdiv(m, 16), triton.cdiv(n, 32))
    add_one_blocks[grid](TensorDescriptor(x, list(x.shape), list(x.stride()), [16, 32]),
                         TensorDescriptor.from_tensor(out, [16, 32]), BLOCK_M=16, BLOCK_N=32)
    torch.testing.assert_close(out, x + 1)


@triton.jit
def copy_block(in_desc, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N
    tl.store(out_ptr + rows + tl.arange(0, BLOCK_N)[None, :], in_desc.load([0, 0]))


def test_nan_padding_reads_nan_outside_the_tensor():
    """A descriptor with padding="nan" fills what lies outside its tensor with NaN (not
    zeros): the constant the masked-off lanes take."""
    k = triton.compile(copy_block, {"in_desc": "tensordesc<fp32[16, 32],nan>",
                                    "out_ptr": "*fp32"}, {"BLOCK_M": 16, "BLOCK_N": 32},
                       target="cuda:90")
    assert 'padding = "nan"' in k.asm["ttir"]
    nan = ("0f7FC00000", str(0x7FC00000))  # the fill as a float or as its bits
    assert any(text in k.asm["ptx"] for text in nan)
    zero = triton.compile(copy_block, {"in_desc": "tensordesc<fp32[16, 32]>",
                                       "out_ptr": "*fp32"}, {"BLOCK_M": 16, "BLOCK_N": 32},
                          target="cuda:90")
    assert not any(text in zero.asm["ptx"] for text in nan)


@pytest.mark.gpu
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_padding_on_the_gpu(padding):
    import torch

    x = torch.randn(10, 20, device="cuda")
    out = torch.full((16, 32), 7.0, device="cuda")
    copy_block[(1,)](TensorDescriptor.from_tensor(x, [16, 32], padding), out,
                     BLOCK_M=16, BLOCK_N=32)
    expect = torch.full((16, 32), float("nan") if padding == "nan" else 0.0, device="cuda")
    expect[:10, :20] = x
    torch.testing.assert_close(out, expect, equal_nan=True)


class _DeviceTensor:
    """Stands for a CUDA tensor: an address, an element size, a device."""

    def __init__(self, address: int, element_size: int) -> None:
        import types

        self.address, self.size = address, element_size
        self.device = types.SimpleNamespace(type="cuda", index=0)

    def data_ptr(self) -> int:
        return self.address

    def element_size(self) -> int:
        return self.size


def test_tensor_maps_are_encoded_with_the_kernels_box_and_swizzle(monkeypatch):
    """The driver is asked for the map of an aligned descriptor, dimensions innermost
    first, byte strides of the outer ones, the box and swizzle `tma_box` gives the
    kernel's ring; once per tensor and block. Unaligned or NaN-padded descriptors, and
    devices before sm_90, get 0."""
    from tritonc.runtime import tensormap

    calls = []

    class FakeDriver:
        def encode_tiled(self, data_type, address, dims, strides, box, swizzle):
            calls.append((data_type, address, dims, strides, box, swizzle))
            return bytes(range(128))

    import tritonc.runtime.driver as driver_mod

    monkeypatch.setattr(driver_mod, "get_driver", lambda: FakeDriver())
    monkeypatch.setattr(tensormap, "_on_device", lambda raw, device: ("buffer", raw))
    monkeypatch.setattr(tensormap, "_TMA_DEVICES", {0: True})
    monkeypatch.setattr(tensormap, "_MAPS", type(tensormap._MAPS)())
    base = _DeviceTensor(0x7000_0000, 2)
    desc = TensorDescriptor(base, [300, 4096], [4096, 1], [64, 256])
    assert tensormap.device_tensormap(desc) == ("buffer", bytes(range(128)))
    assert tensormap.device_tensormap(desc)[0] == "buffer"
    assert calls == [(1, 0x7000_0000, [4096, 300], [8192], [64, 64], 3)]
    fp8 = TensorDescriptor(_DeviceTensor(0x7000_0000, 1), [300, 4096], [4096, 1], [128, 64])
    tensormap.device_tensormap(fp8)
    assert calls[-1] == (0, 0x7000_0000, [4096, 300], [4096], [64, 128], 2)
    assert tensormap.device_tensormap(TensorDescriptor(base, [300, 4000], [4004, 1],
                                                       [64, 256])) == 0
    assert tensormap.device_tensormap(TensorDescriptor(base, [300, 4096], [4096, 1],
                                                       [64, 256], "nan")) == 0
    monkeypatch.setattr(tensormap, "_TMA_DEVICES", {0: False})
    assert tensormap.device_tensormap(TensorDescriptor(base, [64, 64], [64, 1], [64, 64])) == 0
    assert len(calls) == 2
