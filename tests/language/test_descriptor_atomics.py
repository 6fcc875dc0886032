"""Descriptor reductions, `desc.atomic_add` ... `desc.atomic_xor`.

Several programs combine their blocks into the same place of a destination that is a
window of a larger, randomly filled buffer; the blocks start off the block grid
(negative offsets among them) and the tensor's shape is no multiple of the block, so
bounds skipping and atomicity both show in the result. Checked in the interpreter
against a numpy reference, compiled through ptxas for sm_80 and sm_90, and on the GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tritonc as triton
import tritonc.language as tl
from tritonc.tools.tensor_descriptor import TensorDescriptor

WORDS = ["int32", "uint32", "int64", "uint64"]
SUPPORTED = {"add": ["int32", "uint32", "uint64", "fp16", "bf16", "fp32"],
             "min": [*WORDS, "fp16", "bf16"], "max": [*WORDS, "fp16", "bf16"], "and": WORDS,
             "or": WORDS, "xor": WORDS}
CASES = [(kind, ty) for kind, tys in SUPPORTED.items() for ty in tys]
TORCH = {"int32": torch.int32, "uint32": torch.uint32, "int64": torch.int64,
         "uint64": torch.uint64, "fp16": torch.float16, "bf16": torch.bfloat16,
         "fp32": torch.float32}
REFERENCE = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}

# the destination: an M x N window (row pitch PITCH) of a (M + 4) x PITCH buffer; blocks
# of BM x BN start SHIFT_M rows and SHIFT_N columns before the block grid; REPEAT
# programs combine a block into each place
M, N, PITCH, BM, BN, SHIFT_M, SHIFT_N, REPEAT = 19, 45, 64, 8, 16, 3, 5, 3
GRID = (triton.cdiv(M + SHIFT_M, BM), triton.cdiv(N + SHIFT_N, BN), REPEAT)


@triton.jit
def _reduce_block(desc, a_ptr, SHIFT_M, SHIFT_N, BM: tl.constexpr, BN: tl.constexpr,
                  KIND: tl.constexpr):
    i, j, r = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    rows = i * BM + tl.arange(0, BM)
    cols = j * BN + tl.arange(0, BN)
    width = tl.num_programs(1) * BN
    height = tl.num_programs(0) * BM
    val = tl.load(a_ptr + (r * height + rows[:, None]) * width + cols[None, :])
    offsets = [i * BM - SHIFT_M, j * BN - SHIFT_N]
    if KIND == "add":
        desc.atomic_add(offsets, val)
    elif KIND == "min":
        desc.atomic_min(offsets, val)
    elif KIND == "max":
        desc.atomic_max(offsets, val)
    elif KIND == "and":
        desc.atomic_and(offsets, val)
    elif KIND == "or":
        desc.atomic_or(offsets, val)
    else:
        tl.static_assert(KIND == "xor")
        desc.atomic_xor(offsets, val)


@triton.jit
def reduce_device(out_ptr, a_ptr, M, N, PITCH, SHIFT_M, SHIFT_N, BM: tl.constexpr,
                  BN: tl.constexpr, KIND: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[PITCH, 1],
                                     block_shape=[BM, BN])
    _reduce_block(desc, a_ptr, SHIFT_M, SHIFT_N, BM, BN, KIND)


@triton.jit
def reduce_host(desc, a_ptr, SHIFT_M, SHIFT_N, BM: tl.constexpr, BN: tl.constexpr,
                KIND: tl.constexpr):
    _reduce_block(desc, a_ptr, SHIFT_M, SHIFT_N, BM, BN, KIND)


def _random(ty: str, shape: tuple[int, ...], rng: np.random.Generator) -> torch.Tensor:
    """Random values of `ty`: integers over their whole range, floats standard normal."""
    if ty.startswith(("int", "uint")):
        info = np.iinfo(ty)
        return torch.from_numpy(rng.integers(info.min, info.max, shape, dtype=ty,
                                             endpoint=True))
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to(TORCH[ty])


def _numpy(t: torch.Tensor) -> np.ndarray:
    """A host numpy copy; floats as float64."""
    t = t.cpu()
    return t.double().numpy() if t.is_floating_point() else t.numpy().copy()


def _expected(kind: str, out: torch.Tensor, a: torch.Tensor) -> np.ndarray:
    """The destination buffer after every program's block is combined into the window."""
    expect = _numpy(out)
    parts = _numpy(a)[:, SHIFT_M:SHIFT_M + M, SHIFT_N:SHIFT_N + N]
    window = expect[:M, :N]
    for part in parts:
        window[...] = REFERENCE[kind](window, part)
    return expect


