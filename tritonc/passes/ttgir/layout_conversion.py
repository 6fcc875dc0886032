"""Layout conversions planned from two linear layouts: what `ttg.convert_layout` must do.

`plan_conversion(src, dst, shape, elem_bits)` takes the source and destination encodings
of one tensor (layout classes or `LinearLayout`s) and gives the cheapest of:

- `Identity`: both place every element in the same register of the same thread.
- `RegisterPermutation`: every element a thread needs it already holds;
  `sources_of_registers[r]` is the source register of destination register r.
- `WarpShuffle`: everything comes from the same warp; a list of `ShuffleRound`s, each one
  `shfl.sync.idx`: lane l sends its register `sent_register(l)`, reads lane
  `src_lane(l)` and keeps the value in register `dst_register_of(l)` where `keeps(l)`.
  Register indices vary with the lane only when the conversion transposes registers
  and lanes (round t of a 32 x 32 transpose pairs lane l with lane l ^ t).
- `SharedMemoryExchange`: every thread stores its registers at `store_map(r, lane, warp)`
  (an element offset) in a swizzled buffer, a barrier, then loads `load_map(r, lane, warp)`.
  The buffer is the cheapest of the `#ttg.swizzled_shared` family (`swizzle` gives its
  parameters) and of bank swizzles built from both sides' lane bases (general XOR-linear,
  `swizzle` None, `smem` the layout), priced by the wavefronts of a 32-bank model.
  Each side moves vectors of registers at consecutive offsets (`registers` gives the
  order), or, for 16-bit elements, the rows of 8 x 8 matrices (`side.matrices`): loads
  by `ldmatrix`, and, where the target has it (`matrix_stores`, sm_90), stores by
  `stmatrix`.

All four derive from one linear map: `sources`, from the destination's
(register, lane, warp, block) to the source's, with `src(sources(x)) == dst(x)`, which
keeps the thread (then the warp) whenever the source holds the element there. The
conversion is thread-local when `sources` moves no lane or warp bit, warp-local when it
moves no warp bit.

Cost (one number per thread, lower is better): a shuffle round costs
`SHUFFLE_COST` per 32-bit word; the shared-memory exchange costs its wavefronts (the
bank-conflict-serialised shared-memory cycles of a warp) plus one per instruction plus
`BARRIER_COST`. Register moves are free.

Worked example: a 64 x 64 fp16 tile loaded row-major (4 halves per thread) moves to
the mma accumulator layout of four warps as 2 x 2.

    >>> from tritonc.passes.ttgir.layouts import BlockedLayout, MmaLayout
    >>> src = BlockedLayout((1, 4), (8, 4), (4, 1), (1, 0))
    >>> plan = plan_conversion(src, MmaLayout((2, 2)), (64, 64), 16)
    >>> plan.kind, plan.store.vector, plan.load.vector, plan.load.matrices, plan.buffer_bytes
    ('shared', 4, 8, True, 8192)
    >>> plan.store.conflict_free and plan.load.conflict_free
    True
    >>> plan.store_map.apply(0, 5, 1)     # register 0 of lane 5, warp 1: element offset
    (148, 0)
    >>> read_sources(plan, warp=1, lane=5)[:2]   # (src register, src lane, src warp)
    [(2, 4, 2), (3, 4, 2)]

Its first two mma registers hold what registers 2 and 3 of lane 4 of warp 2 loaded. The
load side is one `ldmatrix.x4` per eight registers: each lane receives 32-bit words of
two elements that sit together in the buffer, the rows of its four 8 x 8 matrices 16
bytes each (`_matrix_side`), where plain loads would move two elements at a time.
Stores mirror it on sm_90: an mma accumulator of halves goes out by one `stmatrix.x4`
per eight registers where plain stores would move a 32-bit word at a time (a store
layout whose rows span fewer than 128 columns).

The lowering asks `plan.kind` and then: for "permutation", `plan.sources_of_registers`;
for "shuffle", each round's constants and per-lane-bit XOR masks (`src_register` /
`src_register_bases`, `src_lane_offset` / `src_lane_bases`, `dst_register` /
`dst_register_bases`, `select_bases` / `select_value`), so the lane index and the
register choice are a few XORs of the lane id; for "shared", `plan.store_map` /
`plan.load_map` (an offset is the XOR of one constant per set bit of register, lane and
warp), `plan.store.vector` / `plan.load.vector` and `plan.buffer_bytes`.
`read_sources` answers the per-thread question for any plan.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

from tritonc.passes.ttgir import linear_encodings
from tritonc.passes.ttgir.linear_layout import Echelon, LinearLayout, log2

SHUFFLE_COST = 2
BARRIER_COST = 16
BANKS = 32
BANK_BYTES = 4
DIMS = ("register", "lane", "warp", "block")


def to_linear(layout, shape: tuple[int, ...]) -> LinearLayout:
    """A layout class (anything with `to_linear`) or a LinearLayout, as a LinearLayout."""
    return layout if isinstance(layout, LinearLayout) else layout.to_linear(tuple(shape))


def conversion_map(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """The linear map C from `dst`'s (register, lane, warp, block) to `src`'s with
    `src(C(x)) == dst(x)`, choosing for every element the copy held by the same thread
    when there is one, else by the same warp."""
    if src.out_dims != dst.out_dims or src.out_shape != dst.out_shape:
        raise ValueError(f"layouts of different tensors: {src.out_shape} vs {dst.out_shape}")
    for d in DIMS[1:]:
        if src.in_size(d) != dst.in_size(d):
            raise ValueError(f"{d} counts differ: {src.in_size(d)} vs {dst.in_size(d)}")
    echelon = Echelon(src.columns())
    bases: dict[str, list[tuple[int, ...]]] = {}
    for name in DIMS:
        bases[name] = []
        own = src.bases(name) if name != "register" else ()
        for k, target in enumerate(dst.bases(name)):
            wanted = dst.flatten(target)
            if own:  # the same lane / warp of the source already contributes its basis
                wanted ^= src.flatten(own[k])
            combination = echelon.solve(wanted)
            if combination is None:
                raise ValueError(f"the source layout holds no copy of {name} basis {target}")
            split = src.split_input(combination)
            if own:
                split[name] ^= 1 << k
            bases[name].append(tuple(split.get(d, 0) for d in DIMS))
    return LinearLayout(bases, [(d, src.in_size(d)) for d in DIMS])


def _moves_only(c: LinearLayout, kept: tuple[str, ...]) -> bool:
    """Whether C maps each bit of every dimension in `kept` onto itself and nothing
    else, and no other bit onto those dimensions."""
    index = {d: i for i, d in enumerate(DIMS)}
    for name in DIMS:
        for k, v in enumerate(c.bases(name)):
            for d in kept:
                want = 1 << k if d == name else 0
                if v[index[d]] != want:
                    return False
            if name in kept and any(x for i, x in enumerate(v) if DIMS[i] != name):
                return False
    return True


# -- plans ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Identity:
    sources: LinearLayout
    kind: str = "identity"
    cost: int = 0


@dataclass(frozen=True)
class RegisterPermutation:
    sources: LinearLayout
    sources_of_registers: tuple[int, ...]  # [dst register] -> src register
    kind: str = "permutation"
    cost: int = 0


@dataclass(frozen=True)
class ShuffleRound:
    """One `shfl.sync.idx` (or, with `shuffle` false, a register move within each lane).

    Lane l sends its register `sent_register(l)`, reads lane `src_lane(l)` and keeps the
    value in its register `dst_register_of(l)` when `keeps(l)`. Each is affine in the
    bits of the lane id: a constant XOR-ed with the `..._bases` entry of every set bit
    (register indices depend on the lane only in transposing rounds)."""

    dst_register: int
    dst_register_bases: tuple[int, ...]
    src_register: int
    src_register_bases: tuple[int, ...]
    src_lane_offset: int
    src_lane_bases: tuple[int, ...]
    select_bases: tuple[int, ...]
    select_value: int
    shuffle: bool

    @staticmethod
    def _xor(bases: tuple[int, ...], lane: int) -> int:
        out = 0
        for k, b in enumerate(bases):
            if lane >> k & 1:
                out ^= b
        return out

    def src_lane(self, lane: int) -> int:
        return self.src_lane_offset ^ self._xor(self.src_lane_bases, lane)

    def sent_register(self, lane: int) -> int:
        return self.src_register ^ self._xor(self.src_register_bases, lane)

    def dst_register_of(self, lane: int) -> int:
        return self.dst_register ^ self._xor(self.dst_register_bases, lane)

    def keeps(self, lane: int) -> bool:
        return self._xor(self.select_bases, lane) == self.select_value

    @property
    def lane_dependent(self) -> bool:
        return any(self.dst_register_bases) or any(self.src_register_bases)


@dataclass(frozen=True)
class WarpShuffle:
    sources: LinearLayout
    rounds: tuple[ShuffleRound, ...]
    cost: int
    kind: str = "shuffle"

    @property
    def num_shuffles(self) -> int:
        return sum(r.shuffle for r in self.rounds)


@dataclass(frozen=True)
class SharedAccess:
    """One side of a shared-memory exchange, per thread and per warp instruction."""

    vector: int  # elements per access
    instructions: int  # accesses per thread
    wavefronts: int  # shared-memory cycles one warp instruction takes (bank conflicts)
    ideal_wavefronts: int  # the fewest it could take for the bytes it moves
    registers: tuple[int, ...] = ()  # register bits in access order, the vector's first
    matrices: bool = False  # 8 x 8 matrices of 16-bit elements (`ldmatrix` loads,
    # `stmatrix` stores), see `_matrix_side`

    @property
    def conflict_free(self) -> bool:
        return self.wavefronts == self.ideal_wavefronts


@dataclass(frozen=True)
class SharedMemoryExchange:
    sources: LinearLayout
    smem: LinearLayout  # offset -> coordinates
    swizzle: tuple[int, int, int, tuple[int, ...]] | None  # vec, per_phase, max_phase, order
    # (None: a bank swizzle, general XOR-linear, given only by `smem`)
    store_map: LinearLayout  # src (register, lane, warp, block) -> offset
    load_map: LinearLayout  # dst (register, lane, warp, block) -> offset
    store: SharedAccess
    load: SharedAccess
    buffer_bytes: int
    cost: int
    kind: str = "shared"


Plan = Identity | RegisterPermutation | WarpShuffle | SharedMemoryExchange


# -- shuffles ----------------------------------------------------------------------------
def _xor_cols(cols: list[int], x: int) -> int:
    out = 0
    for k, c in enumerate(cols):
        if x >> k & 1:
            out ^= c
    return out


def _invert_cols(cols: list[int]) -> list[int] | None:
    """The inverse of a square GF(2) matrix given by columns, or None if singular."""
    echelon = Echelon(cols)
    if echelon.rank != len(cols):
        return None
    return [echelon.solve(1 << k) for k in range(len(cols))]


def _transposing_rounds(c: LinearLayout, dst: LinearLayout) -> list[ShuffleRound] | None:
    """Rounds t = 0 .. R-1 in which lane l fills register t ^ M l and every sender's
    register is a linear function of its own lane. With the source of (r, l) being
    register A r ^ B l of lane D r ^ E l, lane l reads lane D t ^ G l (G = D M ^ E,
    invertible) and sender s sends register A t ^ N D t ^ N s, N = (A M ^ B) G^-1.
    M = 0 (lane-independent destination registers) is tried first."""
    reg_cols, lane_cols = c.bases("register"), c.bases("lane")
    a, d = [v[0] for v in reg_cols], [v[1] for v in reg_cols]
    b, e = [v[0] for v in lane_cols], [v[1] for v in lane_cols]
    lanes = len(lane_cols)
    choices = [[0] * lanes]
    reach = Echelon(d)
    wanted = [reach.solve(e[k] ^ (1 << k)) for k in range(lanes)]
    if all(m is not None for m in wanted):
        choices.append(wanted)
    for m in choices:
        g = [_xor_cols(d, m[k]) ^ e[k] for k in range(lanes)]
        g_inv = _invert_cols(g)
        if g_inv is None:
            continue
        h = [_xor_cols(a, m[k]) ^ b[k] for k in range(lanes)]
        n = [_xor_cols(h, g_inv[k]) for k in range(lanes)]
        identity = all(g[k] == 1 << k for k in range(lanes))
        rounds = []
        for t in range(dst.in_size("register")):
            offset = _xor_cols(d, t)
            src_reg = _xor_cols(a, t) ^ _xor_cols(n, offset)
            rounds.append(ShuffleRound(t, tuple(m), src_reg, tuple(n), offset, tuple(g),
                                       (0,) * lanes, 0, not (identity and offset == 0)))
        return rounds
    return None


def _split_rounds(c: LinearLayout, dst: LinearLayout) -> list[ShuffleRound]:
    """One round per destination register and per value its source register takes over
    the lanes; each lane keeps the round that sends the register it needs."""
    lane_cols = c.bases("lane")
    reg_of_lane = tuple(v[0] for v in lane_cols)
    lane_of_lane = tuple(v[1] for v in lane_cols)
    lanes = len(lane_cols)
    span = {0}
    for b in reg_of_lane:
        span |= {x ^ b for x in span}
    own = all(lane_of_lane[k] == 1 << k for k in range(lanes))
    rounds = []
    for r in range(dst.in_size("register")):
        r0, l0, _, _ = c.apply(register=r)
        for v in sorted(span):
            rounds.append(ShuffleRound(r, (0,) * lanes, r0 ^ v, (0,) * lanes, l0, lane_of_lane,
                                       reg_of_lane, v, not (own and l0 == 0)))
    return rounds


def _shuffle_plan(c: LinearLayout, dst: LinearLayout, elem_bits: int) -> WarpShuffle:
    rounds = _transposing_rounds(c, dst) or _split_rounds(c, dst)
    words = max(1, -(-elem_bits // 32))
    shuffles = sum(x.shuffle for x in rounds)
    extra = sum(x.lane_dependent or any(x.select_bases) for x in rounds)
    return WarpShuffle(c, tuple(rounds), SHUFFLE_COST * shuffles * words + extra)


# -- shared memory -------------------------------------------------------------------------
def access_wavefronts(byte_addresses: list[int], access_bytes: int) -> int:
    """Shared-memory cycles of one warp access: lanes go in phases of 128 bytes (32 lanes
    for accesses up to 4 bytes, 16 for 8, 8 for 16); in a phase each of the 32 four-byte
    banks serves one distinct word per cycle (lanes on the same word share it)."""
    per_phase = BANKS if access_bytes <= BANK_BYTES else BANKS * BANK_BYTES // access_bytes
    words_per_access = max(1, access_bytes // BANK_BYTES)
    total = 0
    for start in range(0, len(byte_addresses), per_phase):
        words = {a // BANK_BYTES + i for a in byte_addresses[start:start + per_phase]
                 for i in range(words_per_access)}
        per_bank: dict[int, int] = {}
        for w in words:
            per_bank[w % BANKS] = per_bank.get(w % BANKS, 0) + 1
        total += max(per_bank.values())
    return total


def _vector_bases(access: LinearLayout, cap: int) -> list[int]:
    """The register bits, in order, that offset bits 0.. follow: the widest aligned vector
    (at most `cap` elements) a thread can move in one access, its registers in any order."""
    cols = access.columns()
    regs = len(access.bases("register"))
    chosen: list[int] = []
    while (2 << len(chosen)) <= cap:
        bit = next((i for i in range(regs) if cols[i] == 1 << len(chosen)), None)
        if bit is None:
            break
        chosen.append(bit)
    while chosen and any(col & ((1 << len(chosen)) - 1)
                         for i, col in enumerate(cols) if i not in chosen):
        chosen.pop()
    return chosen


def _lane_offsets(access: LinearLayout) -> list[int]:
    """The offset each lane of a warp accesses with register 0 (lane l at index l)."""
    offsets = [0]
    for basis in access.bases("lane"):
        column = access.flatten(basis)
        offsets += [x ^ column for x in offsets]
    return offsets


def _register_order(first: list[int], regs: int) -> tuple[int, ...]:
    return (*first, *(i for i in range(regs) if i not in first))


def _side(access: LinearLayout, elem_bytes: int) -> SharedAccess:
    chosen = _vector_bases(access, max(1, 16 // elem_bytes))
    vec = 1 << len(chosen)
    lanes = [offset * elem_bytes for offset in _lane_offsets(access)]
    access_bytes = vec * elem_bytes
    wavefronts = access_wavefronts(lanes, access_bytes)
    distinct = len({a for a in lanes})
    ideal = max(1, -(-distinct * max(access_bytes, 1) // (BANKS * BANK_BYTES)))
    regs = len(access.bases("register"))
    return SharedAccess(vec, access.in_size("register") // vec, wavefronts, ideal,
                        _register_order(chosen, regs))


def matrix_address_columns(access: LinearLayout, side: SharedAccess) -> list[int]:
    """The offset columns of lane bits 0-4 in the row addresses an `ldmatrix` or
    `stmatrix` of `side` takes: lane 8 m + r gives row r of matrix m, rows from the
    access's lane bits 2-4, matrices from its register bits after the first."""
    cols = access.columns()
    lane_cols = cols[len(access.bases("register")):][:5]
    matrices = [cols[b] for b in side.registers[1:side.vector.bit_length() - 1]]
    return [*lane_cols[2:5], *matrices, 0, 0][:5]


