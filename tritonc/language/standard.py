"""Functions of `tl` written in the Triton language itself (sum, max, softmax, cdiv, ...).

They are ordinary @jit functions: the code generator inlines them like any callee, and
the interpreter runs them the same way.
"""

from __future__ import annotations

import tritonc.language as tl
from tritonc.language.core import constexpr, tensor_method
from tritonc.language.dtypes import dtype
from tritonc.runtime.jit import jit


def constexpr_function(fn):
    """Run `fn` at compile time on constexpr arguments (unwrapped); its result is constexpr."""
    fn.__triton_constexpr_function__ = True
    return fn


@constexpr_function
def _accumulator_dtype(in_dtype: dtype, requested: dtype | None) -> dtype:
    """sum/cumsum/cumprod of small integers accumulate in 32 bits, as in Triton."""
    if requested is not None:
        return requested
    if in_dtype.is_int() and in_dtype.primitive_bitwidth < 32:
        return tl.int32 if in_dtype.is_int_signed() or in_dtype.is_bool() else tl.uint32
    return in_dtype


@constexpr_function
def _scan_dtype(in_dtype: dtype, requested: dtype | None) -> dtype:
    """cumsum/cumprod run bf16 in fp32 (and return fp32), as in Triton."""
    if requested is None and in_dtype == tl.bfloat16:
        return tl.float32
    return _accumulator_dtype(in_dtype, requested)


@constexpr_function
def _extremum_dtype(in_dtype: dtype, with_indices: bool) -> dtype:
    """max/min compare bf16 in fp32, and without indices every type narrower than 32
    bits in fp32 or int32 (the result has that type), as in Triton."""
    if in_dtype == tl.bfloat16:
        return tl.float32
    if with_indices or in_dtype.primitive_bitwidth >= 32:
        return in_dtype
    return tl.float32 if in_dtype.is_floating() else tl.int32


@tensor_method
@jit
def cdiv(x, div):
    """ceil(x / div) for non-negative integers."""
    return (x + div - 1) // div


@jit
def _keep_first(a, b):
    return a


@tensor_method
@jit
def item(x):
    """The value of a one-element tensor, as a scalar."""
    tl.static_assert(x.numel == 1, "item() needs a tensor of one element")
    if len(x.shape) == 0:
        return x
    return tl.reduce(tl.reshape(x, [1]), 0, _keep_first)


@jit
def zeros_like(input):
    """A tensor of zeros with the shape and type of `input`."""
    return tl.zeros(input.shape, input.dtype)


@jit
def full_like(input, value):
    return tl.full(input.shape, value, input.dtype)


@tensor_method
@jit
def sigmoid(x):
    """1 / (1 + exp(-x)), elementwise."""
    return 1 / (1 + tl.exp(-x))


@tensor_method
@jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    """exp(x) / sum(exp(x)) along `dim` (all elements when None), computed stably."""
    if dim is None:
        _dim: tl.constexpr = 0
    else:
        _dim: tl.constexpr = dim
    z = x - tl.max(x, _dim, keep_dims=True)
    num = tl.exp(z)
    den = tl.sum(num, _dim, keep_dims=True)
    return tl.fdiv(num, den, ieee_rounding)


@tensor_method
@jit
def ravel(x):
    """`x` as a 1-D tensor (element order may change)."""
    return tl.view(x, [x.numel])


@jit
def _sum_combine(a, b):
    return a + b


@jit
def _prod_combine(a, b):
    return a * b


@jit
def _xor_combine(a, b):
    return a ^ b


@jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@jit
def _min_combine(a, b):
    return tl.minimum(a, b)


@jit
def _argmax_combine(value1, index1, value2, index2):
    take_first = (value1 > value2) | ((value1 == value2) & (index1 < index2))
    return tl.where(take_first, value1, value2), tl.where(take_first, index1, index2)


@jit
def _argmin_combine(value1, index1, value2, index2):
    take_first = (value1 < value2) | ((value1 == value2) & (index1 < index2))
    return tl.where(take_first, value1, value2), tl.where(take_first, index1, index2)


@tensor_method
@jit
def sum(input, axis=None, keep_dims=False, dtype: tl.constexpr = None):
    """The sum along `axis` (of all elements when None)."""
    input = input.to(_accumulator_dtype(input.dtype, dtype))
    return tl.reduce(input, axis, _sum_combine, keep_dims=keep_dims)


@tensor_method
@jit
def xor_sum(input, axis=None, keep_dims=False):
    """The bitwise xor of the elements along `axis`."""
    return tl.reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@jit
def _or_combine(a, b):
    return a | b


@tensor_method
@jit
def reduce_or(input, axis, keep_dims=False):
    """The bitwise or of the integer elements along `axis` (of all elements when None)."""
    tl.static_assert(input.dtype.is_int(), "reduce_or only supported for integers")
    return tl.reduce(input, axis, _or_combine, keep_dims=keep_dims)


