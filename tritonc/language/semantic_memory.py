"""Typing rules for memory: loads, stores, atomics, block pointers and tensor descriptors."""

from __future__ import annotations

from collections.abc import Sequence

from tritonc.language import dtypes as T
from tritonc.language.core import handle_of, tensor
from tritonc.language.semantic_core import SemanticCore, SemanticError

CACHE_MODIFIERS = ("", ".ca", ".cg", ".cv", ".wb", ".cs", ".wt")
EVICTION_POLICIES = ("", "evict_normal", "evict_first", "evict_last")
ATOMIC_SEMANTICS = ("acq_rel", "acquire", "release", "relaxed")
ATOMIC_SCOPES = ("gpu", "cta", "sys")
_WORDS = ("int32", "uint32", "int64", "uint64")
#: the element types each descriptor reduction takes (as Triton on sm_90, whose bulk
#: tensor reductions also take fp16 and bf16 min / max)
DESCRIPTOR_REDUCE_TYPES = {
    "add": ("int32", "uint32", "uint64", "fp16", "bf16", "fp32"),
    "min": (*_WORDS, "fp16", "bf16"), "max": (*_WORDS, "fp16", "bf16"),
    "and": _WORDS, "or": _WORDS, "xor": _WORDS,
}


class MemoryRules(SemanticCore):
    """Loads, stores and atomics through pointer tensors, block pointers and descriptors."""

    def _check_choice(self, what: str, value: str, allowed: Sequence[str]) -> str:
        value = value or ""
        if value not in allowed:
            raise SemanticError(f"unknown {what} {value!r}; expected one of {list(allowed)}")
        return value

    def _pointer_operand(self, ptr, what: str) -> tensor:
        if not isinstance(ptr, tensor) or not ptr.dtype.is_ptr():
            got = ptr.type if isinstance(ptr, tensor) else type(ptr).__name__
            raise SemanticError(f"{what} needs a pointer argument, got {got}")
        return ptr

    def _writable_pointer(self, ptr, what: str) -> tensor:
        """A pointer operand `what` writes through: not one to constant data."""
        ptr = self._pointer_operand(ptr, what)
        if ptr.dtype.is_const():
            raise SemanticError(f"Cannot store to a constant pointer: {what} writes through "
                                f"{ptr.dtype}, which points to constant data (a parameter "
                                "annotated tl.const, or a pointer computed from one)")
        return ptr

    def _mask_operand(self, mask, shape: tuple[int, ...], what: str) -> tensor | None:
        if mask is None:
            return None
        mask = self.to_tensor(mask)
        if not mask.dtype.is_bool():
            raise SemanticError(f"the mask of {what} must be a boolean (int1) tensor, "
                                f"not {mask.dtype}")
        return self.broadcast_to(mask, shape) if shape else mask

    def _pointer_shape(self, ptr: tensor, *others) -> tensor:
        """Broadcast the pointer to the shape it shares with the other operands."""
        shape = ptr.shape
        for o in others:
            if isinstance(o, tensor) and o.type.is_block():
                shape = self.broadcast_shapes(shape, o.shape)
        return self.broadcast_to(ptr, shape) if shape else ptr

    def _check_fits_pointer(self, ptr: tensor, operand, what: str) -> None:
        """A stored value (or mask) broadcasts to the pointer's shape, never widens it."""
        if not isinstance(operand, tensor) or not operand.type.is_block():
            return
        if not ptr.type.is_block() or \
                self.broadcast_shapes(ptr.shape, operand.shape) != tuple(ptr.shape):
            raise SemanticError(f"store: the {what} has shape {list(operand.shape)}, which does "
                                f"not broadcast to the pointer's shape {list(ptr.shape)}")

    # -- load / store ----------------------------------------------------------------
    def load(self, ptr, mask, other, boundary_check, padding_option: str, cache: str, evict: str,
             is_volatile: bool) -> tensor:
        ptr = self._pointer_operand(ptr, "load")
        cache = self._check_choice("cache modifier", cache, CACHE_MODIFIERS)
        evict = self._check_choice("eviction policy", evict, EVICTION_POLICIES)
        attrs = {"cache": cache, "evict": evict, "is_volatile": bool(is_volatile),
                 "boundary_check": [], "padding": ""}
        if ptr.dtype.is_block_ptr():
            if mask is not None or other is not None:
                raise SemanticError("a load through a block pointer takes boundary_check and "
                                    "padding_option, not mask and other")
            block = ptr.dtype.element_ty
            attrs["boundary_check"] = self._boundary_check(boundary_check, block)
            attrs["padding"] = self._check_choice("padding_option", padding_option,
                                                  ("", "zero", "nan"))
            handle = self.builder.create("tt.load", [ptr.handle, None, None], [block], attrs)[0]
            return tensor(handle, block)
        if boundary_check:
            raise SemanticError("boundary_check is only for block pointers; use mask")
        ptr = self._pointer_shape(ptr, mask, other)
        elt = ptr.dtype.element_ty
        shape = ptr.shape
        mask = self._mask_operand(mask, shape, "load")
        if other is not None:
            if mask is None:
                raise SemanticError("load: `other` needs a `mask`")
            if isinstance(other, tensor):
                other = self.cast(other, elt)
                other = self.broadcast_to(other, shape) if shape else other
            else:
                other = self.full(shape, other, T.int8 if elt.is_bool() else elt)
        if elt.is_bool():
            # int1 lives in memory as one byte
            ptr = self.cast(ptr, T.pointer_type(T.int8, ptr.dtype.address_space))
            other = self.cast(other, T.int8) if other is not None and other.dtype.is_bool() \
                else other
            loaded = self._load_plain(ptr, mask, other, attrs)
            return self.cast(loaded, T.int1)
        return self._load_plain(ptr, mask, other, attrs)

    def _load_plain(self, ptr: tensor, mask, other, attrs) -> tensor:
        ty = ptr.type.with_element_ty(ptr.dtype.element_ty)
        handle = self.builder.create(
            "tt.load", [ptr.handle, handle_of(mask), handle_of(other)], [ty], attrs)[0]
        return tensor(handle, ty)

    def store(self, ptr, value, mask, boundary_check, cache: str, evict: str) -> None:
        ptr = self._writable_pointer(ptr, "store")
        cache = self._check_choice("cache modifier", cache, CACHE_MODIFIERS)
        evict = self._check_choice("eviction policy", evict, EVICTION_POLICIES)
        attrs = {"cache": cache, "evict": evict, "boundary_check": []}
        if ptr.dtype.is_block_ptr():
            if mask is not None:
                raise SemanticError("a store through a block pointer takes boundary_check, "
                                    "not mask")
            block = ptr.dtype.element_ty
            value = self.to_tensor(value)
            value = self.broadcast_to(self.cast(value, block.element_ty), block.shape)
            attrs["boundary_check"] = self._boundary_check(boundary_check, block)
            self.builder.create("tt.store", [ptr.handle, value.handle, None], [], attrs)
            return
        value = self.to_tensor(value)
        self._check_fits_pointer(ptr, value, "value")
        self._check_fits_pointer(ptr, mask, "mask")
        ptr = self._pointer_shape(ptr, value, mask)
        elt = ptr.dtype.element_ty
        wide_int = elt.is_int() and elt.primitive_bitwidth == 64  # takes a pointer's address
        if not elt.is_ptr() and value.dtype.is_ptr() and not wide_int:
            raise SemanticError(f"cannot store a pointer ({value.dtype}) through {ptr.dtype}")
        if elt.is_ptr() and not value.dtype.is_ptr():
            raise SemanticError(f"cannot store {value.dtype} through {ptr.dtype}")
        shape = ptr.shape
        value = self.cast(value, elt)
        value = self.broadcast_to(value, shape) if shape else value
        mask = self._mask_operand(mask, shape, "store")
        if elt.is_bool():
            ptr = self.cast(ptr, T.pointer_type(T.int8, ptr.dtype.address_space))
            value = self.cast(value, T.int8)
        self.builder.create("tt.store", [ptr.handle, value.handle, handle_of(mask)], [], attrs)

    def _boundary_check(self, dims, block: T.block_type) -> list[int]:
        dims = [int(d) for d in (dims or ())]
        for d in dims:
            if not 0 <= d < len(block.shape):
                raise SemanticError(f"boundary_check dimension {d} is out of range for a "
                                    f"{len(block.shape)}-D block")
        return sorted(set(dims))

    # -- block pointers and descriptors ---------------------------------------------------
    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order) -> tensor:
        base = self._pointer_operand(base, "make_block_ptr")
        if base.type.is_block() or base.dtype.is_block_ptr():
            raise SemanticError("make_block_ptr's base must be a scalar pointer")
        block_shape = self.check_shape(block_shape)
        n = len(block_shape)
        for name, seq in (("shape", shape), ("strides", strides), ("offsets", offsets),
                          ("order", order)):
            if len(seq) != n:
                raise SemanticError(f"make_block_ptr: {name} has {len(seq)} entries, the block "
                                    f"has {n} dimensions")
        if sorted(order) != list(range(n)):
            raise SemanticError(f"make_block_ptr: order {list(order)} is not a permutation")
        shape = [self.cast(self.to_tensor(s), T.int64) for s in shape]
        strides = [self.cast(self.to_tensor(s), T.int64) for s in strides]
        offsets = [self.cast(self.to_tensor(o), T.int32) for o in offsets]
        ty = T.pointer_type(T.block_type(base.dtype.element_ty, block_shape),
                            base.dtype.address_space, base.dtype.is_const())
        operands = [base.handle] + [x.handle for x in shape + strides + offsets]
        handle = self.builder.create("tt.make_block_ptr", operands, [ty],
                                     {"order": [int(o) for o in order]})[0]
        return tensor(handle, ty)

    def advance(self, ptr, offsets) -> tensor:
        ptr = self._pointer_operand(ptr, "advance")
        if not ptr.dtype.is_block_ptr():
            raise SemanticError("advance needs a block pointer (from make_block_ptr)")
        if len(offsets) != len(ptr.dtype.element_ty.shape):
            raise SemanticError("advance: one offset per block dimension is needed")
        offs = [self.cast(self.to_tensor(o), T.int32).handle for o in offsets]
        return tensor(self.builder.create("tt.advance", [ptr.handle, *offs], [ptr.type])[0],
                      ptr.type)

    def make_tensor_descriptor(self, base, shape, strides, block_shape,
                               padding: str = "zero") -> tensor:
        base = self._pointer_operand(base, "make_tensor_descriptor")
        padding = self._check_choice("padding_option", padding, ("zero", "nan"))
        block_shape = self.check_shape(block_shape)
        if not (len(shape) == len(strides) == len(block_shape)):
            raise SemanticError("make_tensor_descriptor: shape, strides and block_shape must "
                                "have the same length")
        ty = T.tensor_descriptor_type(T.block_type(base.dtype.element_ty, block_shape))
        shape = [self.cast(self.to_tensor(s), T.int32).handle for s in shape]
        strides = [self.cast(self.to_tensor(s), T.int64).handle for s in strides]
        return tensor(self.builder.create("tt.make_tensor_descriptor",
                                          [base.handle, *shape, *strides], [ty],
                                          {"padding": padding})[0], ty)

    def descriptor_load(self, desc: tensor, offsets) -> tensor:
        block = desc.type.block_type
        if len(offsets) != len(block.shape):
            raise SemanticError("descriptor load: one offset per block dimension is needed")
        offs = [self.cast(self.to_tensor(o), T.int32).handle for o in offsets]
        return tensor(self.builder.create("tt.descriptor_load", [desc.handle, *offs], [block])[0],
                      block)

    def descriptor_store(self, desc: tensor, value, offsets) -> None:
        block = desc.type.block_type
        value = self.broadcast_to(self.cast(self.to_tensor(value), block.element_ty), block.shape)
        offs = [self.cast(self.to_tensor(o), T.int32).handle for o in offsets]
        self.builder.create("tt.descriptor_store", [desc.handle, value.handle, *offs], [])

    def descriptor_reduce(self, op: str, desc: tensor, value, offsets) -> None:
        """Combine the block `value` into the descriptor's tensor at `offsets` with the
        atomic `op` (add, min, max, and, or, xor); elements outside the tensor are skipped."""
        block = desc.type.block_type
        elt, what = block.element_ty, f"descriptor atomic_{op}"
        allowed = DESCRIPTOR_REDUCE_TYPES[op]
        if elt.name not in allowed:
            raise SemanticError(f"{what} is not supported on {elt} descriptors; it takes "
                                f"{', '.join(allowed)}")
        if len(offsets) != len(block.shape):
            raise SemanticError(f"{what}: the descriptor's block has {len(block.shape)} "
                                f"dimensions, so it needs {len(block.shape)} offsets, not "
                                f"{len(offsets)}")
        value = self.to_tensor(value)
        if tuple(value.shape) != tuple(block.shape):
            raise SemanticError(f"{what}: the value has shape {list(value.shape)}, the "
                                f"descriptor's block {list(block.shape)}")
        if value.dtype != elt:
            raise SemanticError(f"{what}: the value is {value.dtype}, the descriptor holds "
                                f"{elt} (convert it with .to(desc.dtype))")
        kind = op
        if op == "add" and elt.is_floating():
            kind = "fadd"
        elif op in ("min", "max") and elt.is_int_unsigned():
            kind = "u" + op
        offs = [self.cast(self.to_tensor(o), T.int32).handle for o in offsets]
        self.builder.create("tt.descriptor_reduce", [desc.handle, value.handle, *offs], [],
                            {"kind": kind})

    def _gather_operands(self, desc: tensor, x_offsets, y_offset, what: str):
        block = desc.type.block_type
        if len(block.shape) != 2 or block.shape[0] != 1:
            raise SemanticError(f"descriptor {what} needs a 2-D descriptor whose block has one "
                                f"row, not {list(block.shape)}")
        x = self.to_tensor(x_offsets)
        if len(x.shape) != 1 or not x.dtype.is_int():
            raise SemanticError(f"descriptor {what}: the row offsets must be a 1-D integer tensor")
        x = self.cast(x, T.int32)
        y = self.cast(self.to_tensor(y_offset), T.int32)
        if y.type.is_block():
            raise SemanticError(f"descriptor {what}: the column offset must be a scalar")
        return x, y, T.block_type(block.element_ty, [x.shape[0], block.shape[1]])

    def descriptor_gather(self, desc: tensor, x_offsets, y_offset) -> tensor:
        """Rows `x_offsets` of the descriptor's tensor, columns from `y_offset` on."""
        x, y, ty = self._gather_operands(desc, x_offsets, y_offset, "gather")
        return tensor(self.builder.create("tt.descriptor_gather", [desc.handle, x.handle,
                                                                   y.handle], [ty])[0], ty)

    def descriptor_scatter(self, desc: tensor, value, x_offsets, y_offset) -> None:
        """Write `value`'s rows to rows `x_offsets`, columns from `y_offset` on."""
        x, y, ty = self._gather_operands(desc, x_offsets, y_offset, "scatter")
        value = self.broadcast_to(self.cast(self.to_tensor(value), ty.element_ty), ty.shape)
        self.builder.create("tt.descriptor_scatter", [desc.handle, value.handle, x.handle,
                                                      y.handle], [])

    # -- atomics ---------------------------------------------------------------------------
    def atomic_rmw(self, op: str, ptr, val, mask, sem: str | None, scope: str | None) -> tensor:
        ptr = self._writable_pointer(ptr, f"atomic_{op}")
        sem = self._check_choice("memory semantic", sem or "acq_rel", ATOMIC_SEMANTICS)
        scope = self._check_choice("scope", scope or "gpu", ATOMIC_SCOPES)
        val = self.to_tensor(val)
        ptr = self._pointer_shape(ptr, val, mask)
        elt = ptr.dtype.element_ty
        if elt.is_bool() or elt.is_fp8() or (elt.is_int() and elt.primitive_bitwidth < 32):
            raise SemanticError(f"atomic_{op} is not supported on {elt}")
        shape = ptr.shape
        val = self.cast(val, elt)
        val = self.broadcast_to(val, shape) if shape else val
        mask = self._mask_operand(mask, shape, f"atomic_{op}")
        kind = op
        if op == "add":
            kind = "fadd" if elt.is_floating() else "add"
        elif op in ("max", "min"):
            if elt.is_int_unsigned():
                kind = "u" + op
            elif elt.is_floating() and not (elt.is_fp32() or elt.is_fp64()):
                raise SemanticError(f"atomic_{op} on floats needs fp32 or fp64, not {elt}")
        elif op in ("and", "or", "xor") and not elt.is_int():
            raise SemanticError(f"atomic_{op} needs an integer pointer, not {ptr.dtype}")
        ty = ptr.type.with_element_ty(elt)
        handle = self.builder.create("tt.atomic_rmw", [ptr.handle, val.handle, handle_of(mask)],
                                     [ty], {"kind": kind, "sem": sem, "scope": scope})[0]
        return tensor(handle, ty)

    def atomic_cas(self, ptr, cmp, val, sem: str | None, scope: str | None) -> tensor:
        ptr = self._writable_pointer(ptr, "atomic_cas")
        sem = self._check_choice("memory semantic", sem or "acq_rel", ATOMIC_SEMANTICS)
        scope = self._check_choice("scope", scope or "gpu", ATOMIC_SCOPES)
        elt = ptr.dtype.element_ty
        if elt.primitive_bitwidth not in (16, 32, 64):
            raise SemanticError(f"atomic_cas needs 16, 32 or 64-bit elements, not {elt}")
        cmp, val = self.to_tensor(cmp), self.to_tensor(val)
        ptr = self._pointer_shape(ptr, cmp, val)
        shape = ptr.shape
        cmp, val = (self.cast(x, elt) for x in (cmp, val))
        if shape:
            cmp, val = (self.broadcast_to(x, shape) for x in (cmp, val))
        ty = ptr.type.with_element_ty(elt)
        handle = self.builder.create("tt.atomic_cas", [ptr.handle, cmp.handle, val.handle], [ty],
                                     {"sem": sem, "scope": scope})[0]
        return tensor(handle, ty)