def _matrix_side(access: LinearLayout, elem_bytes: int) -> SharedAccess | None:
    """A side by `ldmatrix.x1/x2/x4` (loads) or `stmatrix` (stores) of 16-bit elements,
    when the access allows it: lane l of a warp moves, of each 8 x 8 matrix, the 32-bit
    word l % 4 of row l // 4 (a row is 16 bytes anywhere in the buffer). So one register
    bit must take offset bit 0 (the word's two halves), lane bits 0 and 1 offset bits 1
    and 2, and every other bit must keep rows 16-byte aligned; up to two more register
    bits pick the matrices."""
    regs = len(access.bases("register"))
    if elem_bytes != 2 or len(access.bases("lane")) != 5:
        return None
    cols = access.columns()
    if cols[regs:regs + 2] != [2, 4]:
        return None
    half = next((i for i in range(regs) if cols[i] == 1), None)
    if half is None or any(c & 7 for i, c in enumerate(cols) if i not in (half, regs, regs + 1)):
        return None
    matrices = [i for i in range(regs) if i != half][:2]
    count = 1 << len(matrices)
    side = SharedAccess(2 * count, access.in_size("register") // (2 * count), 0, count,
                        _register_order([half, *matrices], regs), matrices=True)
    address = matrix_address_columns(access, side)
    rows = [_xor_cols(address, lane) * elem_bytes for lane in range(8 * count)]
    return replace(side, wavefronts=access_wavefronts(rows, 16))