def _check(kind: str, ty: str, got: torch.Tensor, expect: np.ndarray, before: torch.Tensor):
    got = _numpy(got)
    if ty.startswith(("int", "uint")):
        np.testing.assert_array_equal(got, expect)
        return
    tol = {"fp16": 1e-2, "bf16": 6e-2, "fp32": 1e-5}[ty]
    np.testing.assert_allclose(got, expect, rtol=tol, atol=tol)
    # outside the window the buffer keeps its bits
    outside = np.ones(got.shape, dtype=bool)
    outside[:M, :N] = False
    np.testing.assert_array_equal(got[outside], _numpy(before)[outside])


def _inputs(ty: str, seed: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    out = _random(ty, (M + 4, PITCH), rng).to(device)
    a = _random(ty, (REPEAT, GRID[0] * BM, GRID[1] * BN), rng).to(device)
    return out, a


def _launch(fn, kind: str, out: torch.Tensor, a: torch.Tensor, host: bool, **options) -> None:
    if host:
        desc = TensorDescriptor(out, [M, N], [PITCH, 1], [BM, BN])
        fn[GRID](desc, a, SHIFT_M, SHIFT_N, BM, BN, kind, **options)
    else:
        fn[GRID](out, a, M, N, PITCH, SHIFT_M, SHIFT_N, BM, BN, kind, **options)


# -- the interpreter ---------------------------------------------------------------------

INTERPRETED = {"host": triton.jit(interpret=True)(reduce_host.fn),
               "device": triton.jit(interpret=True)(reduce_device.fn)}


@pytest.mark.parametrize("made", ["host", "device"])
@pytest.mark.parametrize("kind, ty", CASES)
def test_interpreted_against_numpy(kind: str, ty: str, made: str) -> None:
    out, a = _inputs(ty, CASES.index((kind, ty)), "cpu")
    before = out.clone()
    expect = _expected(kind, out, a)
    _launch(INTERPRETED[made], kind, out, a, made == "host")
    _check(kind, ty, out, expect, before)


@triton.jit(interpret=True)
def add_rows(out_ptr, a_ptr, N, SHIFT, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[N], strides=[1], block_shape=[BLOCK])
    val = tl.load(a_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    desc.atomic_add([tl.program_id(0) * BLOCK - SHIFT], val)


@triton.jit(interpret=True)
def max_cube(desc, a_ptr, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    i = tl.arange(0, B0)[:, None, None] * (B1 * B2)
    j = tl.arange(0, B1)[None, :, None] * B2
    k = tl.arange(0, B2)[None, None, :]
    val = tl.load(a_ptr + tl.program_id(0) * (B0 * B1 * B2) + i + j + k)
    desc.atomic_max([tl.program_id(0) - 1, 1, -2], val)


def test_one_dimension_skips_both_ends() -> None:
    out = torch.full((40,), 7, dtype=torch.int32)
    a = torch.arange(64, dtype=torch.int32)
    add_rows[(2,)](out, a, 30, 3, 32)
    expect = torch.full((40,), 7, dtype=torch.int32)
    expect[:30] += a[3:33]
    torch.testing.assert_close(out, expect, rtol=0, atol=0)


def test_three_dimensions() -> None:
    rng = np.random.default_rng(11)
    base = torch.from_numpy(rng.integers(-100, 100, (3, 5, 20), dtype=np.int64))
    a = torch.from_numpy(rng.integers(-100, 100, (4, 2, 4, 16), dtype=np.int64))
    out = base.clone()
    max_cube[(4,)](TensorDescriptor.from_tensor(out, [2, 4, 16]), a, 2, 4, 16)
    expect = base.numpy().copy()
    for p in range(4):  # block p starts at (p - 1, 1, -2)
        for (x, y, z), v in np.ndenumerate(a[p].numpy()):
            at = (p - 1 + x, 1 + y, z - 2)
            if all(0 <= c < n for c, n in zip(at, expect.shape, strict=True)):
                expect[at] = max(expect[at], v)
    np.testing.assert_array_equal(out.numpy(), expect)


# -- mistakes ----------------------------------------------------------------------------

@triton.jit
def misuse(out_ptr, WHAT: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[16, 16], strides=[16, 1],
                                     block_shape=[16, 16])
    val = tl.zeros([16, 16], dtype=desc.dtype)
    if WHAT == "rank":
        desc.atomic_add([0], val)
    elif WHAT == "shape":
        desc.atomic_add([0, 0], tl.zeros([16, 8], dtype=desc.dtype))
    elif WHAT == "dtype":
        desc.atomic_add([0, 0], val.to(tl.float64))
    elif WHAT == "min":
        desc.atomic_min([0, 0], val)
    else:
        desc.atomic_xor([0, 0], val)


HOST_TYPES = {"fp32": torch.float32, "fp16": torch.float16, "i8": torch.int8,
              "i64": torch.int64}


@pytest.mark.parametrize("ty, what, message", [
    ("fp32", "rank", "block has 2 dimensions, so it needs 2 offsets, not 1"),
    ("fp32", "shape", r"the value has shape \[16, 8\], the descriptor's block \[16, 16\]"),
    ("fp32", "dtype", "the value is fp64, the descriptor holds fp32"),
    ("fp32", "xor", "atomic_xor is not supported on fp32 descriptors; it takes int32"),
    ("fp32", "min", "atomic_min is not supported on fp32 descriptors"),
    ("i8", "rank", "atomic_add is not supported on int8 descriptors"),
    ("i64", "rank", "atomic_add is not supported on int64 descriptors"),
])
def test_mistakes_are_compilation_errors(ty: str, what: str, message: str) -> None:
    with pytest.raises(triton.CompilationError, match=message):
        triton.compile(misuse, {"out_ptr": f"*{ty}"}, {"WHAT": what}, target="ttir")
    interpreted = triton.jit(interpret=True)(misuse.fn)
    with pytest.raises(triton.CompilationError, match=message):
        interpreted[(1,)](torch.zeros(256, dtype=HOST_TYPES[ty]), what)


# -- compiled for the GPU ------------------------------------------------------------------

SIG_DEVICE = {"a_ptr": None, "out_ptr": None, "M": "i32", "N": "i32", "PITCH": "i32",
              "SHIFT_M": "i32", "SHIFT_N": "i32"}
SHORT = {"int32": "i32", "uint32": "u32", "int64": "i64", "uint64": "u64", "fp16": "fp16",
         "bf16": "bf16", "fp32": "fp32"}


def _compile(kind: str, ty: str, arch: int, host: bool):
    t = SHORT[ty]
    constexprs = {"BM": BM, "BN": BN, "KIND": kind}
    if host:
        sig = {"desc": f"tensordesc<{t}[{BM}, {BN}]>", "a_ptr": f"*{t}", "SHIFT_M": "i32",
               "SHIFT_N": "i32"}
        return triton.compile(reduce_host, sig, constexprs, target=f"cuda:{arch}")
    sig = {**SIG_DEVICE, "a_ptr": f"*{t}", "out_ptr": f"*{t}"}
    return triton.compile(reduce_device, sig, constexprs, target=f"cuda:{arch}")


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("kind, ty", CASES)
def test_compiles_through_ptxas(kind: str, ty: str, arch: int) -> None:
    kernel = _compile(kind, ty, arch, host=CASES.index((kind, ty)) % 2 == 1)
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    body = kernel.asm["ptx"][kernel.asm["ptx"].index(".entry"):]
    atoms = [line for line in body.splitlines() if "atom." in line]
    assert atoms and all("relaxed" in line and "gpu" in line for line in atoms)
    if ((kind, ty) == ("add", "bf16") and arch < 90) or (
            kind in ("min", "max") and ty in ("fp16", "bf16")):
        # no bf16 add atom before sm_90, no 16-bit float min / max one: a CAS loop
        assert all(".cas.b16" in line for line in atoms)
    else:
        assert not any(".cas." in line for line in atoms)


# -- on the GPU ----------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("made", ["host", "device"])
@pytest.mark.parametrize("kind, ty", CASES)
def test_on_the_gpu_against_torch(kind: str, ty: str, made: str) -> None:
    out, a = _inputs(ty, CASES.index((kind, ty)), "cuda")
    before = out.clone()
    expect = _expected(kind, out, a)
    fn = reduce_host if made == "host" else reduce_device
    _launch(fn, kind, out, a, made == "host")
    torch.cuda.synchronize()
    _check(kind, ty, out, expect, before)


@pytest.mark.gpu
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_small_blocks_add_once_per_element_on_the_gpu(num_warps: int) -> None:
    """Blocks smaller than the program's threads: each element is added by one thread."""
    out = torch.zeros(64, dtype=torch.int32, device="cuda")
    a = torch.ones(64, dtype=torch.int32, device="cuda")
    gpu_add_rows = triton.jit(add_rows.fn)
    for _ in range(3):
        gpu_add_rows[(4,)](out, a, 64, 0, 16, num_warps=num_warps)
    torch.testing.assert_close(out, torch.full_like(out, 3), rtol=0, atol=0)
