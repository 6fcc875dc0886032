"""Tensor descriptors in the interpreter: host `TensorDescriptor` arguments, padding,
the descriptor's attributes, gather and scatter; `set_allocator`."""

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.allocation import get_allocator
from tritonc.tools.tensor_descriptor import TensorDescriptor


@triton.jit(interpret=True)
def host_desc_copy(desc, out_ptr, OUT_N: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    block = desc.load([m0, n0])
    rows = m0 + tl.arange(0, BM)
    cols = n0 + tl.arange(0, BN)
    tl.store(out_ptr + rows[:, None] * OUT_N + cols[None, :], block)


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_host_descriptor_loads_with_padding(padding):
    rng = np.random.default_rng(5)
    x = torch.from_numpy(rng.standard_normal((37, 45)).astype(np.float32))
    out = torch.full((48, 48), -3.0)
    desc = TensorDescriptor.from_tensor(x, [16, 16], padding=padding)
    host_desc_copy[(3, 3)](desc, out, 48, 16, 16)
    fill = float("nan") if padding == "nan" else 0.0
    expect = torch.full((48, 48), fill)
    expect[:37, :45] = x
    torch.testing.assert_close(out, expect, equal_nan=True, rtol=0, atol=0)


@triton.jit(interpret=True)
def device_desc(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN],
                                     padding_option="nan")
    tl.device_assert(desc.shape[0] == M)
    tl.device_assert(desc.strides[0] == N)
    tl.static_assert(desc.block_shape == [BM, BN])
    tl.static_assert(desc.dtype == tl.float32)
    block = desc.load([BM, 0])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], block)


def test_device_descriptor_attributes_and_nan_padding():
    x = torch.from_numpy(np.random.default_rng(6).standard_normal((12, 8)).astype(np.float32))
    out = torch.zeros(8, 16)
    device_desc[(1,)](x, out, 12, 8, 8, 16)
    expect = torch.full((8, 16), float("nan"))
    expect[:4, :8] = x[8:12]
    torch.testing.assert_close(out, expect, equal_nan=True, rtol=0, atol=0)


@triton.jit(interpret=True)
def gather_rows(in_ptr, idx_ptr, out_ptr, y, X, Y, BX: tl.constexpr, BY: tl.constexpr):
    desc = tl.make_tensor_descriptor(in_ptr, [X, Y], [Y, 1], [1, BY])
    rows = tl.load(idx_ptr + tl.arange(0, BX))
    tile = desc.gather(rows, y)
    tl.store(out_ptr + tl.arange(0, BX)[:, None] * BY + tl.arange(0, BY)[None, :], tile)


@triton.jit(interpret=True)
def scatter_rows(in_ptr, idx_ptr, out_ptr, y, X, Y, BX: tl.constexpr, BY: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, [X, Y], [Y, 1], [1, BY])
    rows = tl.load(idx_ptr + tl.arange(0, BX))
    tile = tl.load(in_ptr + tl.arange(0, BX)[:, None] * BY + tl.arange(0, BY)[None, :])
    desc.scatter(tile, rows, y)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_gather_and_scatter_rows(device, monkeypatch):
    for kernel in (gather_rows, scatter_rows):
        monkeypatch.setattr(kernel, "interpret", device == "cpu")
    rng = np.random.default_rng(7)
    X, Y, BX, BY, y = 30, 50, 16, 32, 24  # columns y..y+32 run past Y
    src = torch.from_numpy(rng.standard_normal((X, Y)).astype(np.float32))
    idx = rng.integers(0, X, BX).astype(np.int32)
    idx[3] = X  # a row past the tensor reads zeros
    out = torch.full((BX, BY), -5.0)
    src_d, idx_d, out_d = (t.to(device) for t in (src, torch.from_numpy(idx), out))
    gather_rows[(1,)](src_d, idx_d, out_d, y, X, Y, BX, BY)
    expect = torch.zeros(BX, BY)
    inside = idx < X
    expect[torch.from_numpy(inside), :Y - y] = src[idx[inside], y:]
    torch.testing.assert_close(out_d.cpu(), expect, rtol=0, atol=0)

    perm = torch.from_numpy(rng.permutation(X)[:BX].astype(np.int32))
    tile = torch.from_numpy(rng.standard_normal((BX, BY)).astype(np.float32))
    dst = torch.full((X, Y), -5.0)
    dst_d = dst.to(device)
    scatter_rows[(1,)](tile.to(device), perm.to(device), dst_d, y, X, Y, BX, BY)
    expect = torch.full((X, Y), -5.0)
    expect[perm.long(), y:] = tile[:, :Y - y]
    torch.testing.assert_close(dst_d.cpu(), expect, rtol=0, atol=0)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("kernel", [gather_rows, scatter_rows], ids=["gather", "scatter"])
