"""Linear layouts: maps from hardware indices to tensor coordinates that are linear over GF(2).

A layout names its input dimensions (for a distributed tensor `register`, `lane`, `warp`,
`block`; for shared memory `offset`, `block`) and its output dimensions (`dim0`, `dim1`,
...), every size a power of two. Each input dimension has one *basis* per bit of its
index: the output coordinates that bit alone selects. An input is mapped by XOR-ing the
bases of its set bits:

    L(reg=5, lane=2) = reg_basis[0] ^ reg_basis[2] ^ lane_basis[1]

(XOR coordinate by coordinate). Every layout this compiler uses is of this form: a
blocked layout's register bits step through a thread's chunk and then through repeats of
the CTA tile, its lane and warp bits step by the chunk and by the warp's tile; an mma
fragment's bits step by 1, 2, 4, 8 rows or columns as the PTX fragment tables say; an
XOR swizzle of shared memory is itself linear. A basis of zero is a broadcast bit: both
values of that bit hold the same element.

Because layouts are linear maps, questions about them are linear algebra on bit vectors:

- `compose(inner)` is `self(inner(x))`; `invert()` exists for bijections, and
  `pseudo_invert()` gives, for a surjective layout, one preimage of every coordinate
  (the one using the earliest input bits: registers before lanes before warps).
- `invert_and_compose(other)` answers "where in `other` is the element that `self` puts
  here": the map from `self`'s inputs to `other`'s inputs with
  `other(result(x)) == self(x)`. With `self` the destination of a layout conversion and
  `other` its source, it says which register of which lane of which warp to read.
- `product(other)` places `other` beside `self` (inputs and outputs concatenated, shared
  dimensions multiplied, `other`'s bits above `self`'s).
- `broadcast_bits`, `free_bits` and `num_contiguous` are the queries the lowering asks:
  which input bits hold copies, which add nothing new, and how many consecutive
  registers hold consecutive elements along a dimension (the widest vector access).

Example (a blocked layout of a 16 x 8 tensor, two elements per thread along dim 1):

    >>> ll = LinearLayout({"register": [(0, 1)], "lane": [(0, 2), (0, 4), (1, 0), (2, 0),
    ...                    (4, 0)], "warp": [(8, 0)]}, {"dim0": 16, "dim1": 8})
    >>> ll.apply(1, 5, 1)                 # register 1 of lane 5 in warp 1
    (9, 3)
    >>> ll.num_contiguous("dim1")
    2
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np


def out_dim_names(rank: int) -> tuple[str, ...]:
    """The output dimension names of a rank-`rank` tensor layout: dim0, dim1, ..."""
    return tuple(f"dim{d}" for d in range(rank))


def log2(n: int) -> int:
    """The exponent of a power of two; a clear error for anything else."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


class Echelon:
    """A GF(2) basis of column vectors in echelon form, remembering for each pivot which
    input columns XOR to it, so that `solve` writes a vector in terms of the inputs."""

    def __init__(self, columns: Sequence[int]) -> None:
        self.pivots: dict[int, tuple[int, int]] = {}  # leading bit -> (vector, combination)
        self.free: list[int] = []  # columns that add nothing to the span of earlier ones
        for i, column in enumerate(columns):
            vector, combination = column, 1 << i
            while vector:
                lead = vector.bit_length() - 1
                if lead not in self.pivots:
                    self.pivots[lead] = (vector, combination)
                    break
                pv, pc = self.pivots[lead]
                vector, combination = vector ^ pv, combination ^ pc
            else:
                self.free.append(i)

    @property
    def rank(self) -> int:
        return len(self.pivots)

    def solve(self, vector: int) -> int | None:
        """A combination of input columns (a bit mask) XOR-ing to `vector`, or None."""
        combination = 0
        while vector:
            lead = vector.bit_length() - 1
            if lead not in self.pivots:
                return None
            pv, pc = self.pivots[lead]
            vector, combination = vector ^ pv, combination ^ pc
        return combination


