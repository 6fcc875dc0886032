"""Blocked layouts: which thread holds which elements of a tensor.

A blocked layout `#ttg.blocked<[spt], [tpw], [wpc], [order]>` tiles a tensor: each
thread holds `size_per_thread[d]` consecutive elements along each dimension, the 32
lanes of a warp are laid out `threads_per_warp[d]` along each dimension, and the warps
`warps_per_cta[d]`. `order` lists the dimensions fastest first. A tensor larger than
one tile repeats it (more registers per thread); a smaller one wraps around, so
several threads hold copies of the same element.

Everything here is exact integer algebra on powers of two. For a thread with lane
`l` and warp `w`, the coordinate of register `r` along dimension `d` is

    coord_d = (base_d(l, w) + offset_d(r)) mod shape_d

where `base_d` is computed at run time once per kernel and `offset_d` is a Python
constant, so per-register indices cost one add.

Every class also gives `to_linear(shape)`: the same placement as a `LinearLayout`
(`linear_layout.py`), register numbering unchanged, which is the form layout
conversions are planned in (`layout_conversion.py`). The shared-memory encodings
(`SwizzledSharedLayout`, `NvmmaSharedLayout`) map an element's offset in shared memory
to its coordinates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from tritonc.passes.ttgir import linear_encodings
from tritonc.passes.ttgir.linear_layout import LinearLayout

WARP_SIZE = 32


def _split(total: int, dims: list[int], capacity: list[int]) -> list[int]:
    """Spread `total` (a power of two) over `dims`, each at most its capacity, leftovers on
    the first dimension."""
    out = [1] * len(capacity)
    left = total
    for d in dims:
        take = min(left, max(1, capacity[d]))
        out[d] = take
        left //= take
    out[dims[0]] *= left
    return out


@dataclass(frozen=True)
class BlockedLayout:
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]

    # -- construction ------------------------------------------------------------------
    @staticmethod
    def default(shape: tuple[int, ...], num_warps: int, max_vector: int = 4,
                order: tuple[int, ...] | None = None, depth: int = 1) -> BlockedLayout:
        """The layout every tensor of `shape` gets: up to `max_vector` contiguous elements
        per thread along the fastest dimension (the last unless `order` says otherwise),
        and up to `depth` along the next one while the tensor holds that many per thread;
        lanes then warps filling the fastest dimensions first."""
        rank = len(shape)
        order = tuple(range(rank - 1, -1, -1)) if order is None else tuple(order)
        threads = WARP_SIZE * num_warps
        numel = 1
        for s in shape:
            numel *= s
        spt = [1] * rank
        spt[order[0]] = max(1, min(max_vector, shape[order[0]], numel // threads))
        if rank > 1:
            spt[order[1]] = max(1, min(depth, shape[order[1]],
                                       numel // (threads * spt[order[0]])))
        room = [shape[d] // spt[d] for d in range(rank)]
        tpw = _split(WARP_SIZE, list(order), room)
        room = [max(1, room[d] // tpw[d]) for d in range(rank)]
        wpc = _split(num_warps, list(order), room)
        return BlockedLayout(tuple(spt), tuple(tpw), tuple(wpc), order)

    @staticmethod
    def parse(text: str) -> BlockedLayout:
        """From the printed attribute `#ttg.blocked<[4], [32], [4], [0]>`."""
        groups = re.findall(r"\[([^\]]*)\]", text)
        if len(groups) != 4:
            raise ValueError(f"not a blocked layout: {text}")
        spt, tpw, wpc, order = (tuple(int(x) for x in g.split(",") if x.strip())
                                for g in groups)
        return BlockedLayout(spt, tpw, wpc, order)

    def attr_text(self) -> str:
        def fmt(v):
            return "[" + ", ".join(map(str, v)) + "]"

        return (f"#ttg.blocked<{fmt(self.size_per_thread)}, {fmt(self.threads_per_warp)}, "
                f"{fmt(self.warps_per_cta)}, {fmt(self.order)}>")

    # -- geometry ---------------------------------------------------------------------
    @property
    def rank(self) -> int:
        return len(self.order)

    def tile(self, d: int) -> int:
        return self.size_per_thread[d] * self.threads_per_warp[d] * self.warps_per_cta[d]

    def repeats(self, shape: tuple[int, ...]) -> list[int]:
        return [max(1, shape[d] // self.tile(d)) for d in range(self.rank)]

    def num_registers(self, shape: tuple[int, ...]) -> int:
        n = 1
        for d, r in enumerate(self.repeats(shape)):
            n *= r * self.size_per_thread[d]
        return n

    def register_offsets(self, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
        """offset_d(r) for every register r: the element within a thread's chunk varies
        fastest (along `order`), then the repetition of the tile."""
        reps = self.repeats(shape)
        per_dim = []
        for d in range(self.rank):
            per_dim.append([rep * self.tile(d) + s for rep in range(reps[d])
                            for s in range(self.size_per_thread[d])])
        offsets = [()]
        # registers enumerate dims slowest-first so that order[0] varies fastest
        for d in reversed(self.order):
            offsets = [o + ((d, v),) for o in offsets for v in per_dim[d]]
        return [tuple(dict(o)[d] for d in range(self.rank)) for o in offsets]

    def lane_strides(self) -> list[tuple[int, int]]:
        """(dimension, element stride) that each lane-id bit moves a thread's base by."""
        return self._bit_strides(self.threads_per_warp, lambda d: self.size_per_thread[d])

    def warp_strides(self, shape: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
        """(dimension, element stride) that each warp-id bit moves a thread's base by."""
        return self._bit_strides(self.warps_per_cta,
                                 lambda d: self.size_per_thread[d] * self.threads_per_warp[d])

    def _bit_strides(self, counts, unit) -> list[tuple[int, int]]:
        out = []
        for d in self.order:
            n = counts[d]
            k = 0
            while (1 << k) < n:
                out.append((d, unit(d) << k))
                k += 1
        return out

    @cached_property
    def vector_width(self) -> int:
        """Consecutive registers that are consecutive elements of the fastest dimension."""
        return self.size_per_thread[self.order[0]]

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        """The same placement as a linear layout (register numbering as here)."""
        return linear_encodings.blocked(shape, self.size_per_thread, self.threads_per_warp,
                                        self.warps_per_cta, self.order)


@dataclass(frozen=True)
class MmaLayout:
    """The accumulator layout of `mma.sync.aligned.m16n8k16` (and m16n8k8/k32).

    A warp owns 16 x 8 tiles: lane = 4 * group + t holds rows `group` and `group + 8`,
    columns `2t` and `2t + 1` (registers c0..c3). `warps_per_cta = [wm, wn]` tiles the
    warps over M then N: along M the warps take consecutive 16-row tiles and repeat every
    16 wm rows (warp i owns tiles i, i + wm, ...: the 64 rows of one wgmma are those of a
    warpgroup's four warps), along N each warp repeats its 8-column tile over its N/wn
    block. At least one tile: warps beyond a smaller shape hold copies (their strides
    reach past it).
    """

    warps_per_cta: tuple[int, int]

    @staticmethod
    def parse(text: str) -> MmaLayout:
        wm, wn = (int(x) for x in re.findall(r"\d+", text))
        return MmaLayout((wm, wn))

    def attr_text(self) -> str:
        return f"#ttg.mma<[{self.warps_per_cta[0]}, {self.warps_per_cta[1]}]>"

    @property
    def rank(self) -> int:
        return 2

    @property
    def vector_width(self) -> int:
        return 2

    def tile(self, d: int) -> int:
        return (16, 8)[d] * self.warps_per_cta[d]

    def warp_block(self, shape: tuple[int, ...]) -> tuple[int, int]:
        """How many rows and columns one warp holds: its share of the shape, at least one
        16 x 8 tile (the warps beyond a smaller shape hold copies)."""
        return max(16, shape[0] // self.warps_per_cta[0]), max(8, shape[1] // self.warps_per_cta[1])

    @property
    def row_step(self) -> int:
        """The rows between a warp's consecutive 16-row tiles."""
        return 16 * self.warps_per_cta[0]

    def num_registers(self, shape: tuple[int, ...]) -> int:
        return len(self.register_offsets(shape))

    def register_offsets(self, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Tile (i, j) of the warp's (rows i `row_step` apart), then c0..c3 within it. A
        dimension smaller than the tile (a 128 x 1 column that broadcasts onto the rows)
        keeps each element once."""
        bm, bn = self.warp_block(shape)
        seen: dict[tuple[int, int], None] = {}
        for i in range(max(1, bm // 16)):
            for j in range(max(1, bn // 8)):
                for row, col in ((0, 0), (0, 1), (8, 0), (8, 1)):
                    seen.setdefault(((i * self.row_step + row) % shape[0],
                                     (j * 8 + col) % shape[1]))
        return list(seen)

    def lane_strides(self) -> list[tuple[int, int]]:
        return [(1, 2), (1, 4), (0, 1), (0, 2), (0, 4)]

    def warp_strides(self, shape: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
        """(dimension, element stride) of each warp-id bit: a 16-row tile along M, a
        warp's block along N."""
        _, bn = self.warp_block(shape)
        out = []
        for d, (count, block) in enumerate(zip(self.warps_per_cta, (16, bn))):
            k = 0
            while (1 << k) < count:
                out.append((d, block << k))
                k += 1
        return out

    @staticmethod
    def for_dot(m: int, n: int, num_warps: int) -> MmaLayout | None:
        """The split of the warps over M and N with the fewest warps computing copies of
        one block (more warps than 16 x 16 blocks), then the fewest fragment registers
        per thread (A: 4 per 16 rows of the warp's block, B: 2 per 8 columns); None when
        the shape is not whole 16 x 16 blocks."""
        best = None
        wm = 1
        while wm <= num_warps:
            wn = num_warps // wm
            bm, bn = MmaLayout((wm, wn)).warp_block((m, n))
            if m % bm == 0 and n % bn == 0 and bn % 16 == 0:  # B fragments load in pairs
                copies = (wm * bm // m) * (wn * bn // n)
                cost = (copies, bm // 16 * 4 + bn // 8 * 2)
                if best is None or cost < best[0]:
                    best = (cost, wm, wn)
            wm *= 2
        return MmaLayout((best[1], best[2])) if best else None

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        """The same placement as a linear layout (each element once per thread)."""
        return linear_encodings.mma_v2(shape, self.warps_per_cta)


@dataclass(frozen=True)
class SliceLayout:
    """`#ttg.slice<dim, parent>`: the layout of a tensor reduced along dimension `dim` of a
    `parent`-layout tensor. A thread holds the elements of its parent registers with `dim`
    dropped (each once); the lane and warp bits that moved along `dim` now select copies
    (stride 0). `tt.expand_dims` along `dim` gives back the parent layout with no data
    moving, so a row statistic broadcasts back onto its rows in registers."""

    dim: int
    parent: BlockedLayout | MmaLayout

    @staticmethod
    def parse(text: str) -> SliceLayout:
        match = re.fullmatch(r"#ttg\.slice<(\d+)(?: : i\d+)?, (.*)>", text)
        if match is None:
            raise ValueError(f"not a slice layout: {text}")
        return SliceLayout(int(match.group(1)), parse_layout(match.group(2)))

    def attr_text(self) -> str:
        return f"#ttg.slice<{self.dim} : i64, {self.parent.attr_text()}>"

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    @property
    def vector_width(self) -> int:
        return 1

    def _parent_dim(self, d: int) -> int:
        return d if d < self.dim else d + 1

    def _parent_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (*shape[:self.dim], self.parent.tile(self.dim), *shape[self.dim:])

    def _drop(self, strides: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(0, 0) if d == self.dim else (d - (d > self.dim), s) for d, s in strides]

    def tile(self, d: int) -> int:
        return self.parent.tile(self._parent_dim(d))

    def register_offsets(self, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
        seen: dict[tuple[int, ...], None] = {}
        for o in self.parent.register_offsets(self._parent_shape(shape)):
            seen.setdefault(tuple(x % s for x, s in zip(o[:self.dim] + o[self.dim + 1:], shape)))
        return list(seen)

    def num_registers(self, shape: tuple[int, ...]) -> int:
        return len(self.register_offsets(shape))

    def lane_strides(self) -> list[tuple[int, int]]:
        return self._drop(self.parent.lane_strides())

    def warp_strides(self, shape: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
        return self._drop(self.parent.warp_strides(self._parent_shape(shape)))

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        """The parent's linear layout on the unsliced shape with dimension `dim` dropped."""
        return linear_encodings.slice_of(self.parent.to_linear(self._parent_shape(shape)),
                                         self.dim)


@dataclass(frozen=True)
class DotOperandLayout:
    """`#ttg.dot_op<idx, parent>`: an operand of a dot whose result has the mma layout
    `parent`, held in registers exactly as `mma.sync.m16n8k16` takes it (lane = 4 group +
    t).

    A (idx 0, M x K; also wgmma's A in registers): for each 16-row tile i of the warp's
    rows and each 16-deep step kk, 8 halves a0..a7: rows group and group + 8, columns 2t,
    2t + 1, 2t + 8, 2t + 9, packed in pairs into the fragment's 4 registers. Warps along N
    of the parent hold copies. An fp16 tensor in the parent layout whose warps split only
    M moves into this layout without leaving its threads.

    B (idx 1, K x N): for each 8-column tile j of the warp's columns and each step kk, 4
    halves b0..b3: column group, rows 2t, 2t + 1, 2t + 8, 2t + 9 (two registers). Warps
    along M of the parent hold copies."""

    op_idx: int
    parent: MmaLayout

    _PAIRS = ((0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9))
    _B_ROWS = (0, 1, 8, 9)

    @staticmethod
    def parse(text: str) -> DotOperandLayout:
        match = re.fullmatch(r"#ttg\.dot_op<(\d+)(?: : i\d+)?, (.*)>", text)
        if match is None:
            raise ValueError(f"not a dot operand layout: {text}")
        return DotOperandLayout(int(match.group(1)), MmaLayout.parse(match.group(2)))

    def attr_text(self) -> str:
        return f"#ttg.dot_op<{self.op_idx} : i64, {self.parent.attr_text()}>"

    @property
    def rank(self) -> int:
        return 2

    @property
    def vector_width(self) -> int:
        return 2

    def tile(self, d: int) -> int:
        if self.op_idx == 1:
            return 16 if d == 0 else 8 * self.parent.warps_per_cta[1]
        return 16 * self.parent.warps_per_cta[0] if d == 0 else 16

    def _columns(self, shape: tuple[int, ...]) -> int:
        """The columns of B one warp holds."""
        return max(8, shape[1] // self.parent.warps_per_cta[1])

    def register_offsets(self, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
        """A: tile i (the parent's `row_step` apart), then step kk, then a0..a7. B: tile j,
        then step kk, then b0..b3. Along a K shorter than one step (a row of scales
        broadcast down K) the step's registers hold copies."""
        if self.op_idx == 1:
            return [(16 * kk + r, 8 * j) for j in range(self._columns(shape) // 8)
                    for kk in range(max(1, shape[0] // 16)) for r in self._B_ROWS]
        rows = self.parent.warp_block(shape)[0]
        step = self.parent.row_step
        return [(step * i + r, 16 * kk + c) for i in range(max(1, rows // 16))
                for kk in range(max(1, shape[1] // 16)) for r, c in self._PAIRS]

    def num_registers(self, shape: tuple[int, ...]) -> int:
        return len(self.register_offsets(shape))

    def lane_strides(self) -> list[tuple[int, int]]:
        if self.op_idx == 1:
            return [(0, 2), (0, 4), (1, 1), (1, 2), (1, 4)]
        return [(1, 2), (1, 4), (0, 1), (0, 2), (0, 4)]

    def warp_strides(self, shape: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
        wm, wn = self.parent.warps_per_cta
        if self.op_idx == 1:
            cols = self._columns(shape)
            return [(1, 0)] * (wm.bit_length() - 1) + \
                [(1, cols << k) for k in range(wn.bit_length() - 1)]
        return [(0, 16 << k) for k in range(wm.bit_length() - 1)] + \
            [(0, 0)] * (wn.bit_length() - 1)

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        """The same placement as a linear layout (16-bit elements, two per register)."""
        return linear_encodings.dot_operand_v2(shape, self.op_idx, self.parent.warps_per_cta)


@dataclass(frozen=True)
class SwizzledSharedLayout:
    """`#ttg.swizzled_shared<vec, per_phase, max_phase, [order]>`: a tensor in shared
    memory with dimension `order[0]` contiguous; the vector index of element (row r,
    column c) is `(c // vec) ^ ((r // per_phase) % max_phase)` (max_phase 1: no swizzle)."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]

    @staticmethod
    def parse(text: str) -> SwizzledSharedLayout:
        match = re.fullmatch(r"#ttg\.swizzled_shared<(\d+)(?: : i\d+)?, (\d+)(?: : i\d+)?, "
                             r"(\d+)(?: : i\d+)?, \[([^\]]*)\]>", text)
        if match is None:
            raise ValueError(f"not a swizzled shared layout: {text}")
        order = tuple(int(x) for x in match.group(4).split(",") if x.strip())
        return SwizzledSharedLayout(int(match.group(1)), int(match.group(2)),
                                    int(match.group(3)), order)

    def attr_text(self) -> str:
        order = ", ".join(map(str, self.order))
        return (f"#ttg.swizzled_shared<{self.vec} : i32, {self.per_phase} : i32, "
                f"{self.max_phase} : i32, [{order}]>")

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        """offset -> coordinates."""
        return linear_encodings.swizzled_shared(shape, self.vec, self.per_phase,
                                                self.max_phase, self.order)


@dataclass(frozen=True)
class NvmmaSharedLayout:
    """`#ttg.nvmma_shared<swizzle_bytes, element_bits, transposed>`: the layout TMA writes
    and wgmma reads (32-, 64- or 128-byte swizzle, 0 for none)."""

    swizzle_bytes: int
    element_bits: int
    transposed: bool = False

    @staticmethod
    def parse(text: str) -> NvmmaSharedLayout:
        match = re.fullmatch(r"#ttg\.nvmma_shared<(\d+)(?: : i\d+)?, (\d+)(?: : i\d+)?, "
                             r"(true|false)>", text)
        if match is None:
            raise ValueError(f"not an NVMMA shared layout: {text}")
        return NvmmaSharedLayout(int(match.group(1)), int(match.group(2)),
                                 match.group(3) == "true")

    def attr_text(self) -> str:
        flag = "true" if self.transposed else "false"
        return f"#ttg.nvmma_shared<{self.swizzle_bytes} : i32, {self.element_bits} : i32, {flag}>"

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        """offset -> coordinates."""
        return linear_encodings.nvmma_shared(shape, self.element_bits, self.swizzle_bytes,
                                             self.transposed)


@dataclass(frozen=True)
class LinearEncoding:
    """`#ttg.linear<[register bases], [lane bases], [warp bases], [block bases]>`: any
    distributed layout, written as its linear-layout bases (one coordinate list per
    input bit), for layouts no parameterised encoding describes: the results of reshape,
    trans, split and join of another layout (`view_layouts.py`).

    The lowering adds a constant offset per register to a base per lane and warp bit,
    each along one dimension, so it takes the layouts (`strided`) whose every basis moves
    by a power of two along at most one dimension, no two by the same bit: there the sum
    is the layout's exclusive or."""

    layout: LinearLayout

    @staticmethod
    def parse(text: str, shape: tuple[int, ...] | None = None) -> LinearEncoding:
        """From the printed attribute; without `shape`, the tensor the bases cover."""
        body = re.fullmatch(r"#ttg\.linear<(.*)>", text)
        if body is None:
            raise ValueError(f"not a linear layout: {text}")
        groups = re.findall(r"\[((?:\[[^\]]*\](?:, )?)*)\]", body.group(1))
        if len(groups) != 4:
            raise ValueError(f"a linear layout needs 4 lists of bases: {text}")
        bases = {}
        for name, group in zip(("register", "lane", "warp", "block"), groups):
            bases[name] = [tuple(int(x) for x in b.split(",") if x.strip())
                           for b in re.findall(r"\[([^\]]*)\]", group)]
        if shape is None:
            vectors = [v for vs in bases.values() for v in vs]
            if not vectors:
                raise ValueError(f"a linear layout without bases: {text}")
            shape = tuple(2 * max(v[d] for v in vectors) or 1 for d in range(len(vectors[0])))
        names = [f"dim{d}" for d in range(len(shape))]
        return LinearEncoding(LinearLayout(bases, list(zip(names, shape))))

    def attr_text(self) -> str:
        def fmt(vectors) -> str:
            return "[" + ", ".join("[" + ", ".join(map(str, v)) + "]" for v in vectors) + "]"

        parts = [fmt(self.layout.bases(d)) for d in ("register", "lane", "warp", "block")]
        return f"#ttg.linear<{', '.join(parts)}>"

    @staticmethod
    def strided(layout: LinearLayout) -> bool:
        """Whether every basis moves by a power of two along at most one dimension and no
        two move by the same bit (bases of zero, copies, aside)."""
        seen = set()
        for name in layout.in_dims:
            for v in layout.bases(name):
                moved = [(d, x) for d, x in enumerate(v) if x]
                if not moved:
                    continue
                if len(moved) > 1 or moved[0][1] & (moved[0][1] - 1) or moved[0] in seen:
                    return False
                seen.add(moved[0])
        return True

    # -- the geometry the lowering reads (see BlockedLayout) ------------------------------
    @property
    def rank(self) -> int:
        return len(self.layout.out_shape)

    def tile(self, d: int) -> int:
        return self.layout.out_shape[d]

    @cached_property
    def vector_width(self) -> int:
        """Consecutive registers that are consecutive elements of the last dimension."""
        return self.layout.num_contiguous(self.layout.out_dims[-1])

    def num_registers(self, shape: tuple[int, ...]) -> int:
        return self.layout.in_size("register")

    def register_offsets(self, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
        return [self.layout.apply(register=r) for r in range(self.layout.in_size("register"))]

    def _strides(self, name: str) -> list[tuple[int, int]]:
        out = []
        for v in self.layout.bases(name):
            moved = [(d, x) for d, x in enumerate(v) if x]
            if len(moved) > 1:
                raise ValueError(f"a {name} basis {v} moves along several dimensions")
            out.append(moved[0] if moved else (0, 0))
        return out

    def lane_strides(self) -> list[tuple[int, int]]:
        return self._strides("lane")

    def warp_strides(self, shape: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
        return self._strides("warp")

    def to_linear(self, shape: tuple[int, ...]) -> LinearLayout:
        if tuple(shape) != self.layout.out_shape:
            raise ValueError(f"linear layout of shape {self.layout.out_shape}, not {shape}")
        return self.layout


Layout = BlockedLayout | MmaLayout | SliceLayout | DotOperandLayout | LinearEncoding
SharedLayout = SwizzledSharedLayout | NvmmaSharedLayout


def parse_layout(text: str) -> Layout:
    """The layout of a printed `#ttg.blocked<...>`, `#ttg.mma<...>`, `#ttg.slice<...>` or
    `#ttg.dot_op<...>` encoding."""
    if text.startswith("#ttg.mma"):
        return MmaLayout.parse(text)
    if text.startswith("#ttg.slice"):
        return SliceLayout.parse(text)
    if text.startswith("#ttg.dot_op"):
        return DotOperandLayout.parse(text)
    if text.startswith("#ttg.linear"):
        return LinearEncoding.parse(text)
    return BlockedLayout.parse(text)


def parse_shared_layout(text: str) -> SharedLayout:
    """The layout of a printed `#ttg.swizzled_shared<...>` or `#ttg.nvmma_shared<...>`."""
    if text.startswith("#ttg.nvmma_shared"):
        return NvmmaSharedLayout.parse(text)
    return SwizzledSharedLayout.parse(text)
