"""Random numbers: tl.rand, tl.randn, tl.randint, tl.randint4x (Philox)."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel, philox, uniform

BLOCK = 128


@triton.jit
def random_numbers(u_ptr, n_ptr, i_ptr, i4_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(u_ptr + offs, tl.rand(seed, offs))
    tl.store(n_ptr + offs, tl.randn(seed, offs))
    tl.store(i_ptr + offs, tl.randint(seed, offs))
    a, b, c, d = tl.randint4x(seed, offs, n_rounds=7)
    tl.store(i4_ptr + offs, a ^ b ^ c ^ d)


def _random_case(rng):
    z = np.zeros(2 * BLOCK, np.float32)
    u = np.zeros(2 * BLOCK, np.uint32)
    return Case({"u_ptr": z.copy(), "n_ptr": z.copy(), "i_ptr": u.copy(), "i4_ptr": u.copy(),
                 "seed": 1234567}, (2,), ("u_ptr", "n_ptr", "i_ptr", "i4_ptr"),
                rtol=1e-4, atol=1e-5)


def _random_ref(args):
    offs = np.arange(2 * BLOCK)
    seed = args["seed"]
    c0, c1, _, _ = philox(seed, offs)
    u1 = np.maximum(np.float32(1e-7), uniform(c0))
    u2 = uniform(c1)
    normal = np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)
    a, b, c, d = philox(seed, offs, 7)
    return {"u_ptr": uniform(c0), "n_ptr": normal.astype(np.float32), "i_ptr": c0,
            "i4_ptr": a ^ b ^ c ^ d}


RANDOM = kernel(
    random_numbers, {"u_ptr": "*fp32", "n_ptr": "*fp32", "i_ptr": "*u32", "i4_ptr": "*u32",
                     "seed": "i64"},
    {"BLOCK": BLOCK},
    """
    CHECK: "tt.mulhiu"
    CHECK: arith.sitofp {{.*}} : tensor<128xi32> to tensor<128xf32>
    CHECK: math.log
    CHECK: math.cos
    CHECK-COUNT-7: "tt.mulhiu"({{.*}}) {{.*}}: (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    """,
    make_case=_random_case, reference=_random_ref,
)


@triton.jit
def dropout_mask(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed.to(tl.int32), offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def _dropout_case(rng):
    x = rng.standard_normal(2 * BLOCK).astype(np.float32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(2 * BLOCK, np.float32), "n": 200, "p": 0.25,
                 "seed": 42}, (2,), ("out_ptr",))


def _dropout_ref(args):
    n = args["n"]
    keep = uniform(philox(args["seed"], np.arange(2 * BLOCK))[0]) > np.float32(args["p"])
    out = args["out_ptr"].copy()
    out[:n] = np.where(keep, args["x_ptr"] / np.float32(1 - args["p"]), 0)[:n]
    return {"out_ptr": out}


DROPOUT_MASK = kernel(
    dropout_mask, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32"},
    {"BLOCK": BLOCK},
    """
    CHECK: "tt.mulhiu"
    CHECK: arith.cmpf ogt
    CHECK: arith.select
    """,
    make_case=_dropout_case, reference=_dropout_ref,
)

KERNELS = [RANDOM, DROPOUT_MASK]
