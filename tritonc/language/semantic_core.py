"""The core typing rules: scalars, implicit promotion, broadcasting, arithmetic, casts.

`semantic.Semantic` assembles these with the rules for shapes and compute
(`semantic_ops.py`) and for memory (`semantic_memory.py`).
"""

from __future__ import annotations

import warnings

from tritonc.language import dtypes as T
from tritonc.language import promotion
from tritonc.language.builder import Builder
from tritonc.language.core import constexpr, tensor
from tritonc.language.promotion import describe_value


class SemanticError(Exception):
    """A user-level mistake found while typing a kernel (the code generator adds the line)."""


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
MAX_NUMEL = 2**20  # Triton's cap on the elements of one block


def check_numel(shape) -> None:
    """Reject a block of more than `MAX_NUMEL` elements, as Triton does."""
    numel = 1
    for d in shape:
        numel *= d
    if numel > MAX_NUMEL:
        raise SemanticError(f"a block of shape {list(shape)} has {numel} elements, more than "
                            f"the maximum of {MAX_NUMEL} (2**20) elements per block")


def check_int_range(value: int, ty: T.dtype) -> None:
    """Reject a Python integer that `ty` cannot represent (instead of truncating it)."""
    if ty.is_bool() or not ty.is_int():
        return
    bits = ty.primitive_bitwidth
    lo, hi = (0, 2**bits - 1) if ty.is_int_unsigned() else (-(2**(bits - 1)), 2**(bits - 1) - 1)
    if not INT64_MIN <= value <= UINT64_MAX:
        raise SemanticError(f"integer constant {value} does not fit in 64 bits")
    if not lo <= value <= hi:
        raise SemanticError(f"integer constant {value} is out of range for {ty} "
                            f"([{lo}, {hi}]); cast an operand to a wider type first")


def _kind(ty: T.dtype) -> int:
    """bool < integer < float, for the weak typing of Python scalars."""
    return 0 if ty.is_bool() else 2 if ty.is_floating() else 1


