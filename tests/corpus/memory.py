"""Memory: load/store options, atomics (every kind, cas), block pointers, tensor descriptors,
compiler hints."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel

N = 256
BLOCK = 128


@triton.jit
def load_store_options(x_ptr, flags_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, cache_modifier=".cg",
                eviction_policy="evict_last", volatile=True)
    flag = tl.load(flags_ptr + offs, mask=mask, other=False)        # *i1: bytes in memory
    y = tl.where(flag, x, -x)
    tl.store(out_ptr + offs, y, mask=mask, cache_modifier=".wb", eviction_policy="evict_first")
    tl.store(flags_ptr + offs, ~flag, mask=mask)


def _options_case(rng):
    x = rng.standard_normal(N).astype(np.float32)
    flags = rng.integers(0, 2, N).astype(np.bool_)
    return Case({"x_ptr": x, "flags_ptr": flags, "out_ptr": np.zeros(N, np.float32), "n": N - 7},
                (N // BLOCK,), ("out_ptr", "flags_ptr"))


def _options_ref(args):
    n, x, f = args["n"], args["x_ptr"], args["flags_ptr"]
    out, flags = args["out_ptr"].copy(), f.copy()
    out[:n] = np.where(f, x, -x)[:n]
    flags[:n] = ~f[:n]
    return {"out_ptr": out, "flags_ptr": flags}


LOAD_STORE = kernel(
    load_store_options, {"x_ptr": "*fp32", "flags_ptr": "*i1", "out_ptr": "*fp32", "n": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK: arith.addi {{.*}} {tt.contiguity = 128 : i32, tt.divisibility = 128 : i32}
    CHECK: "tt.load"({{.*}}) {{{.*}}cache = ".cg", evict = "evict_last", is_volatile = true
    CHECK: "tt.bitcast"({{.*}}) {{.*}}: (tensor<128x!tt.ptr<i1, 1 : i32>>) -> tensor<128x!tt.ptr<i8, 1 : i32>>
    CHECK: "tt.load"
    CHECK-SAME: -> tensor<128xi8>
    CHECK: arith.cmpi ne
    CHECK: "tt.store"({{.*}}) {{{.*}}cache = ".wb", evict = "evict_first"
    CHECK: arith.extui {{.*}} : tensor<128xi1> to tensor<128xi8>
    CHECK: "tt.store"
    """,
    divisible_by_16=frozenset({"x_ptr", "out_ptr"}),
    make_case=_options_case, reference=_options_ref,
)


@triton.jit
def atomics(acc_f_ptr, acc_i_ptr, acc_u_ptr, old_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)               # int32
    old = tl.atomic_add(acc_f_ptr + offs, x.to(tl.float32), mask=mask)
    tl.atomic_add(acc_i_ptr, 1)                                 # scalar atomic
    tl.atomic_max(acc_i_ptr + 1 + offs % 4, x, mask=mask, sem="relaxed", scope="cta")
    tl.atomic_min(acc_i_ptr + 5 + offs % 4, x, mask=mask, sem="acquire")
    tl.atomic_and(acc_i_ptr + 9 + offs % 4, x, mask=mask, sem="release", scope="gpu")
    tl.atomic_or(acc_i_ptr + 13 + offs % 4, x, mask=mask)
    tl.atomic_xor(acc_i_ptr + 17 + offs % 4, x, mask=mask, scope="sys")
    tl.atomic_max(acc_u_ptr + offs % 2, x.to(tl.uint32), mask=mask)
    tl.atomic_min(acc_u_ptr + 2 + offs % 2, x.to(tl.uint32), mask=mask)
    tl.atomic_max(acc_f_ptr + BLOCK, x.to(tl.float32), mask=mask)
    prev = tl.atomic_xchg(acc_i_ptr + 21 + offs, x, mask=mask)
    tl.store(old_ptr + offs, old + prev.to(tl.float32), mask=mask)


def _atomics_case(rng):
    x = rng.integers(0, 1000, BLOCK).astype(np.int32)
    acc_i = np.zeros(21 + BLOCK, np.int32)
    acc_i[5:9] = 10**6
    acc_i[9:13] = -1
    acc_u = np.array([0, 0, 10**6, 10**6], np.uint32)
    return Case({"acc_f_ptr": np.ones(BLOCK + 1, np.float32), "acc_i_ptr": acc_i, "acc_u_ptr": acc_u,
                 "old_ptr": np.zeros(BLOCK, np.float32), "x_ptr": x, "n": 100}, (1,),
                ("acc_f_ptr", "acc_i_ptr", "acc_u_ptr", "old_ptr"))


