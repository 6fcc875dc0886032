"""`return` in one branch of a runtime `if`, conditional expressions as statements, and
noinline functions with tensor descriptors: the TTIR the compiler makes, the same kernels
in the interpreter against numpy, and (on a GPU) compiled against numpy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.compiler import mlir_loader
from tritonc.compiler.errors import CompilationError

POISON = -777.0


@triton.jit
def early_exit(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)


def early_exit_ref(x: np.ndarray, y: np.ndarray, n: int) -> None:
    y[:n] = x[:n].astype(np.float64) * 2.0 + 1.0


@triton.jit
def nested_return(c1_ptr, c2_ptr, c3_ptr, v_ptr, out_ptr):
    pid = tl.program_id(0)
    val = tl.load(v_ptr + pid)
    if tl.load(c1_ptr + pid) != 0:
        if tl.load(c2_ptr + pid) != 0:
            val = val * 10.0
        else:
            return
    else:
        if tl.load(c3_ptr + pid) != 0:
            val = val + 100.0
        else:
            val = val - 100.0
    tl.store(out_ptr + pid, val)


def nested_return_ref(c1, c2, c3, v, out) -> None:
    for i in range(len(v)):
        if c1[i]:
            if c2[i]:
                out[i] = v[i] * 10.0
        else:
            out[i] = v[i] + 100.0 if c3[i] else v[i] - 100.0


@triton.jit
def _scaled_or_shifted(x, c):
    if c > 0:
        return x * 3.0
    return x - 2.0


@triton.jit
def _pair(x, c):
    if c > 1:
        return x + 1.0, x * 2.0
    else:
        return x - 1.0, x * 0.5


@triton.jit
def callee_returns(x_ptr, c_ptr, out_ptr, out2_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    c = tl.load(c_ptr + pid)
    a, b = _pair(x, c)
    tl.store(out_ptr + offs, _scaled_or_shifted(x, c) + a, mask=mask)
    tl.store(out2_ptr + offs, b, mask=mask)


def callee_returns_ref(x, c, out, out2, n, block) -> None:
    for pid in range((n + block - 1) // block):
        s = slice(pid * block, min(n, (pid + 1) * block))
        xs = x[s].astype(np.float64)
        first = xs * 3.0 if c[pid] > 0 else xs - 2.0
        a, b = (xs + 1.0, xs * 2.0) if c[pid] > 1 else (xs - 1.0, xs * 0.5)
        out[s] = first + a
        out2[s] = b


@triton.jit
def static_then_runtime(flag_ptr, out_ptr, MODE: tl.constexpr):
    pid = tl.program_id(0)
    if MODE == "dynamic":
        if tl.load(flag_ptr + pid) != 0:
            tl.store(out_ptr + pid, 0.0)
            return
    else:
        tl.store(out_ptr + pid, 5.0)
        return
    tl.store(out_ptr + pid, 1.0)


@triton.jit
def void_conditional(x_ptr, a_ptr, b_ptr, n, BLOCK: tl.constexpr, TO_A: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(a_ptr + offs, x, mask=mask) if pid % 2 == 0 else tl.store(b_ptr + offs, -x, mask=mask)
    tl.store(a_ptr + n + offs, x + 1.0, mask=mask) if TO_A else \
        tl.store(b_ptr + n + offs, x - 1.0, mask=mask)


def void_conditional_ref(x, a, b, n, block, to_a) -> None:
    for pid in range((n + block - 1) // block):
        s = slice(pid * block, min(n, (pid + 1) * block))
        if pid % 2 == 0:
            a[s] = x[s]
        else:
            b[s] = -x[s]
    if to_a:
        a[n:2 * n] = x + 1.0
    else:
        b[n:2 * n] = x - 1.0


@triton.jit
def lazy_conditional(x_ptr, out_ptr, n, limit):
    # only the taken side loads: programs past `limit` never read x
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid) if pid < limit else tl.load(x_ptr) * 0.0 - 1.0
    tl.store(out_ptr + pid, v, mask=pid < n)


@triton.jit(noinline=True)
def _make_desc(ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])


@triton.jit(noinline=True)
def _abs_block(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    dst.store([m0, n0], tl.abs(src.load([m0, n0])))


@triton.jit
def descriptor_helpers(out_ptr, in_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = _make_desc(in_ptr, M, N, BM, BN)
    dst = _make_desc(out_ptr, M, N, BM, BN)
    _abs_block(src, dst, BM, BN)


@triton.jit
def return_in_loop(x_ptr, n):
    for i in range(n):
        if tl.load(x_ptr + i) > 0:
            return
        tl.store(x_ptr + i, 1.0)


@triton.jit
def value_on_one_path(x_ptr, c):
    tl.store(x_ptr, _value_or_nothing(tl.load(x_ptr), c))


@triton.jit
def _value_or_nothing(x, c):
    if c > 0:
        return x


F32 = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}
CASES = {
    "early_exit": (early_exit, F32, {"BLOCK": 128}, """
        CHECK: tt.get_program_id
        CHECK: scf.if
        CHECK-NEXT: } else {
        CHECK: tt.load
        CHECK: tt.store
        CHECK-NEXT: {{^ *[}]$}}
        CHECK-NEXT: return
    """),
    "nested_return": (nested_return, {"c1_ptr": "*i32", "c2_ptr": "*i32", "c3_ptr": "*i32",
                                      "v_ptr": "*fp32", "out_ptr": "*fp32"}, {}, """
        CHECK: scf.if
        CHECK: scf.if
        CHECK: arith.mulf
        CHECK: tt.store
        CHECK: } else {
        CHECK-NEXT: {{^ *[}]$}}
        CHECK: } else {
        CHECK: %[[V:.+]] = scf.if {{.*}} -> (f32)
        CHECK: "tt.store"({{.*}}, %[[V]])
    """),
    "callee_returns": (callee_returns, {"x_ptr": "*fp32", "c_ptr": "*i32", "out_ptr": "*fp32",
                                        "out2_ptr": "*fp32", "n": "i32"}, {"BLOCK": 64}, """
        CHECK: scf.if {{.*}} -> (tensor<64xf32>, tensor<64xf32>)
        CHECK: scf.if {{.*}} -> (tensor<64xf32>)
        CHECK: arith.mulf
        CHECK: scf.yield
        CHECK: } else {
        CHECK: arith.subf
        CHECK: scf.yield
    """),
    "static_then_runtime": (static_then_runtime, {"flag_ptr": "*i32", "out_ptr": "*fp32"},
                            {"MODE": "dynamic"}, """
        CHECK: scf.if
        CHECK: arith.constant 0.0
        CHECK: tt.store
        CHECK: } else {
        CHECK: arith.constant 1.0
        CHECK: tt.store
    """),
    "void_conditional": (void_conditional, {"x_ptr": "*fp32", "a_ptr": "*fp32",
                                            "b_ptr": "*fp32", "n": "i32"},
                         {"BLOCK": 32, "TO_A": True}, """
        CHECK: arith.remsi
        CHECK: scf.if %{{[0-9]+}} {
        CHECK: tt.store
        CHECK: } else {
        CHECK: arith.negf
        CHECK: tt.store
        CHECK-NEXT: {{^ *[}]$}}
        CHECK-NOT: scf.if
        CHECK: tt.store
        CHECK-NOT: tt.store
    """),
    "lazy_conditional": (lazy_conditional, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                            "limit": "i32"}, {}, """
        CHECK: %[[V:.+]] = scf.if {{.*}} -> (f32)
        CHECK: tt.load
        CHECK: } else {
        CHECK: tt.load
        CHECK: "tt.store"({{.*}}, %[[V]],
    """),
    "descriptor_helpers": (descriptor_helpers, {"out_ptr": "*fp32", "in_ptr": "*fp32",
                                                "M": "i32", "N": "i32"},
                           {"BM": 8, "BN": 32}, """
        CHECK-NOT: func.func private
        CHECK: tt.make_tensor_descriptor
        CHECK: tt.make_tensor_descriptor
        CHECK: tt.descriptor_load
        CHECK: tt.descriptor_store
        CHECK-NOT: func.call
    """),
}


def filecheck(text: str, checks: str, tmp_path: Path) -> None:
    check_file = tmp_path / "checks.txt"
    check_file.write_text("\n".join(line.strip() for line in checks.strip().splitlines()) + "\n")
    result = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(check_file),
                             "--dump-input=fail"], input=text, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]


@pytest.mark.parametrize("name", list(CASES))
def test_ttir(name: str, tmp_path: Path) -> None:
    fn, signature, constexprs, checks = CASES[name]
    ttir = triton.compile(fn, signature, constexprs, target="ttir").asm["ttir"]
    filecheck(ttir, checks, tmp_path)


@pytest.mark.parametrize("name", list(CASES))
def test_compiles_through_ptxas(name: str) -> None:
    fn, signature, constexprs, _ = CASES[name]
    kernel = triton.compile(fn, signature, constexprs, target="cuda:90")
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


def interpreted(fn):
    return triton.jit(interpret=True)(fn.fn)


def poisoned(n: int, dtype=np.float32) -> np.ndarray:
    return np.full(n, POISON, dtype=dtype)


def test_early_exit_interpreted() -> None:
    rng = np.random.default_rng()
    n, block = 300, 128
    x = rng.standard_normal(n).astype(np.float32)
    y = poisoned(n + 50)
    interpreted(early_exit)[(6,)](x, y, n, BLOCK=block)
    expect = poisoned(n + 50).astype(np.float64)
    early_exit_ref(x, expect, n)
    np.testing.assert_allclose(y, expect, rtol=1e-6)


def test_nested_return_interpreted() -> None:
    rng = np.random.default_rng()
    n = 37
    conds = [rng.integers(0, 2, n).astype(np.int32) for _ in range(3)]
    v = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n)
    interpreted(nested_return)[(n,)](*conds, v, out)
    expect = poisoned(n).astype(np.float64)
    nested_return_ref(*conds, v.astype(np.float64), expect)
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    assert (out == POISON).any() and (out != POISON).any()


def test_callee_returns_interpreted() -> None:
    rng = np.random.default_rng()
    n, block = 200, 64
    programs = (n + block - 1) // block
    x = rng.standard_normal(n).astype(np.float32)
    c = np.array([0, 1, 2, 3], dtype=np.int32)[:programs]
    rng.shuffle(c)
    out, out2 = poisoned(n + 8), poisoned(n + 8)
    interpreted(callee_returns)[(programs,)](x, c, out, out2, n, BLOCK=block)
    expect, expect2 = poisoned(n + 8).astype(np.float64), poisoned(n + 8).astype(np.float64)
    callee_returns_ref(x, c, expect, expect2, n, block)
    np.testing.assert_allclose(out, expect, rtol=1e-6)
    np.testing.assert_allclose(out2, expect2, rtol=1e-6)


@pytest.mark.parametrize("mode", ["dynamic", "static"])
def test_static_then_runtime_interpreted(mode: str) -> None:
    rng = np.random.default_rng()
    flags = rng.integers(0, 2, 19).astype(np.int32)
    out = poisoned(19)
    interpreted(static_then_runtime)[(19,)](flags, out, MODE=mode)
    expect = np.where(flags != 0, 0.0, 1.0) if mode == "dynamic" else np.full(19, 5.0)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("to_a", [True, False])
def test_void_conditional_interpreted(to_a: bool) -> None:
    rng = np.random.default_rng()
    n, block = 100, 32
    x = rng.standard_normal(n).astype(np.float32)
    a, b = poisoned(2 * n), poisoned(2 * n)
    interpreted(void_conditional)[((n + block - 1) // block,)](x, a, b, n, BLOCK=block,
                                                                TO_A=to_a)
    ea, eb = poisoned(2 * n), poisoned(2 * n)
    void_conditional_ref(x, ea, eb, n, block, to_a)
    np.testing.assert_array_equal(a, ea)
    np.testing.assert_array_equal(b, eb)


def test_lazy_conditional_interpreted() -> None:
    rng = np.random.default_rng()
    x = rng.standard_normal(5).astype(np.float32)
    out = poisoned(9)
    interpreted(lazy_conditional)[(9,)](x, out, 9, 5)  # programs 5..8 would read past x
    np.testing.assert_array_equal(out, np.concatenate([x, np.full(4, -1.0, np.float32)]))


def test_descriptor_helpers_interpreted() -> None:
    import torch

    rng = np.random.default_rng()
    m, n, bm, bn = 24, 64, 8, 32
    x = torch.from_numpy(rng.standard_normal((m, n)).astype(np.float32))
    out = torch.full((m, n), POISON)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8))
    interpreted(descriptor_helpers)[(m // bm, n // bn)](out, x, m, n, BM=bm, BN=bn)
    np.testing.assert_array_equal(out.numpy(), np.abs(x.numpy()))


@pytest.mark.parametrize("fn, signature, message", [
    (return_in_loop, {"x_ptr": "*fp32", "n": "i32"},
     "inside a runtime `if`, either both branches return or neither does"),
])
def test_still_rejected(fn, signature, message) -> None:
    with pytest.raises(CompilationError, match=message.replace("`", ".")):
        triton.compile(fn, signature, {}, target="ttir")
    x = poisoned(4)
    with pytest.raises(CompilationError, match=message.replace("`", ".")):
        interpreted(fn)[(1,)](x, 4)
    np.testing.assert_array_equal(x, poisoned(4))


def test_a_value_on_one_path_is_poison_on_the_other() -> None:
    """As in Triton: the path that falls off the end returns `ub.poison`; the path that
    returns gives its value, compiled and interpreted."""
    ttir = triton.compile(value_on_one_path, {"x_ptr": "*fp32", "c": "i32"}, {},
                          target="ttir").asm["ttir"]
    assert "ub.poison : f32" in ttir
    x = np.array([2.5, 0, 0, 0], np.float32)
    interpreted(value_on_one_path)[(1,)](x, 4)
    np.testing.assert_array_equal(x, [2.5, 0, 0, 0])


# -- compiled, on the GPU ------------------------------------------------------------------

@pytest.mark.gpu
def test_early_exit_gpu() -> None:
    import torch

    rng = np.random.default_rng()
    n, block = 1000, 128
    x = rng.standard_normal(n).astype(np.float32)
    y = torch.full((n + 300,), POISON, device="cuda")
    early_exit[(11,)](torch.from_numpy(x).cuda(), y, n, BLOCK=block)
    expect = poisoned(n + 300).astype(np.float64)
    early_exit_ref(x, expect, n)
    np.testing.assert_allclose(y.cpu().numpy(), expect, rtol=1e-6)


@pytest.mark.gpu
def test_nested_and_callee_returns_gpu() -> None:
    import torch

    rng = np.random.default_rng()
    n = 301
    conds = [rng.integers(0, 2, n).astype(np.int32) for _ in range(3)]
    v = rng.standard_normal(n).astype(np.float32)
    out = torch.full((n,), POISON, device="cuda")
    nested_return[(n,)](*(torch.from_numpy(c).cuda() for c in conds),
                        torch.from_numpy(v).cuda(), out)
    expect = poisoned(n).astype(np.float64)
    nested_return_ref(*conds, v.astype(np.float64), expect)
    np.testing.assert_allclose(out.cpu().numpy(), expect, rtol=1e-6)

    m, block = 250, 64
    x = rng.standard_normal(m).astype(np.float32)
    c = rng.integers(0, 4, 4).astype(np.int32)
    o1 = torch.full((m + 8,), POISON, device="cuda")
    o2 = torch.full((m + 8,), POISON, device="cuda")
    callee_returns[(4,)](torch.from_numpy(x).cuda(), torch.from_numpy(c).cuda(), o1, o2, m,
                         BLOCK=block)
    e1, e2 = poisoned(m + 8).astype(np.float64), poisoned(m + 8).astype(np.float64)
    callee_returns_ref(x, c, e1, e2, m, block)
    np.testing.assert_allclose(o1.cpu().numpy(), e1, rtol=1e-6)
    np.testing.assert_allclose(o2.cpu().numpy(), e2, rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("to_a", [True, False])
def test_void_conditional_gpu(to_a: bool) -> None:
    import torch

    rng = np.random.default_rng()
    n, block = 1000, 32
    x = rng.standard_normal(n).astype(np.float32)
    a = torch.full((2 * n,), POISON, device="cuda")
    b = torch.full((2 * n,), POISON, device="cuda")
    void_conditional[((n + block - 1) // block,)](torch.from_numpy(x).cuda(), a, b, n,
                                                   BLOCK=block, TO_A=to_a)
    ea, eb = poisoned(2 * n), poisoned(2 * n)
    void_conditional_ref(x, ea, eb, n, block, to_a)
    np.testing.assert_array_equal(a.cpu().numpy(), ea)
    np.testing.assert_array_equal(b.cpu().numpy(), eb)
