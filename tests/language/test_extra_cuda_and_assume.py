"""`tl.extra.cuda` (`globaltimer`, `smid`, `num_warps`, `num_threads`) and `tl.assume`.

Compiled for sm_90 on the CPU: each `globaltimer()` is its own `%globaltimer` read, even
around a loop; `smid()` reads `%smid`; `num_threads()` is a constexpr of the compile's
num_warps; a scalar `tl.assume` is `llvm.intr.assume` from TTIR on and reaches the LLVM IR
as `llvm.assume`, where it folds a branch away; a tensor condition is one assumption per
element a thread holds. The interpreter runs them all (the host clock, SM 0). GPU tests
check the values."""

import numpy as np
import pytest

import tritonc
import tritonc as triton
import tritonc.language as tl


@triton.jit
def fill_threads(Out):
    n: tl.constexpr = tl.extra.cuda.num_threads()
    w: tl.constexpr = tl.extra.cuda.num_warps()
    offs = tl.arange(0, n)
    tl.store(Out + offs, offs // 32 + w * 100)


@triton.jit
def time_a_loop(Data, Times, n, BLOCK: tl.constexpr):
    start = tl.extra.cuda.globaltimer()
    offs = tl.arange(0, BLOCK)
    for _ in range(n):
        tl.store(Data + offs, tl.load(Data + offs) + 1)
    end = tl.extra.cuda.globaltimer()
    tl.store(Times, start)
    tl.store(Times + 1, end)


@triton.jit
def which_sm(Out):
    tl.store(Out + tl.program_id(0), tl.extra.cuda.smid())


@triton.jit
def assume_large(out_ptr, N: tl.constexpr, BLOCK_N: tl.constexpr):
    size = N - tl.program_id(0) * BLOCK_N
    tl.assume(size >= BLOCK_N)
    if size >= 128:
        tl.store(out_ptr + tl.program_id(0), size)
    else:
        tl.store(out_ptr + tl.program_id(0), size + 101024)


@triton.jit
def assume_tensor(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=1)
    tl.assume(x > 0)
    tl.store(Y + offs, x // 2, mask=offs < n)


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_num_threads_is_a_constexpr_of_the_compile(num_warps):
    k = tritonc.compile(fill_threads, {"Out": "*i32"}, {}, target="cuda:90",
                        num_warps=num_warps)
    assert f"tensor<{32 * num_warps}xi32>" in k.asm["ttir"]
    assert f"dense<{100 * num_warps}>" in k.asm["ttir"]


@pytest.mark.parametrize("num_warps", [2, 8])
def test_num_threads_in_the_interpreter(num_warps, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    out = np.full(32 * num_warps, -1, np.int32)
    fill_threads[(1,)](out, num_warps=num_warps)
    np.testing.assert_array_equal(out, np.arange(32 * num_warps) // 32 + 100 * num_warps)


def test_globaltimer_reads_stay_apart():
    k = tritonc.compile(time_a_loop, {"Data": "*i64", "Times": "*i64", "n": "i32"},
                        dict(BLOCK=128), target="cuda:90")
    assert k.asm["ttir"].count("nvvm.read.ptx.sreg.globaltimer") == 2
    assert k.asm["ptx"].count("%globaltimer") == 2
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_globaltimer_as_a_constexpr_function_argument():
    """As test_core's kernel takes it: the builtin passed for a constexpr parameter."""
    @triton.jit
    def timed(Out, func: tl.constexpr):
        tl.store(Out, func())

    k = tritonc.compile(timed, {"Out": "*i64"}, {"func": tl.extra.cuda.globaltimer},
                        target="cuda:90")
    assert k.asm["ptx"].count("%globaltimer") == 1


def test_globaltimer_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    data, times = np.zeros(128, np.int64), np.zeros(2, np.int64)
    time_a_loop[(1,)](data, times, 37, BLOCK=128)
    assert (data == 37).all()
    assert 0 < times[1] - times[0] < 60 * 10**9


def test_smid():
    k = tritonc.compile(which_sm, {"Out": "*i32"}, {}, target="cuda:90")
    assert k.asm["ptx"].count("%smid") == 1


def test_smid_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    out = np.full(5, -1, np.int32)
    which_sm[(5,)](out)
    assert (out == 0).all()


def test_scalar_assume_reaches_llvm_and_folds_the_branch():
    k = tritonc.compile(assume_large, {"out_ptr": "*fp32"}, dict(N=1024, BLOCK_N=128),
                        target="cuda:90")
    assert "llvm.intr.assume" in k.asm["ttir"]
    assert "llvm.intr.assume" in k.asm["ttgir"]
    assert "call void @llvm.assume(" in k.asm["llir"]
    assert "101024" not in k.asm["ptx"] and "102048" not in k.asm["ptx"]


def test_tensor_assume_is_one_assumption_per_register():
    k = tritonc.compile(assume_tensor, {"X": "*i32", "Y": "*i32", "n": "i32"},
                        dict(BLOCK=1024), target="cuda:90", num_warps=4)
    assert '"tt.assume"' in k.asm["ttir"]
    # 1024 elements on 128 threads: eight registers, eight assumptions, and the signed
    # halving of a value known positive is a plain shift, with no rounding fix-up
    # toward zero (an add of the sign bit before an arithmetic shift)
    assert k.asm["llir"].count("call void @llvm.assume(") == 8
    assert k.asm["ptx"].count("shr.u32") == 8
    assert "shr.s32" not in k.asm["ptx"]


def test_assume_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    out = np.zeros(8, np.float32)
    assume_large[(8,)](out, N=1024, BLOCK_N=128)
    np.testing.assert_array_equal(out, 1024 - 128 * np.arange(8))
    n = 1000
    x = np.random.default_rng(0).integers(1, 1000, n).astype(np.int32)
    y = np.zeros(n, np.int32)
    assume_tensor[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    np.testing.assert_array_equal(y, x // 2)


@pytest.mark.gpu
def test_gpu_extra_cuda():
    import torch
    out = torch.full((256,), -1, dtype=torch.int32, device="cuda")
    fill_threads[(1,)](out, num_warps=8)
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(256) // 32 + 800)
    data = torch.zeros(128, dtype=torch.int64, device="cuda")
    times = torch.zeros(2, dtype=torch.int64, device="cuda")
    time_a_loop[(1,)](data, times, 1000, BLOCK=128)
    assert (data == 1000).all() and times[1] > times[0]
    sms = torch.full((1024,), -1, dtype=torch.int32, device="cuda")
    which_sm[(1024,)](sms)
    count = torch.cuda.get_device_properties(0).multi_processor_count
    assert ((sms >= 0) & (sms < count)).all()
