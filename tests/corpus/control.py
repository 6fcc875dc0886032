"""Control flow and functions: loops, conditions, early return, callees, tuples, comprehensions,
f-strings, printing and assertions, constexpr globals."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel

BLOCK = 64
SCALE: tl.constexpr = tl.constexpr(3)
USE_BIAS = tl.constexpr(True)


def _vec_case(rng, n: int = 200, grid: int = 4, dtype=np.float32) -> Case:
    x = rng.standard_normal(grid * BLOCK).astype(dtype)
    return Case({"x_ptr": x, "out_ptr": np.zeros(grid * BLOCK, dtype), "n": n}, (grid,),
                ("out_ptr",), rtol=1e-4, atol=1e-4)


def _masked(args, values):
    out = args["out_ptr"].copy()
    n = args["n"]
    out[:n] = values[:n]
    return {"out_ptr": out}


F32 = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@triton.jit
def loops(x_ptr, out_ptr, n, steps, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(steps):                                  # scf.for, loop-carried acc
        acc += x * i
    for _k in tl.range(0, steps, 2, num_stages=3, loop_unroll_factor=2):
        acc = acc - 0.5 * x
    for j in tl.static_range(UNROLL):                       # unrolled at compile time
        acc += j
    total = 0
    for i in range(10, 0, -3):                              # a negative constexpr step
        total += i
    tl.store(out_ptr + offs, acc + total, mask=mask)


def _loops_case(rng):
    case = _vec_case(rng)
    case.args["steps"] = 5
    return case


def _loops_ref(args):
    x, steps = args["x_ptr"], args["steps"]
    acc = x * sum(range(steps)) - 0.5 * x * len(range(0, steps, 2)) + sum(range(4))
    return _masked(args, acc + (10 + 7 + 4 + 1))


LOOPS = kernel(
    loops, {**F32, "steps": "i32"}, {"BLOCK": BLOCK, "UNROLL": 4},
    """
    CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64xf32>) : i32
    CHECK: "tt.splat"(%[[IV]])
    CHECK: arith.sitofp
    CHECK: scf.yield
    CHECK: scf.for {{.*}} step %c2_i32
    CHECK: arith.subf
    CHECK: scf.yield
    CHECK-NEXT: } {tt.loop_unroll_factor = 2 : i32, tt.num_stages = 3 : i32}
    CHECK-COUNT-4: arith.addf
    CHECK: arith.subi %c10_i32
    CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c3_i32 {{.*}} -> (i32) : i32
    CHECK-NEXT: arith.subi %c10_i32{{.*}}, %[[K]]
    """,
    make_case=_loops_case, reference=_loops_ref,
)


@triton.jit
def while_loop(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    i = 0
    y = x
    while i < 5:                                            # scf.while
        y = y * 0.5 + 1.0
        i += 1
    tl.store(out_ptr + offs, y, mask=mask)


def _while_ref(args):
    y = args["x_ptr"].astype(np.float64)
    for _ in range(5):
        y = y * 0.5 + 1
    return _masked(args, y.astype(np.float32))


WHILE = kernel(
    while_loop, F32, {"BLOCK": BLOCK},
    """
    CHECK: scf.while ({{.*}}) : (tensor<64xf32>, i32) -> (tensor<64xf32>, i32)
    CHECK: arith.cmpi slt
    CHECK: scf.condition
    CHECK: } do {
    CHECK: arith.mulf
    CHECK: scf.yield
    """,
    make_case=_vec_case, reference=_while_ref,
)


@triton.jit
def conditions(x_ptr, out_ptr, n, mode, BLOCK: tl.constexpr, ACTIVATION: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if ACTIVATION == "relu":                                # constexpr: folded away
        x = tl.maximum(x, 0.0)
    elif ACTIVATION == "neg":
        x = -x
    else:
        x = x * 2
    if mode == 0:                                           # runtime: scf.if
        y = x + 1.0
    elif mode == 1:
        y = x * 3.0
    else:
        y = x
    scale = 2.0 if mode > 5 else 1.0
    y = y * scale
    tl.store(out_ptr + offs, y, mask=mask)


def _conditions_case(rng):
    case = _vec_case(rng)
    case.args["mode"] = 1
    return case


def _conditions_ref(args):
    x = np.maximum(args["x_ptr"], 0)
    return _masked(args, x * 3)


CONDITIONS = kernel(
    conditions, {**F32, "mode": "i32"}, {"BLOCK": BLOCK, "ACTIVATION": "relu"},
    """
    CHECK: arith.maxnumf
    CHECK-NOT: arith.negf
    CHECK: arith.cmpi eq
    CHECK: scf.if {{.*}} -> (tensor<64xf32>)
    CHECK: arith.addf
    CHECK: } else {
    CHECK: scf.if {{.*}} -> (tensor<64xf32>)
    CHECK: arith.mulf
    CHECK: arith.cmpi sgt
    CHECK: arith.select
    """,
    make_case=_conditions_case, reference=_conditions_ref,
)


@triton.jit
def early_return(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:                                    # the rest becomes the else branch
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x + 1.0, mask=offs < n)


@triton.jit
def _clamp_or_zero(x, limit):
    if limit < 0:
        return tl.zeros_like(x)
    return tl.minimum(x, limit)


@triton.jit
def early_return_value(x_ptr, out_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, _clamp_or_zero(x, limit), mask=offs < n)


EARLY_RETURN = kernel(
    early_return, F32, {"BLOCK": BLOCK},
    """
    CHECK: arith.cmpi sge
    CHECK: scf.if
    CHECK-NEXT: } else {
    CHECK: "tt.load"
    CHECK: "tt.store"
    """,
    make_case=_vec_case, reference=lambda args: _masked(args, args["x_ptr"] + 1),
)

EARLY_RETURN_VALUE = kernel(
    early_return_value, {**F32, "limit": "fp32"}, {"BLOCK": BLOCK},
    """
    CHECK: arith.cmpf olt
    CHECK: scf.if {{.*}} -> (tensor<64xf32>)
    CHECK: scf.yield
    CHECK: } else {
    CHECK: arith.minnumf
    CHECK: scf.yield
    """,
    make_case=lambda rng: _with(_vec_case(rng), limit=0.5),
    reference=lambda args: _masked(args, np.minimum(args["x_ptr"], 0.5)),
)


def _with(case: Case, **extra) -> Case:
    case.args.update(extra)
    return case


# -- callees -----------------------------------------------------------------------------------


@triton.jit
def _affine(x, a, b: tl.constexpr = 1.0):
    return x * a + b


@triton.jit
def _square_and_cube(x):
    sq = x * x
    return sq, sq * x


@triton.jit(noinline=True)
def _poly(x, c):
    return x * x * c + x


@triton.jit
def nested_calls(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = _affine(x, 2.0) + _affine(x, a=3.0, b=0.5)          # inlined
    sq, cube = _square_and_cube(x)
    z = _poly(y, 0.25) + _poly(sq, 0.25) + cube             # two calls, one func.func
    tl.store(out_ptr + offs, z, mask=mask)


def _nested_ref(args):
    x = args["x_ptr"].astype(np.float64)
    y = (x * 2 + 1) + (x * 3 + 0.5)
    sq = x * x

    def poly(v):
        return v * v * 0.25 + v
    return _masked(args, (poly(y) + poly(sq) + sq * x).astype(np.float32))


NESTED = kernel(
    nested_calls, F32, {"BLOCK": BLOCK},
    """
    CHECK: call @[[POLY:_poly__[a-z0-9_]+]]({{.*}}) : (tensor<64xf32>) -> tensor<64xf32>
    CHECK: call @[[POLY]]({{.*}}) : (tensor<64xf32>) -> tensor<64xf32>
    CHECK: func.func private @[[POLY]](%x: tensor<64xf32>) -> tensor<64xf32>
    CHECK: arith.constant dense<2.500000e-01>
    CHECK-NOT: func.func private @_poly
    """,
    make_case=_vec_case, reference=_nested_ref,
)


class Strided(NamedTuple):
    ptr: object
    stride: object


@triton.jit
def _load_strided(view, offs, mask):
    return tl.load(view.ptr + offs * view.stride, mask=mask, other=0.0)


@triton.jit
def tuple_args(src, pair, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = _load_strided(src, offs, mask)
    a_ptr, b_ptr = pair
    y = tl.load(a_ptr + offs, mask=mask) * tl.load(pair[1] + offs, mask=mask)
    stats = (x, y, len(pair))
    tl.store(out_ptr + offs, stats[0] + stats[1] + stats[2], mask=mask)


def _tuple_case(rng):
    x = rng.standard_normal(2 * 4 * BLOCK).astype(np.float32)
    a = rng.standard_normal(4 * BLOCK).astype(np.float32)
    b = rng.standard_normal(4 * BLOCK).astype(np.float32)
    return Case({"src": Strided(x, 2), "pair": (a, b), "out_ptr": np.zeros(4 * BLOCK, np.float32),
                 "n": 200}, (4,), ("out_ptr",))


def _tuple_ref(args):
    x, stride = args["src"]
    a, b = args["pair"]
    return _masked(args, x[::stride] + a * b + 2)


TUPLE_ARGS = kernel(
    tuple_args,
    {"src": Strided("*fp32", "i32"), "pair": ("*fp32", "*fp32"), "out_ptr": "*fp32", "n": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK-SAME: %src.ptr: !tt.ptr<f32, 1 : i32>, %src.stride: i32, %pair.0: !tt.ptr<f32, 1 : i32>, %pair.1: !tt.ptr<f32, 1 : i32>, %out_ptr: !tt.ptr<f32, 1 : i32>, %n: i32
    CHECK: "tt.splat"(%src.stride)
    CHECK: arith.muli
    CHECK: "tt.splat"(%src.ptr)
    CHECK: "tt.load"
    CHECK: "tt.splat"(%pair.0)
    CHECK: "tt.splat"(%pair.1)
    """,
    make_case=_tuple_case, reference=_tuple_ref,
)


