"""Every TTGIR encoding as a linear layout: constructors from the encoding's parameters.

Distributed encodings map (register, lane, warp, block) to the coordinates of a tensor
of a given shape; shared encodings map (offset, block) to coordinates, `offset` being the
element's position in shared memory. Register numbering follows the lowering's (the
order in which `passes.ttgir.layouts` lists a thread's registers):

- blocked: per dimension in `order`, the bits of a thread's chunk then the repeats of
  the CTA tile; lanes and warps fill the dimensions in `order`.
- mma v2 (`mma.sync` m16n8 accumulator): c0..c3 of one 16 x 8 tile (column + 1, row + 8),
  then the n8 tiles of the warp's block, then its m16 tiles; lane = 4 * group + t.
- mma v3 (wgmma m64nN accumulator): warps 0-3 of a warpgroup own rows 16w..16w+15 of
  each 64-row tile; registers as v2 over the N/8 column tiles, then repeats.
- dot operand: the A (M x K) or B (K x N) fragments of mma.sync m16n8k(8*k_width*...)
  (k_width elements of K packed per 32-bit register), and the A registers of wgmma.
- swizzled shared: `vec` elements stay contiguous; row r's vectors are XOR-permuted by
  `(r // per_phase) % max_phase`; NVMMA swizzles are the 32/64/128-byte cases of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from tritonc.passes.ttgir.linear_layout import (
    LinearLayout,
    distributed,
    log2,
    out_dim_names,
    unit,
)


def _steps(d: int, rank: int, first: int, count: int) -> list[tuple[int, ...]]:
    """Bases `first, 2 * first, ...` along dimension `d`: the bits of a count of steps."""
    return [unit(rank, d, first << k) for k in range(log2(max(1, count)))]


def blocked(shape: Sequence[int], size_per_thread: Sequence[int],
            threads_per_warp: Sequence[int], warps_per_cta: Sequence[int],
            order: Sequence[int]) -> LinearLayout:
    """`#ttg.blocked<spt, tpw, wpc, order>` on a tensor of `shape`."""
    rank = len(shape)
    tile = [size_per_thread[d] * threads_per_warp[d] * warps_per_cta[d] for d in range(rank)]
    reg, lane, warp = [], [], []
    for d in order:
        reg += _steps(d, rank, 1, size_per_thread[d])
        reg += _steps(d, rank, tile[d], shape[d] // tile[d])
        lane += _steps(d, rank, size_per_thread[d], threads_per_warp[d])
        warp += _steps(d, rank, size_per_thread[d] * threads_per_warp[d], warps_per_cta[d])
    return distributed(shape, reg, lane, warp)


def _mma_lanes() -> list[tuple[int, ...]]:
    """lane = 4 * group + t of an accumulator fragment: t steps the columns by 2, group
    the rows by 1."""
    return [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]


def mma_v2(shape: Sequence[int], warps_per_cta: Sequence[int]) -> LinearLayout:
    """The accumulator of `mma.sync.m16n8k*` with warps `[wm, wn]` tiling M then N: along
    M the warps take consecutive 16-row tiles, repeated every 16 wm rows; along N each
    warp repeats its 8-column tile over its N/wn block (at least one tile: warps beyond a
    smaller shape hold copies)."""
    wm, wn = warps_per_cta
    bm, bn = max(16, shape[0] // wm), max(8, shape[1] // wn)  # warps beyond hold copies
    reg = [(0, 1), (8, 0)] + _steps(1, 2, 8, bn // 8) + _steps(0, 2, 16 * wm, bm // 16)
    warp = _steps(0, 2, 16, wm) + _steps(1, 2, max(bn, 1), wn)
    return distributed(shape, reg, _mma_lanes(), warp, drop_register_copies=True)


def mma_v3(shape: Sequence[int], warps_per_cta: Sequence[int], instr_n: int) -> LinearLayout:
    """The accumulator of `wgmma.mma_async.m64nNk*` (N = `instr_n`): warp w of a
    warpgroup owns rows 16(w % 4) .. +15 of a 64-row tile; `[wm, wn]` warps (wm a
    multiple of 4) tile M by 64 * wm / 4 and N by instr_n * wn, repeated over the rest
    (N tiles first)."""
    wm, wn = warps_per_cta
    if wm % 4:
        raise ValueError(f"wgmma needs whole warpgroups along M, not {wm} warps")
    groups_m = wm // 4
    reg = [(0, 1), (8, 0)] + _steps(1, 2, 8, instr_n // 8)
    reg += _steps(1, 2, instr_n * wn, shape[1] // (instr_n * wn))
    reg += _steps(0, 2, 64 * groups_m, shape[0] // (64 * groups_m))
    warp = [(16, 0), (32, 0)] + _steps(0, 2, 64, groups_m) + _steps(1, 2, instr_n, wn)
    return distributed(shape, reg, _mma_lanes(), warp, drop_register_copies=True)


def dot_operand_v2(shape: Sequence[int], op_idx: int, warps_per_cta: Sequence[int],
                   k_width: int = 2) -> LinearLayout:
    """Operand `op_idx` (0: A, M x K; 1: B, K x N) of `mma.sync.m16n8k(8 * k_width)`
    under an accumulator with warps `[wm, wn]`: a thread packs `k_width` consecutive K
    elements per 32-bit register; A repeats over K steps then M tiles (every 16 wm rows,
    as the accumulator's), B over K steps then N tiles. Warps along the other operand's
    dimension hold copies."""
    wm, wn = warps_per_cta
    kd, md = (1, 0) if op_idx == 0 else (0, 1)  # K dimension, M (or N) dimension
    kstep = 8 * k_width
    reg = _steps(kd, 2, 1, k_width)
    if op_idx == 0:
        reg.append(unit(2, md, 8))
    reg.append(unit(2, kd, 4 * k_width))
    lane = [unit(2, kd, k_width), unit(2, kd, 2 * k_width)] + _steps(md, 2, 1, 8)
    reg += _steps(kd, 2, kstep, shape[kd] // kstep)
    if op_idx == 0:  # warp bits go along M, then along N (copies of A)
        rows = max(16, shape[md] // wm)
        reg += _steps(md, 2, 16 * wm, rows // 16)
        warp = _steps(md, 2, 16, wm) + [(0, 0)] * log2(wn)
    else:  # copies of B along M, then N
        cols = max(8, shape[md] // wn)
        reg += _steps(md, 2, 8, cols // 8)
        warp = [(0, 0)] * log2(wm) + _steps(md, 2, cols, wn)
    return distributed(shape, reg, lane, warp)


def dot_operand_v3_a(shape: Sequence[int], warps_per_cta: Sequence[int],
                     k_width: int = 2) -> LinearLayout:
    """The A registers of `wgmma` (M x K): the mma.sync A fragment per warp, warp w of a
    warpgroup on rows 16(w % 4), warpgroups as the mma v3 accumulator's."""
    wm, wn = warps_per_cta
    groups_m = wm // 4
    reg = _steps(1, 2, 1, k_width) + [(8, 0), (0, 4 * k_width)]
    reg += _steps(1, 2, 8 * k_width, shape[1] // (8 * k_width))
    reg += _steps(0, 2, 64 * groups_m, shape[0] // (64 * groups_m))
    lane = [(0, k_width), (0, 2 * k_width)] + _steps(0, 2, 1, 8)
    warp = [(16, 0), (32, 0)] + _steps(0, 2, 64, groups_m) + [(0, 0)] * log2(wn)
    return distributed(shape, reg, lane, warp)


def slice_of(parent: LinearLayout, dim: int) -> LinearLayout:
    """`#ttg.slice<dim, parent>`: the parent layout with output `dim` dropped; register
    bits that moved only along it are removed, lane and warp bits become copies."""
    keep = [i for i in range(len(parent.out_dims)) if i != dim]
    names = out_dim_names(len(keep))
    bases = {name: [tuple(v[i] for i in keep) for v in parent.bases(name)]
             for name in parent.in_dims}
    shape = [parent.out_shape[i] for i in keep]
    return LinearLayout(bases, list(zip(names, shape))).remove_zero_bases("register")


def swizzled_shared(shape: Sequence[int], vec: int, per_phase: int, max_phase: int,
                    order: Sequence[int]) -> LinearLayout:
    """`#ttg.swizzled_shared<vec, per_phase, max_phase, order>`: elements stored with
    dimension `order[0]` contiguous, then `order[1]` (the rows), ...; the vector index of
    the element (row r, column c) is `(c // vec) ^ ((r // per_phase) % max_phase)`."""
    rank = len(shape)
    col = order[0]
    offset = _steps(col, rank, 1, shape[col])
    if rank > 1:
        row = order[1]
        for k in range(log2(shape[row])):
            phase = ((1 << k) // per_phase) % max_phase
            v = list(unit(rank, row, 1 << k))
            v[col] = (phase * vec) % shape[col]
            offset.append(tuple(v))
        for d in order[2:]:
            offset += _steps(d, rank, 1, shape[d])
    outs = list(zip(out_dim_names(rank), shape))
    return LinearLayout({"offset": offset, "block": []}, outs)


def nvmma_shared(shape: Sequence[int], elem_bits: int, swizzle_bytes: int,
                 transposed: bool = False) -> LinearLayout:
    """The shared-memory layout that TMA writes and wgmma reads: the contiguous dimension
    (the last, or the first when `transposed`) is cut into atoms of `swizzle_bytes`
    bytes; rows of an atom are stacked, each 16-byte chunk XOR-ed with the row
    (`swizzle_bytes` 128: row % 8; 64: (row / 2) % 4; 32: (row / 4) % 2); atoms follow one
    another along the contiguous dimension. `swizzle_bytes = 0` is the unswizzled form."""
    if len(shape) != 2:
        raise ValueError("NVMMA shared layouts are 2-D")
    col, row = (0, 1) if transposed else (1, 0)
    vec = 128 // elem_bits
    if swizzle_bytes == 0:
        width = min(shape[col], vec)
        per_phase, max_phase = 1, 1
    else:
        if swizzle_bytes not in (32, 64, 128):
            raise ValueError(f"NVMMA swizzle is 0, 32, 64 or 128 bytes, not {swizzle_bytes}")
        width = min(shape[col], swizzle_bytes * 8 // elem_bits)
        per_phase, max_phase = 128 // swizzle_bytes, swizzle_bytes // 16
    offset = _steps(col, 2, 1, width)
    for k in range(log2(shape[row])):
        v = list(unit(2, row, 1 << k))
        v[col] = ((((1 << k) // per_phase) % max_phase) * vec) % width
        offset.append(tuple(v))
    offset += _steps(col, 2, width, shape[col] // width)
    return LinearLayout({"offset": offset, "block": []}, list(zip(out_dim_names(2), shape)))