class SemanticCore:
    """Scalars, promotion, broadcasting, arithmetic, comparisons and casts."""

    def __init__(self, builder: Builder, num_warps: int = 4) -> None:
        self.builder = builder
        #: warps per program of the launch compiled for (`tl.extra.cuda.num_warps()`);
        #: 4, the compiler's default, when none is given
        self.num_warps = num_warps

    # -- values ------------------------------------------------------------------
    def scalar_constant(self, value: bool | int | float, ty: T.dtype) -> tensor:
        return tensor(self.builder.constant(value, ty), ty)

    def to_tensor(self, x, check_type: bool = True) -> tensor:
        """Turn a Python scalar (or constexpr) into a scalar tensor; tensors pass through."""
        if isinstance(x, constexpr):
            x = x.value
        if isinstance(x, tensor):
            return x
        if isinstance(x, (bool, int, float)):
            try:
                return self.scalar_constant(x, promotion.scalar_type(x))
            except promotion.PromotionError as e:
                raise SemanticError(str(e)) from None
        if check_type:
            if x is None:
                raise SemanticError("None is not a value here: a tensor or a number is needed")
            raise SemanticError(f"cannot convert {describe_value(x)} to a tensor")
        return x

    # -- promotion ---------------------------------------------------------------
    @staticmethod
    def integer_promote(a: T.dtype, b: T.dtype) -> T.dtype:
        """C's usual arithmetic conversions for two integer types (`promotion.py`)."""
        return promotion.integer_promote(a, b)

    @staticmethod
    def computation_type(a: T.dtype, a_scalar: bool, b: T.dtype, b_scalar: bool,
                         div_or_mod: bool = False) -> T.dtype:
        """The type both operands of an arithmetic op are converted to (`promotion.py`)."""
        try:
            return promotion.computation_type(a, a_scalar, b, b_scalar, div_or_mod)
        except promotion.PromotionError as e:
            raise SemanticError(str(e)) from None

    # -- broadcasting ------------------------------------------------------------
    def broadcast_shapes(self, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        if len(a) < len(b):
            a = (1,) * (len(b) - len(a)) + a
        if len(b) < len(a):
            b = (1,) * (len(a) - len(b)) + b
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y and 1 not in (x, y):
                raise SemanticError(
                    f"incompatible shapes {list(a)} and {list(b)}: dimension {i} is {x} and {y}"
                )
            out.append(max(x, y))
        check_numel(out)
        return tuple(out)

    def broadcast_to(self, x: tensor, shape: tuple[int, ...]) -> tensor:
        """Splat a scalar, or add leading unit axes and broadcast a tensor, to `shape`."""
        shape = tuple(shape)
        if not shape:
            if x.type.is_block():
                raise SemanticError(f"cannot broadcast shape {list(x.shape)} to a scalar")
            return x
        check_numel(shape)
        if not x.type.is_block():
            ty = T.block_type(x.type, shape)
            return tensor(self.builder.create("tt.splat", [x.handle], [ty])[0], ty)
        if x.shape == shape:
            return x
        while len(x.shape) < len(shape):
            x = self.expand_dims(x, 0)
        if self.broadcast_shapes(x.shape, shape) != shape:
            raise SemanticError(f"cannot broadcast shape {list(x.shape)} to {list(shape)}")
        ty = T.block_type(x.dtype, shape)
        return tensor(self.builder.create("tt.broadcast", [x.handle], [ty])[0], ty)

    def broadcast_pair(self, a: tensor, b: tensor) -> tuple[tensor, tensor]:
        if not a.type.is_block() and not b.type.is_block():
            return a, b
        shape = self.broadcast_shapes(a.shape, b.shape)
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)

    def expand_dims(self, x: tensor, axis: int) -> tensor:
        if not x.type.is_block():  # a scalar becomes one element, whatever the axis
            return self.broadcast_to(x, (1,))
        shape = list(x.shape)
        if not -len(shape) - 1 <= axis <= len(shape):
            raise SemanticError(f"expand_dims axis {axis} is out of range for shape {shape}")
        axis %= len(shape) + 1
        shape.insert(axis, 1)
        ty = T.block_type(x.dtype, shape)
        return tensor(self.builder.create("tt.expand_dims", [x.handle], [ty], {"axis": axis})[0],
                      ty)

    # -- elementwise helpers -----------------------------------------------------
    def unary(self, name: str, x: tensor, ty: T.base_type | None = None, attrs=None) -> tensor:
        ty = ty or x.type
        return tensor(self.builder.create(name, [x.handle], [ty], attrs)[0], ty)

    def binary(self, name: str, a: tensor, b: tensor, ty: T.base_type | None = None,
               attrs=None) -> tensor:
        ty = ty or a.type
        return tensor(self.builder.create(name, [a.handle, b.handle], [ty], attrs)[0], ty)

    def binary_operands(self, lhs, rhs, allow_ptr: bool = False, arithmetic: bool = True,
                        div_or_mod: bool = False) -> tuple[tensor, tensor]:
        """Convert both operands to one type and one shape, checking pointer use.

        Types meet by Triton's rules (`promotion.py`); a Python scalar operand becomes
        a constant of the type it meets the other operand in.
        """
        values = [x.value if isinstance(x, constexpr) else x for x in (lhs, rhs)]
        scalars = [not isinstance(x, tensor) for x in values]
        try:
            a, b = (promotion.scalar_type(x) if s else x.dtype for x, s in zip(values, scalars,
                                                                             strict=True))
            if a.is_ptr() or b.is_ptr():
                self._check_pointer_operands(a, b, allow_ptr)
                types = [a, b]
            elif arithmetic:
                ty = self.computation_type(a, scalars[0], b, scalars[1], div_or_mod)
                for x, s in zip(values, scalars, strict=True):
                    if s:
                        promotion.check_scalar_fits(x, ty)
                types = [ty, ty]
            else:
                types = [a, b]
        except promotion.PromotionError as e:
            raise SemanticError(str(e)) from None
        out = []
        for i, (x, s, ty) in enumerate(zip(values, scalars, types, strict=True)):
            other = values[1 - i]
            if not s:
                out.append(x)
            elif not scalars[1 - i] and other.type.is_block():
                out.append(self.full(other.shape, x, ty))
            else:
                out.append(self.scalar_constant(x, ty))
        lhs, rhs = self.broadcast_pair(*out)
        if lhs.dtype.is_ptr() or rhs.dtype.is_ptr():
            return lhs, rhs
        return self.cast(lhs, types[0]), self.cast(rhs, types[1])

    @staticmethod
    def _check_pointer_operands(a: T.dtype, b: T.dtype, allow_ptr: bool) -> None:
        if not allow_ptr:
            raise SemanticError(f"invalid operands of type {a} and {b}")
        if a.is_ptr() and b.is_ptr() and a != b:
            raise SemanticError(f"invalid operands of type {a} and {b}")
        if a.is_floating() or b.is_floating():
            raise SemanticError(f"cannot use a floating-point offset with a pointer ({a}, {b})")

    # -- arithmetic --------------------------------------------------------------
    def add(self, lhs, rhs) -> tensor:
        lhs, rhs = self.binary_operands(lhs, rhs, allow_ptr=True)
        if lhs.dtype.is_ptr() and rhs.dtype.is_ptr():
            raise SemanticError(f"cannot add pointers together ({lhs.dtype} and {rhs.dtype})")
        if rhs.dtype.is_ptr():
            lhs, rhs = rhs, lhs
        if lhs.dtype.is_ptr():
            return self.binary("tt.addptr", lhs, self._pointer_offset(rhs))
        return self.binary("arith.addf" if lhs.dtype.is_floating() else "arith.addi", lhs, rhs)

    def _pointer_offset(self, offset: tensor) -> tensor:
        """An offset as `tt.addptr` takes it: addptr reads its offset as signed, so an
        unsigned one narrower than 64 bits (a bool too) is zero-extended to int64 first."""
        ty = offset.dtype
        if (ty.is_int_unsigned() or ty.is_bool()) and ty.primitive_bitwidth < 64:
            return self.cast(offset, T.int64)
        return offset

    def sub(self, lhs, rhs) -> tensor:
        lhs, rhs = self.binary_operands(lhs, rhs, allow_ptr=True)
        if rhs.dtype.is_ptr():
            raise SemanticError("cannot subtract a pointer")
        if lhs.dtype.is_ptr():
            return self.binary("tt.addptr", lhs, self.minus(self._pointer_offset(rhs)))
        return self.binary("arith.subf" if lhs.dtype.is_floating() else "arith.subi", lhs, rhs)

    def mul(self, lhs, rhs) -> tensor:
        lhs, rhs = self.binary_operands(lhs, rhs)
        return self.binary("arith.mulf" if lhs.dtype.is_floating() else "arith.muli", lhs, rhs)

    def truediv(self, lhs, rhs) -> tensor:
        """`/`: true division; two integers are divided in fp32."""
        lhs, rhs = self.binary_operands(lhs, rhs, div_or_mod=True)
        if lhs.dtype.is_int():
            lhs, rhs = self.cast(lhs, T.float32), self.cast(rhs, T.float32)
        if not lhs.dtype.is_floating():
            raise SemanticError(f"unexpected operand types for /: {lhs.dtype}")
        return self.binary("arith.divf", lhs, rhs)

    def floordiv(self, lhs, rhs) -> tensor:
        """`//`: on integers, division truncating toward zero as in C."""
        lhs, rhs = self.binary_operands(lhs, rhs, div_or_mod=True)
        if not lhs.dtype.is_int():
            raise SemanticError(f"// is only defined for integers, not {lhs.dtype}")
        name = "arith.divsi" if lhs.dtype.is_int_signed() else "arith.divui"
        return self.binary(name, lhs, rhs)

    def mod(self, lhs, rhs) -> tensor:
        """`%`: the remainder with the sign of the dividend, as C's % and fmod."""
        lhs, rhs = self.binary_operands(lhs, rhs, div_or_mod=True)
        if lhs.dtype.is_floating():
            return self.binary("arith.remf", lhs, rhs)
        name = "arith.remsi" if lhs.dtype.is_int_signed() else "arith.remui"
        return self.binary(name, lhs, rhs)

    def _bitwise_operands(self, lhs, rhs) -> tuple[tensor, tensor]:
        """Both operands as integers of one type (promoted like arithmetic operands)."""
        lhs, rhs = self.binary_operands(lhs, rhs)
        a, b = lhs.dtype, rhs.dtype
        if not (a.is_int() and b.is_int()):
            bad = a if not a.is_int() else b
            raise SemanticError(f"invalid operands of type {a} and {b}: bitwise operators need "
                                f"integer operands, not {bad}")
        return lhs, rhs

    def and_(self, lhs, rhs) -> tensor:
        return self.binary("arith.andi", *self._bitwise_operands(lhs, rhs))

    def or_(self, lhs, rhs) -> tensor:
        return self.binary("arith.ori", *self._bitwise_operands(lhs, rhs))

    def xor_(self, lhs, rhs) -> tensor:
        return self.binary("arith.xori", *self._bitwise_operands(lhs, rhs))

    def shl(self, lhs, rhs) -> tensor:
        return self.binary("arith.shli", *self._bitwise_operands(lhs, rhs))

    def shr(self, lhs, rhs) -> tensor:
        """`>>`: arithmetic when the tensor operand (the left one, if both are tensors)
        is signed, logical otherwise, whatever type the operands are promoted to."""
        first = lhs.value if isinstance(lhs, constexpr) else lhs
        if not isinstance(first, tensor):
            first = rhs.value if isinstance(rhs, constexpr) else rhs
        signed = isinstance(first, tensor) and first.dtype.is_int_signed() \
            and not first.dtype.is_bool()
        lhs, rhs = self._bitwise_operands(lhs, rhs)
        return self.binary("arith.shrsi" if signed else "arith.shrui", lhs, rhs)

    def logical_and(self, lhs, rhs) -> tensor:
        lhs, rhs = self.to_tensor(lhs), self.to_tensor(rhs)
        return self.and_(self.cast(lhs, T.int1), self.cast(rhs, T.int1))

    def logical_or(self, lhs, rhs) -> tensor:
        lhs, rhs = self.to_tensor(lhs), self.to_tensor(rhs)
        return self.or_(self.cast(lhs, T.int1), self.cast(rhs, T.int1))

    def minus(self, x) -> tensor:
        x = self.to_tensor(x)
        if x.dtype.is_ptr():
            raise SemanticError(f"cannot negate a pointer ({x.dtype})")
        if x.dtype.is_floating():
            return self.unary("arith.negf", x)
        return self.sub(self.zeros_like_scalar(x), x)

    def invert(self, x) -> tensor:
        x = self.to_tensor(x)
        if not x.dtype.is_int():
            raise SemanticError(f"~ needs an integer operand, not {x.dtype}")
        ones = self.scalar_constant(True if x.dtype.is_bool() else -1, x.dtype)
        return self.xor_(x, self.broadcast_to(ones, x.shape) if x.type.is_block() else ones)

    def not_(self, x) -> tensor:
        x = self.to_tensor(x)
        return self.invert(self.cast(x, T.int1))

    def zeros_like_scalar(self, x: tensor) -> tensor:
        zero = self.scalar_constant(0, x.dtype)
        return self.broadcast_to(zero, x.shape) if x.type.is_block() else zero

    def minimum(self, a, b, propagate_nan: bool = False) -> tensor:
        a, b = self.binary_operands(a, b)
        if a.dtype.is_floating():
            return self.binary("arith.minimumf" if propagate_nan else "arith.minnumf", a, b)
        return self.binary("arith.minsi" if a.dtype.is_int_signed() else "arith.minui", a, b)

    def maximum(self, a, b, propagate_nan: bool = False) -> tensor:
        a, b = self.binary_operands(a, b)
        if a.dtype.is_floating():
            return self.binary("arith.maximumf" if propagate_nan else "arith.maxnumf", a, b)
        return self.binary("arith.maxsi" if a.dtype.is_int_signed() else "arith.maxui", a, b)

    # -- comparisons ---------------------------------------------------------------
    _FLOAT_PREDICATES = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq",
                         "ne": "une"}

    def compare(self, op: str, lhs, rhs) -> tensor:
        """`<`, `<=`, `>`, `>=`, `==`, `!=` (op "lt" ... "ne"); the result is int1."""
        lhs, rhs = self.binary_operands(lhs, rhs, allow_ptr=op in ("eq", "ne"))
        ty = lhs.type.with_element_ty(T.int1) if lhs.type.is_block() else T.int1
        if lhs.dtype.is_ptr() or rhs.dtype.is_ptr():
            if lhs.dtype != rhs.dtype:
                raise SemanticError(f"cannot compare {lhs.dtype} with {rhs.dtype}")
            lhs, rhs = self.cast(lhs, T.int64), self.cast(rhs, T.int64)
        if lhs.dtype.is_floating():
            pred = self._FLOAT_PREDICATES[op]
            return self.binary("arith.cmpf", lhs, rhs, ty, {"predicate": pred})
        if op in ("eq", "ne"):
            pred = op
        else:
            # int1 orders false < true, as Triton (which counts it unsigned) does
            signed = lhs.dtype.is_int_signed() and not lhs.dtype.is_bool()
            pred = ("s" if signed else "u") + op
        return self.binary("arith.cmpi", lhs, rhs, ty, {"predicate": pred})

    def where(self, cond, x, y) -> tensor:
        cond = self.to_tensor(cond)
        if cond.dtype != T.int1:
            warnings.warn(f"tl.where takes a boolean condition; a {cond.dtype} one is compared "
                          "with zero (write `cond != 0`)", UserWarning, stacklevel=2)
        cond = self.cast(cond, T.int1)
        x, y = self.binary_operands(x, y, allow_ptr=True)
        if x.dtype.is_ptr() and x.dtype != y.dtype:
            raise SemanticError(f"where: pointer operands differ ({x.dtype}, {y.dtype})")
        if cond.type.is_block() or x.type.is_block():
            shape = self.broadcast_shapes(cond.shape, x.shape)
            cond, x, y = (self.broadcast_to(v, shape) for v in (cond, x, y))
        return tensor(self.builder.create("arith.select", [cond.handle, x.handle, y.handle],
                                          [x.type])[0], x.type)

    # -- casts -------------------------------------------------------------------
    def bitcast(self, x: tensor, dst: T.dtype) -> tensor:
        src = x.dtype
        if src == dst:
            return x
        if src.is_ptr() or dst.is_ptr():
            if not (src.is_ptr() and dst.is_ptr()):
                return self.cast(x, dst)
            if src.with_const(dst.is_const()) == dst:  # constness alone: the same pointer
                return tensor(x.handle, x.type.with_element_ty(dst))
            return self.unary("tt.bitcast", x, x.type.with_element_ty(dst))
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(
                f"cannot bitcast {src} ({src.primitive_bitwidth} bits) to "
                f"{dst} ({dst.primitive_bitwidth} bits)"
            )
        return self.unary("arith.bitcast", x, x.type.with_element_ty(dst))

    def _cast_float(self, x: tensor, dst: T.dtype, rounding: str | None) -> tensor:
        """Float to float.

        1. fp64 <-> fp8 goes through fp32 (there is no direct conversion);
        2. fp8 either way, and any narrowing with an explicit "rtz", is tt.fp_to_fp
           (narrowing rounds to nearest even unless told otherwise);
        3. fp16 <-> bf16 goes through fp32;
        4. otherwise arith.truncf (narrowing, to nearest even) or arith.extf.
        """
        src = x.dtype
        out = x.type.with_element_ty(dst)
        fp8 = src.is_fp8() or dst.is_fp8()
        same_width = {src.name, dst.name} == {"fp16", "bf16"}
        narrowing = dst.primitive_bitwidth < src.primitive_bitwidth or same_width
        if fp8 and (src.is_fp64() or dst.is_fp64()):
            return self.cast(self.cast(x, T.float32), dst, rounding)
        if fp8 or (narrowing and rounding == "rtz"):
            mode = rounding or ("rtne" if narrowing else "")
            return self.unary("tt.fp_to_fp", x, out, {"rounding": mode})
        if same_width:
            return self.cast(self.cast(x, T.float32), dst)
        if narrowing:
            return self.unary("arith.truncf", x, out)
        return self.unary("arith.extf", x, out)

    def cast(self, x, dst: T.dtype, fp_downcast_rounding: str | None = None) -> tensor:
        """Convert `x` to element type `dst` (the rules of `tensor.to`)."""
        x = self.to_tensor(x)
        src = x.dtype
        if isinstance(dst, constexpr):
            dst = dst.value
        dst = dst.scalar  # a block type (a block pointer's `dtype.element_ty`): its elements
        if src == dst:
            return x
        out = x.type.with_element_ty(dst)
        if src.is_ptr() or dst.is_ptr():
            if src.is_ptr() and dst.is_ptr():
                return self.bitcast(x, dst)
            if src.is_ptr() and dst.is_int():
                if dst.primitive_bitwidth != 64:
                    raise SemanticError(f"a pointer can only be cast to a 64-bit integer, "
                                        f"not {dst}")
                return self.unary("tt.ptr_to_int", x, out)
            if dst.is_ptr() and src.is_int():
                return self.unary("tt.int_to_ptr", self.cast(x, T.int64), out)
            raise SemanticError(f"cannot cast {src} to {dst}")
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise SemanticError(f"unknown rounding mode {fp_downcast_rounding!r}")
        if src.is_floating() and dst.is_floating():
            return self._cast_float(x, dst, fp_downcast_rounding)
        if src.is_int() and dst.is_int():
            if dst.is_bool():
                return self.compare("ne", x, 0)
            ws, wd = src.primitive_bitwidth, dst.primitive_bitwidth
            if ws == wd:
                return tensor(x.handle, out)
            if ws > wd:
                return self.unary("arith.trunci", x, out)
            signed = src.is_int_signed() and not src.is_bool()
            return self.unary("arith.extsi" if signed else "arith.extui", x, out)
        if src.is_floating() and dst.is_int():
            if dst.is_bool():
                return self.compare("ne", x, 0.0)
            if src.is_fp8() or src.is_bf16():
                x = self.cast(x, T.float32)
            return self.unary("arith.fptosi" if dst.is_int_signed() else "arith.fptoui", x, out)
        if src.is_int() and dst.is_floating():
            if dst.is_fp8():  # bf16 converts directly: one rounding, as in Triton
                return self.cast(self.cast(x, T.float32), dst)
            signed = src.is_int_signed() and not src.is_bool()
            return self.unary("arith.sitofp" if signed else "arith.uitofp", x, out)
        raise SemanticError(f"cannot cast {src} to {dst}")
