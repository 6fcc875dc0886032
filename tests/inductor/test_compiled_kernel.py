"""The CUDA CompiledKernel as Inductor's own launcher code drives it, without a GPU.

A kernel in Inductor's style is compiled for sm_90 through `triton.compile(ASTSource)`;
Inductor's `TritonCompileResult` pickles it (as a compile worker does), unpickles it and
generates its launcher; the launch reaches a recording stand-in for the CUDA driver,
which checks the grid, block, shared memory and the argument list (tensors as device
addresses, constants dropped).
"""

from __future__ import annotations

import pickle
import types

import pytest

torch = pytest.importorskip("torch")


KERNEL_SOURCE = '''
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers


@triton.jit
def triton_poi_fused_relu_scale(in_ptr0, out_ptr0, scale, ks0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex % ks0), xmask)
    tmp1 = triton_helpers.maximum(tmp0 * scale, tl.full([1], 0, tl.int32).to(tl.float32))
    tl.store(out_ptr0 + xindex, tmp1, xmask)
'''


def _kernel_module(tmp_path, source: str = KERNEL_SOURCE):
    path = tmp_path / "kernel_module.py"
    path.write_text(source)
    module = types.ModuleType("kernel_module")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


class FakeLauncher:
    def __init__(self, calls, function, types_, block, shared):
        self.calls, self.function, self.types, self.block, self.shared = (
            calls, function, types_, block, shared)
        self.name = "fake"

    def __call__(self, grid, stream, *args):
        self.calls.append((grid, stream, self.block, self.shared, self.types, args))


class FakeDriver:
    """The few driver calls `cuda_launch.load_runner` makes, recorded."""

    def __init__(self):
        self.calls = []

    def current_context(self, device=0):
        return 1

    def device_attributes(self, device=None):
        return types.SimpleNamespace(max_shared_per_block_optin=232448)

    def load_module(self, image, kernel=None):
        assert image[:4] == b"\x7fELF"
        return 7

    def get_function(self, module, name):
        return 9

    def set_max_dynamic_shared(self, function, nbytes):
        raise AssertionError("a pointwise kernel needs no dynamic shared memory")

    def launcher(self, function, signature, block, shared=0, tensormaps=()):
        assert not tensormaps  # no descriptor made in these kernels
        return FakeLauncher(self.calls, function, list(signature), block, shared)


def test_inductor_launches_a_cuda_kernel(triton, tmp_path, monkeypatch):
    from torch._inductor.runtime.triton_heuristics import TritonCompileResult

    import tritonc.runtime.driver as driver_mod

    fn = _kernel_module(tmp_path).triton_poi_fused_relu_scale
    signature = {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "scale": "fp32", "ks0": "i64",
                 "xnumel": "i32", "XBLOCK": "constexpr"}
    constants = {"XBLOCK": 128}
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    options = {"num_warps": 4, "num_stages": 1, "debug": True, "sanitize_overflow": False,
               "launch_cooperative_grid": False, "launch_pdl": False}
    binary = triton.compile(triton.compiler.ASTSource(fn, signature, constants, attrs),
                            target=triton.backends.compiler.GPUTarget("cuda", 90, 32),
                            options=options)
    assert binary.metadata.num_warps == 4 and binary.n_regs > 0
    assert "ld.global" in binary.asm["ptx"]
    cfg = triton.Config({"XBLOCK": 128}, num_warps=4, num_stages=1)
    compile_meta = {"signature": signature, "constants": dict(constants), "device": 0,
                    "device_type": "cuda", "num_warps": 4, "num_stages": 1}
    inductor_meta = {"grid_type": "Grid1D", "kernel_name": fn.__name__}
    result = TritonCompileResult(binary, cfg, compile_meta, inductor_meta)
    fn.fn, fn.__globals__ = None, None  # what a compile worker does before pickling
    result = pickle.loads(pickle.dumps(result))

    fake = FakeDriver()
    monkeypatch.setattr(driver_mod, "get_driver", lambda: fake)
    monkeypatch.setenv("TRITONC_C_LAUNCHER", "0")
    launcher = result.make_launcher()
    x = torch.randn(300)
    out = torch.full((1000,), float("nan"))
    launcher(x, out, 0.5, 300, 1000, stream=1234)
    assert len(fake.calls) == 1
    grid, stream, block, shared, arg_types, args = fake.calls[0]
    assert grid == (8, 1, 1) and stream == 1234 and block == (128, 1, 1)
    assert shared == binary.shared
    assert arg_types == ["*fp32", "*fp32", "fp32", "i64", "i32"]
    assert args == (x.data_ptr(), out.data_ptr(), 0.5, 300, 1000)
    assert launcher.n_regs == binary.n_regs and launcher.n_spills == binary.n_spills


