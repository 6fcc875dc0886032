"""How many blocks of a kernel fit on one SM, from its registers, shared memory and warps.

The limits per streaming multiprocessor (from NVIDIA's CUDA C++ Programming Guide,
"Technical Specifications per Compute Capability"):

    arch    regs/SM  threads/SM  blocks/SM  smem/SM   smem/block (opt-in)  class
    sm_80   65536    2048        32         164 KB    163 KB               A100
    sm_86   65536    1536        16         100 KB     99 KB               RTX 30xx, A40
    sm_89   65536    1536        24         100 KB     99 KB               RTX 40xx, L40
    sm_90   65536    2048        32         228 KB    227 KB               H100, H200

Registers are allocated per warp in units of 256 (a thread's count rounded up to a
multiple of 8), and every block also takes 1 KB of shared memory reserved by the
system. A kernel that does not fit at all (too much shared memory, too many
registers) gets 0 blocks and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

KB = 1024


@dataclass(frozen=True)
class SMLimits:
    """The per-SM resources of one compute capability."""

    regs: int
    threads: int
    blocks: int
    smem: int
    smem_per_block: int
    name: str


LIMITS: dict[int, SMLimits] = {
    80: SMLimits(65536, 2048, 32, 164 * KB, 163 * KB, "A100"),
    86: SMLimits(65536, 1536, 16, 100 * KB, 99 * KB, "RTX 30xx / A40"),
    89: SMLimits(65536, 1536, 24, 100 * KB, 99 * KB, "RTX 40xx / L40"),
    90: SMLimits(65536, 2048, 32, 228 * KB, 227 * KB, "H100 / H200"),
}
def sm_limits(arch: int) -> SMLimits:
    """The limits of sm_`arch`, or of the nearest listed arch below it (sm_87 as sm_86,
    later chips as sm_90), the first listed for an older one."""
    known = [a for a in sorted(LIMITS) if a <= arch]
    return LIMITS[known[-1] if known else min(LIMITS)]


REG_ALLOC_UNIT = 256
RESERVED_SMEM_PER_BLOCK = 1 * KB


@dataclass(frozen=True)
class Occupancy:
    """Blocks per SM, what limits them, and the fraction of the SM's warps in use."""

    blocks_per_sm: int
    limiter: str
    by_registers: int
    by_shared: int
    by_threads: int
    warps_per_sm: int
    max_warps_per_sm: int

    @property
    def fraction(self) -> float:
        return self.warps_per_sm / self.max_warps_per_sm


def occupancy(arch: int, registers: int, shared: int, num_warps: int) -> Occupancy:
    """Occupancy of a kernel using `registers` per thread and `shared` bytes per block."""
    if arch not in LIMITS:
        known = ", ".join(f"sm_{a}" for a in LIMITS)
        raise KeyError(f"no occupancy table for sm_{arch} (known: {known})")
    limits = LIMITS[arch]
    threads = 32 * num_warps
    regs_per_warp = -(-max(registers, 1) * 32 // REG_ALLOC_UNIT) * REG_ALLOC_UNIT
    by_registers = limits.regs // (regs_per_warp * num_warps) if registers <= 255 else 0
    if shared > limits.smem_per_block:
        by_shared = 0
    else:
        by_shared = limits.smem // (shared + RESERVED_SMEM_PER_BLOCK) if shared else limits.blocks
    by_threads = limits.threads // threads
    candidates = {"registers": by_registers, "shared memory": by_shared,
                  "threads": by_threads, "blocks per SM": limits.blocks}
    limiter = min(candidates, key=lambda k: candidates[k])
    blocks = candidates[limiter]
    return Occupancy(blocks, limiter, by_registers, min(by_shared, limits.blocks), by_threads,
                     blocks * num_warps, limits.threads // 32)


def report_lines(arch: int, metadata: dict) -> list[str]:
    """The lines `tritonc inspect` prints for a kernel's metadata (with `ptxas`)."""
    ptxas = metadata.get("ptxas", {})
    regs = int(ptxas.get("registers", 0))
    shared = int(metadata.get("shared", 0)) + int(ptxas.get("shared_mem", 0))
    num_warps = int(metadata.get("num_warps", 4))
    threads = int(metadata.get("threads", 32 * num_warps))  # with a producer warpgroup
    producers = f" + {threads // 32 - num_warps} producer" if threads > 32 * num_warps else ""
    spill_st, spill_ld = int(ptxas.get("spill_stores", 0)), int(ptxas.get("spill_loads", 0))
    lines = [f"kernel      {metadata.get('name', '?')} (sm_{arch}, {num_warps}{producers} "
             f"warps, {threads} threads/block)",
             f"registers   {regs} per thread",
             f"spills      {spill_st} bytes stored, {spill_ld} bytes loaded",
             f"shared      {shared} bytes per block"]
    if ptxas.get("stack_frame"):
        lines.append(f"stack       {ptxas['stack_frame']} bytes per thread")
    if spill_st or spill_ld:
        lines.append("warning: the kernel spills registers to local memory; try fewer warps, "
                     "a smaller BLOCK or fewer live values")
    try:
        occ = occupancy(arch, regs, shared, threads // 32)
    except KeyError as e:
        lines.append(f"occupancy   unknown: {e.args[0]}")
        return lines
    if occ.blocks_per_sm == 0:
        lines.append(f"occupancy   0 blocks/SM: the kernel does not fit ({occ.limiter})")
        return lines
    lines.append(f"occupancy   {occ.blocks_per_sm} blocks/SM, {occ.warps_per_sm}/"
                 f"{occ.max_warps_per_sm} warps ({occ.fraction:.0%}), limited by {occ.limiter}")
    lines.append(f"            blocks/SM by registers {occ.by_registers}, by shared memory "
                 f"{occ.by_shared}, by threads {occ.by_threads} "
                 f"({LIMITS[arch].name} limits)")
    return lines
