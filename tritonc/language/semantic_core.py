"""The core typing rules: scalars, implicit promotion, broadcasting, arithmetic, casts.

`semantic.Semantic` assembles these with the rules for shapes and compute
(`semantic_ops.py`) and for memory (`semantic_memory.py`).
"""

from __future__ import annotations

from tritonc.language import dtypes as T
from tritonc.language.builder import Builder
from tritonc.language.core import constexpr, tensor


class SemanticError(Exception):
    """A user-level mistake found while typing a kernel (the code generator adds the line)."""


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1


class SemanticCore:
    """Scalars, promotion, broadcasting, arithmetic, comparisons and casts."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder

    # -- values ------------------------------------------------------------------
    def scalar_constant(self, value: bool | int | float, ty: T.dtype) -> tensor:
        return tensor(self.builder.constant(value, ty), ty)

    def to_tensor(self, x, check_type: bool = True) -> tensor:
        """Turn a Python scalar (or constexpr) into a scalar tensor; tensors pass through."""
        if isinstance(x, constexpr):
            x = x.value
        if isinstance(x, tensor):
            return x
        if isinstance(x, bool):
            return self.scalar_constant(x, T.int1)
        if isinstance(x, int):
            if INT32_MIN <= x <= INT32_MAX:
                ty = T.int32
            elif INT64_MIN <= x <= INT64_MAX:
                ty = T.int64
            elif 0 <= x <= UINT64_MAX:
                ty = T.uint64
            else:
                raise SemanticError(f"integer {x} does not fit in 64 bits")
            return self.scalar_constant(x, ty)
        if isinstance(x, float):
            return self.scalar_constant(x, T.float32)
        if check_type:
            raise SemanticError(f"cannot convert {x!r} of type {type(x).__name__} to a tensor")
        return x

    # -- promotion ---------------------------------------------------------------
    @staticmethod
    def integer_promote(a: T.dtype, b: T.dtype) -> T.dtype:
        """C's usual arithmetic conversions for two integer types.

        1. the same signedness: the wider type;
        2. the unsigned one is at least as wide: the unsigned type;
        3. otherwise: the signed type, which is wider.
        """
        if a.is_bool() and b.is_bool():
            return T.int1
        wa, wb = a.primitive_bitwidth, b.primitive_bitwidth
        if a.is_int_signed() == b.is_int_signed():
            return a if wa >= wb else b
        unsigned, signed = (a, b) if a.is_int_unsigned() else (b, a)
        if unsigned.primitive_bitwidth >= signed.primitive_bitwidth:
            return unsigned
        return signed

    def computation_type(self, a: T.dtype, a_scalar: bool, b: T.dtype, b_scalar: bool,
                         div_or_mod: bool = False) -> T.dtype:
        """The type both operands of an arithmetic op are converted to.

        A Python scalar is weakly typed: it takes the kind (int or float) of its own
        value and the width of the tensor operand.
        1. fp64 wins, then fp32;
        2. two 16-bit floats of different kinds meet in fp32; a 16-bit float and an
           integer give the float; `/` and `%` on fp16/bf16 compute in fp32;
        3. fp8 operands compute in fp32 (or in the other operand's wider float);
        4. two integers follow `integer_promote`.
        """
        if a_scalar and not b_scalar:
            if a.is_floating() == b.is_floating():
                a = b
        elif b_scalar and not a_scalar:
            if a.is_floating() == b.is_floating():
                b = a
        if a.is_fp64() or b.is_fp64():
            return T.float64
        if a.is_fp32() or b.is_fp32():
            return T.float32
        if a.is_floating() or b.is_floating():
            floats = [t for t in (a, b) if t.is_floating()]
            if any(t.is_fp8() for t in floats):
                wide = [t for t in floats if not t.is_fp8()]
                return wide[0] if wide else T.float32
            if len(floats) == 2 and floats[0] != floats[1]:
                return T.float32
            if div_or_mod:
                return T.float32
            return floats[0]
        if not (a.is_int() and b.is_int()):
            raise SemanticError(f"unexpected operand types {a} and {b}")
        return self.integer_promote(a, b)

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
        return tuple(out)

    def broadcast_to(self, x: tensor, shape: tuple[int, ...]) -> tensor:
        """Splat a scalar, or add leading unit axes and broadcast a tensor, to `shape`."""
        shape = tuple(shape)
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
        shape = list(x.shape)
        if not -len(shape) - 1 <= axis <= len(shape):
            raise SemanticError(f"expand_dims axis {axis} is out of range for shape {shape}")
        axis %= len(shape) + 1
        if not x.type.is_block():
            return self.broadcast_to(x, (1,))
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

    def _natural_dtype(self, x) -> T.dtype:
        """The type a Python scalar would get on its own (see `to_tensor`)."""
        if isinstance(x, bool):
            return T.int1
        if isinstance(x, float):
            return T.float32
        if isinstance(x, int):
            if INT32_MIN <= x <= INT32_MAX:
                return T.int32
            return T.int64 if INT64_MIN <= x <= INT64_MAX else T.uint64
        raise SemanticError(f"cannot use {x!r} of type {type(x).__name__} as an operand")

    def binary_operands(self, lhs, rhs, allow_ptr: bool = False, arithmetic: bool = True,
                        div_or_mod: bool = False) -> tuple[tensor, tensor]:
        """Convert both operands to one type and one shape, checking pointer use.

        A Python scalar operand becomes a constant of the computation type directly.
        """
        lhs, rhs = (x.value if isinstance(x, constexpr) else x for x in (lhs, rhs))
        if not isinstance(lhs, tensor) and not isinstance(rhs, tensor):
            lhs = self.to_tensor(lhs)
        if not isinstance(lhs, tensor) or not isinstance(rhs, tensor):
            tensor_side = lhs if isinstance(lhs, tensor) else rhs
            scalar = rhs if tensor_side is lhs else lhs
            ty = tensor_side.dtype
            if arithmetic and not ty.is_ptr():
                sty = self._natural_dtype(scalar)
                a, b = (ty, sty) if tensor_side is lhs else (sty, ty)
                ty = self.computation_type(a, tensor_side is not lhs, b, tensor_side is lhs,
                                           div_or_mod)
            elif ty.is_ptr():
                ty = self._natural_dtype(scalar)
                if ty.is_floating():
                    raise SemanticError(f"cannot use a floating-point offset with a pointer "
                                        f"({tensor_side.dtype})")
            const = self.full(tensor_side.shape, scalar, ty) if tensor_side.shape else \
                self.scalar_constant(scalar, ty)
            lhs, rhs = (tensor_side, const) if tensor_side is lhs else (const, tensor_side)
        lhs, rhs = self.broadcast_pair(lhs, rhs)
        a, b = lhs.dtype, rhs.dtype
        if a.is_ptr() or b.is_ptr():
            if not allow_ptr:
                raise SemanticError(f"invalid operands of type {lhs.type} and {rhs.type}")
            if a.is_ptr() and b.is_ptr():
                raise SemanticError(f"cannot add pointers together ({a} and {b})")
            if (a.is_ptr() and b.is_floating()) or (b.is_ptr() and a.is_floating()):
                raise SemanticError(f"cannot use a floating-point offset with a pointer ({a}, {b})")
            return lhs, rhs
        if arithmetic:
            ty = self.computation_type(a, False, b, False, div_or_mod)
            lhs, rhs = self.cast(lhs, ty), self.cast(rhs, ty)
        return lhs, rhs

    # -- arithmetic --------------------------------------------------------------
    def add(self, lhs, rhs) -> tensor:
        lhs, rhs = self.binary_operands(lhs, rhs, allow_ptr=True)
        if rhs.dtype.is_ptr():
            lhs, rhs = rhs, lhs
        if lhs.dtype.is_ptr():
            return self.binary("tt.addptr", lhs, rhs)
        return self.binary("arith.addf" if lhs.dtype.is_floating() else "arith.addi", lhs, rhs)

    def sub(self, lhs, rhs) -> tensor:
        lhs, rhs = self.binary_operands(lhs, rhs, allow_ptr=True)
        if rhs.dtype.is_ptr():
            raise SemanticError("cannot subtract a pointer")
        if lhs.dtype.is_ptr():
            return self.binary("tt.addptr", lhs, self.minus(rhs))
        return self.binary("arith.subf" if lhs.dtype.is_floating() else "arith.subi", lhs, rhs)

    def mul(self, lhs, rhs) -> tensor:
        lhs, rhs = self.binary_operands(lhs, rhs)
        return self.binary("arith.mulf" if lhs.dtype.is_floating() else "arith.muli", lhs, rhs)

    def truediv(self, lhs, rhs) -> tensor:
        """`/`: true division; two integers are divided in fp32."""
        lhs, rhs = self.to_tensor(lhs), self.to_tensor(rhs)
        if lhs.dtype.is_int() and rhs.dtype.is_int():
            lhs, rhs = self.cast(lhs, T.float32), self.cast(rhs, T.float32)
        lhs, rhs = self.binary_operands(lhs, rhs, div_or_mod=True)
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
        lhs, rhs = self.binary_operands(lhs, rhs)
        if not lhs.dtype.is_int():
            raise SemanticError(f"bitwise operators need integer operands, not {lhs.dtype}")
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
        lhs, rhs = self._bitwise_operands(lhs, rhs)
        return self.binary("arith.shrsi" if lhs.dtype.is_int_signed() else "arith.shrui", lhs, rhs)

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
        cond = self.cast(self.to_tensor(cond), T.int1)
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
            if dst.is_fp8() or dst.is_bf16():
                return self.cast(self.cast(x, T.float32), dst)
            signed = src.is_int_signed() and not src.is_bool()
            return self.unary("arith.sitofp" if signed else "arith.uitofp", x, out)
        raise SemanticError(f"cannot cast {src} to {dst}")
