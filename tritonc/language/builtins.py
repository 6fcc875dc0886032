"""The builtins of `tl`: program identity, creation, memory, shapes, reductions, debugging.

Each is a docstring, the unwrapping of constexpr arguments and one call into the
semantic layer. Math builtins are in `math.py`; functions written in the language
itself (`sum`, `softmax`, `cdiv`, ...) are in `standard.py`.
"""

from __future__ import annotations

import builtins as py
import enum

from tritonc.language import dtypes as T
from tritonc.language.core import _unwrap, _unwrap_shape, builtin, constexpr, tensor, tensor_method
from tritonc.language.semantic_core import SemanticError

# -- program identity -----------------------------------------------------------------


@builtin
def program_id(axis, _semantic=None) -> tensor:
    """The index of this program instance along `axis` (0, 1 or 2) of the grid."""
    return _semantic.program_id(_unwrap(axis))


@builtin
def num_programs(axis, _semantic=None) -> tensor:
    """The number of program instances along `axis` of the grid."""
    return _semantic.num_programs(_unwrap(axis))


# -- creation -----------------------------------------------------------------------------


@builtin
def arange(start, end, _semantic=None) -> tensor:
    """The int32 block [start, end); end - start must be a power of two."""
    return _semantic.arange(_unwrap(start), _unwrap(end))


@builtin
def full(shape, value, dtype, _semantic=None) -> tensor:
    """A block of `shape` filled with `value` of type `dtype`."""
    return _semantic.full(_unwrap_shape(shape), _unwrap(value), _unwrap(dtype))


@builtin
def zeros(shape, dtype, _semantic=None) -> tensor:
    """A block of `shape` filled with zeros of type `dtype`."""
    return _semantic.full(_unwrap_shape(shape), 0, _unwrap(dtype))


@tensor_method
@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None) -> tensor:
    """`input` converted to `dtype` (see tensor.to)."""
    input = _semantic.to_tensor(_unwrap(input))
    return input.to(dtype, fp_downcast_rounding, bitcast, _semantic=_semantic)


@builtin
def to_tensor(x, _semantic=None) -> tensor:
    """A Python scalar (or constexpr) as a scalar tensor of its own type; tensors pass."""
    return _semantic.to_tensor(_unwrap(x))


# -- memory -------------------------------------------------------------------------------


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False, _semantic=None) -> tensor:
    """Load the elements `pointer` points to (lanes where `mask` is false get `other`)."""
    return _semantic.load(pointer, _unwrap(mask), _unwrap(other), _unwrap(boundary_check),
                          _unwrap(padding_option), _unwrap(cache_modifier),
                          _unwrap(eviction_policy), _unwrap(volatile))


@tensor_method
@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
          _semantic=None) -> None:
    """Store `value` where `pointer` points (only lanes where `mask` is true)."""
    _semantic.store(pointer, _unwrap(value), _unwrap(mask), _unwrap(boundary_check),
                    _unwrap(cache_modifier), _unwrap(eviction_policy))


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None) -> tensor:
    """A pointer to a `block_shape` window of the `shape`/`strides` tensor at `base`."""
    order = [_unwrap(o) for o in _unwrap(order)]
    return _semantic.make_block_ptr(base, [_unwrap(s) for s in shape],
                                    [_unwrap(s) for s in strides], [_unwrap(o) for o in offsets],
                                    _unwrap_shape(block_shape), order)


@tensor_method
@builtin
def advance(base, offsets, _semantic=None) -> tensor:
    """The block pointer `base` moved by `offsets` elements along each dimension."""
    return _semantic.advance(base, [_unwrap(o) for o in offsets])


