"""The launch hot path (`launch.py`, `gpu_launch.py`) on the CPU, with a fake compiler.

`_compile_and_load` is replaced by a fake that records each specialization and loads
nothing; kernels launch through a real `Launcher` (and the C launcher when a compiler
is present) over a fake libcuda built from C, so the arguments the driver would get
are checked. The last test prints the Python-side cost of one launch.
"""

from __future__ import annotations

import ctypes
import os
import struct
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.runtime import c_launcher, gpu_launch
from tritonc.runtime.driver import _FORMATS, _PROTOTYPES, Driver
from tritonc.runtime.gpu_launch import CompiledLaunch
from tritonc.runtime.specialization import ConstantItem

FAKE_LIBCUDA = """
#include <stdint.h>
int calls, sizes[16], n_params; unsigned grid[3]; uint64_t stream, params[16];
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned shared, void *s, void **p, void **e) {
    calls++; grid[0] = gx; grid[1] = gy; grid[2] = gz; stream = (uint64_t)(uintptr_t)s;
    for (int i = 0; i < n_params; i++)
        params[i] = sizes[i] == 8 ? *(uint64_t *)p[i] : sizes[i] == 4 ? *(uint32_t *)p[i]
                    : sizes[i] == 2 ? *(uint16_t *)p[i] : *(uint8_t *)p[i];
    return 0;
}
int cuGetErrorName(int c, const char **o) { *o = "E"; return 0; }
int cuGetErrorString(int c, const char **o) { *o = "e"; return 0; }
"""