@jit
def _indices_along(input, axis: tl.constexpr):
    """The index of each element of `input` along `axis`, broadcast to its shape."""
    n: tl.constexpr = input.shape[axis]
    idx = tl.arange(0, n)
    for _ in tl.static_range(axis + 1, len(input.shape)):
        idx = tl.expand_dims(idx, -1)
    return tl.broadcast_to(idx, input.shape)


@tensor_method
@jit
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False):
    """The maximum along `axis`; with `return_indices`, also where it is."""
    input = input.to(_extremum_dtype(input.dtype, return_indices))
    if return_indices:
        return _arg_reduce(input, axis, keep_dims, _argmax_combine)
    return tl.reduce(input, axis, _max_combine, keep_dims=keep_dims)


@tensor_method
@jit
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False):
    """The minimum along `axis`; with `return_indices`, also where it is."""
    input = input.to(_extremum_dtype(input.dtype, return_indices))
    if return_indices:
        return _arg_reduce(input, axis, keep_dims, _argmin_combine)
    return tl.reduce(input, axis, _min_combine, keep_dims=keep_dims)


@jit
def _arg_reduce(input, axis, keep_dims, combine):
    if axis is None:
        flat = tl.reshape(input, [input.numel])
        return tl.reduce((flat, tl.arange(0, input.numel)), 0, combine, keep_dims=keep_dims)
    return tl.reduce((input, _indices_along(input, axis)), axis, combine, keep_dims=keep_dims)


@tensor_method
@jit
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the maximum along `axis` (the first one on ties)."""
    _, index = max(input, axis, return_indices=True, keep_dims=keep_dims)
    return index


@tensor_method
@jit
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the minimum along `axis` (the first one on ties)."""
    _, index = min(input, axis, return_indices=True, keep_dims=keep_dims)
    return index


@tensor_method
@jit
def cumsum(input, axis=0, reverse=False, dtype: tl.constexpr = None):
    """The inclusive running sum along `axis`."""
    input = input.to(_scan_dtype(input.dtype, dtype))
    return tl.associative_scan(input, axis, _sum_combine, reverse)


@tensor_method
@jit
def cumprod(input, axis=0, reverse=False, dtype: tl.constexpr = None):
    """The inclusive running product along `axis`."""
    input = input.to(_scan_dtype(input.dtype, dtype))
    return tl.associative_scan(input, axis, _prod_combine, reverse)


@jit
def interleave(a, b):
    """The elements of `a` and `b` alternated along the last dimension."""
    c = tl.join(a, b)
    if len(c.shape) == 1:
        return c
    return tl.reshape(c, c.shape[:-2] + (2 * c.shape[-2],))