class tensor_descriptor:
    """A global tensor read and written block by block (`desc.load(offsets)`).

    `shape` and `strides` are the tensor's (scalar tensors), `block_shape` the block's
    (ints) and `dtype` the element type.
    """

    def __init__(self, value: tensor, shape: list, strides: list) -> None:
        self.value = value
        self.block_type = value.type.block_type
        self.shape = list(shape)
        self.strides = list(strides)
        self.block_shape = tuple(self.block_type.shape)  # a list literal in a kernel is a tuple
        self.dtype = self.block_type.element_ty

    @builtin
    def gather(self, x_offsets, y_offset, _semantic=None) -> tensor:
        """The rows `x_offsets` (a 1-D tensor), `block_shape[1]` columns from `y_offset`."""
        return _semantic.descriptor_gather(self.value, _unwrap(x_offsets), _unwrap(y_offset))

    @builtin
    def scatter(self, value, x_offsets, y_offset, _semantic=None) -> None:
        """Write the rows of `value` to rows `x_offsets`, columns from `y_offset` on."""
        _semantic.descriptor_scatter(self.value, _unwrap(value), _unwrap(x_offsets),
                                     _unwrap(y_offset))

    @builtin
    def load(self, offsets, _semantic=None) -> tensor:
        return _semantic.descriptor_load(self.value, [_unwrap(o) for o in _unwrap(offsets)])

    @builtin
    def store(self, offsets, value, _semantic=None) -> None:
        _semantic.descriptor_store(self.value, _unwrap(value),
                                   [_unwrap(o) for o in _unwrap(offsets)])

    def _reduce(self, op: str, offsets, value, _semantic) -> None:
        _semantic.descriptor_reduce(op, self.value, _unwrap(value),
                                    [_unwrap(o) for o in _unwrap(offsets)])

    @builtin
    def atomic_add(self, offsets, value, _semantic=None) -> None:
        """Atomically add the block `value` to the block at `offsets` (elements outside
        the tensor are skipped); int32, uint32, uint64, fp16, bf16 and fp32."""
        self._reduce("add", offsets, value, _semantic)

    @builtin
    def atomic_min(self, offsets, value, _semantic=None) -> None:
        """Atomically keep the minimum of the block at `offsets` and `value`; 32- and
        64-bit integers."""
        self._reduce("min", offsets, value, _semantic)

    @builtin
    def atomic_max(self, offsets, value, _semantic=None) -> None:
        """Atomically keep the maximum of the block at `offsets` and `value`; 32- and
        64-bit integers."""
        self._reduce("max", offsets, value, _semantic)

    @builtin
    def atomic_and(self, offsets, value, _semantic=None) -> None:
        """Atomically AND `value` into the block at `offsets`; 32- and 64-bit integers."""
        self._reduce("and", offsets, value, _semantic)

    @builtin
    def atomic_or(self, offsets, value, _semantic=None) -> None:
        """Atomically OR `value` into the block at `offsets`; 32- and 64-bit integers."""
        self._reduce("or", offsets, value, _semantic)

    @builtin
    def atomic_xor(self, offsets, value, _semantic=None) -> None:
        """Atomically XOR `value` into the block at `offsets`; 32- and 64-bit integers."""
        self._reduce("xor", offsets, value, _semantic)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero",
                           _semantic=None) -> tensor_descriptor:
    """A descriptor for the tensor at `base`, accessed in blocks of `block_shape`;
    out-of-bounds elements read as 0 (`padding_option="zero"`) or NaN ("nan")."""
    # a tuple of constants (`strides=(1,)` passed as an argument) arrives as one constexpr
    shape = [_semantic.cast(_semantic.to_tensor(_unwrap(s)), T.int32) for s in _unwrap(shape)]
    strides = [_semantic.cast(_semantic.to_tensor(_unwrap(s)), T.int64)
               for s in _unwrap(strides)]
    desc = _semantic.make_tensor_descriptor(base, shape, strides, _unwrap_shape(block_shape),
                                            _unwrap(padding_option))
    return tensor_descriptor(desc, shape, strides)


@builtin
def load_tensor_descriptor(desc, offsets, _semantic=None) -> tensor:
    return desc.load(offsets, _semantic=_semantic)


@builtin
def store_tensor_descriptor(desc, offsets, value, _semantic=None) -> None:
    desc.store(offsets, value, _semantic=_semantic)


def _atomic(op: str):
    def atomic(pointer, val, mask=None, sem=None, scope=None, _semantic=None) -> tensor:
        return _semantic.atomic_rmw(op, pointer, _unwrap(val), _unwrap(mask), _unwrap(sem),
                                    _unwrap(scope))

    atomic.__name__ = f"atomic_{op}"
    atomic.__doc__ = f"Atomically apply `{op}` with `val` at `pointer`; returns the old values."
    return tensor_method(builtin(atomic))


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@tensor_method
@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None) -> tensor:
    """Atomically store `val` where the value equals `cmp`; returns the old values."""
    return _semantic.atomic_cas(pointer, _unwrap(cmp), _unwrap(val), _unwrap(sem), _unwrap(scope))