def test_out_of_resources_is_raised_on_load(triton, tmp_path, monkeypatch):
    import tritonc.runtime.driver as driver_mod

    fn = _kernel_module(tmp_path).triton_poi_fused_relu_scale
    signature = {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "scale": "fp32", "ks0": "i64",
                 "xnumel": "i32", "XBLOCK": "constexpr"}
    binary = triton.compile(triton.compiler.ASTSource(fn, signature, {"XBLOCK": 64}),
                            target=triton.backends.compiler.GPUTarget("cuda", 80, 32),
                            options={"num_warps": 2})
    binary.shared = 300_000
    fake = FakeDriver()
    monkeypatch.setattr(driver_mod, "get_driver", lambda: fake)
    with pytest.raises(triton.runtime.autotuner.OutOfResources, match="shared memory"):
        binary._init_handles()


def _compile_pointwise(triton, tmp_path):
    fn = _kernel_module(tmp_path).triton_poi_fused_relu_scale
    signature = {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "scale": "fp32", "ks0": "i64",
                 "xnumel": "i32", "XBLOCK": "constexpr"}
    constants = {"XBLOCK": 128}
    binary = triton.compile(triton.compiler.ASTSource(fn, signature, constants),
                            target=triton.backends.compiler.GPUTarget("cuda", 90, 32),
                            options={"num_warps": 4, "num_stages": 1})
    compile_meta = {"signature": signature, "constants": constants, "device": 0,
                    "device_type": "cuda", "num_warps": 4, "num_stages": 1}
    return fn, binary, compile_meta


def test_static_launcher_finds_the_cubin(triton, tmp_path, monkeypatch):
    """Inductor's own check for its static CUDA launcher accepts the compiled kernel: the
    cubin lies where it looks, and the parameters it will pass are the kernel's."""
    import torch._inductor.config as config
    from torch._inductor.runtime.hints import HeuristicType
    from torch._inductor.runtime.triton_heuristics import StaticTritonCompileResult

    cache = tmp_path / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    fn, binary, compile_meta = _compile_pointwise(triton, tmp_path)
    with config.patch({"use_static_cuda_launcher": True}):
        static = StaticTritonCompileResult.can_statically_launch(
            binary, {"kernel_name": fn.__name__}, compile_meta, HeuristicType.POINTWISE)
    assert static is not None
    assert static.name == fn.__name__ and static.num_warps == 4
    assert static.arg_tys == "OOfli"  # two pointers, fp32, i64, i32; XBLOCK dropped
    with open(static.cubin_path, "rb") as f:
        assert f.read() == binary.asm["cubin"]
    assert fn.__name__.encode() in binary.asm["cubin"]  # the entry the launcher loads
    assert not [p for p in cache.rglob(".tmp-*")]


def test_unwritable_triton_cache_leaves_the_kernel_run(triton, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(blocker / "cache"))
    _, binary, _ = _compile_pointwise(triton, tmp_path)
    assert binary.asm["cubin"][:4] == b"\x7fELF"


DESCRIPTOR_SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def add_one_blocks(in_desc, out_ptr, n, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None] * n
    tl.store(out_ptr + rows + tl.arange(0, BLOCK)[None, :], in_desc.load([0, 0]) + 1)
'''


def test_a_host_descriptor_reaches_the_kernel_as_its_arguments(triton, tmp_path, monkeypatch):
    """A `TensorDescriptor` argument of a kernel Inductor launches (a user kernel under
    torch.compile) travels as its base, shape, strides and tensor-map address."""
    import tritonc.runtime.driver as driver_mod
    from tritonc.inductor import cuda_launch
    from tritonc.tools.tensor_descriptor import TensorDescriptor

    fn = _kernel_module(tmp_path, DESCRIPTOR_SOURCE).add_one_blocks
    signature = {"in_desc": "tensordesc<fp32[16, 16]>", "out_ptr": "*fp32", "n": "i32",
                 "BLOCK": "constexpr"}
    binary = triton.compile(triton.compiler.ASTSource(fn, signature, {"BLOCK": 16}),
                            target=triton.backends.compiler.GPUTarget("cuda", 90, 32),
                            options={"num_warps": 4})
    fake = FakeDriver()
    monkeypatch.setattr(driver_mod, "get_driver", lambda: fake)
    monkeypatch.setenv("TRITONC_C_LAUNCHER", "0")
    _, _, run = cuda_launch.load_runner(binary)
    x = torch.randn(20, 24)
    out = torch.full((16, 16), float("nan"))
    desc = TensorDescriptor.from_tensor(x, [16, 16])
    run(1, 1, 1, 99, None, None, None, None, None, desc, out, 16, 16)
    grid, stream, _, _, arg_types, args = fake.calls[0]
    assert (grid, stream) == ((1, 1, 1), 99)
    assert arg_types == ["*fp32", "i32", "i32", "i64", "i64", "*i8", "*fp32", "i32"]
    assert args == (x.data_ptr(), 20, 24, 24, 1, 0, out.data_ptr(), 16)
