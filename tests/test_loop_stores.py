"""A loop that stores what its next iteration loads is not pipelined past the store
(software_pipeline: `pointer_bases`); the same loop storing into another tensor is. The
TTGIR on the CPU for sm_90 and sm_80, the products in the interpreter and on the GPU
against float64 steps rounded to fp16 as the kernel rounds them."""

import pytest
import torch
from running_products import running_products

import tritonc

SIG = {"x_ptr": "*fp16", "w_ptr": "*fp16", "out_ptr": "*fp16", "steps": "i32"}
BLOCK_M, BLOCK_K, STEPS = 64, 32, 7


def _loop(arch: int, in_place: bool) -> str:
    kernel = tritonc.compile(running_products, SIG, dict(BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K,
                                                         IN_PLACE=in_place),
                             target=f"cuda:{arch}", num_warps=4, num_stages=3,
                             divisible_by_16={"x_ptr", "w_ptr", "out_ptr"})
    ttgir = kernel.asm["ttgir"]
    return ttgir[ttgir.index("scf.for"):]


@pytest.mark.parametrize("arch", [90, 80])
def test_a_tile_the_loop_stores_is_loaded_in_place(arch):
    loads = [line for line in _loop(arch, True).splitlines() if '"tt.load"' in line]
    assert loads and not any("ttg.pipelined" in line or "ttg.prefetch" in line
                             for line in loads)


@pytest.mark.parametrize("arch", [90, 80])
def test_a_tile_of_another_tensor_is_pipelined(arch):
    loop = _loop(arch, False)
    assert "ttg.pipeline_stages = 3" in loop
    assert any("ttg.pipelined" in line for line in loop.splitlines() if '"tt.load"' in line)


def _operands(device):
    x = torch.zeros((STEPS + 1) * BLOCK_M, BLOCK_K, dtype=torch.float16)
    x[:BLOCK_M] = torch.randn(BLOCK_M, BLOCK_K)
    w = (torch.eye(BLOCK_K) + 0.2 * torch.randn(BLOCK_K, BLOCK_K) / BLOCK_K ** 0.5)
    return x.to(device), w.to(torch.float16).to(device)


def _expected(x, w):
    """Each step's product in float64, rounded to fp16 as the kernel stores it."""
    steps = [x[:BLOCK_M].double()]
    for _ in range(STEPS):
        steps.append((steps[-1] @ w.double()).half().double())
    return torch.cat(steps)


def _run(device, **options):
    torch.manual_seed(7)
    x, w = _operands(device)
    x[BLOCK_M:] = float("nan")
    out = torch.full_like(x, float("nan"))
    running_products[(1,)](x, w, out, STEPS, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, IN_PLACE=True,
                           num_warps=4, num_stages=3, **options)
    return x, w


def test_running_products_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x, w = _run("cpu")
    torch.testing.assert_close(x.double(), _expected(x, w), rtol=2e-3, atol=2e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [90, 80])
def test_running_products_on_the_gpu(arch):
    x, w = _run("cuda", arch=arch)
    torch.testing.assert_close(x.double(), _expected(x, w), rtol=2e-3, atol=2e-3)