@triton.jit
def comprehension_and_globals(x_ptr, out_ptr, n, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    tl.static_assert(BLOCK % PARTS == 0, f"BLOCK={BLOCK} must split into {PARTS} parts")
    tl.static_print(f"compiling with BLOCK={BLOCK}, PARTS={PARTS}")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    powers = [x * (i + 1) for i in tl.static_range(PARTS)]
    acc = powers[0]
    for i in tl.static_range(1, len(powers)):
        acc += powers[i]
    if USE_BIAS:
        acc += SCALE
    tl.store(out_ptr + offs, acc * SCALE, mask=mask)


COMPREHENSION = kernel(
    comprehension_and_globals, F32, {"BLOCK": BLOCK, "PARTS": 4},
    """
    CHECK-COUNT-4: arith.mulf
    CHECK-COUNT-3: arith.addf
    CHECK: arith.constant dense<3.000000e+00>
    """,
    make_case=_vec_case,
    reference=lambda args: _masked(args, (args["x_ptr"] * 10 + 3) * 3),
)


@triton.jit
def debug_ops(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.device_print(f"block {BLOCK} x=", x)
    tl.device_print("pid", pid, hex=True)
    print("offs", offs)
    tl.device_assert(x == x, f"NaN in a block of {BLOCK}")
    assert pid >= 0, f"negative pid with BLOCK={BLOCK}"
    assert BLOCK > 0
    tl.debug_barrier()
    tl.store(out_ptr + offs, x, mask=mask)


DEBUG = kernel(
    debug_ops, F32, {"BLOCK": BLOCK},
    """
    CHECK: "tt.print"({{.*}}) {hex = false, is_signed = array<i32: 0>, {{.*}}prefix = " block 64 x=: "}
    CHECK: "tt.print"({{.*}}) {hex = true, is_signed = array<i32: 1>, {{.*}}prefix = " pid: "}
    CHECK: "tt.print"({{.*}}) {{{.*}}prefix = " offs: "}
    CHECK: "tt.assert"({{.*}}) {message = "NaN in a block of 64"}
    CHECK: "tt.assert"({{.*}}) {message = "{{.*}}control.py:{{[0-9]+}}: debug_ops: Assertion `pid >= 0` failed: negative pid with BLOCK=64"}
    CHECK-NOT: "tt.assert"
    CHECK: "tt.barrier"
    """,
    make_case=_vec_case, reference=lambda args: _masked(args, args["x_ptr"]),
    debug_ops=True,
)


@triton.jit
def scalar_kernel(x_ptr, out_ptr, alpha, flag, BIG: tl.constexpr):
    x = tl.load(x_ptr)
    y = x * alpha
    if flag:
        y = y + BIG
    tl.store(out_ptr, y)
    tl.store(out_ptr + 1, tl.num_programs(0).to(tl.float32))


SCALAR = kernel(
    scalar_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "alpha": "fp32", "flag": "i1"},
    {"BIG": 2**40},
    """
    CHECK: "tt.load"({{.*}}) {{.*}}: (!tt.ptr<f32, 1 : i32>) -> f32
    CHECK: arith.mulf {{.*}} : f32
    CHECK: scf.if %flag -> (f32)
    CHECK: arith.constant 1.09951163E+12 : f32
    CHECK: "tt.get_num_programs"() {axis = 0 : i32}
    """,
    make_case=lambda rng: Case({"x_ptr": np.array([1.5], np.float32),
                                "out_ptr": np.zeros(2, np.float32), "alpha": 2.0, "flag": True},
                               (1,), ("out_ptr",)),
    reference=lambda args: {"out_ptr": np.array([3.0 + 2.0**40, 1.0], np.float32)},
)

KERNELS = [LOOPS, WHILE, CONDITIONS, EARLY_RETURN, EARLY_RETURN_VALUE, NESTED, TUPLE_ARGS,
           COMPREHENSION, DEBUG, SCALAR]
