"""Interpreter speed on the two reference workloads (printed, not asserted: performance is
shown by measurements, never by timed assertions)."""

import sys
import time
from pathlib import Path

import numpy as np
from corpus.tutorials import matmul_kernel

import tritonc as triton
from tritonc.backends.interpreter.launch import interpret

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from vector_add import add_kernel  # noqa: E402


def test_matmul_256_cubed_fp32(capsys):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    c = np.full((256, 256), np.nan, np.float32)
    start = time.perf_counter()
    grid = (triton.cdiv(256, 64) * triton.cdiv(256, 64), 1, 1)
    bound = matmul_kernel.bind((a, b, c, 256, 256, 256, 256, 1, 256, 1, 256, 1),
                               dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
                                    GROUP_SIZE_M=8, ACTIVATION=""))
    interpret(matmul_kernel, grid, bound)
    seconds = time.perf_counter() - start
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # tf32 inputs (Triton's default for fp32 dot) and an fp16 result: relative error ~1e-3
    assert np.linalg.norm(c - ref) / np.linalg.norm(ref) < 3e-3
    with capsys.disabled():
        print(f"\n256x256x256 fp32 matmul (64x64x32 blocks) in the interpreter: {seconds:.2f} s")


def test_vector_add_one_million(capsys):
    n = 1_000_000
    rng = np.random.default_rng(8)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    start = time.perf_counter()
    bound = add_kernel.bind((x, y, out, n), {"BLOCK_SIZE": 1024})
    interpret(add_kernel, (triton.cdiv(n, 1024), 1, 1), bound)
    seconds = time.perf_counter() - start
    np.testing.assert_array_equal(out, x + y)
    with capsys.disabled():
        print(f"\n1M-element vector add (BLOCK=1024) in the interpreter: {seconds:.2f} s")