def _swizzles(shape: tuple[int, ...], elem_bytes: int):
    """Candidate (vec, per_phase, max_phase, order) of a swizzled buffer for `shape`."""
    rank = len(shape)
    for order in itertools.permutations(range(rank)):
        if rank == 1:
            yield 1, 1, 1, order
            continue
        cols, rows = shape[order[0]], shape[order[1]]
        vec = 1
        while vec <= min(cols, max(1, 16 // elem_bytes)):
            yield vec, 1, 1, order
            max_phase = 2
            while vec * max_phase <= cols:
                per_phase = 1
                while per_phase * max_phase <= max(rows, 2) and per_phase <= 16:
                    yield vec, per_phase, max_phase, order
                    per_phase *= 2
                max_phase *= 2
            vec *= 2


def _phase_lanes(layout: LinearLayout, vector: list[int], elem_bytes: int) -> list[int]:
    """The lane bases (flat) that one shared-memory cycle serves together when `layout`
    accesses its leading registers that match `vector` as one vector."""
    regs = [layout.flatten(v) for v in layout.bases("register")]
    j = 0
    while j < len(vector) and j < len(regs) and regs[j] == vector[j]:
        j += 1
    access = (1 << j) * elem_bytes
    per_phase = BANKS if access <= BANK_BYTES else BANKS * BANK_BYTES // access
    lanes = [layout.flatten(v) for v in layout.bases("lane")][:log2(per_phase)]
    return [x for x in lanes if x]


def bank_swizzle(first: LinearLayout, second: LinearLayout, vector: list[int],
                 elem_bytes: int) -> LinearLayout:
    """A shared-memory layout (offset -> coordinates) built for two accessing layouts:
    the coordinates `vector` (flat bases) take offset bits 0.., so those registers move
    as one vector; the lanes one cycle serves of `first`, then of `second`, take the
    bank-selecting offset bits (a lane of `second` that finds them taken reuses a bank
    bit no earlier lane of `second` uses, plus a bit above the banks); the rest of the
    tensor fills the remaining bits. Each side's lanes then land in distinct banks
    whenever they fit in the bank bits."""
    total = first.total_out_bits
    bank_top = min(total, log2(BANKS * BANK_BYTES // elem_bytes))
    free_banks = list(range(len(vector), bank_top))
    free_rows = list(range(bank_top, total))
    basis: list[int] = []  # coordinates (flat)
    images: list[int] = []  # their offsets

    def independent(x: int) -> bool:
        return Echelon([*basis, x]).rank == len(basis) + 1

    def take(pool_first: list[int], pool_second: list[int]) -> int:
        pool = pool_first or pool_second
        return 1 << pool.pop(0)

    for i, v in enumerate(vector):
        basis.append(v)
        images.append(1 << i)
    for a in _phase_lanes(first, vector, elem_bytes):
        if independent(a):
            basis.append(a)
            images.append(take(free_banks, free_rows))
    bank_mask = sum(1 << b for b in range(len(vector), bank_top))
    for b in _phase_lanes(second, vector, elem_bytes):
        if not independent(b):
            continue
        basis.append(b)
        if free_banks or not free_rows:
            images.append(take(free_banks, free_rows))
            continue
        seen = Echelon([_image(basis[:-1], images, x) & bank_mask
                        for x in _phase_lanes(second, vector, elem_bytes)
                        if x != b and Echelon(basis[:-1]).solve(x) is not None])
        reuse = next((1 << u for u in range(len(vector), bank_top)
                      if seen.solve(1 << u) is None), 0)
        images.append(reuse | take(free_rows, free_banks))
    for bit in range(total):
        if independent(1 << bit):
            basis.append(1 << bit)
            images.append(take(free_banks, free_rows))
    solver = Echelon(images)
    offsets = []
    for bit in range(total):
        combination = solver.solve(1 << bit)
        offsets.append(first.unflatten(_xor_cols(basis, combination)))
    outs = list(zip(first.out_dims, first.out_shape))
    return LinearLayout({"offset": offsets, "block": []}, outs)


def _image(basis: list[int], images: list[int], x: int) -> int:
    """The offset of coordinate `x` under the partial map basis -> images."""
    return _xor_cols(images, Echelon(basis).solve(x))


def _buffer_candidates(src: LinearLayout, dst: LinearLayout, shape: tuple[int, ...],
                       elem_bytes: int, matrix_stores: bool):
    """(shared layout, swizzle parameters or None) pairs to price: the parameterised
    swizzles, bank swizzles vectorised along either side's leading registers, and for
    16-bit elements buffers whose 16-byte rows are those of the loads' `ldmatrix` (and,
    with `matrix_stores`, of the stores' `stmatrix`)."""
    for params in _swizzles(shape, elem_bytes):
        yield linear_encodings.swizzled_shared(shape, *params), params
    cap = log2(max(1, 16 // elem_bytes))
    for side in (src, dst):
        regs = [side.flatten(v) for v in side.bases("register")]
        for j in range(min(cap, len(regs)) + 1):
            vector = regs[:j]
            if Echelon(vector).rank != j:
                break
            for first, second in ((src, dst), (dst, src)):
                yield bank_swizzle(first, second, vector, elem_bytes), None
    if elem_bytes != 2:
        return
    for first, second in ((src, dst), (dst, src)) if matrix_stores else ((src, dst),):
        if len(second.bases("lane")) != 5:
            continue
        lanes = [second.flatten(v) for v in second.bases("lane")[:2]]
        for half in (second.flatten(v) for v in second.bases("register")):
            vector = [half, *lanes]
            if Echelon(vector).rank == 3:
                yield bank_swizzle(first, second, vector, elem_bytes), None


def _price(side: SharedAccess) -> int:
    return side.instructions * (side.wavefronts + 1)


def _shared_plan(c: LinearLayout, src: LinearLayout, dst: LinearLayout,
                 shape: tuple[int, ...], elem_bits: int, swizzle: tuple | None = None,
                 matrix_stores: bool = False) -> SharedMemoryExchange:
    """The cheapest buffer among the candidates (or the one swizzle given); stores by
    `stmatrix` where `matrix_stores` allows and they cost less (at a tie, plain stores:
    a 128 x 128 accumulator of halves stores 16-byte vectors and loads by `ldmatrix` at
    the cost of the reverse, and the attention kernels ran 1-2% faster so)."""
    elem_bytes = max(1, elem_bits // 8)
    numel = 1
    for s in shape:
        numel *= s
    if swizzle is not None:
        candidates = [(linear_encodings.swizzled_shared(shape, *swizzle), swizzle)]
    else:
        candidates = _buffer_candidates(src, dst, shape, elem_bytes, matrix_stores)
    best = None
    for smem, params in candidates:
        inverse = smem.invert()
        store_map, load_map = inverse.compose(src), inverse.compose(dst)
        store, load = _side(store_map, elem_bytes), _side(load_map, elem_bytes)
        matrices = _matrix_side(load_map, elem_bytes)
        if matrices and _price(matrices) < _price(load):
            load = matrices
        matrices = _matrix_side(store_map, elem_bytes) if matrix_stores else None
        if matrices and _price(matrices) < _price(store):
            store = matrices
        cost = _price(store) + _price(load) + BARRIER_COST
        key = (cost, store.matrices, params is None, params[2] if params else 0)
        if best is None or key < best[0]:
            best = (key, SharedMemoryExchange(c, smem, params, store_map, load_map, store,
                                              load, numel * elem_bytes, cost))
    return best[1]


# -- the planner ---------------------------------------------------------------------------
def candidate_plans(src, dst, shape: tuple[int, ...], elem_bits: int,
                    matrix_stores: bool = False) -> list[Plan]:
    """Every strategy that can carry out the conversion, cheapest kinds first; a
    shared-memory exchange may store by `stmatrix` when `matrix_stores` (sm_90)."""
    shape = tuple(shape)
    s, d = to_linear(src, shape), to_linear(dst, shape)
    c = conversion_map(s, d)
    plans: list[Plan] = []
    if s == d:
        plans.append(Identity(c))
    if _moves_only(c, ("lane", "warp", "block")):
        regs = tuple(c.apply(register=r)[0] for r in range(d.in_size("register")))
        plans.append(RegisterPermutation(c, regs))
    if _moves_only(c, ("warp", "block")):
        plans.append(_shuffle_plan(c, d, elem_bits))
    plans.append(_shared_plan(c, s, d, shape, elem_bits, matrix_stores=matrix_stores))
    return plans


@functools.lru_cache(maxsize=1024)
def plan_conversion(src, dst, shape: tuple[int, ...], elem_bits: int) -> Plan:
    """The cheapest way to move a tensor of `shape` (elements of `elem_bits` bits) from
    layout `src` to layout `dst`."""
    return min(candidate_plans(src, dst, tuple(shape), elem_bits), key=lambda p: p.cost)


def read_sources(plan: Plan, warp: int, lane: int) -> list[tuple[int, int, int]]:
    """For each destination register of thread (warp, lane): the (source register, source
    lane, source warp) that holds its element."""
    c = plan.sources
    out = []
    for r in range(1 << len(c.bases("register"))):
        src_reg, src_lane, src_warp, _ = c.apply(register=r, lane=lane, warp=warp)
        out.append((src_reg, src_lane, src_warp))
    return out
