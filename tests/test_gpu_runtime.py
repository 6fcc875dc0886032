"""@jit kernels on the GPU: grids, streams, large shared memory, faults that name the kernel."""

import subprocess
import sys
import textwrap

import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit
def grid_ids(out_ptr, nx, ny):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    tl.store(out_ptr + (z * ny + y) * nx + x, x + 10 * y + 100 * z + 1000 * tl.num_programs(2))


@triton.jit
def scale(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


@triton.jit
def transpose_tile(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # a transpose moves the tile through shared memory: R * C * 4 bytes (> 48 KB here)
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(out_ptr + c[:, None] * R + r[None, :], tl.trans(x))


@pytest.mark.gpu
@pytest.mark.parametrize("grid", [(7,), (5, 3), (3, 4, 2)])
def test_grids(grid):
    import torch

    nx, ny, nz = (grid + (1, 1))[:3]
    out = torch.full((nz, ny, nx), -1, dtype=torch.int32, device="cuda")
    grid_ids[grid](out, nx, ny)
    z, y, x = torch.meshgrid(torch.arange(nz), torch.arange(ny), torch.arange(nx),
                             indexing="ij")
    torch.testing.assert_close(out.cpu(), (x + 10 * y + 100 * z + 1000 * nz).int())


@pytest.mark.gpu
def test_grid_callable_and_non_default_stream():
    import torch

    n = 10_000
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(1_000_000)  # our launch is only right if it waits behind this
        x.mul_(2)
        scale[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n, 0.5, BLOCK=256)
    stream.synchronize()
    torch.testing.assert_close(out, x * 0.5)


@pytest.mark.gpu
def test_pinned_host_memory_is_read_and_written_in_place():
    """Pinned host tensors are addressed by the GPU directly: they launch as CUDA tensors
    do (a pageable CPU tensor is refused, tests/test_launch_path.py)."""
    import torch

    n = 3000
    x = torch.randn(n, pin_memory=True)
    out = torch.full((n,), float("nan"), pin_memory=True)
    scale[(triton.cdiv(n, 256),)](x, out, n, -1.5, BLOCK=256)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x * -1.5)


@pytest.mark.gpu
def test_kernel_with_more_than_48_kb_of_shared_memory():
    import torch

    x = torch.randn(128, 128, device="cuda")
    out = torch.full((128, 128), float("nan"), device="cuda")
    transpose_tile[(1,)](x, out, R=128, C=128, num_warps=4)
    torch.testing.assert_close(out, x.T.contiguous())
    compiled = transpose_tile.warmup(x, out, R=128, C=128, num_warps=4)
    assert compiled.metadata["shared"] > 48 * 1024


@pytest.mark.gpu
def test_illegal_address_is_a_cuda_error_naming_the_kernel(tmp_path):
    script = textwrap.dedent("""
        import torch
        import tritonc as triton
        import tritonc.language as tl
        from tritonc.runtime.driver import CudaError, get_driver

        @triton.jit
        def wild_store(x_ptr):
            bad = (x_ptr.to(tl.int64) + (1 << 40)).to(tl.pointer_type(tl.float32))
            tl.store(bad + tl.arange(0, 32), 1.0)

        x = torch.zeros(32, device="cuda")
        wild_store[(1,)](x)
        try:
            get_driver().synchronize()
        except CudaError as e:
            print("CAUGHT", e)
    """)
    path = tmp_path / "fault.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=120)
    assert "CAUGHT" in done.stdout, done.stdout + done.stderr
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in done.stdout and "wild_store" in done.stdout


@pytest.mark.gpu
def test_a_launch_returns_the_compiled_kernel_with_its_code(tmp_path, monkeypatch):
    """`kernel[grid](...)` returns the kernel: its name, metadata and every stage's code."""
    import torch

    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    x = torch.randn(1000, device="cuda")
    out = torch.full_like(x, float("nan"))
    h = scale[(triton.cdiv(1000, 256),)](x, out, 1000, 2.0, BLOCK=256)
    assert h.name == "scale"
    assert ".entry scale" in h.asm["ptx"] and "tt.load" in h.asm["ttgir"]
    assert h.asm["cubin"][:4] == b"\x7fELF"
    assert h.metadata["num_warps"] == 4
    torch.testing.assert_close(out, x * 2)
