"""`tritonc.reinterpret`: a tensor's bytes as another element type, in the interpreter,
in the specialization of a GPU launch, through ptxas, and on the GPU."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

torch = pytest.importorskip("torch")


@triton.jit
def increment(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def test_wrapper_and_unwrapping():
    x = torch.arange(6, dtype=torch.int32)
    w = triton.reinterpret(x, tl.uint32)
    assert w.dtype is tl.uint32 and w.data_ptr() == x.data_ptr() and w.shape == x.shape
    assert triton.reinterpret(w, tl.int16).base is x
    with pytest.raises(TypeError, match="torch tensor"):
        triton.reinterpret([1, 2], tl.uint8)


def test_uint32_wraps_around_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = torch.tensor(np.array([0, 7, -1, -2, 5], dtype=np.int32))  # -1 is 2**32 - 1
    y = torch.full((5,), 99, dtype=torch.int32)
    increment[(1,)](triton.reinterpret(x, tl.uint32), triton.reinterpret(y, tl.uint32), 5,
                    BLOCK=8)
    assert y.numpy().view(np.uint32).tolist() == [1, 8, 0, 2**32 - 1, 6]


def test_specialization_takes_the_language_dtype():
    from tritonc.runtime.gpu_launch import specialize

    x = triton.reinterpret(torch.empty(64, dtype=torch.int8, device="meta"), tl.float8e4nv)
    signature, constexprs, divisible = specialize(increment, increment.bind((x, x, 64),
                                                                            {"BLOCK": 64}))
    assert signature == {"x_ptr": "*fp8e4nv", "y_ptr": "*fp8e4nv", "n": "i32"}
    k = triton.compile(increment, signature, constexprs, target="cuda:90",
                       divisible_by_16=divisible)
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
def test_uint32_on_the_gpu():
    x = torch.tensor([0, 7, -1, -2, 5], dtype=torch.int32, device="cuda")
    y = torch.full((5,), 99, dtype=torch.int32, device="cuda")
    increment[(1,)](triton.reinterpret(x, tl.uint32), triton.reinterpret(y, tl.uint32), 5,
                    BLOCK=8)
    assert y.cpu().numpy().view(np.uint32).tolist() == [1, 8, 0, 2**32 - 1, 6]
