"""The types of the Triton language: scalars, pointers, blocks (tensors), descriptors, tuples
and the type of a constexpr.

A `dtype` is a scalar type named as Triton names it (`fp32`, `int8`, `uint64`,
`fp8e4nv`, ...). `pointer_type(dtype)` is a pointer to it, `block_type(dtype, shape)`
a tensor of it. Types are plain values: builders translate them (to MLIR types, to
numpy dtypes); the semantic layer reasons about them.
"""

from __future__ import annotations

from dataclasses import dataclass

SINT_NAMES = ("int1", "int8", "int16", "int32", "int64")
UINT_NAMES = ("uint8", "uint16", "uint32", "uint64")
FP_NAMES = ("fp8e4b15", "fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64")
# AMD's fp8 formats: named (and promoted) like the others, but no backend computes on them
FP_NAMES_AMD = ("fp8e4b8", "fp8e5b16")

# (exponent bits, mantissa bits, exponent bias) of each float type
FP_FORMATS = {
    "fp8e4b15": (4, 3, 15),
    "fp8e4nv": (4, 3, 7),
    "fp8e5": (5, 2, 15),
    "fp8e4b8": (4, 3, 8),
    "fp8e5b16": (5, 2, 16),
    "fp16": (5, 10, 15),
    "bf16": (8, 7, 127),
    "fp32": (8, 23, 127),
    "fp64": (11, 52, 1023),
}


class base_type:
    """Common queries every language type answers (all False unless overridden)."""

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_bool(self) -> bool:
        return False

    def is_void(self) -> bool:
        return False

    def is_block_ptr(self) -> bool:
        return False

    def is_tensor_descriptor(self) -> bool:
        return False

    def is_const(self) -> bool:
        return False

    @property
    def scalar(self) -> base_type:
        return self


