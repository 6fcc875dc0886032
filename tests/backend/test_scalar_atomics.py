"""Atomics on a scalar pointer run once per program: after a barrier that every thread
reaches (so no warp still behind reads what the atomic writes), thread 0 performs them as
predicated PTX (no branch on the thread id) and every thread reads the old value back
through shared memory; tensor atomics whose layout holds copies of an element share the
owner's result the same way. PTX checked on the CPU; counts and old values checked on the GPU."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.compiler import mlir_loader


@triton.jit
def cas_increment(counter_ptr, ITERS: tl.constexpr):
    # a compare-and-swap retry loop: each program adds ITERS to the counter
    for _ in range(ITERS):
        cur = tl.atomic_add(counter_ptr, 0)
        prev = tl.atomic_cas(counter_ptr, cur, cur + 1)
        while prev != cur:
            cur = prev
            prev = tl.atomic_cas(counter_ptr, cur, cur + 1)


@triton.jit
def spin_lock_counter(lock_ptr, counter_ptr):
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(counter_ptr, volatile=True)
    tl.store(counter_ptr, count + 1)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def ticket(counter_ptr, order_ptr, rows_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    old = tl.atomic_add(counter_ptr, 1)
    tl.store(order_ptr + pid, old)
    # every thread must hold the same `old`: each writes its part of row `old`
    cols = tl.arange(0, BLOCK)
    tl.store(rows_ptr + old * BLOCK + cols, pid + cols * 0)


@triton.jit
def copies_share_old(counts_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    old = tl.atomic_add(counts_ptr + offs, 1)
    tl.store(out_ptr + tl.program_id(0) * N + offs, old)


@triton.jit
def scalar_rmw(ptr, vals_ptr, olds_ptr, OP: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(vals_ptr + pid)
    if OP == "max":
        old = tl.atomic_max(ptr, v)
    elif OP == "min":
        old = tl.atomic_min(ptr, v)
    elif OP == "xchg":
        old = tl.atomic_xchg(ptr, v)
    else:
        old = tl.atomic_add(ptr, v, mask=pid % 3 != 0)
    tl.store(olds_ptr + pid, old)


@triton.jit
def tensor_rmw_unused(ptr, vals_ptr, N: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    offs = tl.arange(0, N)
    tl.atomic_add(ptr + offs, tl.load(vals_ptr + offs), sem=SEM, scope=SCOPE)


@triton.jit
def tensor_cas_unused(ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.atomic_cas(ptr + offs, tl.load(ptr + offs), tl.load(ptr + offs) + 1, sem="release")


def filecheck(text: str, checks: str, tmp_path: Path) -> None:
    check_file = tmp_path / "checks.txt"
    check_file.write_text("\n".join(line.strip() for line in checks.strip().splitlines()) + "\n")
    result = subprocess.run([mlir_loader.llvm_tool("FileCheck"), str(check_file),
                             "--dump-input=fail"], input=text, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]


def ptx_of(fn, signature, constexprs, arch=90, **options) -> str:
    kernel = triton.compile(fn, signature, constexprs, target=f"cuda:{arch}", **options)
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    return kernel.asm["ptx"]


def test_cas_loop_once_per_program(tmp_path: Path) -> None:
    ptx = ptx_of(cas_increment, {"counter_ptr": "*i32"}, {"ITERS": 4})
    filecheck(ptx, """
        CHECK: mov.u32 %r[[TID:[0-9]+]], %tid.x;
        CHECK: setp.eq.b32 %p[[T0:[0-9]+]], %r[[TID]], 0;
        CHECK: @%p[[T0]] atom.global.gpu.acq_rel.add.u32
        CHECK: bar.sync 0;
        CHECK: @%p[[T0]] st.shared.b32
        CHECK: bar.sync 0;
        CHECK: ld.shared.b32
        CHECK: @%p[[T0]] atom.global.acq_rel.gpu.cas.b32
        CHECK: bar.sync 0;
        CHECK: @%p[[T0]] st.shared.b32
        CHECK: bar.sync 0;
        CHECK: ld.shared.b32
        CHECK: @%p[[T0]] atom.global.acq_rel.gpu.cas.b32
        CHECK: bar.sync 0;
        CHECK: @%p[[T0]] st.shared.b32
        CHECK: bar.sync 0;
        CHECK: ld.shared.b32
    """, tmp_path)
    # no branch depends on the thread id, so no thread can skip a barrier
    body = ptx[ptx.index(".entry"):]
    predicate = body.split("setp.eq.b32 \t%p", 1)[1].split(",", 1)[0]
    assert f"@%p{predicate} bra" not in body and f"@!%p{predicate} bra" not in body
    atoms = [line.strip() for line in body.splitlines() if "atom." in line]
    assert len(atoms) >= 3 and all(a.startswith(f"@%p{predicate} atom.") for a in atoms)
    # one barrier before each atomic (program order), two to share its old value
    assert body.count("bar.sync") == 3 * len(atoms)


def test_unused_result_is_not_shared(tmp_path: Path) -> None:
    ptx = ptx_of(spin_lock_counter, {"lock_ptr": "*i32", "counter_ptr": "*i32"}, {})
    filecheck(ptx, """
        CHECK: setp.eq.b32 %p[[T0:[0-9]+]], %r{{[0-9]+}}, 0;
        CHECK: @%p[[T0]] atom.global.acq_rel.gpu.cas.b32
        CHECK: @%p[[T0]] st.shared.b32
        CHECK: ld.shared.b32
        CHECK: ld.volatile.global.b32
        CHECK: @%p[[T0]] st.global.b32
        CHECK: bar.sync 0;
        CHECK: @%p[[T0]] atom.global.gpu.acq_rel.exch.b32
        CHECK-NOT: st.shared
        CHECK: ret;
    """, tmp_path)


def test_replicated_tensor_atomic_shares_owner_result(tmp_path: Path) -> None:
    ptx = ptx_of(copies_share_old, {"counts_ptr": "*i32", "out_ptr": "*i32"}, {"N": 16})
    filecheck(ptx, """
        CHECK: @%p{{[0-9]+}} atom.global.gpu.acq_rel.add.u32
        CHECK: bar.sync 0;
        CHECK: @%p{{[0-9]+}} st.shared.b32
        CHECK: bar.sync 0;
        CHECK: ld.shared.b32
        CHECK: st.global.b32
    """, tmp_path)


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("sem, scope", [(None, None), ("release", "cta"), ("relaxed", "sys"),
                                        ("acquire", "gpu")])
def test_tensor_atomic_names_its_order_and_scope(sem, scope, arch: int) -> None:
    """An unused tensor atomic is one predicated `atom` per element with the memory order
    and scope asked for (acq_rel at gpu scope by default), not a fenced LLVM atomic."""
    ptx = ptx_of(tensor_rmw_unused, {"ptr": "*fp32", "vals_ptr": "*fp32"},
                 {"N": 256, "SEM": sem, "SCOPE": scope}, arch=arch)
    body = ptx[ptx.index(".entry"):]
    qual = f"atom.global.{scope or 'gpu'}.{sem or 'acq_rel'}.add.f32"
    assert body.count(qual) == 2 and body.count("atom.") == 2  # 256 elements, 128 threads
    assert "fence" not in body and "membar" not in body


@pytest.mark.parametrize("ty", ["fp16", "bf16", "fp32", "i64"])
def test_tensor_cas_of_floats_compares_bits(ty: str) -> None:
    ptx = ptx_of(tensor_cas_unused, {"ptr": f"*{ty}"}, {"N": 128})
    bits = {"fp16": 16, "bf16": 16, "fp32": 32, "i64": 64}[ty]
    assert f"atom.global.release.gpu.cas.b{bits}" in ptx


OPS = {  # (op, element types) with a scalar pointer
    "add": ["i32", "i64", "u32", "u64", "fp16", "bf16", "fp32", "fp64"],
    "max": ["i32", "i64", "u32", "u64", "fp32", "fp64"],
    "min": ["i32", "u64", "fp32", "fp64"],
    "xchg": ["i32", "i64", "fp16", "bf16", "fp32", "fp64"],
}


@pytest.mark.parametrize("arch", [80, 90])
@pytest.mark.parametrize("op, ty", [(op, ty) for op, tys in OPS.items() for ty in tys])
def test_every_scalar_atomic_passes_ptxas(op: str, ty: str, arch: int) -> None:
    ptx = ptx_of(scalar_rmw, {"ptr": f"*{ty}", "vals_ptr": f"*{ty}", "olds_ptr": f"*{ty}"},
                 {"OP": op}, arch=arch)
    body = ptx[ptx.index(".entry"):]
    assert body.count("bar.sync") == 3
    if ty in ("fp16", "bf16") and op == "xchg" or (ty, op) == ("bf16", "add") and arch < 90:
        assert ".cas.b16" in body  # no such atom: a compare-and-swap loop
    elif ty in ("fp32", "fp64") and op in ("max", "min"):
        assert body.count("atom.") == 2  # by the sign of the value
    else:
        assert body.count("atom.") == 1


def test_same_kernels_interpreted() -> None:
    interpret = triton.jit(interpret=True)
    counter = np.array([5], np.int32)
    interpret(cas_increment.fn)[(13,)](counter, ITERS=3)
    assert counter[0] == 5 + 13 * 3
    lock, count = np.zeros(1, np.int32), np.array([41], np.int32)
    interpret(spin_lock_counter.fn)[(9,)](lock, count)
    assert (lock[0], count[0]) == (0, 50)
    programs, block = 11, 16
    counter = np.zeros(1, np.int32)
    order = np.full(programs, -1, np.int32)
    rows = np.full((programs, block), -1, np.int32)
    interpret(ticket.fn)[(programs,)](counter, order, rows, BLOCK=block)
    np.testing.assert_array_equal(np.sort(order), np.arange(programs))
    expect = np.empty((programs, block), np.int32)
    expect[order] = np.arange(programs, dtype=np.int32)[:, None]
    np.testing.assert_array_equal(rows, expect)


# -- on the GPU ----------------------------------------------------------------------------

@pytest.mark.gpu
def test_cas_increment_counts_exactly() -> None:
    import torch

    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    cas_increment[(333,)](counter, ITERS=7)
    assert int(counter.item()) == 333 * 7


@pytest.mark.gpu
def test_spin_lock_counts_exactly() -> None:
    import torch

    lock = torch.zeros(1, dtype=torch.int32, device="cuda")
    counter = torch.full((1,), 41, dtype=torch.int32, device="cuda")
    spin_lock_counter[(517,)](lock, counter)
    assert int(counter.item()) == 41 + 517
    assert int(lock.item()) == 0


@pytest.mark.gpu
def test_scalar_atomic_add_returns_unique_old_values() -> None:
    import torch

    programs, block = 700, 128
    counter = torch.full((1,), 0, dtype=torch.int32, device="cuda")
    order = torch.full((programs,), -1, dtype=torch.int32, device="cuda")
    rows = torch.full((programs, block), -1, dtype=torch.int32, device="cuda")
    ticket[(programs,)](counter, order, rows, BLOCK=block)
    order_np = order.cpu().numpy()
    assert int(counter.item()) == programs
    np.testing.assert_array_equal(np.sort(order_np), np.arange(programs))
    # row `old` holds the program that drew it, in every column
    expect = np.empty((programs, block), np.int32)
    expect[order_np] = np.arange(programs, dtype=np.int32)[:, None]
    np.testing.assert_array_equal(rows.cpu().numpy(), expect)


@pytest.mark.gpu
def test_copies_of_a_tensor_atomic_share_its_result() -> None:
    import torch

    programs, n = 97, 16
    counts = torch.zeros(n, dtype=torch.int32, device="cuda")
    out = torch.full((programs, n), -1, dtype=torch.int32, device="cuda")
    copies_share_old[(programs,)](counts, out, N=n)
    got = np.sort(out.cpu().numpy(), axis=0)
    np.testing.assert_array_equal(got, np.repeat(np.arange(programs)[:, None], n, axis=1))
    np.testing.assert_array_equal(counts.cpu().numpy(), np.full(n, programs))


@pytest.mark.gpu
@pytest.mark.parametrize("op, ty", [(op, ty) for op in ("max", "min", "add", "xchg")
                                     for ty in ("fp32", "fp64", "fp16")
                                     if not (ty == "fp16" and op in ("max", "min"))])
def test_scalar_rmw_values(op: str, ty: str) -> None:
    import torch

    rng = np.random.default_rng()
    programs = 301
    np_ty = {"fp32": np.float32, "fp64": np.float64, "fp16": np.float16}[ty]
    bound = 2 if ty == "fp16" else 64  # every partial sum exact in the type
    vals = rng.integers(-bound, bound + 1, programs).astype(np_ty) / np_ty(4)
    start = np_ty(0.5)
    cell = torch.full((1,), float(start), dtype=getattr(torch, str(np.dtype(np_ty))),
                      device="cuda")
    olds = torch.full((programs,), 1234.0, dtype=cell.dtype, device="cuda")
    scalar_rmw[(programs,)](cell, torch.from_numpy(vals).cuda(), olds, OP=op)
    final, olds_np = cell.cpu().numpy()[0], olds.cpu().numpy()
    if op == "max":
        assert final == max(start, vals.max())
    elif op == "min":
        assert final == min(start, vals.min())
    elif op == "add":
        on = np.arange(programs) % 3 != 0
        assert final == start + vals[on].astype(np.float64).sum()
        # each old value is the start plus the values added before it: one is the start
        assert (olds_np[on] == start).sum() >= 1 and not (olds_np == 1234.0).any()
    else:  # the old values and the final one are the start and every value, once each
        seen = np.sort(np.concatenate([olds_np, [final]]).astype(np.float64))
        np.testing.assert_array_equal(seen, np.sort(np.concatenate([vals, [start]])))


@triton.jit
def _fp16_atomic_max(p):
    tl.atomic_max(p, 1.0)


def test_fp16_atomic_max_is_refused():
    with pytest.raises(triton.CompilationError, match="atomic_max on floats needs fp32 or fp64"):
        triton.compile(_fp16_atomic_max, {"p": "*fp16"}, {}, target="ttir")
