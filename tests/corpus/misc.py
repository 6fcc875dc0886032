"""Smaller builtins: full/zeros_like/full_like, ravel, swizzle2d, cdiv, inline asm, isinstance,
tuple returns, NamedTuples built in a kernel, constexpr defaults."""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import tritonc as triton
import tritonc.language as tl

from .spec import Case, kernel


class MinMax(NamedTuple):
    lo: object
    hi: object


@triton.jit
def _range_of(x):
    return MinMax(tl.min(x, 0), tl.max(x, 0))


@triton.jit
def misc_builtins(x_ptr, out_ptr, ij_ptr, n, BLOCK: tl.constexpr, GROUP: tl.constexpr = 2,
                  SCALE: tl.constexpr = None):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    r = _range_of(x)
    span = r.hi - r.lo
    if isinstance(SCALE, tl.constexpr) or SCALE is None:
        y = x * span
    else:
        y = x * SCALE
    ones = tl.full((BLOCK,), 1, tl.int32)
    y += tl.zeros_like(x) + tl.full_like(x, 2.0) + ones
    grid = tl.ravel(tl.reshape(y, (BLOCK // 4, 4)))
    tl.store(out_ptr + offs, grid, mask=offs < n)
    i, j = tl.swizzle2d(tl.program_id(0), tl.program_id(1), 4, 4, GROUP)
    tl.store(ij_ptr, i * 100 + j + tl.cdiv(n, BLOCK) * 0)


def _misc_case(rng):
    x = rng.standard_normal(64).astype(np.float32)
    return Case({"x_ptr": x, "out_ptr": np.zeros(64, np.float32), "ij_ptr": np.zeros(1, np.int32),
                 "n": 64}, (1, 1), ("out_ptr", "ij_ptr"), rtol=1e-5, atol=1e-5)


def _misc_ref(args):
    x = args["x_ptr"]
    y = x * (x.max() - x.min()) + 3
    return {"out_ptr": y.astype(np.float32), "ij_ptr": np.zeros(1, np.int32)}


MISC = kernel(
    misc_builtins, {"x_ptr": "*fp32", "out_ptr": "*fp32", "ij_ptr": "*i32", "n": "i32"},
    {"BLOCK": 64},
    """
    CHECK: "tt.reduce"
    CHECK: "tt.reduce"
    CHECK: arith.subf {{.*}} : f32
    CHECK: "tt.reshape"({{.*}}) {allow_reorder = false} : (tensor<64xf32>) -> tensor<16x4xf32>
    CHECK: "tt.reshape"({{.*}}) {allow_reorder = true} : (tensor<16x4xf32>) -> tensor<64xf32>
    CHECK: arith.divsi
    CHECK: arith.remsi
    """,
    make_case=_misc_case, reference=_misc_ref,
)


@triton.jit
def inline_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r,r,r",
                                  [x, x, 5], dtype=tl.uint32, is_pure=True, pack=1)
    lo, hi = tl.inline_asm_elementwise("mov.b64 {$0, $1}, $2;", "=r,=r,l", [x.to(tl.uint64)],
                                       dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
    tl.store(out_ptr + offs, y ^ lo ^ hi)


INLINE_ASM = kernel(
    inline_asm, {"x_ptr": "*u32", "out_ptr": "*u32"}, {"BLOCK": 128},
    """
    CHECK: "tt.elementwise_inline_asm"({{.*}}) {asm_string = "shf.l.wrap.b32 $0, $1, $2, $3;", constraints = "=r,r,r,r"{{.*}} : (tensor<128xi32>, tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    CHECK: "tt.elementwise_inline_asm"({{.*}}) -> (tensor<128xi32>, tensor<128xi32>)
    """,
)

KERNELS = [MISC, INLINE_ASM]
