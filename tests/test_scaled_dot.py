"""tl.dot_scaled: microscaled operands against a float64 reference built with torch's own
fp8 types and the e2m1 table, in the interpreter, through ptxas, and on the GPU."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

torch = pytest.importorskip("torch")

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


@triton.jit
def scaled_dot_kernel(a_ptr, a_scale_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                      K: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr):
    KA: tl.constexpr = K // 2 if A_FORMAT == "e2m1" else K
    rm = tl.arange(0, M)
    a = tl.load(a_ptr + rm[:, None] * KA + tl.arange(0, KA)[None, :])
    scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot_scaled(a, scale, A_FORMAT, b, None, B_FORMAT)
    tl.store(out_ptr + rm[:, None] * N + tl.arange(0, N)[None, :], c)


def _operands(fmt, m, n, k, device):
    gen = torch.Generator().manual_seed(3)
    if fmt == "e2m1":
        a = torch.randint(0, 256, (m, k // 2), dtype=torch.uint8, generator=gen)
        codes = torch.stack([a & 15, a >> 4], dim=-1).reshape(m, k).numpy()
        values = torch.from_numpy(E2M1[codes])
    else:
        a = torch.randint(0, 256, (m, k), dtype=torch.uint8, generator=gen)
        a = torch.where((a & 0x7F) >= 0x78, a & 0x87, a)  # no inf / NaN codes
        values = a.view(torch.float8_e4m3fn).double()
    scale = torch.randint(120, 134, (m, k // 32), dtype=torch.uint8, generator=gen)
    b = torch.randn(k, n, generator=gen).to(torch.bfloat16)
    factor = torch.pow(2.0, scale.double() - 127).repeat_interleave(32, dim=1)
    ref = (values * factor).to(torch.bfloat16).double() @ b.double()
    return [t.to(device) for t in (a, scale, b)], ref


@pytest.mark.parametrize("fmt", ["e2m1", "e4m3"])
def test_interpreter(fmt, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    (a, scale, b), ref = _operands(fmt, 32, 16, 64, "cpu")
    out = torch.full((32, 16), float("nan"))
    scaled_dot_kernel[(1,)](a, scale, b, out, M=32, N=16, K=64, A_FORMAT=fmt, B_FORMAT="bf16")
    torch.testing.assert_close(out.double(), ref, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("fmt", ["e2m1", "e4m3"])
def test_compiles_through_ptxas(fmt):
    sig = {"a_ptr": "*u8", "a_scale_ptr": "*u8", "b_ptr": "*bf16", "out_ptr": "*fp32"}
    k = triton.compile(scaled_dot_kernel, sig, dict(M=64, N=64, K=64, A_FORMAT=fmt,
                                                    B_FORMAT="bf16"),
                       target="cuda:90", divisible_by_16=set(sig))
    assert "wgmma.mma_async" in k.asm["ptx"] or "mma.sync" in k.asm["ptx"]


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["e2m1", "e4m3"])
def test_gpu(fmt):
    (a, scale, b), ref = _operands(fmt, 64, 64, 128, "cuda")
    out = torch.full((64, 64), float("nan"), device="cuda")
    scaled_dot_kernel[(1,)](a, scale, b, out, M=64, N=64, K=128, A_FORMAT=fmt,
                            B_FORMAT="bf16")
    torch.testing.assert_close(out.double().cpu(), ref, rtol=2e-2, atol=2e-2)


@triton.jit
def nvfp4_dot_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                     K: tl.constexpr):
    """Both operands e2m1 packed along K, each with an fp8 e4m3 factor per 16 elements."""
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    kp, ks = tl.arange(0, K // 2), tl.arange(0, K // 16)
    a = tl.load(a_ptr + rm[:, None] * (K // 2) + kp[None, :])
    b = tl.load(b_ptr + rn[:, None] * (K // 2) + kp[None, :])
    sa = tl.load(sa_ptr + rm[:, None] * (K // 16) + ks[None, :])
    sb = tl.load(sb_ptr + rn[:, None] * (K // 16) + ks[None, :])
    c = tl.dot_scaled(a, sa, "e2m1", b.T, sb, "e2m1")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


def _nvfp4_operands(m, n, k, device):
    gen = torch.Generator().manual_seed(4)

    def operand(rows):
        packed = torch.randint(0, 256, (rows, k // 2), dtype=torch.uint8, generator=gen)
        codes = torch.stack([packed & 15, packed >> 4], dim=-1).reshape(rows, k).numpy()
        scale = (torch.rand(rows, k // 16, generator=gen) * 2 + 0.1).to(torch.float8_e4m3fn)
        values = torch.from_numpy(E2M1[codes]) * scale.double().repeat_interleave(16, dim=1)
        return packed, scale, values.to(torch.bfloat16).double()

    a, sa, va = operand(m)
    b, sb, vb = operand(n)
    return [t.to(device) for t in (a, sa, b, sb)], va @ vb.T


def test_nvfp4_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    args, ref = _nvfp4_operands(32, 16, 64, "cpu")
    out = torch.full((32, 16), float("nan"))
    nvfp4_dot_kernel[(1,)](*args, out, M=32, N=16, K=64)
    torch.testing.assert_close(out.double(), ref, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("arch", [80, 90])
def test_nvfp4_compiles_through_ptxas(arch):
    sig = {"a_ptr": "*u8", "sa_ptr": "*fp8e4nv", "b_ptr": "*u8", "sb_ptr": "*fp8e4nv",
           "c_ptr": "*fp32"}
    k = triton.compile(nvfp4_dot_kernel, sig, dict(M=64, N=64, K=64), target=f"cuda:{arch}",
                       divisible_by_16=set(sig))
    assert k.asm["cubin"][:4] == b"\x7fELF"


@pytest.mark.gpu
def test_nvfp4_gpu():
    args, ref = _nvfp4_operands(64, 64, 128, "cuda")
    out = torch.full((64, 64), float("nan"), device="cuda")
    nvfp4_dot_kernel[(1,)](*args, out, M=64, N=64, K=128)
    torch.testing.assert_close(out.double().cpu(), ref, rtol=2e-2, atol=2e-2)