def test_gather_and_scatter_compile(kernel, arch):
    """Compiled, the row indices reach every register through shared memory and each
    element is one predicated access, bounded on both dimensions."""
    sig = {"in_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32", "y": "i32", "X": "i32",
           "Y": "i32"}
    k = triton.compile(kernel, sig, {"BX": 16, "BY": 32}, target=f"cuda:{arch}",
                       divisible_by_16={"in_ptr", "idx_ptr", "out_ptr", "Y"})
    ptx = k.asm["ptx"]
    assert k.asm["cubin"][:4] == b"\x7fELF"
    assert "st.shared.b32" in ptx and "ld.shared.b32" in ptx and "bar.sync" in ptx
    access = "ld.global.b32" if kernel is gather_rows else "st.global.b32"
    indices = 1 if kernel is gather_rows else 0  # the gather's index load is scalar too
    assert ptx.count(access) == 16 * 32 // 128 + indices


def test_gather_needs_a_one_row_block():
    @triton.jit(interpret=True)
    def bad(in_ptr, out_ptr):
        desc = tl.make_tensor_descriptor(in_ptr, [8, 8], [8, 1], [2, 8])
        tl.store(out_ptr + tl.arange(0, 8), tl.sum(desc.gather(tl.arange(0, 8), 0), 1))

    with pytest.raises(triton.CompilationError, match="one row"):
        bad[(1,)](torch.zeros(64), torch.zeros(8))


def test_host_descriptor_checks_its_arguments():
    x = torch.zeros(8, 8)
    with pytest.raises(ValueError, match="contiguous"):
        TensorDescriptor(x, [8, 8], [1, 8], [8, 8])
    with pytest.raises(ValueError, match="padding"):
        TensorDescriptor.from_tensor(x, [8, 8], padding="ones")
    with pytest.raises(ValueError, match="powers of two"):
        TensorDescriptor.from_tensor(x, [8, 6])


def test_set_allocator():
    def alloc(size, alignment, stream):
        return torch.empty(size, dtype=torch.int8)

    triton.set_allocator(alloc)
    assert get_allocator() is alloc
    triton.set_allocator(None)
    assert get_allocator() is None
    with pytest.raises(TypeError, match="callable"):
        triton.set_allocator(42)


@triton.jit
def _narrow_rows(ptr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [8, BN])
    desc.store([0, 0], tl.zeros([8, BN], dtype=ptr.dtype.element_ty))


@pytest.mark.parametrize("ty, bn, ok", [("i32", 2, False), ("i16", 4, False), ("i16", 8, True),
                                        ("fp32", 4, True), ("i8", 8, False)])
def test_compiled_descriptor_rows_need_16_bytes(ty, bn, ok):
    """A descriptor's block row is at least 16 bytes (one TMA box row), checked when the
    kernel is compiled: a narrower one is a CompilationError naming the rule."""
    def compile_it():
        return triton.compile(_narrow_rows, {"ptr": f"*{ty}"}, {"BN": bn}, target="cuda:90")

    if ok:
        assert compile_it().asm["cubin"][:4] == b"\x7fELF"
        return
    with pytest.raises(triton.CompilationError) as info:
        compile_it()
    assert "at least 16 bytes in the last dimension" in str(info.value.__cause__)


@triton.jit
def _copy_1d(out_ptr, a_ptr, shape, strides, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=shape, strides=strides, block_shape=[BLOCK])
    tl.store(out_ptr + tl.arange(0, BLOCK), desc.load([0]))


def test_shape_and_strides_given_as_tuple_arguments():
    """`strides=(1,)` passed as a kernel argument is a tuple of constants (one constexpr)
    once specialised: the descriptor takes it as it takes a runtime tuple."""
    from tritonc.runtime.gpu_launch import specialize

    a = torch.empty(29, dtype=torch.int16, device="meta")
    out = torch.empty(32, dtype=torch.int16, device="meta")
    bound = _copy_1d.bind((out, a, tuple(a.shape), a.stride()), {"BLOCK": 32})
    signature, constexprs, divisible = specialize(_copy_1d, bound)
    assert constexprs["strides"] == (1,)
    kernel = triton.compile(_copy_1d, signature, constexprs, target="cuda:90",
                            divisible_by_16=divisible)
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    src = torch.arange(29, dtype=torch.int16)
    got = torch.full((32,), -1, dtype=torch.int16)
    triton.jit(interpret=True)(_copy_1d.fn)[(1,)](got, src, tuple(src.shape), src.stride(),
                                                 BLOCK=32)
    assert got.tolist() == list(range(29)) + [0, 0, 0]


