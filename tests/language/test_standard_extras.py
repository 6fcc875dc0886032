"""tl.reduce_or, tl.bitonic_merge, tl.pair_uniform_to_normal and tl.philox_impl, as
Triton's standard and random libraries export them, `store`, `advance` and `cdiv` as
tensor methods, tl.TRITON_MAX_TENSOR_NUMEL and `tl.core` holding the language: in the
interpreter against numpy (Philox4x32 and Box-Muller written out here), and compiled
through ptxas for sm_90."""

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl


@triton.jit
def or_rows(X, Z, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    if AXIS == 0:
        tl.store(Z + tl.arange(0, N), tl.reduce_or(x, 0))
    elif AXIS == 1:
        tl.store(Z + tl.arange(0, M), x.reduce_or(1))
    else:
        tl.store(Z, tl.reduce_or(x, None))


@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
def test_reduce_or(axis, dtype, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(11)
    x = rng.integers(0, 1 << 7, (8, 16)).astype(dtype) << rng.integers(0, 3, (8, 16)).astype(dtype)
    want = np.bitwise_or.reduce(x, axis=axis)
    z = np.full(np.shape(want) or (1,), 77, dtype)
    or_rows[(1,)](x, z, 8, 16, -1 if axis is None else axis)
    np.testing.assert_array_equal(z.reshape(np.shape(want)), want)


def test_reduce_or_refuses_floats(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.ones((8, 16), np.float32)
    with pytest.raises(triton.CompilationError, match="reduce_or only supported for integers"):
        or_rows[(1,)](x, np.zeros(16, np.float32), 8, 16, 0)


@triton.jit
def merge_rows(X, Z, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Z + offs, tl.bitonic_merge(tl.load(X + offs), descending=DESC))


@pytest.mark.parametrize("n", [1, 2, 16, 64])
@pytest.mark.parametrize("desc", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_bitonic_merge_sorts_bitonic_rows(n, desc, dtype, monkeypatch):
    """Rows rising then falling, or falling then rising, at a random turning point."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(n + desc)
    rows = []
    for r in range(4):
        values = rng.permutation(1000)[:n].astype(dtype)
        turn = rng.integers(0, n + 1)
        up, down = np.sort(values[:turn]), np.sort(values[turn:])[::-1]
        rows.append(np.concatenate([up, down] if r % 2 else [up[::-1], down[::-1]]))
    x = np.stack(rows).astype(dtype)
    z = np.full_like(x, 5)
    merge_rows[(1,)](x, z, 4, n, desc)
    want = np.sort(x, axis=1)
    np.testing.assert_array_equal(z, want[:, ::-1] if desc else want)


@triton.jit
def normals(U1, U2, Z1, Z2, N: tl.constexpr):
    offs = tl.arange(0, N)
    z1, z2 = tl.pair_uniform_to_normal(tl.load(U1 + offs), tl.load(U2 + offs))
    tl.store(Z1 + offs, z1)
    tl.store(Z2 + offs, z2)


def test_pair_uniform_to_normal(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(5)
    u1, u2 = rng.random(64, np.float32), rng.random(64, np.float32)
    u1[0] = 0.0  # clamped to 1e-7, as Triton clamps it
    z1, z2 = np.full(64, np.nan, np.float32), np.full(64, np.nan, np.float32)
    normals[(1,)](u1, u2, z1, z2, 64)
    r = np.sqrt(-2.0 * np.log(np.maximum(u1.astype(np.float64), 1e-7)))
    theta = 2 * np.pi * u2.astype(np.float64)
    np.testing.assert_allclose(z1, r * np.cos(theta), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z2, r * np.sin(theta), rtol=1e-5, atol=1e-5)


@triton.jit
def philox_rounds(C, K, Z, N: tl.constexpr, ROUNDS: tl.constexpr):
    offs = tl.arange(0, N)
    c0, c1 = tl.load(C + offs), tl.load(C + N + offs)
    c2, c3 = tl.load(C + 2 * N + offs), tl.load(C + 3 * N + offs)
    k0, k1 = tl.load(K + offs), tl.load(K + N + offs)
    out = tl.philox_impl(c0, c1, c2, c3, k0, k1, ROUNDS)
    for i in tl.static_range(4):
        tl.store(Z + i * N + offs, out[i])


def _philox4x32(c, k, rounds):
    """Philox4x32 (Salmon et al.), in uint64 arithmetic masked to 32 bits."""
    c = [v.astype(np.uint64) for v in c]
    k0, k1 = (v.astype(np.uint64) for v in k)
    mask = np.uint64(0xFFFFFFFF)
    for _ in range(rounds):
        p0, p1 = np.uint64(0xD2511F53) * c[0], np.uint64(0xCD9E8D57) * c[2]
        c = [((p1 >> np.uint64(32)) ^ c[1] ^ k0) & mask, p1 & mask,
             ((p0 >> np.uint64(32)) ^ c[3] ^ k1) & mask, p0 & mask]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    return [v.astype(np.uint32) for v in c]


@pytest.mark.parametrize("rounds", [1, 7, 10])
def test_philox_impl(rounds, monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(rounds)
    c = rng.integers(0, 1 << 32, (4, 32), dtype=np.uint64).astype(np.uint32)
    k = rng.integers(0, 1 << 32, (2, 32), dtype=np.uint64).astype(np.uint32)
    z = np.zeros((4, 32), np.uint32)
    philox_rounds[(1,)](c, k, z, 32, rounds)
    np.testing.assert_array_equal(z, np.stack(_philox4x32(list(c), list(k), rounds)))


@pytest.mark.parametrize("kernel,signature,constexprs", [
    (or_rows, {"X": "*i32", "Z": "*i32"}, {"M": 8, "N": 16, "AXIS": 1}),
    (merge_rows, {"X": "*fp32", "Z": "*fp32"}, {"M": 4, "N": 64, "DESC": True}),
    (normals, {"U1": "*fp32", "U2": "*fp32", "Z1": "*fp32", "Z2": "*fp32"}, {"N": 64}),
    (philox_rounds, {"C": "*u32", "K": "*u32", "Z": "*u32"}, {"N": 32, "ROUNDS": 10}),
])
def test_compiled_for_sm90(kernel, signature, constexprs):
    compiled = triton.compile(kernel, signature, constexprs, target="cuda:90")
    assert compiled.asm["cubin"][:4] == b"\x7fELF"


@triton.jit
def copy_by_methods(X, Z, n, BLOCK: tl.constexpr):
    """`ptrs.store(...)` and a block pointer's `.advance(...)`, as Triton's tensor methods."""
    offs = tl.arange(0, BLOCK)
    x_block = tl.make_block_ptr(X, (n,), (1,), (0,), (BLOCK,), (0,))
    for start in range(0, n, BLOCK):
        x = tl.load(x_block, boundary_check=(0,))
        (Z + start + offs).store(x * 2, mask=start + offs < n)
        x_block = x_block.advance((BLOCK,))


def test_store_and_advance_as_methods(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.random.default_rng(9).standard_normal(100).astype(np.float32)
    z = np.full(104, np.nan, np.float32)
    copy_by_methods[(1,)](x, z, 100, 16)
    np.testing.assert_array_equal(z[:100], 2 * x)
    assert np.isnan(z[100:]).all()


def test_store_and_advance_as_methods_compile():
    compiled = triton.compile(copy_by_methods, {"X": "*fp32", "Z": "*fp32", "n": "i32"},
                              {"BLOCK": 16}, target="cuda:90")
    assert "st.global" in compiled.asm["ptx"]


@triton.jit
def ceil_div(X, Z, N: tl.constexpr, D: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, tl.load(X + offs).cdiv(D))


def test_cdiv_as_a_method(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.random.default_rng(4).integers(0, 1000, 32).astype(np.int32)
    z = np.full(32, -1, np.int32)
    ceil_div[(1,)](x, z, 32, 7)
    np.testing.assert_array_equal(z, -(-x // 7))


@triton.jit
def too_large(Z, N: tl.constexpr):
    tl.store(Z + tl.arange(0, N), 1.0)


def test_a_tensor_above_the_element_limit_is_refused(monkeypatch):
    """At most tl.TRITON_MAX_TENSOR_NUMEL elements, refused at the line that makes more."""
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1 << 20
    with pytest.raises(triton.CompilationError, match="2097152 elements, more than the "
                       "maximum of 1048576") as e:
        triton.compile(too_large, {"Z": "*fp32"}, {"N": 1 << 21}, target="ttir")
    assert "tl.arange(0, N)" in str(e.value)
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    z = np.zeros(1 << 20, np.float32)
    too_large[(1,)](z, 1 << 20)
    assert (z == 1.0).all()


@triton.jit
def through_core(X, Z, N: tl.constexpr):
    offs = tl.core.arange(0, N)
    x = tl.core.load(X + offs)
    zero = tl.core.full((N,), 0, tl.core.float32)
    tl.core.store(Z + offs, tl.core.where(x > 0, x, zero))


def test_the_language_through_tl_core(monkeypatch):
    """`tl.core.<name>` reaches the language's names, as `triton.language.core` does."""
    assert tl.core.int32 is tl.int32 and tl.core.PropagateNan is tl.PropagateNan
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.random.default_rng(2).standard_normal(64).astype(np.float32)
    z = np.full(64, np.nan, np.float32)
    through_core[(1,)](x, z, 64)
    np.testing.assert_array_equal(z, np.maximum(x, 0))
    assert triton.compile(through_core, {"X": "*fp32", "Z": "*fp32"}, {"N": 64},
                          target="cuda:90").asm["cubin"][:4] == b"\x7fELF"