class LinearLayout:
    """A GF(2)-linear map from named input dimensions to named output dimensions.

    `bases` maps each input dimension to its list of bases (one per index bit, lowest
    first), each a tuple with one coordinate per output dimension; `out_dims` gives the
    output dimensions and their sizes, in order."""

    __slots__ = ("_bases", "_out", "_in_offsets", "_out_offsets", "_columns")

    def __init__(self, bases: Mapping[str, Iterable[Sequence[int]]],
                 out_dims: Mapping[str, int] | Sequence[tuple[str, int]]) -> None:
        out = tuple(out_dims.items()) if isinstance(out_dims, Mapping) else tuple(out_dims)
        for _, size in out:
            log2(size)
        normalized = []
        for name, vectors in bases.items():
            checked = []
            for vector in vectors:
                vector = tuple(int(x) for x in vector)
                if len(vector) != len(out):
                    raise ValueError(f"basis {vector} of {name!r} needs {len(out)} coordinates")
                for x, (dim, size) in zip(vector, out):
                    if not 0 <= x < size:
                        raise ValueError(f"basis {vector} of {name!r}: {x} is outside "
                                         f"{dim} of size {size}")
                checked.append(vector)
            normalized.append((name, tuple(checked)))
        self._set(tuple(normalized), out)

    def _set(self, bases: tuple, out: tuple) -> None:
        """Fill the slots from normalized `bases` ((name, (vector, ...)), ...) and `out`."""
        self._bases = bases
        self._out = out
        self._in_offsets = {}
        at = 0
        for name, vectors in self._bases:
            self._in_offsets[name] = at
            at += len(vectors)
        self._out_offsets = {}
        at = 0
        for name, size in out:
            self._out_offsets[name] = at
            at += log2(size)
        self._columns = [self.flatten(v) for _, vectors in self._bases for v in vectors]

    @classmethod
    def _checked(cls, bases: tuple, out: tuple) -> LinearLayout:
        """A layout from normalized `bases` and `out` that an operation on valid layouts
        made (so valid already: no checks)."""
        layout = cls.__new__(cls)
        layout._set(bases, out)
        return layout

    # -- construction ------------------------------------------------------------------
    @staticmethod
    def identity(name: str, size: int, out_name: str | None = None) -> LinearLayout:
        """The identity map of one dimension of `size` (renamed to `out_name`)."""
        return LinearLayout({name: [(1 << k,) for k in range(log2(size))]},
                            {out_name or name: size})

    # -- structure ---------------------------------------------------------------------
    @property
    def in_dims(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self._bases)

    @property
    def out_dims(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self._out)

    def bases(self, in_dim: str) -> tuple[tuple[int, ...], ...]:
        for name, vectors in self._bases:
            if name == in_dim:
                return vectors
        return ()

    def in_size(self, in_dim: str) -> int:
        return 1 << len(self.bases(in_dim))

    def out_size(self, out_dim: str) -> int:
        return dict(self._out).get(out_dim, 1)

    @property
    def out_shape(self) -> tuple[int, ...]:
        return tuple(size for _, size in self._out)

    @property
    def total_in_bits(self) -> int:
        return sum(len(v) for _, v in self._bases)

    @property
    def total_out_bits(self) -> int:
        return sum(log2(s) for _, s in self._out)

    def as_dict(self) -> dict[str, list[tuple[int, ...]]]:
        return {name: list(vectors) for name, vectors in self._bases}

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LinearLayout) and self._out == other._out
                and self._bases == other._bases)

    def __hash__(self) -> int:
        return hash((self._bases, self._out))

    def __repr__(self) -> str:
        ins = ", ".join(f"{n}: {list(v)}" for n, v in self._bases)
        outs = ", ".join(f"{n}={s}" for n, s in self._out)
        return f"LinearLayout({{{ins}}} -> [{outs}])"

    # -- flat bit vectors ----------------------------------------------------------------
    def flatten(self, coords: Sequence[int]) -> int:
        """The output bit vector of `coords` (dimension i in its own run of bits)."""
        flat = 0
        for (name, _), x in zip(self._out, coords):
            flat |= x << self._out_offsets[name]
        return flat

    def unflatten(self, flat: int) -> tuple[int, ...]:
        return tuple((flat >> self._out_offsets[name]) & (size - 1) for name, size in self._out)

    def columns(self) -> list[int]:
        """The flat output vector of every input bit, input dimensions in order."""
        return list(self._columns)

    def flat_input(self, indices: Mapping[str, int]) -> int:
        flat = 0
        for name, index in indices.items():
            if index >> len(self.bases(name)):
                raise ValueError(f"{name} index {index} is outside size {self.in_size(name)}")
            if index:
                flat |= index << self._in_offsets[name]
        return flat

    def split_input(self, flat: int) -> dict[str, int]:
        """A flat input index back into one index per input dimension."""
        return {name: (flat >> self._in_offsets[name]) & ((1 << len(v)) - 1)
                for name, v in self._bases}

    # -- evaluation --------------------------------------------------------------------
    def apply_flat(self, flat_input: int) -> int:
        out = 0
        for column in self._columns:
            if flat_input & 1:
                out ^= column
            flat_input >>= 1
            if not flat_input:
                break
        return out

    def apply(self, *indices: int, **named: int) -> tuple[int, ...]:
        """Output coordinates of the input given by position (input dimensions in order,
        missing ones 0) or by name: `apply(reg, lane, warp, block)`."""
        values = dict(zip(self.in_dims, indices))
        values.update(named)
        return self.unflatten(self.apply_flat(self.flat_input(values)))

    def table(self) -> np.ndarray:
        """Coordinates of every input, shape (inputs..., rank): indexed
        `[block, warp, lane, register]`, the last input dimension first."""
        n = self.total_in_bits
        index = np.arange(1 << n, dtype=np.int64)
        flat = np.zeros(1 << n, dtype=np.int64)
        for bit, column in enumerate(self.columns()):
            flat ^= ((index >> bit) & 1) * column
        coords = np.stack([(flat >> self._out_offsets[name]) & (size - 1)
                           for name, size in self._out], axis=-1)
        sizes = [self.in_size(name) for name in reversed(self.in_dims)]
        return coords.reshape(*sizes, len(self._out))

    # -- algebra -----------------------------------------------------------------------
    def compose(self, inner: LinearLayout) -> LinearLayout:
        """`self ∘ inner`: `inner`'s outputs are `self`'s inputs (matched by name, same sizes)."""
        for name in inner.out_dims:
            if inner.out_size(name) != self.in_size(name):
                raise ValueError(f"cannot compose: {name} has size {inner.out_size(name)} "
                                 f"out of the inner layout, {self.in_size(name)} into the outer")
        if inner._out == tuple((name, 1 << len(v)) for name, v in self._bases):
            # inner's flat outputs are this layout's flat inputs: compose column by column
            columns = iter(inner._columns)
            return LinearLayout._checked(tuple(
                (name, tuple(self.unflatten(self.apply_flat(next(columns))) for _ in vectors))
                for name, vectors in inner._bases), self._out)
        bases = {}
        for name, vectors in inner._bases:
            bases[name] = [self.unflatten(self.apply_flat(self.flat_input(dict(zip(
                inner.out_dims, v))))) for v in vectors]
        return LinearLayout(bases, self._out)

    def is_surjective(self) -> bool:
        return Echelon(self.columns()).rank == self.total_out_bits

    def is_injective(self) -> bool:
        return Echelon(self.columns()).rank == self.total_in_bits

    def _preimages(self) -> list[int]:
        """For each output bit, a flat input that maps onto it alone."""
        echelon = Echelon(self.columns())
        out = []
        for bit in range(self.total_out_bits):
            combination = echelon.solve(1 << bit)
            if combination is None:
                raise ValueError(f"layout is not surjective: nothing maps to output bit {bit}")
            out.append(combination)
        return out

    def _from_flat_outputs(self, flat_inputs: list[int]) -> LinearLayout:
        """The layout from this one's outputs to its inputs whose output bit i maps to
        `flat_inputs[i]`."""
        bases, bit = [], 0
        for name, size in self._out:
            vectors = []
            for _ in range(log2(size)):
                split = self.split_input(flat_inputs[bit])
                vectors.append(tuple(split[d] for d in self.in_dims))
                bit += 1
            bases.append((name, tuple(vectors)))
        return LinearLayout._checked(tuple(bases), tuple((name, self.in_size(name))
                                                         for name in self.in_dims))

    def pseudo_invert(self) -> LinearLayout:
        """A right inverse of a surjective layout: `self.compose(p)` is the identity on the
        outputs. Of the preimages of a coordinate it picks the one made of the earliest
        input bits."""
        return self._from_flat_outputs(self._preimages())

    def invert(self) -> LinearLayout:
        """The inverse of a bijective layout."""
        if not self.is_injective() or not self.is_surjective():
            raise ValueError("layout is not invertible (not a bijection)")
        return self.pseudo_invert()

    def invert_and_compose(self, other: LinearLayout) -> LinearLayout:
        """The map C from `self`'s inputs to `other`'s inputs with `other(C(x)) == self(x)`;
        the outputs of both must agree. Raises when `self` reaches a coordinate `other`
        does not."""
        if self._out != other._out:
            raise ValueError(f"output dimensions differ: {self._out} vs {other._out}")
        echelon = Echelon(other.columns())
        bases = {}
        for name, vectors in self._bases:
            bases[name] = []
            for v in vectors:
                combination = echelon.solve(self.flatten(v))
                if combination is None:
                    raise ValueError(f"{name} basis {v} is not reached by the other layout")
                split = other.split_input(combination)
                bases[name].append(tuple(split[d] for d in other.in_dims))
        return LinearLayout(bases, [(name, other.in_size(name)) for name in other.in_dims])

    def product(self, other: LinearLayout) -> LinearLayout:
        """`self` beside `other`: input dimensions of both (a shared one gets `other`'s bits
        above `self`'s), output dimensions of both (a shared one multiplies, `other`'s
        coordinates scaled by `self`'s size)."""
        out = dict(self._out)
        for name, size in other._out:
            out[name] = out.get(name, 1) * size
        names = list(out)

        def lift(layout: LinearLayout, v: Sequence[int], scaled: bool) -> tuple[int, ...]:
            by_name = dict(zip(layout.out_dims, v))
            return tuple(by_name.get(n, 0) * (self.out_size(n) if scaled else 1) for n in names)

        bases: dict[str, list[tuple[int, ...]]] = {}
        for name, vectors in self._bases:
            bases[name] = [lift(self, v, False) for v in vectors]
        for name, vectors in other._bases:
            bases.setdefault(name, []).extend(lift(other, v, True) for v in vectors)
        return LinearLayout(bases, [(n, out[n]) for n in names])

    # -- reshaping the dimensions ----------------------------------------------------------
    def with_bases(self, in_dim: str, vectors: Iterable[Sequence[int]]) -> LinearLayout:
        """This layout with the bases of `in_dim` replaced (or added last)."""
        bases = self.as_dict()
        bases[in_dim] = [tuple(v) for v in vectors]
        return LinearLayout(bases, self._out)

    def remove_zero_bases(self, in_dim: str) -> LinearLayout:
        """Drop the broadcast bits of `in_dim`: copies of elements held in several registers
        collapse to one."""
        return self.with_bases(in_dim, [v for v in self.bases(in_dim) if any(v)])

    def transpose_outs(self, order: Sequence[int]) -> LinearLayout:
        """Output dimension i of the result is output dimension `order[i]` of this one,
        renamed dim<i> (as `tt.trans` with this order)."""
        bases = {name: [tuple(v[o] for o in order) for v in vectors]
                 for name, vectors in self._bases}
        return LinearLayout(bases, [(f"dim{i}", self._out[o][1]) for i, o in enumerate(order)])

    # -- queries -----------------------------------------------------------------------
    def broadcast_bits(self, in_dim: str) -> int:
        """Bit mask of the bits of `in_dim` whose basis is zero: flipping one leaves the
        element unchanged (several lanes or registers hold copies)."""
        return sum(1 << i for i, v in enumerate(self.bases(in_dim)) if not any(v))

    def free_bits(self, in_dim: str) -> int:
        """Bit mask of the bits of `in_dim` that reach no element the earlier input bits
        (earlier dimensions, lower bits) do not already reach."""
        echelon = Echelon(self.columns())
        start = self._in_offsets.get(in_dim, 0)
        return sum(1 << (i - start) for i in echelon.free
                   if start <= i < start + len(self.bases(in_dim)))

    def num_contiguous(self, out_dim: str, in_dim: str = "register") -> int:
        """How many consecutive values of `in_dim` (from 0) hold consecutive elements along
        `out_dim` and nothing else: the vector width of an access along it."""
        d = self.out_dims.index(out_dim)
        count = 0
        for k, v in enumerate(self.bases(in_dim)):
            if v[d] != 1 << k or any(x for i, x in enumerate(v) if i != d):
                break
            count += 1
        return 1 << count


def wrap_bases(vectors: Iterable[Sequence[int]], shape: Sequence[int]) -> list[tuple[int, ...]]:
    """Bases reduced modulo the tensor's shape: a step that leaves a dimension smaller than
    the layout's tile wraps around to zero, so the bit selects a copy."""
    return [tuple(x % s for x, s in zip(v, shape)) for v in vectors]


def unit(rank: int, d: int, stride: int) -> tuple[int, ...]:
    """The coordinate vector `stride` along dimension `d`."""
    return tuple(stride if i == d else 0 for i in range(rank))


def distributed(shape: Sequence[int], register: Iterable[Sequence[int]],
                lane: Iterable[Sequence[int]], warp: Iterable[Sequence[int]],
                drop_register_copies: bool = False) -> LinearLayout:
    """A register/lane/warp/block layout of a tensor of `shape` from unwrapped bases."""
    regs = wrap_bases(register, shape)
    if drop_register_copies:
        regs = [v for v in regs if any(v)]
    outs = [(name, size) for name, size in zip(out_dim_names(len(shape)), shape)]
    return LinearLayout({"register": regs, "lane": wrap_bases(lane, shape),
                         "warp": wrap_bases(warp, shape), "block": []}, outs)