# -- selection ----------------------------------------------------------------------------


@builtin
def where(condition, x, y, _semantic=None) -> tensor:
    """Elementwise `x if condition else y`, broadcasting all three."""
    return _semantic.where(_unwrap(condition), _unwrap(x), _unwrap(y))


class PropagateNan(enum.IntEnum):
    """Whether tl.minimum / tl.maximum / tl.clamp return NaN when an operand is NaN."""

    NONE = 0
    ALL = 0xFFFF


@builtin
def minimum(x, y, propagate_nan=False, _semantic=None) -> tensor:
    """The elementwise minimum (NaN propagates only when `propagate_nan`)."""
    return _semantic.minimum(_unwrap(x), _unwrap(y), bool(_unwrap(propagate_nan)))


@builtin
def maximum(x, y, propagate_nan=False, _semantic=None) -> tensor:
    """The elementwise maximum (NaN propagates only when `propagate_nan`)."""
    return _semantic.maximum(_unwrap(x), _unwrap(y), bool(_unwrap(propagate_nan)))


@builtin
def clamp(x, min, max, propagate_nan=False, _semantic=None) -> tensor:
    """`x` limited to [min, max]."""
    return _semantic.clamp(_unwrap(x), _unwrap(min), _unwrap(max), bool(_unwrap(propagate_nan)))


# -- shapes -------------------------------------------------------------------------------


@tensor_method
@builtin
def reshape(input, *shape, can_reorder=False, _semantic=None) -> tensor:
    """`input` with a new shape of the same number of elements (row-major order)."""
    shape = _unwrap_shape(shape[0] if len(shape) == 1 else shape)
    return _semantic.reshape(_semantic.to_tensor(input), shape, bool(_unwrap(can_reorder)))


@tensor_method
@builtin
def view(input, *shape, _semantic=None) -> tensor:
    """`input` with a new shape; the order of elements may change."""
    shape = _unwrap_shape(shape[0] if len(shape) == 1 else shape)
    return _semantic.reshape(input, shape, True)


@tensor_method
@builtin
def permute(input, *dims, _semantic=None) -> tensor:
    """`input` with its dimensions reordered."""
    return _semantic.permute(input, _unwrap_shape(dims[0] if len(dims) == 1 else dims))


@tensor_method
@builtin
def trans(input, *dims, _semantic=None) -> tensor:
    """`input` transposed: its last two dimensions swapped (a batched 2-D transpose), or
    permuted by `dims`."""
    dims = _unwrap_shape(dims[0] if len(dims) == 1 else dims) if dims else None
    if not dims:
        rank = len(input.shape)
        dims = [*py.range(rank - 2), rank - 1, rank - 2] if rank >= 2 else [0]
    return _semantic.permute(input, dims)


@tensor_method
@builtin
def expand_dims(input, axis, _semantic=None) -> tensor:
    """`input` with a new dimension of size 1 at `axis` (or at each axis in a tuple)."""
    input = _semantic.to_tensor(input)
    axes = _unwrap_shape(axis)
    rank = len(input.shape) + len(axes)
    for a in axes:
        if not isinstance(a, int) or not -rank <= a < rank:
            raise ValueError(f"invalid axis {a}: expand_dims axis {a!r} is out of range for a "
                             f"{len(input.shape)}-D tensor (valid axes: {-rank} to {rank - 1})")
    normalized = [a % rank for a in axes]
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"expand_dims received duplicate axes, normalized axes = {normalized}")
    for a in sorted(normalized):
        input = _semantic.expand_dims(input, a)
    return input


@tensor_method
@builtin
def broadcast_to(input, *shape, _semantic=None) -> tensor:
    """`input` broadcast to `shape`."""
    if not shape:
        raise SemanticError("broadcast_to needs a shape, e.g. tl.broadcast_to(x, (BLOCK,))")
    shape = _unwrap_shape(shape[0] if len(shape) == 1 else shape)
    return _semantic.broadcast_to(_semantic.to_tensor(input), tuple(shape))


@builtin
def broadcast(input, other, _semantic=None) -> tuple[tensor, tensor]:
    """Both operands broadcast to their common shape."""
    return _semantic.broadcast_pair(_semantic.to_tensor(input), _semantic.to_tensor(other))


@builtin
def join(a, b, _semantic=None) -> tensor:
    """Stack `a` and `b` along a new last dimension of size 2."""
    return _semantic.join(_semantic.to_tensor(a), _semantic.to_tensor(b))