@triton.jit
def tiny_kernel(a_ptr, b_ptr, c_ptr, d_ptr, n, m, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(d_ptr + offs, tl.load(a_ptr + offs, mask=mask) + m, mask=mask)


class Fake:
    """The fake libcuda, the driver over it, and the specializations compiled."""

    def __init__(self, tmp_path: Path) -> None:
        compiler = c_launcher.find_compiler() or ["cc"]
        (tmp_path / "fake.c").write_text(FAKE_LIBCUDA)
        subprocess.run([*compiler, "-O2", "-shared", "-fPIC", str(tmp_path / "fake.c"), "-o",
                        str(tmp_path / "libfake.so")], check=True)
        self.lib = ctypes.CDLL(str(tmp_path / "libfake.so"))
        for name in ("cuLaunchKernel", "cuGetErrorName", "cuGetErrorString"):
            getattr(self.lib, name).argtypes = _PROTOTYPES[name]
            getattr(self.lib, name).restype = ctypes.c_int
        self.driver = Driver(self.lib)
        self.compiled: list[tuple] = []

    def compile(self, fn, bound: dict, options: dict) -> CompiledLaunch:
        signature, constexprs, divisible = gpu_launch.specialize(fn, bound)
        num_warps = options.get("num_warps", 4)
        self.compiled.append((signature, constexprs, divisible, num_warps))
        self.driver._kernel_names[0x1000] = fn.__name__
        types = gpu_launch._flatten(tuple(signature.values()))
        ctypes.c_int.in_dll(self.lib, "n_params").value = len(types)
        sizes = (ctypes.c_int * 16).in_dll(self.lib, "sizes")
        for i, ty in enumerate(types):
            sizes[i] = 8 if ty.startswith("*") else struct.calcsize("<" + _FORMATS[ty])
        launcher = self.driver.launcher(0x1000, types, (32 * num_warps, 1, 1), 0)
        return CompiledLaunch(launcher, signature, num_warps, {})

    def last(self) -> dict:
        n = ctypes.c_int.in_dll(self.lib, "n_params").value
        return {"calls": ctypes.c_int.in_dll(self.lib, "calls").value,
                "grid": tuple((ctypes.c_uint * 3).in_dll(self.lib, "grid")),
                "stream": ctypes.c_uint64.in_dll(self.lib, "stream").value,
                "params": list((ctypes.c_uint64 * 16).in_dll(self.lib, "params"))[:n]}


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fake:
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    fake = Fake(tmp_path)
    monkeypatch.setattr(gpu_launch, "_compile_and_load", fake.compile)
    monkeypatch.setattr(gpu_launch, "_check_devices", lambda fn, bound: None)
    monkeypatch.setattr(gpu_launch, "stream_functions", lambda: (lambda device: 0x5, lambda: 0))
    for kernel in (tiny_kernel, mixed_kernel, typed_kernel, nested_kernel,
                   descriptor_kernel):
        for name in ("_fast_kernels", "_gpu_kernels", "_grid_launchers"):
            kernel.__dict__.pop(name, None)
    return fake


def tensors(dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    return [torch.zeros(64, dtype=dtype) for _ in range(4)]


def test_key_changes_only_with_the_specialization(fake: Fake) -> None:
    t = tensors()
    for n in (100, 101, 102, 100):  # same dtype, alignment and int classes
        tiny_kernel[(1,)](*t, n, 3, BLOCK=128)
    assert len(fake.compiled) == 1
    assert fake.compiled[0][2] == {"a_ptr", "b_ptr", "c_ptr", "d_ptr"}
    changes = [
        (tensors(torch.float16), 100, 3, 128, 4),  # dtype
        ([t[0][1:], *t[1:]], 100, 3, 128, 4),  # a_ptr not 16-byte aligned
        (t, 112, 3, 128, 4),  # n divisible by 16
        (t, 100, 1, 128, 4),  # m == 1
        (t, 100, 2**40, 128, 4),  # m is an i64
        (t, 100, 2**63, 128, 4),  # m is a u64
        (t, 100, 3, 64, 4),  # BLOCK
        (t, 100, 3, 128, 8),  # num_warps
    ]
    for i, (ts, n, m, block, warps) in enumerate(changes):
        tiny_kernel[(1,)](*ts, n, m, BLOCK=block, num_warps=warps)
        tiny_kernel[(1,)](*ts, n + 1 if n != 112 else 128, m, BLOCK=block, num_warps=warps)
        assert len(fake.compiled) == 2 + i, changes[i]
    signatures = [c[0] for c in fake.compiled]
    assert signatures[3]["m"] == "i32" and "m" not in signatures[4]
    assert signatures[5]["m"] == "i64" and signatures[6]["m"] == "u64"
    assert [c[1]["BLOCK"] for c in fake.compiled] == [128] * 7 + [64, 128]


def test_compile_options_are_part_of_the_key(fake: Fake) -> None:
    t = tensors()
    for options in ({}, {"enable_fp_fusion": False}, {"num_stages": 2}, {"maxnreg": 128}, {}):
        for n in (100, 101):
            tiny_kernel[(1,)](*t, n, 3, BLOCK=128, **options)
    assert len(fake.compiled) == 4


def test_one_specialization_table_for_runtime_aot_dispatcher_and_frontend() -> None:
    """A call's runtime specialization, written as an AOT signature with the table's
    suffixes, parses back to the same specialization; the C dispatcher's conditions hold
    for the call's values; the frontend marks exactly the divisible arguments."""
    import random

    from tritonc.aot.cgen import _condition
    from tritonc.aot.spec import parse_signature
    from tritonc.runtime import specialization

    rng = random.Random(12)
    for _ in range(20):
        t = [torch.zeros(64)[rng.choice([0, 0, 1]):] for _ in range(4)]
        n = rng.choice([1, 16, 48, 17, rng.randrange(2, 2**31)])
        m = rng.choice([1, 32, 33, rng.randrange(2, 2**31)])
        bound = tiny_kernel.bind((*t, n, m), {"BLOCK": 64})
        signature, constexprs, divisible = gpu_launch.specialize(tiny_kernel, bound)
        entries = []
        for p in tiny_kernel.params[:-1]:
            if p.name in signature:
                entries.append(specialization.signature_text(signature[p.name],
                                                             p.name in divisible))
            else:
                entries.append("i32" + specialization.EQUAL_TO_1.suffix)
        spec = parse_signature(tiny_kernel, ",".join(entries), {"BLOCK": 64})
        assert spec.signature == signature and set(spec.divisible) == divisible
        assert {k: v for k, v in spec.constexprs.items() if k != "BLOCK"} == \
            {k: v for k, v in constexprs.items() if k != "BLOCK"}
        values = {name: v.data_ptr() if hasattr(v, "data_ptr") else v
                  for name, v in bound.items()}
        for name, kind, value in spec.conditions():
            assert eval(_condition(name, kind, value, spec.signature.get(name, "i32")), {},
                        values)
        ttir = triton.compile(tiny_kernel, signature, constexprs,
                              divisible_by_16=divisible).asm["ttir"]
        start = ttir.index("func.func")
        header = ttir[start:ttir.index("{\n", start)]
        assert header.count(f"{specialization.DIVISIBILITY_ATTR} = 16") == len(divisible)
    for v in [rng.randrange(-(2**31), 2**31) for _ in range(200)] + [0, 1, 16, -16, 2**31 - 1]:
        assert eval(specialization.int_key_expr("v"), {}, {"v": v}) == \
            specialization.int_class(v)


def test_arguments_grid_and_stream_reach_the_driver(fake: Fake) -> None:
    t = tensors()
    tiny_kernel[(3, 2)](*t, 100, 1, BLOCK=128)  # m == 1 is a constant: not passed
    tiny_kernel[(3, 2)](*t, 100, 1, BLOCK=128)
    assert fake.last() == {"calls": 2, "grid": (3, 2, 1), "stream": 5,
                           "params": [x.data_ptr() for x in t] + [100]}
    tiny_kernel[lambda meta: (meta["n"] // meta["BLOCK"], 1, 7)](*t, 1000, 9, BLOCK=128,
                                                                   stream=0x77)
    assert fake.last() == {"calls": 3, "grid": (7, 1, 7), "stream": 0x77,
                           "params": [x.data_ptr() for x in t] + [1000, 9]}
    assert tiny_kernel.__dict__["_fast_kernels"]  # later calls take the hot path
    assert tiny_kernel[(3, 2)] is tiny_kernel[(3, 2)]


def test_maps_of_descriptors_follow_the_arguments_on_both_paths(
        fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel whose launch encodes tensor maps (metadata `tensormaps`): its `Launcher`
    appends each map's address, made from the flat arguments of that launch, on the
    first (generic) launch and on the hot path after it; a constant argument takes no
    slot in either."""
    from tritonc.runtime import tensormap

    recipe = {"map": 5, "base": 1, "shape": ["%4", "64"], "strides": ["64", "1"],
              "block": [64, 64], "element_bytes": 4}
    seen = []

    def launch_maps(recipes, args):
        seen.append(tuple(args))
        return [0xA000 + args[recipes[0]["base"]] % 0x1000]

    def compile_with_maps(fn, bound: dict, options: dict) -> CompiledLaunch:
        compiled = fake.compile(fn, bound, options)
        types = list(compiled.launcher.packer.signature)
        n = ctypes.c_int.in_dll(fake.lib, "n_params")
        (ctypes.c_int * 16).in_dll(fake.lib, "sizes")[n.value] = 8
        n.value += 1
        launcher = fake.driver.launcher(0x1000, types, compiled.launcher.block, 0, [recipe])
        return CompiledLaunch(launcher, compiled.signature, compiled.num_warps,
                              {"tensormaps": [recipe]})

    monkeypatch.setattr(gpu_launch, "_compile_and_load", compile_with_maps)
    monkeypatch.setattr(tensormap, "launch_maps", launch_maps)
    t = tensors()
    flat = [x.data_ptr() for x in t] + [100]
    for calls in (1, 2, 3):
        tiny_kernel[(3, 1)](*t, 100, 1, BLOCK=128)  # m == 1: a constant, no slot
        assert fake.last() == {"calls": calls, "grid": (3, 1, 1), "stream": 5,
                               "params": flat + [0xA000 + flat[1] % 0x1000]}
        assert seen[-1] == tuple(flat)
    assert tiny_kernel.__dict__["_fast_kernels"]  # the later calls took the hot path
    tiny_kernel[(0, 1)](*t, 100, 1, BLOCK=128)  # nothing launched, no map made
    assert len(seen) == 3


def test_generic_path_for_keywords_tuples_and_interpreter(fake: Fake,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    t = tensors()
    result = tiny_kernel[(1,)](a_ptr=t[0], b_ptr=t[1], c_ptr=t[2], d_ptr=t[3], n=100, m=3,
                               BLOCK=128)
    assert isinstance(result, CompiledLaunch)
    assert fake.last()["params"] == [x.data_ptr() for x in t] + [100, 3]
    seen = []
    import tritonc.backends.interpreter.launch as interpreter

    monkeypatch.setattr(interpreter, "interpret", lambda fn, grid, bound, *_: seen.append(grid))
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    tiny_kernel[(2,)](*t, 100, 3, BLOCK=128)
    monkeypatch.setattr(tiny_kernel, "interpret", True)
    monkeypatch.setenv("TRITONC_INTERPRET", "0")
    tiny_kernel[(2,)](*t, 100, 3, BLOCK=128)
    assert seen == [(2, 1, 1), (2, 1, 1)]
    assert fake.last()["calls"] == 1


def test_clear_errors(fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    t = tensors()
    tiny_kernel[(1,)](*t, 100, 3, BLOCK=128)
    with pytest.raises(TypeError, match="missing the constexpr argument 'BLOCK'"):
        tiny_kernel[(1,)](*t, 100, 3)
    with pytest.raises(TypeError, match="missing the argument 'm'"):
        tiny_kernel[(1,)](*t, 100, BLOCK=128)
    with pytest.raises(TypeError, match="unexpected argument 'BLOKC'"):
        tiny_kernel[(1,)](*t, 100, 3, BLOKC=128)
    with pytest.raises(TypeError, match="takes 7 arguments but 8 were given"):
        tiny_kernel[(1,)](*t, 100, 3, 128, 5)
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        tiny_kernel[(1,)](*t, 100, 3, n=128)
    with pytest.raises(ValueError, match="must not be negative"):
        tiny_kernel[(-1,)](*t, 100, 3, BLOCK=128)
    with pytest.raises(OverflowError, match="argument 'm' of tiny_kernel"):
        tiny_kernel[(1,)](*t, 100, 2**64 + 5, BLOCK=128)
    monkeypatch.undo()
    for name in ("_fast_kernels", "_gpu_kernels", "_grid_launchers"):
        tiny_kernel.__dict__.pop(name, None)
    with pytest.raises(ValueError, match="is on cpu; a GPU launch needs CUDA tensors"):
        tiny_kernel[(1,)](*t, 100, 3, BLOCK=128)


def test_pinned_host_tensors_pass_the_device_check() -> None:
    """Pinned host memory is addressed by the GPU directly (run on the GPU in
    tests/test_gpu_runtime.py); pageable host memory is refused."""
    from tritonc.runtime.gpu_launch import _check_devices

    class Host:
        device = torch.device("cpu")

        def __init__(self, pinned: bool) -> None:
            self.pinned = pinned

        def is_pinned(self) -> bool:
            return self.pinned

    _check_devices(tiny_kernel, {"a_ptr": Host(True), "n": 3})
    with pytest.raises(ValueError, match="argument 'a_ptr' of tiny_kernel is on cpu"):
        _check_devices(tiny_kernel, {"a_ptr": Host(False), "n": 3})


@triton.jit
def descriptor_kernel(x_desc, out_ptr, n, y_desc, BLOCK: tl.constexpr):
    tile = x_desc.load([0, 0])
    y_desc.store([0, 0], tile)
    tl.store(out_ptr + tl.arange(0, BLOCK), n)


def test_host_descriptors_take_the_hot_path(fake: Fake) -> None:
    """Host `TensorDescriptor` arguments: after the first (generic) launch the hot path
    takes the call, and the driver gets the same arguments: each descriptor's base,
    shape (i32), strides (i64) and CUtensorMap address (0 off the GPU), the scalar 1
    a constant with no slot. A descriptor of another dtype or alignment is a new key."""
    from tritonc.tools.tensor_descriptor import TensorDescriptor

    x, y = torch.zeros(64, 48), torch.zeros(32, 64)
    out = torch.zeros(16)
    descs = [TensorDescriptor.from_tensor(t, [16, 16]) for t in (x, y)]
    flat = [x.data_ptr(), 64, 48, 48, 1, 0, out.data_ptr(), y.data_ptr(), 32, 64, 64, 1, 0]
    for calls in (1, 2, 3):
        descriptor_kernel[(2,)](descs[0], out, 1, descs[1], BLOCK=16)
        assert fake.last() == {"calls": calls, "grid": (2, 1, 1), "stream": 5, "params": flat}
    assert len(fake.compiled) == 1 and descriptor_kernel.__dict__["_fast_kernels"]
    half = TensorDescriptor.from_tensor(torch.zeros(64, 48, dtype=torch.float16), [16, 16])
    descriptor_kernel[(2,)](half, out, 1, descs[1], BLOCK=16)
    odd = TensorDescriptor.from_tensor(torch.zeros(64, 40), [16, 8])
    descriptor_kernel[(2,)](odd, out, 1, descs[1], BLOCK=16)
    assert len(fake.compiled) == 3
    assert fake.last()["params"][:6] == [odd.base.data_ptr(), 64, 40, 40, 1, 0]
    with pytest.raises(OverflowError, match="argument 'n' of descriptor_kernel"):
        descriptor_kernel[(2,)](descs[0], out, 2**64 + 5, descs[1], BLOCK=16)


@triton.jit(do_not_specialize=["s"])
def mixed_kernel(x_ptr, pair, s, scale, flag, maybe, K: tl.constexpr = 4):
    pass


def test_tuples_scalars_defaults_and_do_not_specialize(fake: Fake) -> None:
    t, u = tensors()[:2]
    bits = struct.unpack("<I", struct.pack("<f", 2.5))[0]
    for _ in range(2):  # a tuple argument: the generic path, flattened
        mixed_kernel[(1,)](t, (u, 5), 16, 2.5, True, None)
        assert fake.last()["params"] == [t.data_ptr(), u.data_ptr(), 5, 16, bits, 1]
    assert not mixed_kernel.__dict__.get("_fast_kernels")
    for s in (16, 1, 17):  # `s` is not specialized: one compilation for all three
        for _ in range(2):
            mixed_kernel[(1,)](t, 7, s, 2.5, False, None, K=tl.constexpr(8))
            assert fake.last()["params"] == [t.data_ptr(), 7, s, bits, 0]
    assert len(fake.compiled) == 2
    assert fake.compiled[1][1] == {"maybe": None, "K": 8}
    assert len(mixed_kernel.__dict__["_fast_kernels"]) == 1


@triton.jit
def typed_kernel(x_ptr, a: tl.int8, b: tl.uint16, h: tl.float16, g: tl.bfloat16,
                 flag: tl.int1, n: int):
    pass


def test_annotated_scalars_reach_the_driver_as_their_types(fake: Fake) -> None:
    t = tensors()[0]
    rng = np.random.default_rng(5)
    for _ in range(3):  # the generic path first, then the hot path, one compilation
        a, b = int(rng.integers(-128, 128)), int(rng.integers(0, 65536))
        h, g = (float(v) for v in rng.standard_normal(2) * 50)
        flag = int(rng.integers(2, 100))
        typed_kernel[(1,)](t, a, b, h, g, flag, 1)
        brain = int(np.array([g], np.float32).view(np.uint32)[0])
        assert fake.last()["params"] == [
            t.data_ptr(), a & 0xFF, b, int(np.array([h], np.float16).view(np.uint16)[0]),
            (brain + 0x7FFF + ((brain >> 16) & 1)) >> 16, 1]
    assert len(fake.compiled) == 1
    signature, constexprs, _, _ = fake.compiled[0]
    assert signature == {"x_ptr": "*fp32", "a": "i8", "b": "u16", "h": "fp16", "g": "bf16",
                         "flag": "i1"}
    assert constexprs == {"n": 1}
    assert typed_kernel.__dict__["_fast_kernels"]


@triton.jit
def nested_kernel(x_ptr, items, f, n):
    pass


def _same_name(k: int):
    K = tl.constexpr(k)

    @triton.jit
    def helper(x):
        return x + K

    return helper


def test_constant_items_of_tuples_take_no_argument(fake: Fake) -> None:
    t, u = tensors()[:2]
    bits = struct.unpack("<I", struct.pack("<f", 2.5))[0]
    first, second = _same_name(1), _same_name(2)
    for f in (first, first, second):
        nested_kernel[(1,)](t, (u, (7, None, 1, tl.constexpr(4)), 2.5), f, 100)
        assert fake.last()["params"] == [t.data_ptr(), u.data_ptr(), 7, bits, 100]
    assert len(fake.compiled) == 2  # one per @jit function, though both are `helper`
    signature, constexprs, _, _ = fake.compiled[0]
    assert signature["items"] == ("*fp32", ("i32", ConstantItem(None), ConstantItem(1),
                                            ConstantItem(4)), "fp32")
    assert constexprs == {"f": first}


def test_python_side_cost_per_launch(fake: Fake) -> None:
    """Not a pass/fail check: prints microseconds per launch through the fake driver."""
    t = tensors()
    args = (*t, 100, 3)
    rounds = int(os.environ.get("TRITONC_LAUNCH_BENCH_ROUNDS", "20000"))
    for _ in range(100):
        tiny_kernel[(1,)](*args, BLOCK=128)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(rounds):
            tiny_kernel[(1,)](*args, BLOCK=128)
        best = min(best, (time.perf_counter() - start) / rounds * 1e6)
    path = "C" if tiny_kernel.__dict__["_fast_kernels"] and next(iter(
        tiny_kernel.__dict__["_fast_kernels"].values()))[1].uses_c else "ctypes"
    print(f"\nlaunch path ({path} launcher, fake cuLaunchKernel): {best:.2f} us per launch")
    assert fake.last()["calls"] == 100 + 5 * rounds
