"""CUDA libdevice functions (`__nv_*`), as torch.compile's generated kernels call them.

Each function picks the symbol for its argument type (`__nv_expf` for fp32,
`__nv_exp` for fp64); fp16 and bf16 arguments are computed in fp32.
"""

from __future__ import annotations

from tritonc.language import dtypes as T
from tritonc.language.core import _unwrap, builtin

# name -> (number of arguments, result kind): "same" (the float type), or a fixed dtype
_FUNCTIONS: dict[str, tuple[int, str | T.dtype]] = {
    **{name: (1, "same") for name in (
        "sqrt", "rsqrt", "floor", "ceil", "trunc", "nearbyint", "exp", "exp2", "expm1", "log",
        "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
        "atan", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "lgamma", "tgamma",
        "j0", "j1", "y0", "y1", "cyl_bessel_i0", "cyl_bessel_i1", "cbrt", "rcbrt", "round",
        "rint", "exp10")},
    **{name: (2, "same") for name in ("pow", "atan2", "hypot", "fmod", "copysign", "nextafter",
                                      "remainder", "fmin", "fmax", "fdim")},
    "fma": (3, "same"),
    "llrint": (1, T.int64),
    "llround": (1, T.int64),
    "signbit": (1, T.int32),
    "isnan": (1, T.int32),
    "isinf": (1, T.int32),
}


def _symbol(name: str, ty: T.dtype) -> str:
    if name in ("isnan", "isinf", "signbit"):
        return f"__nv_{name}{'d' if ty.is_fp64() else 'f'}"
    return f"__nv_{name}" + ("" if ty.is_fp64() else "f")


def _make(name: str, nargs: int, result):
    def fn(*args, _semantic=None):
        if len(args) != nargs:
            raise TypeError(f"libdevice.{name} takes {nargs} arguments, got {len(args)}")
        xs = [_semantic.to_tensor(_unwrap(a)) for a in args]
        ty = T.float32
        for x in xs:
            if x.dtype.is_fp64():
                ty = T.float64
        xs = [_semantic.cast(x, ty) for x in xs]
        ret = ty if result == "same" else result
        return _semantic.extern_elementwise(_symbol(name, ty), xs, ret, True)

    fn.__name__ = name
    fn.__doc__ = f"libdevice's {name} ({_symbol(name, T.float32)} / {_symbol(name, T.float64)})."
    return builtin(fn)


for _name, (_nargs, _result) in _FUNCTIONS.items():
    globals()[_name] = _make(_name, _nargs, _result)


@builtin
def abs(x, _semantic=None):
    """|x|: `__nv_abs`/`__nv_llabs` for integers, `__nv_fabsf`/`__nv_fabs` for floats."""
    x = _semantic.to_tensor(_unwrap(x))
    if x.dtype.is_int():
        symbol = "__nv_llabs" if x.dtype.primitive_bitwidth == 64 else "__nv_abs"
        if x.dtype.primitive_bitwidth < 32:
            x = _semantic.cast(x, T.int32)
        return _semantic.extern_elementwise(symbol, [x], x.dtype, True)
    x = _semantic.cast(x, T.float64 if x.dtype.is_fp64() else T.float32)
    symbol = "__nv_fabs" if x.dtype.is_fp64() else "__nv_fabsf"
    return _semantic.extern_elementwise(symbol, [x], x.dtype, True)


def _make_fast(name: str, nargs: int):
    """libdevice's fast-math fp32 `name` (`fast_expf` is `__nv_fast_expf`)."""
    def fn(*args, _semantic=None):
        if len(args) != nargs:
            raise TypeError(f"libdevice.{name} takes {nargs} arguments, got {len(args)}")
        xs = [_semantic.cast(_semantic.to_tensor(_unwrap(a)), T.float32) for a in args]
        if nargs == 2:
            xs = list(_semantic.binary_operands(*xs))
        return _semantic.extern_elementwise(f"__nv_{name}", xs, T.float32, True)

    fn.__name__ = name
    fn.__doc__ = f"libdevice's fast-math {name} (`__nv_{name}`, fp32)."
    return builtin(fn)


_FAST = {f"fast_{name}f": 1 for name in ("exp", "exp10", "log", "log2", "log10", "sin", "cos",
                                         "tan")} | {"fast_powf": 2}
for _name, _nargs in _FAST.items():
    globals()[_name] = _make_fast(_name, _nargs)


@builtin
def fast_dividef(x, y, _semantic=None):
    """x / y in fp32 with the fast approximate division (`__nv_fast_fdividef`)."""
    xs = [_semantic.cast(_semantic.to_tensor(_unwrap(v)), T.float32) for v in (x, y)]
    xs = list(_semantic.binary_operands(*xs))
    return _semantic.extern_elementwise("__nv_fast_fdividef", xs, T.float32, True)


__all__ = [*_FUNCTIONS, *_FAST, "abs", "fast_dividef"]