@tensor_method
@builtin
def split(a, _semantic=None) -> tuple[tensor, tensor]:
    """Split the last dimension (of size 2) into two tensors."""
    return _semantic.split(a)


@builtin
def cat(input, other, can_reorder=False, _semantic=None) -> tensor:
    """Concatenate two 1-D tensors (the element order is not kept)."""
    return _semantic.cat(input, other, bool(_unwrap(can_reorder)))


@tensor_method
@builtin
def gather(src, index, axis, _semantic=None) -> tensor:
    """`src` gathered along `axis` at `index`."""
    return _semantic.gather(src, index, _unwrap(axis))


@tensor_method
@builtin
def histogram(input, num_bins, mask=None, _semantic=None) -> tensor:
    """Counts of each value in [0, num_bins) among `input`."""
    return _semantic.histogram(input, _unwrap(num_bins), _unwrap(mask))


# -- reductions, scans, dot ----------------------------------------------------------------


def _combine_caller(combine_fn, _generator):
    def combine(lhs: list[tensor], rhs: list[tensor]) -> list[tensor]:
        out = _generator.call_function(combine_fn, [*lhs, *rhs])
        return list(out) if isinstance(out, tuple) else [out]

    return combine


@tensor_method
@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None, _generator=None):
    """Reduce `input` (a tensor or a tuple of tensors) along `axis` with `combine_fn`."""
    single = isinstance(input, tensor)
    inputs = [input] if single else list(input)
    axis = _unwrap(axis)
    results = _semantic.reduce(inputs, axis, _combine_caller(_unwrap(combine_fn), _generator),
                               bool(_unwrap(keep_dims)))
    return results[0] if single else tuple(results)


@tensor_method
@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None, _generator=None):
    """Inclusive scan of `input` (a tensor or a tuple) along `axis` with `combine_fn`."""
    single = isinstance(input, tensor)
    inputs = [input] if single else list(input)
    results = _semantic.scan(inputs, _unwrap(axis), bool(_unwrap(reverse)),
                             _combine_caller(_unwrap(combine_fn), _generator))
    return results[0] if single else tuple(results)


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=T.float32, _semantic=None) -> tensor:
    """The matrix product input @ other (+ acc), accumulated in `out_dtype`.

    fp32 operands multiply as `input_precision` says: "tf32" (the default), "ieee",
    "tf32x3" (each operand split into 2 tf32 pieces and 3 tf32 dots summed in fp32), or
    "bf16x3" / "bf16x6" (each operand split into 2 / 3 bf16 pieces and 3 / 6 bf16 dots
    summed in fp32)."""
    precision = _unwrap(input_precision)
    if precision is None and _unwrap(allow_tf32) is False:
        precision = "ieee"
    return _semantic.dot(input, other, _unwrap(acc), precision, _unwrap(max_num_imprecise_acc),
                         _unwrap(out_dtype))


# -- hints and debugging ---------------------------------------------------------------------


@builtin
def multiple_of(input, values, _semantic=None) -> tensor:
    """Promise that every element of `input` is a multiple of `values`."""
    return _semantic.hint(input, "tt.divisibility", _unwrap_shape(values))


@builtin
def max_contiguous(input, values, _semantic=None) -> tensor:
    """Promise that the first `values` elements of `input` are contiguous."""
    return _semantic.hint(input, "tt.contiguity", _unwrap_shape(values))


@builtin
def max_constancy(input, values, _semantic=None) -> tensor:
    """Promise that the first `values` elements of `input` are equal."""
    return _semantic.hint(input, "tt.constancy", _unwrap_shape(values))


@builtin
def assume(cond, _semantic=None) -> None:
    """Promise that `cond` holds (lets the compiler optimise)."""
    _semantic.assume(_unwrap(cond))


@builtin
def device_print(prefix, *args, hex=False, _semantic=None) -> None:
    """Print `prefix` and the values of `args` from every program instance."""
    _semantic.device_print(str(_unwrap(prefix)), [_unwrap(a) for a in args], bool(_unwrap(hex)))


@builtin
def device_assert(cond, msg="", _semantic=None) -> None:
    """Stop the kernel with `msg` where `cond` is false."""
    _semantic.device_assert(_unwrap(cond), str(_unwrap(msg)))


