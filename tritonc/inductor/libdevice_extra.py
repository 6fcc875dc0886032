"""libdevice functions Inductor's kernels call beyond those of `tl.extra.libdevice`.

Each picks the `__nv_*` symbol for its float type as `language/extra/libdevice.py` does
(fp16 and bf16 arguments computed in fp32); `ilogb` gives int32 and `ldexp` takes an
int32 exponent. `triton.language.extra.libdevice` is that module plus these.
"""

from __future__ import annotations

from tritonc.language import dtypes as T
from tritonc.language.core import _unwrap, builtin
from tritonc.language.extra.libdevice import _make


def _float(x, _semantic):
    x = _semantic.to_tensor(_unwrap(x))
    return _semantic.cast(x, T.float64 if x.dtype.is_fp64() else T.float32)


erfcx = _make("erfcx", 1, "same")


@builtin
def ilogb(x, _semantic=None):
    """The unbiased exponent of x as int32 (`__nv_ilogbf` / `__nv_ilogb`)."""
    x = _float(x, _semantic)
    symbol = "__nv_ilogb" if x.dtype.is_fp64() else "__nv_ilogbf"
    return _semantic.extern_elementwise(symbol, [x], T.int32, True)


@builtin
def ldexp(x, exp, _semantic=None):
    """x * 2**exp, exp an int32 (`__nv_ldexpf` / `__nv_ldexp`)."""
    x = _float(x, _semantic)
    e = _semantic.cast(_semantic.to_tensor(_unwrap(exp)), T.int32)
    symbol = "__nv_ldexp" if x.dtype.is_fp64() else "__nv_ldexpf"
    return _semantic.extern_elementwise(symbol, [x, e], x.dtype, True)


@builtin
def mul_rn(x, y, _semantic=None):
    """x * y rounded to nearest, never contracted into an fma (`__nv_fmul_rn`)."""
    x, y = _float(x, _semantic), _float(y, _semantic)
    symbol = "__nv_dmul_rn" if x.dtype.is_fp64() else "__nv_fmul_rn"
    return _semantic.extern_elementwise(symbol, [x, y], x.dtype, True)


@builtin
def fast_tanhf(x, _semantic=None):
    """tanh of an fp32 value with the hardware's approximation (`__nv_fast_tanhf`)."""
    x = _semantic.cast(_semantic.to_tensor(_unwrap(x)), T.float32)
    return _semantic.extern_elementwise("__nv_fast_tanhf", [x], T.float32, True)


NAMES = ("erfcx", "ilogb", "ldexp", "mul_rn", "fast_tanhf")