@triton.jit
def _desc_tile_copy(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([m, n], src.load([m, n]) * 2)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("aligned", [True, False])
def test_descriptor_stores_are_vectors_when_rows_allow(arch, aligned):
    """A descriptor tile is stored 16 bytes at a time when the row length keeps every
    16-byte run inside or outside the bounds together (N divisible by 16), else element
    by element."""
    sig = {"in_ptr": "*fp16", "out_ptr": "*fp16", "M": "i32", "N": "i32"}
    divisible = {"in_ptr", "out_ptr", "N"} if aligned else {"in_ptr", "out_ptr"}
    ptx = triton.compile(_desc_tile_copy, sig, {"BM": 64, "BN": 64}, target=f"cuda:{arch}",
                         divisible_by_16=divisible).asm["ptx"]
    stores = [line for line in ptx.splitlines() if "st.global" in line]
    assert stores
    assert all(("st.global.v4.b32" in line) == aligned for line in stores)


@triton.jit
def remade_in_a_loop(a_ptr, c_ptr, n, BLOCK: tl.constexpr, PAD: tl.constexpr):
    """A descriptor made again inside a loop, under a branch, as persistent kernels do for
    each new tile or batch: later iterations read through the new one."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [n, BLOCK], [BLOCK, 1], [BLOCK, BLOCK],
                                       padding_option=PAD)
    c_desc = tl.make_tensor_descriptor(c_ptr, [4 * BLOCK, BLOCK], [BLOCK, 1], [BLOCK, BLOCK])
    for i in range(4):
        if i == 2:
            a_desc = tl.make_tensor_descriptor(a_ptr + BLOCK * BLOCK, [n - BLOCK, BLOCK],
                                               [BLOCK, 1], [BLOCK, BLOCK], padding_option=PAD)
        c_desc.store([i * BLOCK, 0], a_desc.load([i * BLOCK // 2, 0]))


def _remade_reference(a: torch.Tensor, n: int, fill: float) -> torch.Tensor:
    want = torch.full((64, 16), fill, dtype=torch.float64)
    for i in range(4):
        base, rows = (0, n) if i < 2 else (16, n - 16)
        for r in range(16):
            if i * 8 + r < rows:
                want[i * 16 + r] = a[base + i * 8 + r].double()
    return want


@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_a_descriptor_remade_in_a_loop(pad):
    kernel = triton.JITFunction(remade_in_a_loop.fn, interpret=True)
    a = torch.randn(40, 16)
    c = torch.full((64, 16), -7.0)
    kernel[(1,)](a, c, 40, BLOCK=16, PAD=pad)
    want = _remade_reference(a, 40, 0.0 if pad == "zero" else float("nan"))
    torch.testing.assert_close(c.double(), want, equal_nan=True)
    ttir = triton.compile(remade_in_a_loop, {"a_ptr": "*fp32", "c_ptr": "*fp32", "n": "i32"},
                          {"BLOCK": 16, "PAD": pad}, target="cuda:90").asm["ttir"]
    loop = next(line for line in ttir.splitlines() if "scf.for" in line)
    assert "iter_args" in loop and "!tt.tensordesc" in loop


@pytest.mark.gpu
@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_a_descriptor_remade_in_a_loop_gpu(pad):
    a = torch.randn(40, 16, device="cuda")
    c = torch.full((64, 16), -7.0, device="cuda")
    remade_in_a_loop[(1,)](a, c, 40, BLOCK=16, PAD=pad)
    want = _remade_reference(a.cpu(), 40, 0.0 if pad == "zero" else float("nan"))
    torch.testing.assert_close(c.cpu().double(), want, equal_nan=True)


@triton.jit
def refreshed_every_third_block(a_ptr, M, N, MBLOCK: tl.constexpr, NBLOCK: tl.constexpr):
    """A descriptor made again, from the same operands, on some iterations of a `for` and
    a `while`: the branch folds into a select between two descriptors."""
    rows = MBLOCK * tl.program_id(0)
    desc = tl.make_tensor_descriptor(a_ptr, [M, N], [N, 1], [MBLOCK, NBLOCK])
    for col in range(0, N, NBLOCK):
        if col % (3 * NBLOCK) == 0:
            desc = tl.make_tensor_descriptor(a_ptr, [M, N], [N, 1], [MBLOCK, NBLOCK])
        desc.store([rows, col], desc.load([rows, col]) * 2)
    col = 0
    while col < N:
        if col % (3 * NBLOCK) == 0:
            desc = tl.make_tensor_descriptor(a_ptr, [M, N], [N, 1], [MBLOCK, NBLOCK])
        desc.store([rows, col], desc.load([rows, col]) + 1)
        col += NBLOCK


@pytest.mark.parametrize("arch", [80, 90])
def test_a_descriptor_chosen_by_a_select_compiles(arch):
    k = triton.compile(refreshed_every_third_block, {"a_ptr": "*fp32", "M": "i32", "N": "i32"},
                       {"MBLOCK": 8, "NBLOCK": 64}, target=f"cuda:{arch}",
                       divisible_by_16={"a_ptr", "M", "N"})
    assert k.asm["cubin"][:4] == b"\x7fELF"
    kernel = triton.JITFunction(refreshed_every_third_block.fn, interpret=True)
    a = torch.randn(24, 200)
    want = a.double() * 2 + 1
    kernel[(3,)](a, 24, 200, MBLOCK=8, NBLOCK=64)
    torch.testing.assert_close(a.double(), want)


@pytest.mark.gpu
def test_a_descriptor_chosen_by_a_select_gpu():
    a = torch.randn(24, 200, device="cuda")
    want = a.double() * 2 + 1
    refreshed_every_third_block[(3,)](a, 24, 200, MBLOCK=8, NBLOCK=64)
    torch.testing.assert_close(a.double(), want)