@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    """Map (i, j) of a size_i x size_j grid to grouped column-major order, groups of size_g rows."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = tl.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j


# -- sort and flip: bitonic networks over a hypercube view of the tensor ------------------------


@constexpr_function
def _log2(n: int) -> int:
    """log2 of a power of two."""
    if n <= 0 or n & (n - 1):
        raise ValueError(f"{n} is not a power of 2")
    return n.bit_length() - 1


@constexpr_function
def _unit_shape(n_dims: int, axis: int, size: int) -> list[int]:
    """[1, ..., size (at `axis`), ..., 1] with `n_dims` entries."""
    return [size if i == axis else 1 for i in range(n_dims)]


@constexpr_function
def _signed_int_dtype(bitwidth: int) -> dtype:
    """The signed integer type of `bitwidth` bits (what a value is bitcast to for xor)."""
    return {1: tl.int1, 8: tl.int8, 16: tl.int16, 32: tl.int32, 64: tl.int64}[bitwidth]


@jit
def _indicator(n_dims: tl.constexpr, i: tl.constexpr):
    """0 or 1: whether an element sits in the upper half along the i-th innermost axis."""
    return tl.reshape(tl.arange(0, 2), _unit_shape(n_dims, n_dims - 1 - i, 2))


@jit
def _compare_and_swap(x, flip, i: tl.constexpr):
    """One compare-and-swap layer along the i-th innermost axis of hypercube `x`."""
    n_dims: tl.constexpr = _log2(x.numel)
    idtype: tl.constexpr = _signed_int_dtype(x.dtype.primitive_bitwidth)
    ix = x.to(idtype, bitcast=True)
    # xor-reducing a pair and xor-ing it back gives each element its partner
    iy = ix ^ xor_sum(ix, n_dims - 1 - i, True)
    y = iy.to(x.dtype, bitcast=True)
    is_right = _indicator(n_dims, i)
    return tl.where((x > y) != (flip ^ is_right), y, x)


@jit
def _bitonic_merge(x, stage: tl.constexpr, order: tl.constexpr):
    """Merge bitonic runs of length 2**stage; order 0 ascending, 1 descending, 2 alternating."""
    n_dims: tl.constexpr = _log2(x.numel)
    if order == 2:
        flip = _indicator(n_dims, stage)
    else:
        flip = order
    for i in tl.static_range(stage):
        x = _compare_and_swap(x, flip, stage - 1 - i)
    return x


@tensor_method
@jit
def sort(x, dim: tl.constexpr = None, descending: tl.constexpr = False):
    """`x` sorted along its last dimension (a bitonic sort; the dimension must be a power of 2)."""
    _dim: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    tl.static_assert(_dim == len(x.shape) - 1, "tl.sort only sorts along the last dimension")
    log_n: tl.constexpr = _log2(x.shape[_dim])
    n_dims: tl.constexpr = _log2(x.numel)
    if log_n == 0:  # rows of one element are sorted already
        return x
    h = tl.reshape(x, [2] * n_dims)
    for i in tl.static_range(1, log_n + 1):
        h = _bitonic_merge(h, i, 2 if i < log_n else descending)
    return tl.reshape(h, x.shape)


@jit
def bitonic_merge(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):
    """`x`, bitonic along its last dimension (rising then falling, or falling then
    rising), sorted along it, ascending unless `descending`: the last stage of `sort` (the
    dimension a power of 2)."""
    _dim: tl.constexpr = len(x.shape) - 1 if dim is None else dim
    tl.static_assert(_dim == len(x.shape) - 1, "only minor dimension is currently supported")
    log_n: tl.constexpr = _log2(x.shape[_dim])
    n_dims: tl.constexpr = _log2(x.numel)
    if log_n == 0:
        return x
    h = tl.reshape(x, [2] * n_dims)
    return tl.reshape(_bitonic_merge(h, log_n, 1 if descending else 0), x.shape)


@constexpr_function
def _blocks_of(shape: tuple, k: int) -> list[int]:
    """`shape` with its last dimension n split into n // k blocks of k."""
    shape = [int(s) for s in shape]
    if k <= 0 or k & (k - 1) or k > shape[-1]:
        raise ValueError(f"topk: k must be a power of 2 no larger than {shape[-1]}, got {k}")
    return shape[:-1] + [shape[-1] // k, k]


@tensor_method
@jit
def topk(x, k: tl.constexpr, dim: tl.constexpr = None):
    """The `k` largest elements of `x` along its last dimension, largest first."""
    _dim: tl.constexpr = _normalized_dim(dim, len(x.shape))
    tl.static_assert(_dim == len(x.shape) - 1, "tl.topk only works along the last dimension")
    blocks: tl.constexpr = _blocks_of(x.shape, k)
    y = sort(x, descending=True)
    if k == x.shape[_dim]:
        return y
    # keep the first block of k along the last axis: xor-reduce the blocks with all but
    # the first zeroed (exact for every bit pattern)
    idtype: tl.constexpr = _signed_int_dtype(x.dtype.primitive_bitwidth)
    iy = tl.reshape(y.to(idtype, bitcast=True), blocks)
    first = tl.arange(0, x.shape[_dim] // k)[:, None] == 0
    kept = xor_sum(tl.where(first, iy, 0), len(x.shape) - 1)
    return kept.to(x.dtype, bitcast=True)


@constexpr_function
def _normalized_dim(dim: int | None, n_dims: int) -> int:
    """`dim` (None: the last; negative: counted from the end) as an index in 0..n_dims-1."""
    if dim is None:
        return n_dims - 1
    if not -n_dims <= dim < n_dims:
        raise ValueError(f"dimension {dim} is out of range for a {n_dims}-D tensor")
    return dim % n_dims


@constexpr_function
def _split_dim(shape: tuple, dim: int) -> list[int]:
    """`shape` with dimension `dim` (a power of 2) split into axes of size 2."""
    shape = [int(s) for s in shape]
    return shape[:dim] + [2] * _log2(shape[dim]) + shape[dim + 1:]


@tensor_method
@jit
def flip(x, dim: tl.constexpr = None):
    """`x` reversed along `dim` (default: the last), whose size must be a power of 2."""
    _dim: tl.constexpr = _normalized_dim(dim, len(x.shape))
    steps: tl.constexpr = _log2(x.shape[_dim])
    idtype: tl.constexpr = _signed_int_dtype(x.dtype.primitive_bitwidth)
    y = tl.reshape(x.to(idtype, bitcast=True), _split_dim(x.shape, _dim))
    # xor-ing each element with the xor of its pair along a size-2 axis swaps the pair;
    # swapping along every bit of the index reverses it
    for i in tl.static_range(steps):
        y = y ^ xor_sum(y, _dim + i, True)
    return tl.reshape(y, x.shape).to(x.dtype, bitcast=True)


__all__ = ["item", "cdiv",
           "zeros_like", "full_like", "sigmoid", "softmax", "ravel", "sum", "xor_sum",
           "max", "min", "argmax", "argmin", "cumsum", "cumprod", "interleave", "swizzle2d",
           "sort", "topk", "flip", "constexpr_function", "constexpr"]
