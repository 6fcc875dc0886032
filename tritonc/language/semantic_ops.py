"""Typing rules for shape ops, reductions and scans, dot, math and debugging ops."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tritonc.language import dtypes as T
from tritonc.language.core import handle_of, tensor
from tritonc.language.semantic_core import (
    SemanticCore,
    SemanticError,
    check_int_range,
    check_numel,
    describe_value,
)

#: fp32 dots summed from bf16 pieces: the cross products besides hi @ hi, smallest first
#: (0 is the piece hi, 1 mid, 2 lo)
_BF16_PIECES: dict[str, tuple[tuple[int, int], ...]] = {
    "bf16x3": ((1, 0), (0, 1)),
    "bf16x6": ((1, 1), (2, 0), (0, 2), (1, 0), (0, 1)),
}

#: "tf32x3": the cross products of the tf32 pieces (0 is hi, 1 lo) besides hi @ hi
_TF32X3_PRODUCTS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1))

#: an fp32 with these bits kept (the sign, the exponent and the top 10 mantissa bits)
#: is exactly a tf32 value: 0xFFFFE000 as an int32
_TF32_MASK = -0x2000


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class ShapeRules(SemanticCore):
    """Creating and reshaping tensors."""

    def program_id(self, axis: int) -> tensor:
        if axis not in (0, 1, 2):
            raise SemanticError(f"program_id axis must be 0, 1, or 2 but got {axis}")
        return tensor(self.builder.create("tt.get_program_id", [], [T.int32], {"axis": axis})[0],
                      T.int32)

    def num_programs(self, axis: int) -> tensor:
        if axis not in (0, 1, 2):
            raise SemanticError(f"num_programs axis must be 0, 1 or 2, not {axis}")
        return tensor(self.builder.create("tt.get_num_programs", [], [T.int32], {"axis": axis})[0],
                      T.int32)

    def check_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        for i, d in enumerate(shape):
            if not isinstance(d, int):
                raise SemanticError(f"shape entries must be constexpr integers, got "
                                    f"{describe_value(d)}")
            if not is_power_of_two(d):
                raise SemanticError(f"Shape element {i} must be a power of 2")
        check_numel(shape)
        return tuple(shape)

    def arange(self, start: int, end: int) -> tensor:
        if not isinstance(start, int) or not isinstance(end, int):
            raise SemanticError("arange's start and end must be constexpr integers")
        if end <= start:
            raise SemanticError(f"arange: end ({end}) must be greater than start ({start})")
        n = end - start
        if not is_power_of_two(n):
            raise SemanticError("arange's range must be a power of 2")
        check_numel((n,))
        ty = T.block_type(T.int32, (n,))
        attrs = {"start": start, "end": end}
        return tensor(self.builder.create("tt.make_range", [], [ty], attrs)[0], ty)

    def full(self, shape: Sequence[int], value, dtype: T.dtype) -> tensor:
        shape = self.check_shape(shape)
        if not isinstance(dtype, T.dtype):
            raise SemanticError(f"expected a dtype such as tl.float32, got {dtype!r}")
        if isinstance(value, tensor):
            return self.broadcast_to(self.cast(value, dtype), shape)
        if isinstance(value, int) and not isinstance(value, bool):
            check_int_range(value, dtype)
        if dtype.is_floating():
            value = float(value)
        elif dtype.is_int():
            value = int(value)
        ty = T.block_type(dtype, shape) if shape else dtype
        return tensor(self.builder.constant(value, ty), ty)

    def reshape(self, x: tensor, shape: Sequence[int], can_reorder: bool = False) -> tensor:
        shape = self.check_shape(shape)
        numel = 1
        for d in shape:
            numel *= d
        if not x.type.is_block():
            x = self.broadcast_to(x, (1,))
        if numel != x.type.numel:
            raise SemanticError(f"cannot reshape {list(x.shape)} ({x.type.numel} elements) "
                                f"to {list(shape)} ({numel} elements)")
        if not shape:
            raise SemanticError("cannot reshape a tensor to a scalar")
        ty = T.block_type(x.dtype, shape)
        return tensor(self.builder.create("tt.reshape", [x.handle], [ty],
                                          {"allow_reorder": bool(can_reorder)})[0], ty)

    def permute(self, x: tensor, order: Sequence[int]) -> tensor:
        order = [int(o) for o in order]
        if sorted(order) != list(range(len(x.shape))):
            raise SemanticError(f"permute order {order} is not a permutation of the "
                                f"{len(x.shape)} dimensions of {list(x.shape)}")
        ty = T.block_type(x.dtype, [x.shape[o] for o in order])
        return tensor(self.builder.create("tt.trans", [x.handle], [ty], {"order": order})[0], ty)

    def join(self, a: tensor, b: tensor) -> tensor:
        a, b = self.binary_operands(a, b, allow_ptr=True, arithmetic=False)
        if a.type != b.type:
            raise SemanticError(f"join needs operands of one type, got {a.type} and {b.type}")
        if not a.type.is_block():
            a, b = self.broadcast_to(a, (1,)), self.broadcast_to(b, (1,))
            joined = self.join(a, b)
            return self.reshape(joined, (2,))
        check_numel((*a.shape, 2))
        ty = T.block_type(a.dtype, (*a.shape, 2))
        return tensor(self.builder.create("tt.join", [a.handle, b.handle], [ty])[0], ty)

    def split(self, x: tensor) -> tuple[tensor, tensor]:
        if not x.type.is_block() or x.shape[-1] != 2:
            raise SemanticError(f"split needs a last dimension of size 2, got shape {x.shape}")
        shape = x.shape[:-1]
        ty = T.block_type(x.dtype, shape) if shape else x.dtype
        lhs, rhs = self.builder.create("tt.split", [x.handle], [ty, ty])
        return tensor(lhs, ty), tensor(rhs, ty)

    def cat(self, a: tensor, b: tensor, can_reorder: bool) -> tensor:
        if not can_reorder:
            raise SemanticError("cat requires can_reorder=True (the order of elements is not kept)")
        if a.type != b.type or len(a.shape) != 1:
            raise SemanticError(f"cat needs two 1-D tensors of one type, got {a.type} and {b.type}")
        check_numel((a.shape[0] * 2,))
        ty = T.block_type(a.dtype, (a.shape[0] * 2,))
        return tensor(self.builder.create("tt.cat", [a.handle, b.handle], [ty])[0], ty)

    def gather(self, src: tensor, index: tensor, axis: int) -> tensor:
        if len(src.shape) != len(index.shape):
            raise SemanticError("gather: source and index must have the same rank")
        if not index.dtype.is_int():
            raise SemanticError(f"gather: index must be integers, not {index.dtype}")
        axis %= len(src.shape)
        for d, (s, i) in enumerate(zip(src.shape, index.shape, strict=False)):
            if d != axis and s != i:
                raise SemanticError(f"gather: dimension {d} differs ({s} vs {i})")
        ty = T.block_type(src.dtype, index.shape)
        return tensor(self.builder.create("tt.gather", [src.handle, index.handle], [ty],
                                          {"axis": axis})[0], ty)


class ComputeRules(ShapeRules):
    """Reductions, scans, dot, math and debugging."""

    def reduce(self, inputs: Sequence[tensor], axis: int | None,
               combine: Callable[[list[tensor], list[tensor]], list[tensor]],
               keep_dims: bool = False) -> list[tensor]:
        if axis is None:
            inputs = [self.reshape(x, (x.type.numel,), can_reorder=True) for x in inputs]
            axis = 0
        shape = inputs[0].shape
        if not shape:
            raise SemanticError("cannot reduce a scalar")
        if not -len(shape) <= axis < len(shape):
            raise SemanticError(f"reduction axis {axis} is out of range for shape {list(shape)}")
        axis %= len(shape)
        for x in inputs:
            if x.shape != shape:
                raise SemanticError("every input of a reduction must have the same shape")
        out_shape = shape[:axis] + shape[axis + 1:]
        scalar_tys = [x.dtype for x in inputs]
        res_tys = [T.block_type(t, out_shape) if out_shape else t for t in scalar_tys]
        handles = self.builder.reduce([x.handle for x in inputs], axis, res_tys,
                                      self._wrap_combine(scalar_tys, combine))
        results = [tensor(h, t) for h, t in zip(handles, res_tys, strict=False)]
        if keep_dims:
            results = [self.expand_dims(r, axis) for r in results]
        return results

    def scan(self, inputs: Sequence[tensor], axis: int, reverse: bool,
             combine: Callable[[list[tensor], list[tensor]], list[tensor]]) -> list[tensor]:
        shape = inputs[0].shape
        if not shape:
            raise SemanticError("cannot scan a scalar")
        axis %= len(shape)
        scalar_tys = [x.dtype for x in inputs]
        res_tys = [x.type for x in inputs]
        handles = self.builder.scan([x.handle for x in inputs], axis, bool(reverse), res_tys,
                                    self._wrap_combine(scalar_tys, combine))
        return [tensor(h, t) for h, t in zip(handles, res_tys, strict=False)]

    def _wrap_combine(self, tys: list[T.dtype], combine):
        def on_handles(lhs: list, rhs: list) -> list:
            outs = combine([tensor(h, t) for h, t in zip(lhs, tys, strict=False)],
                           [tensor(h, t) for h, t in zip(rhs, tys, strict=False)])
            if len(outs) != len(tys):
                raise SemanticError(f"the combine function returned {len(outs)} values, "
                                    f"expected {len(tys)}")
            return [self.cast(o, t).handle for o, t in zip(outs, tys, strict=False)]

        return on_handles

    def dot(self, a: tensor, b: tensor, acc: tensor | None, input_precision: str | None,
            max_num_imprecise_acc: int | None, out_dtype: T.dtype) -> tensor:
        if len(a.shape) < 2 or len(b.shape) != len(a.shape) or a.shape[:-2] != b.shape[:-2]:
            raise SemanticError(f"dot operands must both be 2-D, or batched with the same "
                                f"leading dimensions, got shapes {list(a.shape)} and "
                                f"{list(b.shape)}")
        if a.shape[-1] != b.shape[-2]:
            raise SemanticError(f"dot: inner dimensions differ: {list(a.shape)} @ {list(b.shape)}")
        if a.dtype.is_int() != b.dtype.is_int():
            raise SemanticError(f"dot: cannot mix {a.dtype} and {b.dtype}")
        if a.dtype != b.dtype:
            if a.dtype.is_fp8() and b.dtype.is_fp8():
                pass
            elif a.dtype.primitive_bitwidth >= b.dtype.primitive_bitwidth:
                b = self.cast(b, a.dtype)
            else:
                a = self.cast(a, b.dtype)
        if a.dtype.is_fp8() and max_num_imprecise_acc is not None and \
                max_num_imprecise_acc > a.shape[-1]:
            raise SemanticError(f"max_num_imprecise_acc ({max_num_imprecise_acc}) must be <= K "
                                f"({a.shape[-1]})")
        precision = input_precision or "tf32"
        if precision not in ("tf32", "tf32x3", "ieee", *_BF16_PIECES):
            raise SemanticError(f"unknown input_precision {precision!r} "
                                "(expected 'tf32', 'tf32x3', 'bf16x3', 'bf16x6' or 'ieee')")
        if not a.dtype.is_fp32():
            precision = "ieee" if a.dtype.is_fp64() or precision in _BF16_PIECES else precision
        if a.dtype.is_int():
            out_dtype = T.int32
        shape = (*a.shape[:-1], b.shape[-1])
        ty = T.block_type(out_dtype, shape)
        if acc is not None:
            if acc.shape != shape:
                raise SemanticError(f"dot: accumulator shape {list(acc.shape)} should be "
                                    f"{list(shape)}")
            ty = acc.type
        if precision in _BF16_PIECES:
            if ty.element_ty.is_fp32():
                products = _BF16_PIECES[precision]
                count = 1 + max(max(pair) for pair in products)
                return self._dot_of_pieces(self._bf16_pieces(a, count),
                                           self._bf16_pieces(b, count), acc, products, "ieee")
            precision = "ieee"
        if precision == "tf32x3" and a.dtype.is_fp32() and ty.element_ty.is_fp32():
            return self._dot_of_pieces(self._tf32_pieces(a), self._tf32_pieces(b), acc,
                                       _TF32X3_PRODUCTS, "tf32")
        if acc is None:
            acc = self.full(shape, 0, out_dtype)
        return self._tt_dot(a, b, acc, precision, max_num_imprecise_acc or 0)

    def _tt_dot(self, a: tensor, b: tensor, acc: tensor, precision: str,
                max_num_imprecise_acc: int) -> tensor:
        attrs = {"input_precision": precision, "max_num_imprecise_acc": max_num_imprecise_acc}
        return tensor(self.builder.create("tt.dot", [a.handle, b.handle, acc.handle], [acc.type],
                                          attrs)[0], acc.type)

    def _bf16_pieces(self, x: tensor, count: int) -> list[tensor]:
        """fp32 `x` as `count` bf16 values, largest first, each the rounded remainder of
        the ones before: hi = bf16(x), mid = bf16(x - hi), lo = bf16(x - hi - mid). The
        subtractions are exact: each piece holds the next 8 significant bits of x."""
        pieces = [self.cast(x, T.bfloat16)]
        while len(pieces) < count:
            x = self.sub(x, self.cast(pieces[-1], T.float32))
            pieces.append(self.cast(x, T.bfloat16))
        return pieces

    def _tf32_pieces(self, x: tensor) -> list[tensor]:
        """fp32 `x` as hi + lo: hi is x with its low 13 mantissa bits cleared (a tf32 value,
        which the tensor cores take unrounded) and lo = x - hi (exact, the bits cleared)."""
        bits = self.bitcast(x, T.int32)
        hi = self.bitcast(self.and_(bits, self.scalar_constant(_TF32_MASK, T.int32)), T.float32)
        return [hi, self.sub(x, hi)]

    def _dot_of_pieces(self, a_pieces: list[tensor], b_pieces: list[tensor],
                       acc: tensor | None, products: tuple[tuple[int, int], ...],
                       precision: str) -> tensor:
        """An fp32 dot as a sum of tensor-core dots accumulated in fp32, as Triton's
        "bf16x3", "bf16x6" (bf16 pieces) and "tf32x3" (tf32 pieces) precisions do: with
        a = hi + mid (+ lo), a @ b = the cross products in `products` (pairs of piece
        indices, smallest first) and hi @ hi last, each a dot of `precision`. An infinite
        input leaves NaN in its remainders (inf - inf), so where the cross products sum to
        NaN they are dropped and hi @ hi alone carries the result. `acc` is added at the
        end."""
        shape = (*a_pieces[0].shape[:-1], b_pieces[0].shape[-1])
        zero = self.full(shape, 0, T.float32)
        small = zero
        for i, j in products:
            small = self._tt_dot(a_pieces[i], b_pieces[j], small, precision, 0)
        small = self.where(self.compare("ne", small, small), zero, small)
        out = self._tt_dot(a_pieces[0], b_pieces[0], small, precision, 0)
        return out if acc is None else self.add(out, acc)

    # -- math ----------------------------------------------------------------------
    def float_math(self, name: str, x, allow_fp64: bool = True) -> tensor:
        """A unary math op on floats; integers are converted to fp32 first, fp16/bf16
        compute in fp32 (as Triton's libdevice-backed functions do) and convert back."""
        x = self.to_tensor(x)
        if x.dtype.is_int():
            x = self.cast(x, T.float32)
        if not x.dtype.is_floating():
            raise SemanticError(f"{name} needs a floating-point operand, not {x.dtype}")
        if x.dtype.primitive_bitwidth < 32:
            return self.cast(self.unary(name, self.cast(x, T.float32)), x.dtype)
        return self.unary(name, x)

    def abs(self, x) -> tensor:
        x = self.to_tensor(x)
        if x.dtype.is_floating():
            return self.unary("math.absf", x)
        if x.dtype.is_int_signed():
            return self.unary("math.absi", x)
        if x.dtype.is_int():
            return x
        raise SemanticError(f"abs needs a number, not {x.dtype}")

    def fma(self, x, y, z) -> tensor:
        x, y = self.binary_operands(x, y)
        x, z = self.binary_operands(x, z)
        x, y = self.binary_operands(x, y)
        return tensor(self.builder.create("math.fma", [x.handle, y.handle, z.handle], [x.type])[0],
                      x.type)

    def precise(self, name: str, *args) -> tensor:
        xs = [self.to_tensor(a) for a in args]
        if len(xs) == 2:
            xs = list(self.binary_operands(*xs))
        if not xs[0].dtype.is_fp32():
            raise SemanticError(f"{name} is only defined for fp32, not {xs[0].dtype}")
        ty = xs[0].type
        return tensor(self.builder.create(name, [x.handle for x in xs], [ty])[0], ty)

    def umulhi(self, x, y) -> tensor:
        x, y = self.binary_operands(x, y)
        if not x.dtype.is_int():
            raise SemanticError(f"umulhi needs integers, not {x.dtype}")
        return self.binary("tt.mulhiu", x, y)

    def clamp(self, x, lo, hi, propagate_nan: bool) -> tensor:
        x, lo = self.binary_operands(x, lo)
        x, hi = self.binary_operands(x, hi)
        x, lo = self.binary_operands(x, lo)
        if x.dtype.is_floating():
            attrs = {"propagate_nan": bool(propagate_nan)}
            operands = [x.handle, lo.handle, hi.handle]
            return tensor(self.builder.create("tt.clampf", operands, [x.type], attrs)[0], x.type)
        return self.minimum(self.maximum(x, lo), hi)

    def extern_elementwise(self, symbol: str, args: Sequence, ret: T.dtype,
                           is_pure: bool) -> tensor:
        xs = [self.to_tensor(a) for a in args]
        shape: tuple[int, ...] = ()
        for x in xs:
            if x.type.is_block():
                shape = self.broadcast_shapes(shape, x.shape) if shape else x.shape
        if shape:
            xs = [self.broadcast_to(x, shape) for x in xs]
        ty = T.block_type(ret, shape) if shape else ret
        attrs = {"libname": "libdevice", "libpath": "", "symbol": symbol, "pure": is_pure}
        return tensor(self.builder.create("tt.extern_elementwise", [x.handle for x in xs], [ty],
                                          attrs)[0], ty)

    def inline_asm(self, asm: str, constraints: str, args: Sequence, dtypes: Sequence[T.dtype],
                   is_pure: bool, pack: int) -> list[tensor]:
        xs = [self.to_tensor(a) for a in args]
        shape: tuple[int, ...] = ()
        for x in xs:
            if x.type.is_block():
                shape = self.broadcast_shapes(shape, x.shape) if shape else x.shape
        xs = [self.broadcast_to(x, shape) if shape else x for x in xs]
        tys = [T.block_type(d, shape) if shape else d for d in dtypes]
        attrs = {"asm_string": asm, "constraints": constraints, "pure": is_pure,
                 "packed_element": pack}
        handles = self.builder.create("tt.elementwise_inline_asm", [x.handle for x in xs], tys,
                                      attrs)
        return [tensor(h, t) for h, t in zip(handles, tys, strict=False)]

    def map_elementwise(self, args: Sequence, pack: int,
                        fn: Callable[[list[tensor]], list[tensor]]) -> list[tensor]:
        """`fn` over the elements of `args` (broadcast together), `pack` elements of each
        at a time: it takes a0..a{pack-1}, b0.., ... and returns pack scalars of each
        result, result by result; each result has the type of its first scalar."""
        if pack < 1:
            raise SemanticError(f"map_elementwise needs pack >= 1, not {pack}")
        xs = [self.to_tensor(a) for a in args]
        if not xs:
            raise SemanticError("map_elementwise needs at least one argument")
        shape: tuple[int, ...] = ()
        for x in xs:
            if x.type.is_block():
                shape = self.broadcast_shapes(shape, x.shape) if shape else x.shape
        xs = [self.broadcast_to(x, shape) if shape else x for x in xs]
        arg_tys = [x.dtype for x in xs for _ in range(pack)]
        result_types: list[T.base_type] = []

        def body(handles: list) -> tuple[list, list[T.base_type]]:
            outs = [self.to_tensor(o) for o in fn([tensor(h, t) for h, t in
                                                    zip(handles, arg_tys, strict=True)])]
            if len(outs) % pack or any(o.type.is_block() for o in outs):
                raise SemanticError(f"the mapped function must return scalars, {pack} for "
                                    f"each result; it returned "
                                    f"{', '.join(str(o.type) for o in outs) or 'nothing'}")
            tys = [o.dtype for o in outs[::pack]]
            handles = [self.cast(o, tys[i // pack]).handle for i, o in enumerate(outs)]
            result_types[:] = [T.block_type(t, shape) if shape else t for t in tys]
            return handles, list(result_types)

        handles = self.builder.map_elementwise([x.handle for x in xs], [x.dtype for x in xs],
                                               pack, body)
        return [tensor(h, t) for h, t in zip(handles, result_types, strict=True)]

    def histogram(self, x: tensor, num_bins: int, mask: tensor | None) -> tensor:
        if len(x.shape) != 1 or not x.dtype.is_int():
            raise SemanticError("histogram needs a 1-D integer tensor")
        if mask is not None:
            mask = self.broadcast_to(self.cast(mask, T.int1), x.shape)
        ty = T.block_type(T.int32, (num_bins,))
        return tensor(self.builder.create("tt.histogram", [x.handle, handle_of(mask)],
                                          [ty])[0], ty)

    # -- debugging and hints ---------------------------------------------------------
    def device_print(self, prefix: str, args: Sequence, hex: bool) -> None:
        """`tt.print` of `args` after `prefix`, shaped as Triton shapes it: with values, it
        ends in ": " (a trailing space or colon is completed); a prefix of more than two
        characters starts with a space (`"x:"` prints as `... x: 5`)."""
        if args:
            prefix = prefix if prefix.endswith(" ") else prefix + " "
            prefix = prefix if prefix.endswith(": ") else prefix[:-1] + ": "
        if len(prefix) > 2 and not prefix.startswith(" "):
            prefix = " " + prefix
        xs = [self.to_tensor(a) for a in args]
        signed = [int(x.dtype.is_int_signed()) for x in xs]
        self.builder.create("tt.print", [x.handle for x in xs], [],
                            {"prefix": prefix, "hex": bool(hex), "is_signed": signed})

    def device_assert(self, cond, message: str) -> None:
        cond = self.cast(self.to_tensor(cond), T.int1)
        self.builder.create("tt.assert", [cond.handle], [], {"message": message})

    def assume(self, cond) -> None:
        """A scalar condition is LLVM's `llvm.intr.assume` from TTIR on (as in Triton); a
        tensor condition is `tt.assume`, one assumption per element a thread holds."""
        cond = self.cast(self.to_tensor(cond), T.int1)
        name = "tt.assume" if cond.type.is_block() else "llvm.intr.assume"
        self.builder.create(name, [cond.handle], [])

    def special_register(self, name: str, ty: T.dtype) -> tensor:
        """This thread's PTX special register `%name` (`globaltimer`, `smid`), read where
        the call is: `nvvm.read.ptx.sreg.<name>`."""
        return tensor(self.builder.create(f"nvvm.read.ptx.sreg.{name}", [], [ty])[0], ty)

    def debug_barrier(self) -> None:
        self.builder.create("tt.barrier", [], [])

    def hint(self, x: tensor, name: str, values: Sequence[int]) -> tensor:
        self.builder.set_attr(x.handle, name, list(values))
        return x
