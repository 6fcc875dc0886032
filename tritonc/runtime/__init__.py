"""Running compiled kernels: the CUDA driver (`driver`) and the on-disk cache (`cache`).

Nothing is imported here: `import tritonc` stays fast, and libcuda, torch and MLIR are
loaded only by the modules that need them, on first use.
"""
