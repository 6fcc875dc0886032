"""`launch_cooperative_grid`: accepted by the interpreter (its programs run in turn); on
the GPU the launch goes through `cuLaunchCooperativeKernel` (every program resident at
once)."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit
def fill(out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs * 2)


@pytest.mark.parametrize("cooperative", [True, False])
def test_interpreter_accepts_the_option(cooperative, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    out = np.full(96, -1, dtype=np.int32)
    fill[(3,)](out, BLOCK=32, launch_cooperative_grid=cooperative)
    assert out.tolist() == list(range(0, 192, 2))


class _Lib:
    """The two launch entry points of the driver, recording their arguments."""

    def __init__(self) -> None:
        self.calls: list = []

    def cuLaunchCooperativeKernel(self, *args) -> int:  # noqa: N802 (the driver's name)
        self.calls.append(("cooperative", args))
        return 0

    def cuLaunchKernel(self, *args) -> int:  # noqa: N802
        self.calls.append(("plain", args))
        return 0


class _Driver:
    def __init__(self) -> None:
        self.lib, self.last_kernel = _Lib(), None

    def kernel_name(self, function: int) -> str:
        return "fill"

    def current_context(self) -> int:
        return 1


def test_a_cooperative_launch_takes_the_cooperative_entry_point():
    from tritonc.runtime.driver import Launcher

    driver = _Driver()
    launcher = Launcher(driver, 0x1234, ["*fp32", "i32"], (128, 1, 1), 64)
    launcher.cooperative((3, 2, 1), 7, 0xDEAD0, 5)
    launcher((3, 2, 1), 7, 0xDEAD0, 5)
    launcher.cooperative((0, 1, 1), 7, 0xDEAD0, 5)  # an empty grid launches nothing
    (kind, args), (plain, _) = driver.lib.calls
    assert kind == "cooperative" and plain == "plain"
    assert args[:9] == (0x1234, 3, 2, 1, 128, 1, 1, 64, 7)
    assert args[9] == launcher.packer.kernel_params and driver.last_kernel == "fill"


@pytest.mark.gpu
def test_cooperative_launch_on_the_gpu():
    import torch

    out = torch.full((96,), -1, dtype=torch.int32, device="cuda")
    fill[(3,)](out, BLOCK=32, launch_cooperative_grid=True)
    assert out.tolist() == list(range(0, 192, 2))