class dtype(base_type):
    """A scalar type, compared by name. There is one object per name (`x.dtype is
    tl.float32` holds, as Inductor's generated kernels test it)."""

    _interned: dict[str, dtype] = {}

    def __new__(cls, *args, **kwargs):
        name = args[0] if args else kwargs.get("name")
        if cls is not dtype or name is None:
            return super().__new__(cls)
        found = dtype._interned.get(name)
        if found is None:
            found = dtype._interned[name] = super().__new__(cls)
        return found

    def __reduce__(self):
        if type(self) is dtype:  # unpickled and copied as the one object of its name
            return (dtype, (self.name,))
        return super().__reduce__()

    # the type names by kind, as Triton lists them (int1 counts as unsigned)
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = list(FP_NAMES)
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    def __init__(self, name: str) -> None:
        if name not in SINT_NAMES + UINT_NAMES + FP_NAMES + FP_NAMES_AMD + ("void",):
            raise ValueError(f"unknown dtype {name!r}")
        self.name = name

    # -- classification --------------------------------------------------------
    def is_floating(self) -> bool:
        return self.name in FP_NAMES + FP_NAMES_AMD

    def is_fp8(self) -> bool:
        return self.name.startswith("fp8")

    def is_fp16(self) -> bool:
        return self.name == "fp16"

    def is_bf16(self) -> bool:
        return self.name == "bf16"

    def is_fp32(self) -> bool:
        return self.name == "fp32"

    def is_fp64(self) -> bool:
        return self.name == "fp64"

    def is_int(self) -> bool:
        return self.name in SINT_NAMES + UINT_NAMES

    def is_int_signed(self) -> bool:
        return self.name in SINT_NAMES

    def is_int_unsigned(self) -> bool:
        return self.name in UINT_NAMES

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_void(self) -> bool:
        return self.name == "void"

    def is_standard_floating(self) -> bool:
        return self.name in ("fp16", "bf16", "fp32", "fp64")

    def is_fp8e4nv(self) -> bool:
        return self.name == "fp8e4nv"

    def is_fp8e5(self) -> bool:
        return self.name == "fp8e5"

    def is_fp8e4b15(self) -> bool:
        return self.name == "fp8e4b15"

    def get_int_max_value(self) -> int:
        bits = self.primitive_bitwidth
        return (1 << (bits - 1)) - 1 if self.is_int_signed() and bits > 1 else (1 << bits) - 1

    def get_int_min_value(self) -> int:
        bits = self.primitive_bitwidth
        return -(1 << (bits - 1)) if self.is_int_signed() and bits > 1 else 0

    # -- sizes -----------------------------------------------------------------
    @property
    def primitive_bitwidth(self) -> int:
        if self.is_bool():
            return 1
        if self.is_int():
            return int(self.name.lstrip("uint"))
        if self.is_fp8():
            return 8
        return {"fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64}[self.name]

    @property
    def int_bitwidth(self) -> int:
        return self.primitive_bitwidth

    @property
    def fp_mantissa_width(self) -> int:
        return FP_FORMATS[self.name][1]

    @property
    def exponent_bias(self) -> int:
        return FP_FORMATS[self.name][2]

    def to_unsigned(self) -> dtype:
        return dtype(f"uint{self.primitive_bitwidth}") if self.is_int_signed() else self

    def to_signed(self) -> dtype:
        return dtype(f"int{self.primitive_bitwidth}") if self.is_int_unsigned() else self

    def with_element_ty(self, element_ty: base_type) -> base_type:
        return element_ty

    def __eq__(self, other: object) -> bool:
        return isinstance(other, dtype) and not isinstance(other, pointer_type) and (
            self.name == other.name
        )

    def __hash__(self) -> int:
        return hash(("dtype", self.name))

    def codegen_name(self) -> str:
        """The name of this type in the language module: `float32` for fp32, `bfloat16`
        for bf16, `float8e4nv` for fp8e4nv; integer and other names as they are."""
        for short, full in (("fp", "float"), ("bf", "bfloat")):
            if self.name.startswith(short):
                return full + self.name[len(short):]
        return self.name

    def __repr__(self) -> str:
        return f"triton.language.{self.codegen_name()}"

    def __str__(self) -> str:
        return self.name

    @property
    def cache_key_part(self) -> str:
        return self.name

    def __call__(self, value):
        """`tl.float32(x)` inside a kernel is a cast; outside it names the type."""
        raise TypeError(f"{self.name} is a type; use x.to(tl.{self.name}) to convert a value")


class pointer_type(dtype):
    """A pointer to `element_ty` in `address_space` (1: global memory). A `const` pointer
    (a kernel parameter annotated `tl.const`) points to data the kernel only reads:
    storing through it is an error, and it is a different type from the plain pointer,
    so values of the two do not mix. Constness exists in the language only; both lower
    to the same `!tt.ptr`."""

    def __init__(self, element_ty: base_type, address_space: int = 1, const: bool = False):
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"{'const_' if const else ''}pointer<{element_ty}>"

    # the name "pointer<...>" is no scalar name: dtype's is_floating, is_int, ... say False
    def is_ptr(self) -> bool:
        return True

    def is_const(self) -> bool:
        return self.const

    def is_block_ptr(self) -> bool:
        return isinstance(self.element_ty, block_type)

    def with_const(self, const: bool) -> pointer_type:
        """This pointer type, to constant data or not."""
        return self if const == self.const else pointer_type(self.element_ty,
                                                             self.address_space, const)

    @property
    def primitive_bitwidth(self) -> int:
        return 64

    def __eq__(self, other: object) -> bool:
        return isinstance(other, pointer_type) and (
            self.element_ty == other.element_ty and self.address_space == other.address_space
            and self.const == other.const
        )

    def __hash__(self) -> int:
        return hash(("ptr", self.element_ty, self.address_space, self.const))

    def __repr__(self) -> str:
        const = ", const=True" if self.const else ""
        return f"pointer_type({self.element_ty!r}{const})"

    def __str__(self) -> str:
        return f"*{'k' if self.const else ''}{self.element_ty}"


class block_type(base_type):
    """A tensor of `element_ty` with a static shape (every dimension a power of two)."""

    def __init__(self, element_ty: dtype, shape: list[int] | tuple[int, ...]):
        self.element_ty = element_ty
        self.shape = tuple(int(s) for s in shape)
        self.numel = 1
        for s in self.shape:
            self.numel *= s

    def is_block(self) -> bool:
        return True

    @property
    def scalar(self) -> dtype:
        return self.element_ty

    def get_block_shapes(self) -> tuple[int, ...]:
        return self.shape

    def with_element_ty(self, element_ty: dtype) -> block_type:
        return block_type(element_ty, self.shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, block_type) and (
            self.element_ty == other.element_ty and self.shape == other.shape
        )

    def __hash__(self) -> int:
        return hash(("block", self.element_ty, self.shape))

    def __repr__(self) -> str:
        return f"<{list(self.shape)}, {self.element_ty}>"

    __str__ = __repr__


class tensor_descriptor_type(base_type):
    """A handle to a global tensor read and written in blocks of `block_type`."""

    def __init__(self, block_ty: block_type):
        self.block_type = block_ty

    def is_tensor_descriptor(self) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, tensor_descriptor_type) and self.block_type == other.block_type

    def __hash__(self) -> int:
        return hash(("desc", self.block_type))

    def __repr__(self) -> str:
        return f"tensor_descriptor<{self.block_type}>"


