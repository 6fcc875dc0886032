"""The Triton language as tritonc implements it: `import tritonc.language as tl`."""

# ruff: noqa: F401 (every name imported here is part of the `tl` namespace; see __all__)

from tritonc.language import extra, math
from tritonc.language.builtins import *  # noqa: F403 (the builtins are the language's namespace)
from tritonc.language.builtins import range, static_range, tensor_descriptor
from tritonc.language.core import const, constexpr, tensor
from tritonc.language.dtypes import (
    bfloat16,
    block_type,
    constexpr_type,
    dtype,
    float8e4b8,
    float8e4b15,
    float8e4nv,
    float8e5,
    float8e5b16,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    pointer_type,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
)
from tritonc.language.math import (
    abs,
    ceil,
    cos,
    div_rn,
    erf,
    exp,
    exp2,
    fdiv,
    floor,
    fma,
    log,
    log2,
    rsqrt,
    sin,
    sqrt,
    sqrt_rn,
    umulhi,
)
from tritonc.language.random import (
    pair_uniform_to_normal,
    philox,
    philox_impl,
    rand,
    rand4x,
    randint,
    randint4x,
    randn,
    randn4x,
    uint_to_uniform_float,
)
from tritonc.language.scaled_dot import dot_scaled
from tritonc.language.semantic_core import MAX_NUMEL as TRITON_MAX_TENSOR_NUMEL
from tritonc.language.standard import (
    argmax,
    argmin,
    bitonic_merge,
    cdiv,
    constexpr_function,
    cumprod,
    cumsum,
    flip,
    full_like,
    interleave,
    item,
    max,
    min,
    ravel,
    reduce_or,
    sigmoid,
    softmax,
    sort,
    sum,
    swizzle2d,
    topk,
    xor_sum,
    zeros_like,
)
from tritonc.language.tuples import tuple

float8e4 = float8e4nv
bool_ = int1
pi32_t = pointer_type(int32)

__all__ = [name for name in dir() if not name.startswith("_")]


def _fill_core() -> None:
    """`tl.core` holds the language's names too, as Triton's `triton.language.core` does
    (kernels and libraries write `tl.core.int32`, `tl.core.full(...)`); its own stay."""
    import types

    from tritonc.language import core

    for name in __all__:
        value = globals()[name]
        if not hasattr(core, name) and not isinstance(value, types.ModuleType):
            setattr(core, name, value)


_fill_core()