def _atomics_ref(args):
    x, n = args["x_ptr"][:100], args["n"]
    acc_f, acc_i, acc_u = args["acc_f_ptr"].copy(), args["acc_i_ptr"].copy(), args["acc_u_ptr"].copy()
    old = args["old_ptr"].copy()
    old[:n] = acc_f[:n]
    acc_f[:n] += x
    acc_i[0] += 1
    lanes = np.arange(n) % 4
    for lane in range(4):
        v = x[lanes == lane]
        acc_i[1 + lane] = max(acc_i[1 + lane], v.max())
        acc_i[5 + lane] = min(acc_i[5 + lane], v.min())
        acc_i[9 + lane] = acc_i[9 + lane] & np.bitwise_and.reduce(v)
        acc_i[13 + lane] |= np.bitwise_or.reduce(v)
        acc_i[17 + lane] ^= np.bitwise_xor.reduce(v)
    for lane in range(2):
        v = x[np.arange(n) % 2 == lane].astype(np.uint32)
        acc_u[lane] = max(acc_u[lane], v.max())
        acc_u[2 + lane] = min(acc_u[2 + lane], v.min())
    acc_f[BLOCK] = max(acc_f[BLOCK], x.max())
    old[:n] += acc_i[21:21 + n]
    acc_i[21:21 + n] = x
    return {"acc_f_ptr": acc_f, "acc_i_ptr": acc_i, "acc_u_ptr": acc_u, "old_ptr": old}


