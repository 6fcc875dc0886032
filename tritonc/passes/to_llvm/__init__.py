"""Lowering of TTGIR to per-thread NVVM/LLVM code (see lowering.py)."""