@builtin
def debug_barrier(_semantic=None) -> None:
    """Synchronise all threads of the program instance."""
    _semantic.debug_barrier()


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack, _semantic=None):
    """Run PTX `asm` on each element of `args`; returns one tensor per `dtype`."""
    dtype = _unwrap(dtype)
    many = isinstance(dtype, (tuple, list))
    dtypes = [_unwrap(d) for d in dtype] if many else [dtype]
    out = _semantic.inline_asm(_unwrap(asm), _unwrap(constraints), [_unwrap(a) for a in args],
                               dtypes, bool(_unwrap(is_pure)), int(_unwrap(pack)))
    return tuple(out) if many else out[0]


@builtin
def map_elementwise(scalar_fn, *args, pack=1, _semantic=None, _generator=None):
    """Apply the @jit function `scalar_fn` to the elements of `args` (broadcast to one
    shape), `pack` elements of each argument per call, so that it may branch per element:
    it takes a0..a{pack-1}, then b0.., and returns `pack` scalars of each result. Returns
    one tensor per result (a tuple for several)."""
    fn = _unwrap(scalar_fn)

    def call(scalars: list[tensor]) -> list:
        out = _generator.call_function(fn, scalars)
        return list(out) if isinstance(out, tuple) else [out]

    out = _semantic.map_elementwise([_unwrap(a) for a in args], int(_unwrap(pack)), call)
    return out[0] if len(out) == 1 else tuple(out)


# -- compile-time checks ----------------------------------------------------------------------


class StaticAssertionError(Exception):
    """`tl.static_assert` failed while the kernel was being compiled."""


def _compile_time(fn):
    """Run `fn` during compilation on constexpr arguments (the code generator unwraps them)."""
    fn.__triton_constexpr_function__ = True
    return fn


@_compile_time
def static_assert(cond, msg="") -> None:
    """Stop compilation with `msg` unless the constexpr `cond` holds."""
    if isinstance(cond, tensor):
        raise StaticAssertionError("static_assert needs a constexpr condition, got a tensor")
    if not _unwrap(cond):
        raise StaticAssertionError(f"static_assert failed: {_unwrap(msg)}" if msg
                                   else "static_assert failed")


@_compile_time
def static_print(*values, sep=" ", end="\n") -> None:
    """Print constexpr values while the kernel is being compiled."""
    print(*(_unwrap(v) for v in values), sep=sep, end=end)


class static_range:
    """A range unrolled at compile time: `for i in tl.static_range(4)`."""

    takes_values = True  # the code generator passes constexprs and tensors as they are

    def __init__(self, arg1, arg2=None, step=None) -> None:
        start, end = (0, arg1) if arg2 is None else (arg1, arg2)
        self.start, self.end = _unwrap(start), _unwrap(end)
        self.step = 1 if step is None else _unwrap(step)
        for v in (self.start, self.end, self.step):
            if not isinstance(v, int):
                raise TypeError("static_range bounds must be constexpr integers")


class range:  # noqa: A001 (the language's own range)
    """A loop range with compiler hints: `for i in tl.range(0, n, 1, num_stages=3)`;
    `disable_licm=True` keeps LLVM from hoisting code out of the loop."""

    takes_values = True

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False,
                 disable_licm=False) -> None:
        start, end = (0, arg1) if arg2 is None else (arg1, arg2)
        self.start, self.end = start, end
        self.step = constexpr(1) if step is None else step
        self.num_stages = _unwrap(num_stages)
        self.loop_unroll_factor = _unwrap(loop_unroll_factor)
        self.disable_licm = bool(_unwrap(disable_licm))
        # recorded on the loop as Triton records them (tt.flatten, ...); not acted on
        self.flags = [name for name, on in (
            ("tt.flatten", flatten), ("tt.warp_specialize", warp_specialize),
            ("tt.disallow_acc_multi_buffer", disallow_acc_multi_buffer)) if _unwrap(on)]


class condition:
    """A `while` condition with compiler hints: `while tl.condition(i < n,
    disable_licm=True)` keeps LLVM from hoisting code out of the loop."""

    takes_values = True

    def __init__(self, arg, disable_licm=False) -> None:
        self.condition = arg
        self.disable_licm = bool(_unwrap(disable_licm))


__all__ = [name for name in dir() if not name.startswith("_") and name not in (
    "annotations", "builtin", "constexpr", "enum", "tensor", "tensor_method", "T")]
