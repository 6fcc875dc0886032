"""libdevice's Bessel functions (`j0`, `j1`, `y0`, `y1`, `cyl_bessel_i0`, `cyl_bessel_i1`):
the interpreter's float64 implementations against mpmath and torch.special, kernels in
the interpreter for fp32 and fp64, and the compiled kernels through ptxas."""

import re

import numpy as np
import pytest
import torch

import tritonc
import tritonc as triton
import tritonc.language as tl
from tritonc.backends.interpreter import bessel
from tritonc.language.extra import libdevice

# libdevice name -> (interpreter function, torch.special reference, mpmath name, order)
FUNCTIONS = {
    "j0": (bessel.j0, torch.special.bessel_j0, "besselj", 0),
    "j1": (bessel.j1, torch.special.bessel_j1, "besselj", 1),
    "y0": (bessel.y0, torch.special.bessel_y0, "bessely", 0),
    "y1": (bessel.y1, torch.special.bessel_y1, "bessely", 1),
    "cyl_bessel_i0": (bessel.i0, torch.special.i0, "besseli", 0),
    "cyl_bessel_i1": (bessel.i1, torch.special.i1, "besseli", 1),
}


def _points(rng) -> np.ndarray:
    """Every method's range and the borders between them, both signs."""
    x = np.concatenate([
        rng.uniform(0, 2, 60), rng.uniform(0, 35, 200), 10.0 ** rng.uniform(-9, 0, 30),
        10.0 ** rng.uniform(1.5, 6, 40), [1.0, np.nextafter(1.0, 0), 25.0, np.nextafter(25.0, 0),
                                          30.0, np.nextafter(30.0, 0), 700.0]])
    return np.concatenate([x, -x[::7]])


def _scale(name: str, want: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The size errors are measured against: |f| for I, and for J and Y the envelope
    sqrt(2 / (pi x)) too, since near their zeros only absolute accuracy is meaningful."""
    if name.startswith("cyl"):
        return np.abs(want)
    return np.maximum(np.abs(want), np.sqrt(2 / (np.pi * np.maximum(np.abs(x), 1.0))))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_accuracy_against_mpmath(name):
    mpmath = pytest.importorskip("mpmath")
    fn, _, mp_name, order = FUNCTIONS[name]
    x = _points(np.random.default_rng(3))
    if name[0] == "y":
        x = np.abs(x)
    mpmath.mp.dps = 30
    want = np.array([float(getattr(mpmath, mp_name)(order, mpmath.mpf(float(v)))) for v in x])
    got = fn(x)
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite], want[~finite])
    err = np.abs(got[finite] - want[finite]) / _scale(name, want, x)[finite]
    assert err.max() < 2e-14, (name, x[finite][np.argmax(err)])


@pytest.mark.parametrize("name", FUNCTIONS)
def test_float64_against_torch(name):
    """torch.special, whose own error reaches 1e-6 of the envelope for J and Y between 5
    and 8."""
    fn, ref, _, _ = FUNCTIONS[name]
    x = np.random.default_rng(4).standard_normal(2000) * 10
    want = ref(torch.from_numpy(x)).numpy()
    got = fn(x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    err = np.abs(got[ok] - want[ok]) / _scale(name, want, x)[ok]
    assert err.max() < 3e-6


def test_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, -1.0, inf, -inf, nan])
    np.testing.assert_array_equal(bessel.j0(x), [1, 1, bessel.j0(np.array(1.0)), 0, 0, nan])
    np.testing.assert_array_equal(bessel.j1(x)[[0, 3, 5]], [0, 0, nan])
    assert bessel.j1(np.array(-1.0)) == -bessel.j1(np.array(1.0))
    np.testing.assert_array_equal(bessel.y0(x), [-inf, -inf, nan, 0, nan, nan])
    np.testing.assert_array_equal(bessel.y1(x), [-inf, -inf, nan, 0, nan, nan])
    np.testing.assert_array_equal(bessel.i0(x), [1, 1, bessel.i0(np.array(1.0)), inf, inf, nan])
    np.testing.assert_array_equal(bessel.i1(x)[[0, 3, 4, 5]], [0, inf, -inf, nan])
    # I grows past float64 near 713: finite just below, inf beyond, no warnings
    with np.errstate(all="raise"):
        big = bessel.i0(np.array([710.0, 720.0]))
    assert np.isfinite(big[0]) and big[1] == inf


@triton.jit
def bessel_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_interpreted_kernel(name, dtype, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    gen = torch.Generator().manual_seed(5)
    n, block = 300, 128
    x = torch.randn(n, generator=gen, dtype=dtype) * 2
    out = torch.full_like(x, 12345.0)
    bessel_kernel[(triton.cdiv(n, block),)](x, out, n, FN=name, BLOCK=block)
    want = FUNCTIONS[name][1](x.double()).to(dtype)
    torch.testing.assert_close(out, want, equal_nan=True, atol=1e-6, rtol=2e-6)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("dtype", ["fp32", "fp64"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_compiles_to_the_libdevice_call(name, dtype, arch):
    sig = {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "n": "i32"}
    kernel = tritonc.compile(bessel_kernel, sig, {"FN": name, "BLOCK": 128},
                             target=f"cuda:{arch}")
    symbol = f"__nv_{name}" + ("f" if dtype == "fp32" else "")
    assert f'symbol = "{symbol}"' in kernel.asm["ttir"]
    assert f"{symbol}.exit" in kernel.asm["llir"]  # libdevice's body, inlined
    assert not re.search(rf"declare \w+ @{symbol}\(", kernel.asm["llir"])
    assert "__nv_" not in kernel.asm["ptx"]
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
