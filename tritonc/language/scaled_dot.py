"""`tl.dot_scaled`: the product of microscaled (MX) operands, written in the language.

An operand is a tile of `e2m1` (two 4-bit values per byte, packed along K), `e4m3`,
`e5m2`, `bf16` or `fp16` elements, with an optional scale: one e8m0 byte (2^(s - 127);
255 is NaN) per 32 consecutive elements along K, given as [rows, K // 32] (the rows being
M for the left operand, N for the right), or, for nvfp4, one fp8 e4m3 factor per 16
elements ([rows, K // 16] of `float8e4nv`). The operands are decoded to bf16 (fp16 when
either format is fp16), multiplied by their scales and fed to `tl.dot` with fp32
accumulation: the decomposition Triton itself makes on GPUs without scaled MMA.
"""

from __future__ import annotations

import tritonc.language as tl
from tritonc.language.standard import constexpr_function
from tritonc.runtime.jit import jit

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")


@constexpr_function
def _compute_dtype(lhs_format: str, rhs_format: str):
    for f in (lhs_format, rhs_format):
        if f not in FORMATS:
            raise ValueError(f"dot_scaled: format {f!r} is not one of {', '.join(FORMATS)}")
    return tl.float16 if "fp16" in (lhs_format, rhs_format) else tl.bfloat16


@jit
def _e2m1_values(nibble):
    """The fp32 values of 4-bit e2m1 codes (sign, two exponent bits, one mantissa bit):
    0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives."""
    exponent = (nibble >> 1) & 3
    half = (nibble & 1).to(tl.float32) * 0.5
    power = tl.where(exponent == 1, 1.0, tl.where(exponent == 2, 2.0, 4.0))
    magnitude = tl.where(exponent == 0, half, (1.0 + half) * power)
    return tl.where((nibble & 8) != 0, -magnitude, magnitude)


@constexpr_function
def _check_scale(name: str, shape, rows: int, groups: int) -> None:
    if list(shape) != [rows, groups]:
        raise ValueError(f"{name} must be a tensor of shape {[rows, groups]}. "
                         f"Got {[str(d) for d in shape]}")


@jit
def _decode(x, scale, format: tl.constexpr, compute: tl.constexpr, name: tl.constexpr):
    """A [rows, K] tile in `compute` from a [rows, K (packed)] operand and its optional
    [rows, K // 32] e8m0 or [rows, K // 16] e4m3 scale (`name` in errors)."""
    if format == "e2m1":
        low = _e2m1_values(x & 15)
        high = _e2m1_values((x >> 4) & 15)
        values = tl.interleave(low, high).to(compute)
    elif format == "e4m3":
        values = x.to(tl.float8e4nv, bitcast=True).to(compute)
    elif format == "e5m2":
        values = x.to(tl.float8e5, bitcast=True).to(compute)
    else:
        values = x.to(compute)
    if scale is not None:
        ROWS: tl.constexpr = values.shape[0]
        K: tl.constexpr = values.shape[1]
        if scale.dtype == tl.float8e4nv:  # nvfp4: an e4m3 factor per 16 elements
            GROUP: tl.constexpr = 16
            factor = scale.to(tl.float32)
        else:
            GROUP: tl.constexpr = 32
            factor = (scale.to(tl.uint32) << 23).to(tl.float32, bitcast=True)
            factor = tl.where(scale == 255, float("nan"), factor)
        _check_scale(name, scale.shape, ROWS, K // GROUP)
        factor = tl.reshape(tl.broadcast_to(factor[:, :, None], [ROWS, K // GROUP, GROUP]),
                            [ROWS, K])
        values = (values.to(tl.float32) * factor).to(compute)
    return values


@jit
def dot_scaled(lhs, lhs_scale, lhs_format: tl.constexpr, rhs, rhs_scale,
               rhs_format: tl.constexpr, acc=None, fast_math: tl.constexpr = False,
               lhs_k_pack: tl.constexpr = True, rhs_k_pack: tl.constexpr = True,
               out_dtype: tl.constexpr = tl.float32):
    """lhs @ rhs of microscaled operands (see the module docstring), plus `acc`."""
    tl.static_assert(lhs_k_pack and rhs_k_pack, "dot_scaled: only operands packed along K")
    compute: tl.constexpr = _compute_dtype(lhs_format, rhs_format)
    a = _decode(lhs, lhs_scale, lhs_format, compute, "lhs_scale")
    b = tl.trans(_decode(tl.trans(rhs), rhs_scale, rhs_format, compute, "rhs_scale"))
    return tl.dot(a, b, acc, out_dtype=out_dtype)