ATOMICS = kernel(
    atomics,
    {"acc_f_ptr": "*fp32", "acc_i_ptr": "*i32", "acc_u_ptr": "*u32", "old_ptr": "*fp32",
     "x_ptr": "*i32", "n": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "fadd", {{.*}}scope = "gpu", sem = "acq_rel"} : (tensor<128x!tt.ptr<f32, 1 : i32>>, tensor<128xf32>, tensor<128xi1>) -> tensor<128xf32>
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "add", {{.*}}scope = "gpu", sem = "acq_rel"} : (!tt.ptr<i32, 1 : i32>, i32) -> i32
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "max", {{.*}}scope = "cta", sem = "relaxed"}
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "min", {{.*}}scope = "gpu", sem = "acquire"}
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "and", {{.*}}scope = "gpu", sem = "release"}
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "or"
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "xor", {{.*}}scope = "sys"
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "umax"
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "umin"
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "max"{{.*}} -> tensor<128xf32>
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "xchg"
    """,
    make_case=_atomics_case, reference=_atomics_ref,
)


@triton.jit
def atomic_cas_lock(lock_ptr, counter_ptr):
    # a spin lock: every program increments the counter while holding the lock
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(counter_ptr, volatile=True)
    tl.store(counter_ptr, count + 1)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


ATOMIC_CAS = kernel(
    atomic_cas_lock, {"lock_ptr": "*i32", "counter_ptr": "*i32"}, {},
    """
    CHECK: scf.while
    CHECK: "tt.atomic_cas"({{.*}}) {scope = "gpu", sem = "acq_rel"} : (!tt.ptr<i32, 1 : i32>, i32, i32) -> i32
    CHECK: arith.cmpi eq
    CHECK: scf.condition
    CHECK: "tt.load"
    CHECK: "tt.barrier"()
    CHECK: "tt.atomic_rmw"({{.*}}) {kind = "xchg"
    """,
    make_case=lambda rng: Case({"lock_ptr": np.zeros(1, np.int32),
                                "counter_ptr": np.zeros(1, np.int32)}, (8,), ("counter_ptr",)),
    reference=lambda args: {"counter_ptr": args["counter_ptr"] + 8},
)


@triton.jit
def block_pointer_copy(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_m, stride_n),
                            offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_N),
                            order=(1, 0))
    dst = tl.make_block_ptr(out_ptr, (M, N), (stride_m, stride_n), (pid_m * BLOCK_M, 0),
                            (BLOCK_M, BLOCK_N), (1, 0))
    for _ in range(0, tl.cdiv(N, BLOCK_N)):
        tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        tl.store(dst, tile * 2.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, BLOCK_N))
        dst = tl.advance(dst, [0, BLOCK_N])


def _block_case(rng):
    x = rng.standard_normal((20, 40)).astype(np.float32)
    return Case({"x_ptr": x, "out_ptr": np.zeros((20, 40), np.float32), "M": 20, "N": 40,
                 "stride_m": 40, "stride_n": 1}, (2,), ("out_ptr",))


BLOCK_PTR = kernel(
    block_pointer_copy,
    {"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride_m": "i32",
     "stride_n": "i32"},
    {"BLOCK_M": 16, "BLOCK_N": 32},
    """
    CHECK: "tt.make_block_ptr"({{.*}}) {{{.*}}order = array<i32: 1, 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i64, i64, i32, i32) -> !tt.ptr<tensor<16x32xf32>, 1 : i32>
    CHECK: scf.for {{.*}} iter_args({{.*}}) -> (!tt.ptr<tensor<16x32xf32>, 1 : i32>, !tt.ptr<tensor<16x32xf32>, 1 : i32>)
    CHECK: "tt.load"({{.*}}) {boundary_check = array<i32: 0, 1>{{.*}}padding = "zero"} : (!tt.ptr<tensor<16x32xf32>, 1 : i32>) -> tensor<16x32xf32>
    CHECK: "tt.store"({{.*}}) {boundary_check = array<i32: 0, 1>
    CHECK: "tt.advance"
    CHECK: scf.yield
    """,
    make_case=_block_case, reference=lambda args: {"out_ptr": args["x_ptr"] * 2},
)


@triton.jit
def tensor_descriptor_copy(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                    block_shape=[BLOCK_M, BLOCK_N])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    tile = src.load([off_m, off_n])
    dst.store([off_m, off_n], tile + 1.0)


TENSOR_DESC = kernel(
    tensor_descriptor_copy, {"x_ptr": "*fp16", "out_ptr": "*fp16", "M": "i32", "N": "i32"},
    {"BLOCK_M": 32, "BLOCK_N": 64},
    """
    CHECK: "tt.make_tensor_descriptor"({{.*}}) {{.*}}: (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<32x64xf16>>
    CHECK: "tt.descriptor_load"({{.*}}) {{.*}}: (!tt.tensordesc<tensor<32x64xf16>>, i32, i32) -> tensor<32x64xf16>
    CHECK: "tt.descriptor_store"
    """,
    make_case=lambda rng: Case(
        {"x_ptr": rng.standard_normal((64, 128)).astype(np.float16),
         "out_ptr": np.zeros((64, 128), np.float16), "M": 64, "N": 128}, (2, 2), ("out_ptr",),
        rtol=1e-3, atol=1e-3),
    reference=lambda args: {"out_ptr": args["x_ptr"] + np.float16(1)},
)


@triton.jit
def hints_and_pointers(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    tl.assume(n % 16 == 0)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    addr = (x_ptr + offs).to(tl.int64)                      # pointer -> integer
    back = addr.to(tl.pointer_type(tl.float32))             # and back
    x = tl.load(back, mask=offs < n)
    as_int = x_ptr.to(tl.pointer_type(tl.int32))            # pointer bitcast
    bits = tl.load(as_int + offs, mask=offs < n)
    tl.store(out_ptr + offs, x + bits.to(tl.float32, bitcast=True), mask=offs < n)


HINTS = kernel(
    hints_and_pointers, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": BLOCK},
    """
    CHECK: arith.cmpi sgt
    CHECK: llvm.intr.assume
    CHECK: arith.remsi
    CHECK: llvm.intr.assume
    CHECK: "tt.ptr_to_int"({{.*}}) {{.*}}: (tensor<128x!tt.ptr<f32, 1 : i32>>) -> tensor<128xi64>
    CHECK: "tt.int_to_ptr"({{.*}}) {{.*}}: (tensor<128xi64>) -> tensor<128x!tt.ptr<f32, 1 : i32>>
    CHECK: "tt.bitcast"({{.*}}) {{.*}}: (!tt.ptr<f32, 1 : i32>) -> !tt.ptr<i32, 1 : i32>
    CHECK: arith.bitcast
    """,
    make_case=lambda rng: Case({"x_ptr": rng.standard_normal(N).astype(np.float32),
                                "out_ptr": np.zeros(N, np.float32), "n": N}, (N // BLOCK,),
                               ("out_ptr",)),
    reference=lambda args: {"out_ptr": args["x_ptr"] * 2},
)

KERNELS = [LOAD_STORE, ATOMICS, ATOMIC_CAS, BLOCK_PTR, TENSOR_DESC, HINTS]
