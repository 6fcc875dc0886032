"""A tuple argument whose items are all `tl.constexpr` is one constexpr (a block shape
passed at launch, as Triton's tests pass it), and offsets built as `(0,) * ndim`."""

import pytest

import tritonc as triton
import tritonc.language as tl

torch = pytest.importorskip("torch")


@triton.jit
def copy_block(out_ptr, a_ptr, shape, strides, BLOCK_SHAPE):
    desc = tl.make_tensor_descriptor(a_ptr, shape=shape, strides=strides,
                                     block_shape=BLOCK_SHAPE)
    ndim: tl.constexpr = len(BLOCK_SHAPE)
    block = desc.load((0,) * ndim)
    rows = tl.arange(0, BLOCK_SHAPE[0])[:, None] * BLOCK_SHAPE[1]
    tl.store(out_ptr + rows + tl.arange(0, BLOCK_SHAPE[1])[None, :], block)


BLOCK = tuple(tl.constexpr(v) for v in (8, 32))


def test_specialization_makes_the_tuple_a_constexpr():
    from tritonc.runtime.gpu_launch import specialize

    a = torch.empty(5, 29, device="meta")
    out = torch.empty(8, 32, device="meta")
    bound = copy_block.bind((out, a, a.shape, a.stride(), BLOCK), {})
    signature, constexprs, _ = specialize(copy_block, bound)
    assert constexprs == {"BLOCK_SHAPE": (8, 32)}
    assert signature["shape"] == ("i32", "i32") and "BLOCK_SHAPE" not in signature
    k = triton.compile(copy_block, signature, constexprs, target="cuda:90")
    assert k.asm["cubin"][:4] == b"\x7fELF"


def _run(device):
    a = torch.randn(5, 29, device=device)
    out = torch.full((8, 32), float("nan"), device=device)
    copy_block[(1,)](out, a, a.shape, a.stride(), BLOCK)
    expect = torch.zeros(8, 32)
    expect[:5, :29] = a.cpu()
    torch.testing.assert_close(out.cpu(), expect)


def test_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    _run("cpu")


@pytest.mark.gpu
def test_gpu():
    _run("cuda")
