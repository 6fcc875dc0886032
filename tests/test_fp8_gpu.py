"""fp8 on the GPU: the kernels of fp8_cases.py compiled for the current device give the
interpreter's results bit for bit (and the numpy reference's); the dot, whose additions
may run in another order, matches both to fp32 rounding."""

from __future__ import annotations

import fp8_cases as C
import numpy as np
import pytest
import torch

NAMES = list(C.FORMATS)


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _both(monkeypatch, launch, inputs: list[torch.Tensor], outputs: list[torch.Tensor]):
    """Outputs of `launch(*inputs, *outputs)` compiled on the GPU and interpreted on the
    CPU (outputs poisoned in both), as CPU tensors: (gpu, interpreter)."""
    gpu_in = [t.cuda() for t in inputs]
    gpu_out = [t.clone().cuda() for t in outputs]
    launch(*gpu_in, *gpu_out)
    torch.cuda.synchronize()
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    cpu_out = [t.clone() for t in outputs]
    launch(*[t.clone() for t in inputs], *cpu_out)
    monkeypatch.delenv("TRITONC_INTERPRET")
    return [t.cpu() for t in gpu_out], cpu_out


def _bits(t: torch.Tensor) -> np.ndarray:
    view = {torch.float32: torch.int32, torch.float16: torch.int16,
            torch.bfloat16: torch.int16, torch.uint8: torch.uint8}[t.dtype]
    return t.view(view).numpy()


def _same_bits(gpu: torch.Tensor, interp: torch.Tensor, fp8_name: str | None = None) -> None:
    if fp8_name is not None:
        C.same_codes(gpu.numpy(), interp.numpy(), fp8_name)
        return
    nan = torch.isnan(interp.float()).numpy()
    np.testing.assert_array_equal(torch.isnan(gpu.float()).numpy(), nan)
    np.testing.assert_array_equal(_bits(gpu)[~nan], _bits(interp)[~nan])


def _poisoned(shape, dtype) -> torch.Tensor:
    out = torch.empty(shape, dtype=dtype)
    return out.fill_(0xA5) if dtype == torch.uint8 else out.fill_(float("nan"))


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_load_and_convert_on_gpu(monkeypatch, name):
    codes = torch.from_numpy(np.random.default_rng(11).permutation(
        np.tile(np.arange(256, dtype=np.uint8), 2))[:509].copy())
    n = codes.numel()
    outs = [_poisoned(n + 3, t) for t in (torch.float32, torch.float16, torch.bfloat16)]

    def launch(x, *o):
        C.load_convert[(_cdiv(n, C.BLOCK),)](x, *o, n, DT=C.FORMATS[name][0], BLOCK=C.BLOCK)

    gpu, interp = _both(monkeypatch, launch, [codes], outs)
    for g, i in zip(gpu, interp):
        _same_bits(g, i)
        C.same_floats(g[:n], C.decode(codes.numpy(), name))


@pytest.mark.gpu
@pytest.mark.parametrize("wide", list(C.WIDE))
@pytest.mark.parametrize("name", NAMES)
def test_convert_and_store_on_gpu(monkeypatch, name, wide):
    x = C.interesting_inputs(name, wide, np.random.default_rng(12), 300)
    n = x.size

    def launch(src, out):
        C.convert_store[(_cdiv(n, C.BLOCK),)](src, out, n, DT=C.FORMATS[name][0],
                                               BLOCK=C.BLOCK)

    (gpu,), (interp,) = _both(monkeypatch, launch, [torch.from_numpy(x).to(C.WIDE[wide][1])],
                              [_poisoned(n + 5, torch.uint8)])
    _same_bits(gpu, interp, name)
    C.same_codes(gpu[:n].numpy(), C.round_to_codes(x, name), name)
    assert (gpu[n:] == 0xA5).all()


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_constants_and_arithmetic_on_gpu(monkeypatch, name):
    n = 777
    rng = np.random.default_rng(13)
    limit = 16.0 if name != "fp8e4b15" else 1.5
    xc, yc = (torch.from_numpy(C.finite_codes(name, rng, n, limit)) for _ in range(2))

    def arith(x, y, o32, o8):
        C.arithmetic[(_cdiv(n, C.BLOCK),)](x, y, o32, o8, n, DT=C.FORMATS[name][0],
                                           BLOCK=C.BLOCK)

    gpu, interp = _both(monkeypatch, arith, [xc, yc], [_poisoned(n, torch.float32),
                                                        _poisoned(n, torch.uint8)])
    np.testing.assert_allclose(gpu[0].numpy(), interp[0].numpy(), rtol=1e-6, atol=1e-6)
    _same_bits(gpu[1], interp[1], name)

    def consts(o8, o32):
        C.constants[(_cdiv(n, C.BLOCK),)](o8, o32, n, VALUE=-1.25, DT=C.FORMATS[name][0],
                                          BLOCK=C.BLOCK)

    gpu, interp = _both(monkeypatch, consts, [], [_poisoned(n, torch.uint8),
                                                   _poisoned(n, torch.float32)])
    _same_bits(gpu[0], interp[0], name)
    _same_bits(gpu[1], interp[1])


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_dot_on_gpu(monkeypatch, name):
    rng = np.random.default_rng(14)
    m, n, k = C.DOT_SHAPE
    limit = 8.0 if name != "fp8e4b15" else 1.5
    ac = torch.from_numpy(C.finite_codes(name, rng, (m, k), limit))
    bc = torch.from_numpy(C.finite_codes(name, rng, (k, n), limit))
    grid = (_cdiv(m, C.DOT_BLOCK["BM"]), _cdiv(n, C.DOT_BLOCK["BN"]))

    def launch(a, b, c):
        C.dot[grid](a, b, c, m, n, k, DT=C.FORMATS[name][0], **C.DOT_BLOCK)

    (gpu,), (interp,) = _both(monkeypatch, launch, [ac, bc], [_poisoned((m, n), torch.float32)])
    a, b = C.decode(ac.numpy(), name), C.decode(bc.numpy(), name)
    tol = 1e-6 * (np.abs(a) @ np.abs(b)) + 1e-30
    assert np.all(np.abs(gpu.numpy() - a @ b) <= tol)
    assert np.all(np.abs(gpu.numpy() - interp.numpy()) <= 2 * tol)
