"""`launch_cooperative_grid`: accepted by the interpreter (its programs run in turn);
refused with a clear error, before anything runs, by the GPU launch path."""

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


def test_gpu_path_refuses_a_cooperative_launch():
    from tritonc.runtime.gpu_launch import launch_on_gpu

    bound = fill.bind((None,), {"BLOCK": 32})
    with pytest.raises(NotImplementedError, match="fill: launch_cooperative_grid=True"):
        launch_on_gpu(fill, (3,), bound, {"launch_cooperative_grid": True}, False)