class constexpr_type(base_type):
    """The type of a constexpr (`x.type` of a `tl.constexpr`), holding its value."""

    def __init__(self, value) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self) -> int:
        return hash(("constexpr", repr(self.value)))

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value!r}]"


@dataclass(frozen=True)
class tuple_type(base_type):
    """The type of a tuple value (a kernel argument or a value built in a kernel)."""

    types: tuple[base_type, ...]

    def __repr__(self) -> str:
        return f"({', '.join(map(str, self.types))})"


def without_const(ty: base_type) -> base_type:
    """`ty` with every pointer in it (a pointer, or the elements of a block of pointers)
    a plain pointer, not one to constant data."""
    if isinstance(ty, pointer_type):
        return ty.with_const(False)
    if isinstance(ty, block_type) and isinstance(ty.element_ty, pointer_type):
        return block_type(ty.element_ty.with_const(False), ty.shape)
    return ty


def differ_in_constness(a: base_type, b: base_type) -> bool:
    """Whether two types differ only in whether their pointers point to constant data."""
    return a != b and without_const(a) == without_const(b)


def _add_name_queries() -> None:
    """`is_int8()`, `is_uint32()`, `is_fp16()`, ...: one query per scalar type name."""
    for name in SINT_NAMES + UINT_NAMES:
        if not hasattr(dtype, f"is_{name}"):
            setattr(dtype, f"is_{name}", lambda self, name=name: self.name == name)


_add_name_queries()


def _queries_run_at_compile_time() -> None:
    """A kernel may call a type's queries (`x.dtype.is_floating()`): they run while the
    kernel is compiled and give constexprs."""
    names = [n for n in dir(dtype) if n.startswith(("is_", "get_int_", "to_"))]
    for cls in (base_type, dtype, pointer_type, block_type):
        for name in names + ["get_block_shapes", "with_element_ty"]:
            method = cls.__dict__.get(name)
            if callable(method) and not isinstance(method, type):
                method.__triton_constexpr_function__ = True


_queries_run_at_compile_time()

void = dtype("void")
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4b15 = dtype("fp8e4b15")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")

ALL_DTYPES = [int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
              float8e4b15, float8e4nv, float8e5, float16, bfloat16, float32, float64]


def from_name(name: str) -> dtype:
    """The dtype for a Triton type name (`fp32`) or its long alias (`float32`)."""
    aliases = {"float16": "fp16", "float32": "fp32", "float64": "fp64", "bfloat16": "bf16",
               "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float8e4b15": "fp8e4b15",
               "i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
               "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "int1"}
    return dtype(aliases.get(name, name))
