"""Ahead-of-time compilation: C launchers, build-time cubins for wheels, and their lookup.

    spec.py       kernel paths, signatures, constexprs and targets as text (no MLIR)
    grid.py       grid formulas over launcher arguments, translated to C
    cgen.py       the C header and source of `tritonc aot` (cuda_min.h: the driver subset)
    variants.py   compile the specializations of a kernel for several targets
    occupancy.py  blocks per SM from registers, shared memory and warps (`tritonc inspect`)
    cubin.py      registers and static shared memory read from a cubin's ELF sections
    build.py      `[tool.tritonc]` in pyproject.toml -> cubins and an index in a wheel
    registry.py   the run-time lookup of those cubins (`find_precompiled`; no MLIR)
"""
