"""The benchmark zoo: memory-bound and layout-heavy kernels, tritonc beside Triton.

    python3 benchmarks/zoo.py --out zoo.json [--only NAME ...]

Each case of `CASES` runs one kernel of `benchmarks/zoo_kernels.py`, loaded once as
tritonc and once bound to Triton from the same source (`run.load_kernels`). For each:
the median time of `do_bench`, the bandwidth (bytes that must move / time), its fraction
of a device-to-device copy, the ratio tritonc / Triton, and the warm in-process compile
time of each compiler (the kernel file loaded afresh with both on-disk caches pointed at
an empty directory: the first launch, compile and load, less a second, cached one). Every
output is checked against torch in float64 before it is timed.

The same cases, built small and ragged on the CPU, are what `tests/test_zoo_interpreter.py`
runs in the interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

ZOO_KERNELS = HERE / "zoo_kernels.py"


@dataclass
class ZooCase:
    """One kernel launch: `kernel[grid](*args, **meta)`; `outputs` are the indices of the
    arguments the kernel writes, `reference(args)` their expected values (float64)."""

    name: str
    kernel: str
    args: list
    grid: tuple
    meta: dict
    outputs: tuple[int, ...]
    reference: Callable[[list], list]
    nbytes: int
    tol: float = 1e-4
    exact: tuple[int, ...] = field(default=())  # outputs compared exactly (indices)


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _nbytes(*tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _rows(device, m, n, stride, dtype=torch.float32):
    """An [m, n] view of rows `stride` elements apart."""
    return torch.randn(m, stride, device=device, dtype=dtype)[:, :n]


def _empty(shape, device, dtype=torch.float32):
    return torch.empty(shape, device=device, dtype=dtype)


def _f64(t):
    return t.to(torch.float64)


# -- the cases: each builder takes (device, small) ----------------------------------------------


def softmax_rows(device, small):
    m, n, stride = (7, 37, 45) if small else (8192, 1000, 1032)
    x = _rows(device, m, n, stride)
    out = _rows(device, m, n, stride + 8)
    block = _next_pow2(n)
    return ZooCase(f"softmax rows {m}x{n}, stride {stride}", "softmax_rows",
                   [out, x, x.stride(0), out.stride(0), n], (m,),
                   {"BLOCK_SIZE": block, "num_warps": 4}, (0,),
                   lambda a: [torch.softmax(_f64(a[1]), 1)], 2 * m * n * 4)


def log_softmax_rows(device, small):
    m, n, stride = (6, 50, 64) if small else (4096, 3000, 3072)
    x = _rows(device, m, n, stride)
    y = _empty((m, n), device)
    return ZooCase(f"log-softmax rows {m}x{n}, stride {stride}", "log_softmax_rows",
                   [x, y, x.stride(0), y.stride(0), n], (m,),
                   {"BLOCK": _next_pow2(n), "num_warps": 8}, (1,),
                   lambda a: [torch.log_softmax(_f64(a[0]), 1)], 2 * m * n * 4)


def softmax_persistent_inductor(device, small):
    m, n = (9, 23) if small else (32768, 781)
    x = torch.randn(m, n, device=device)
    y = _empty((m, n), device)
    xblock = 2 if small else 8
    return ZooCase(f"softmax persistent (Inductor) {m}x{n}", "softmax_persistent_inductor",
                   [x, y, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": _next_pow2(n), "num_warps": 8}, (1,),
                   lambda a: [torch.softmax(_f64(a[0]), 1)], 2 * m * n * 4)


def softmax_looped_inductor(device, small):
    m, n = (3, 100) if small else (1024, 50257)
    x = torch.randn(m, n, device=device)
    y = _empty((m, n), device)
    return ZooCase(f"softmax looped (Inductor) {m}x{n}", "softmax_looped_inductor",
                   [x, y, m, n], (m,),
                   {"XBLOCK": 1, "R0_BLOCK": 32 if small else 2048, "num_warps": 16}, (1,),
                   lambda a: [torch.softmax(_f64(a[0]), 1)], 2 * m * n * 4)


def logsumexp_looped_inductor(device, small):
    m, n = (5, 70) if small else (4096, 10000)
    x = torch.randn(m, n, device=device)
    out = _empty((m,), device)
    xblock = 2 if small else 2
    return ZooCase(f"logsumexp looped (Inductor) {m}x{n}", "logsumexp_looped_inductor",
                   [x, out, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": 16 if small else 1024, "num_warps": 8}, (1,),
                   lambda a: [torch.logsumexp(_f64(a[0]), 1)], m * n * 4)


def softmax_backward_rows(device, small):
    m, n, stride = (5, 30, 40) if small else (8192, 1500, 1536)
    y = torch.softmax(_rows(device, m, n, stride), 1)
    y = torch.as_strided(torch.empty(m * stride, device=device), (m, n), (stride, 1)).copy_(y)
    dy = torch.as_strided(torch.randn(m * stride, device=device), (m, n), (stride, 1))
    dx = torch.as_strided(torch.empty(m * stride, device=device), (m, n), (stride, 1))

    def ref(a):
        y, dy = _f64(a[1]), _f64(a[2])
        return [y * (dy - (y * dy).sum(1, keepdim=True))]

    return ZooCase(f"softmax backward rows {m}x{n}", "softmax_backward_rows",
                   [dx, y, dy, stride, n], (m,),
                   {"BLOCK_SIZE": _next_pow2(n), "num_warps": 8}, (0,), ref, 3 * m * n * 4)


def _layer_norm_ref(x, w, b, eps):
    x = _f64(x)
    mean = x.mean(1)
    var = x.var(1, unbiased=False)
    rstd = 1 / torch.sqrt(var + eps)
    return (x - mean[:, None]) * rstd[:, None] * _f64(w) + _f64(b), mean, rstd


def layer_norm_rows(device, small):
    m, n, stride = (6, 45, 48) if small else (8192, 1000, 1024)
    x = _rows(device, m, n, stride)
    y = torch.as_strided(torch.empty(m * stride, device=device), (m, n), (stride, 1))
    w, b = torch.rand(n, device=device), torch.randn(n, device=device)
    mean, rstd = _empty((m,), device), _empty((m,), device)
    return ZooCase(f"layer norm rows {m}x{n}, stride {stride}", "layer_norm_rows",
                   [x, y, w, b, mean, rstd, stride, n, 1e-5], (m,),
                   {"BLOCK_SIZE": _next_pow2(n), "num_warps": 4}, (1, 4, 5),
                   lambda a: list(_layer_norm_ref(a[0], a[2], a[3], 1e-5)), 2 * m * n * 4)


def rms_norm_rows_fp16(device, small):
    m, n, stride = (5, 60, 72) if small else (8192, 3000, 3072)
    x = _rows(device, m, n, stride, torch.float16)
    y = _empty((m, n), device, torch.float16)
    w = torch.rand(n, device=device, dtype=torch.float16)

    def ref(a):
        x = _f64(a[0])
        return [x * torch.rsqrt((x * x).mean(1, keepdim=True) + 1e-6) * _f64(a[1])]

    return ZooCase(f"RMS norm rows fp16 {m}x{n}, stride {stride}", "rms_norm_rows_fp16",
                   [x, w, y, stride, y.stride(0), n, 1e-6], (m,),
                   {"BLOCK": _next_pow2(n), "num_warps": 8}, (2,), ref, 2 * m * n * 2, tol=1e-2)


def layer_norm_persistent_inductor(device, small):
    m, n = (9, 27) if small else (16384, 1000)
    x = torch.randn(m, n, device=device)
    w, b = torch.rand(n, device=device), torch.randn(n, device=device)
    rstd, y = _empty((m, 1), device), _empty((m, n), device)
    xblock = 2 if small else 4

    def ref(a):
        y, _, r = _layer_norm_ref(a[1], a[2], a[3], 1e-5)
        return [r[:, None], y]

    return ZooCase(f"layer norm persistent (Inductor) {m}x{n}", "layer_norm_persistent_inductor",
                   [rstd, x, w, b, y, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": _next_pow2(n), "num_warps": 8}, (0, 4), ref,
                   2 * m * n * 4)


def rms_norm_persistent_inductor(device, small):
    m, n = (7, 40) if small else (16384, 1500)
    x = torch.randn(m, n, device=device, dtype=torch.float16)
    w = torch.rand(n, device=device, dtype=torch.float16)
    y = _empty((m, n), device, torch.float16)
    xblock = 2 if small else 2

    def ref(a):
        x = _f64(a[0])
        return [x * torch.rsqrt((x * x).mean(1, keepdim=True) + 1e-6) * _f64(a[1])]

    return ZooCase(f"RMS norm persistent (Inductor) fp16 {m}x{n}", "rms_norm_persistent_inductor",
                   [x, w, y, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": _next_pow2(n), "num_warps": 8}, (2,), ref,
                   2 * m * n * 2, tol=1e-2)


def var_mean_looped_inductor(device, small):
    m, n = (5, 77) if small else (4096, 6000)
    x = torch.randn(m, n, device=device) + 1.5
    mean, var = _empty((m, 1), device), _empty((m, 1), device)

    def ref(a):
        x = _f64(a[0])
        return [x.mean(1, keepdim=True), x.var(1, unbiased=False, keepdim=True)]

    return ZooCase(f"var_mean looped welford (Inductor) {m}x{n}", "var_mean_looped_inductor",
                   [x, mean, var, m, n], (m,),
                   {"XBLOCK": 1, "R0_BLOCK": 16 if small else 2048, "num_warps": 16}, (1, 2),
                   ref, m * n * 4)


def group_norm_stats_looped_inductor(device, small):
    batch, c, g, hw = (2, 6, 3, 25) if small else (32, 256, 32, 56 * 56)
    x = torch.randn(batch, c, hw, device=device, dtype=torch.float16)
    rows, r = batch * g, c // g * hw
    mean, rstd = _empty((rows, 1), device), _empty((rows, 1), device)

    def ref(a):
        x = _f64(a[0]).reshape(rows, r)
        mean = x.mean(1, keepdim=True)
        return [mean, torch.rsqrt(x.var(1, unbiased=False, keepdim=True) + 1e-5)]

    return ZooCase(f"group norm stats looped (Inductor) {batch}x{c}x{hw}, {g} groups",
                   "group_norm_stats_looped_inductor", [x, mean, rstd, rows, r], (rows,),
                   {"XBLOCK": 1, "R0_BLOCK": 32 if small else 2048, "num_warps": 16}, (1, 2),
                   ref, _nbytes(x), tol=1e-3)


def group_norm_apply_inductor(device, small):
    batch, c, g, hw = (2, 6, 3, 25) if small else (32, 256, 32, 56 * 56)
    x = torch.randn(batch, c, hw, device=device, dtype=torch.float16)
    rows = batch * g
    mean = torch.randn(rows, device=device)
    rstd = torch.rand(rows, device=device) + 0.5
    w, b = torch.rand(c, device=device), torch.randn(c, device=device)
    y = _empty((batch, c, hw), device, torch.float16)
    n = x.numel()

    def ref(a):
        x = _f64(a[0]).reshape(rows, -1)
        y = (x - _f64(a[1])[:, None]) * _f64(a[2])[:, None]
        y = y.reshape(batch, c, hw) * _f64(a[3])[None, :, None] + _f64(a[4])[None, :, None]
        return [y]

    xblock = 64 if small else 1024
    return ZooCase(f"group norm apply (Inductor) {batch}x{c}x{hw}", "group_norm_apply_inductor",
                   [x, mean, rstd, w, b, y, n], (_cdiv(n, xblock),),
                   {"HW": hw, "C": c, "G": g, "XBLOCK": xblock, "num_warps": 4}, (5,), ref,
                   2 * n * 2, tol=1e-2)


def sum_looped_inductor(device, small):
    m, n = (11, 90) if small else (8192, 5000)
    x = torch.randn(m, n, device=device)
    out = _empty((m, 1), device)
    xblock = 4 if small else 8
    return ZooCase(f"row sum looped (Inductor) {m}x{n}", "sum_looped_inductor",
                   [x, out, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": 16 if small else 512, "num_warps": 8}, (1,),
                   lambda a: [_f64(a[0]).sum(1, keepdim=True)], m * n * 4, tol=1e-3)


def amax_looped_inductor_fp16(device, small):
    m, n = (5, 70) if small else (4096, 12000)
    x = torch.randn(m, n, device=device, dtype=torch.float16)
    out = _empty((m, 1), device)
    return ZooCase(f"abs-max looped (Inductor) fp16 {m}x{n}", "amax_looped_inductor_fp16",
                   [x, out, m, n], (m,),
                   {"XBLOCK": 1, "R0_BLOCK": 32 if small else 2048, "num_warps": 16}, (1,),
                   lambda a: [_f64(a[0]).abs().amax(1, keepdim=True)], m * n * 2)


def argmax_looped_inductor(device, small):
    m, n = (6, 55) if small else (4096, 8000)
    x = torch.randn(m, n, device=device)
    out = _empty((m, 1), device, torch.int32)
    xblock = 2 if small else 4
    return ZooCase(f"argmax looped (Inductor) {m}x{n}", "argmax_looped_inductor",
                   [x, out, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": 16 if small else 512, "num_warps": 8}, (1,),
                   lambda a: [a[0].argmax(1, keepdim=True).to(torch.int32)], m * n * 4,
                   exact=(1,))


def col_sum_looped_inductor(device, small):
    m, n = (37, 50) if small else (8000, 4100)
    x = torch.randn(m, n, device=device)
    out = _empty((1, n), device)
    xblock = 16 if small else 64
    return ZooCase(f"column sum looped (Inductor) {m}x{n}", "col_sum_looped_inductor",
                   [x, out, n, m], (_cdiv(n, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": 8 if small else 64, "num_warps": 8}, (1,),
                   lambda a: [_f64(a[0]).sum(0, keepdim=True)], m * n * 4, tol=1e-3)


def sum_persistent_inductor_fp16(device, small):
    m, n = (13, 33) if small else (65536, 700)
    x = torch.randn(m, n, device=device, dtype=torch.float16)
    out = _empty((m, 1), device, torch.float16)
    xblock = 4 if small else 8
    return ZooCase(f"row sum persistent (Inductor) fp16 {m}x{n}", "sum_persistent_inductor_fp16",
                   [x, out, m, n], (_cdiv(m, xblock),),
                   {"XBLOCK": xblock, "R0_BLOCK": _next_pow2(n), "num_warps": 8}, (1,),
                   lambda a: [_f64(a[0]).sum(1, keepdim=True)], m * n * 2, tol=2e-2)


def _tile_reduce(axis, use_max):
    def build(device, small):
        m, n = (21, 45) if small else (8192, 4000)
        stride = n + 24
        x = _rows(device, m, n, stride)
        out = _empty((n if axis == 0 else m,), device)
        bm, bn = (8, 16) if small else ((32, 128) if axis == 1 else (64, 64))
        grid = (_cdiv(m, bm),) if axis == 1 else (_cdiv(n, bn),)
        op = "max" if use_max else "sum"

        def ref(a):
            x = _f64(a[0])
            return [x.amax(axis) if use_max else x.sum(axis)]

        return ZooCase(f"tile {op} axis {axis} {m}x{n}", "tile_reduce_2d",
                       [x, out, m, n, stride], grid,
                       {"BLOCK_M": bm, "BLOCK_N": bn, "AXIS": axis, "USE_MAX": use_max,
                        "num_warps": 8}, (1,), ref, m * n * 4, tol=1e-3)

    build.__name__ = f"tile_{'max' if use_max else 'sum'}_axis{axis}"
    return build


def _argmax_tile(axis):
    def build(device, small):
        m, n = ((13, 32) if axis == 1 else (32, 13)) if small else \
            ((65536, 256) if axis == 1 else (256, 65536))
        m, n = (m - 1, n) if axis == 1 else (m, n - 1)
        x = torch.randn(m, n, device=device)
        out = _empty((m if axis == 1 else n,), device, torch.int32)
        if axis == 1:
            bm, bn, grid = (4 if small else 16), _next_pow2(n), (_cdiv(m, 4 if small else 16),)
        else:
            bm, bn, grid = _next_pow2(m), (8 if small else 32), (_cdiv(n, 8 if small else 32),)
        return ZooCase(f"argmax tile axis {axis} {m}x{n}", "argmax_tile_2d", [x, out, m, n],
                       grid, {"BLOCK_M": bm, "BLOCK_N": bn, "AXIS": axis, "num_warps": 8}, (1,),
                       lambda a: [a[0].argmax(axis).to(torch.int32)], m * n * 4, exact=(1,))

    build.__name__ = f"argmax_tile_axis{axis}"
    return build


def _reduce_3d(axis):
    def build(device, small):
        shape = (5, 12, 20) if small else (32, 512, 1000)
        blocks = [8, 8, 8] if small else [4, 16, 64]
        blocks[axis] = _next_pow2(shape[axis])
        if not small and axis == 0:
            blocks = [32, 8, 32]
        if not small and axis == 1:
            blocks = [1, 512, 8]
        if not small and axis == 2:
            blocks = [1, 4, 1024]
        x = torch.randn(*shape, device=device)
        out_shape = [s for d, s in enumerate(shape) if d != axis]
        out = _empty(out_shape, device)
        kept = [(s, b) for d, (s, b) in enumerate(zip(shape, blocks)) if d != axis]
        grid = (_cdiv(kept[0][0], kept[0][1]) * _cdiv(kept[1][0], kept[1][1]),)
        return ZooCase(f"3-D sum axis {axis} {'x'.join(map(str, shape))}", "reduce_3d",
                       [x, out, *shape], grid,
                       {"BA": blocks[0], "BB": blocks[1], "BC": blocks[2], "AXIS": axis,
                        "num_warps": 8}, (1,), lambda a: [_f64(a[0]).sum(axis)],
                       x.numel() * 4, tol=1e-3)

    build.__name__ = f"reduce_3d_axis{axis}"
    return build


def _transpose_trans(dtype, block):
    def build(device, small):
        m, n = (45, 70) if small else (8192, 8000)
        x = _rows(device, m, n, n + 16, dtype)
        y = _rows(device, n, m, m + 16, dtype)
        b = 16 if small else block
        name = {torch.float32: "fp32", torch.float16: "fp16"}[dtype]
        return ZooCase(f"transpose tl.trans {name} {b}x{b} tiles {m}x{n}", "transpose_trans",
                       [x, y, m, n, x.stride(0), y.stride(0)], (_cdiv(m, b), _cdiv(n, b)),
                       {"BLOCK_M": b, "BLOCK_N": b, "num_warps": 4 if b <= 64 else 8}, (1,),
                       lambda a: [_f64(a[0]).t()], 2 * m * n * x.element_size(), tol=0)

    build.__name__ = f"transpose_trans_{dtype}_{block}"
    return build


def transpose_strides(device, small):
    m, n = (40, 33) if small else (8000, 8192)
    x = torch.randn(m, n, device=device)
    y = _empty((n, m), device)
    b = 16 if small else 32
    return ZooCase(f"transpose by strides fp32 {b}x{b} tiles {m}x{n}", "transpose_strides",
                   [x, y, m, n], (_cdiv(m, b), _cdiv(n, b)), {"BLOCK": b, "num_warps": 4}, (1,),
                   lambda a: [_f64(a[0]).t()], 2 * m * n * 4, tol=0)


def clone_transpose_inductor(device, small):
    m, n = (36, 50) if small else (4096, 12288)  # in [m, n] contiguous -> out [n, m]
    x = torch.randn(m, n, device=device, dtype=torch.float16)
    y = _empty((n, m), device, torch.float16)
    yb, xb = (16, 16) if small else (64, 64)
    # ynumel walks n (contiguous in x), xnumel walks m (contiguous in y)
    return ZooCase(f"clone of a transpose (Inductor) fp16 {m}x{n}", "clone_transpose_inductor",
                   [x, y, n, m], (_cdiv(m, xb), _cdiv(n, yb)),
                   {"YBLOCK": yb, "XBLOCK": xb, "num_warps": 4}, (1,),
                   lambda a: [_f64(a[0]).t()], 2 * m * n * 2, tol=0)


def permute_3d(device, small):
    a, b, c = (3, 20, 36) if small else (64, 1000, 1024)
    x = torch.randn(a, b, c, device=device)
    y = _empty((a, c, b), device)
    bb, bc = (16, 16) if small else (64, 64)
    return ZooCase(f"permute (0, 2, 1) tl.permute {a}x{b}x{c}", "permute_3d", [x, y, a, b, c],
                   (a, _cdiv(b, bb), _cdiv(c, bc)), {"BB": bb, "BC": bc, "num_warps": 4}, (1,),
                   lambda t: [_f64(t[0]).permute(0, 2, 1)], 2 * x.numel() * 4, tol=0)


def permute_021_inductor(device, small):
    a, b, c = (3, 20, 36) if small else (64, 1000, 1024)
    x = torch.randn(a, b, c, device=device)
    y = _empty((a, c, b), device)
    n = x.numel()
    xblock = 128 if small else 1024
    return ZooCase(f"permute (0, 2, 1) flat (Inductor) {a}x{b}x{c}", "permute_021_inductor",
                   [x, y, n, b, c], (_cdiv(n, xblock),), {"XBLOCK": xblock, "num_warps": 4},
                   (1,), lambda t: [_f64(t[0]).permute(0, 2, 1)], 2 * n * 4, tol=0)


def _cumsum(axis):
    def build(device, small):
        m, n = ((19, 32) if axis == 1 else (32, 19)) if small else \
            ((65536, 256) if axis == 1 else (256, 65536))
        m, n = (m - 3, n) if axis == 1 else (m, n - 3)
        x = torch.randn(m, n, device=device)
        y = _empty((m, n), device)
        if axis == 1:
            bm, bn, grid = (4 if small else 8), _next_pow2(n), (_cdiv(m, 4 if small else 8),)
        else:
            bm, bn, grid = _next_pow2(m), (8 if small else 16), (_cdiv(n, 8 if small else 16),)
        return ZooCase(f"cumsum axis {axis} {m}x{n}", "cumsum_2d", [x, y, m, n], grid,
                       {"BLOCK_M": bm, "BLOCK_N": bn, "AXIS": axis, "num_warps": 4}, (1,),
                       lambda a: [_f64(a[0]).cumsum(axis)], 2 * m * n * 4, tol=1e-3)

    build.__name__ = f"cumsum_axis{axis}"
    return build


def embedding_gather(device, small):
    vocab, d, tokens = (50, 20, 24) if small else (50000, 1000, 32768)
    table = torch.randn(vocab, d, device=device)
    idx = torch.randint(0, vocab, (tokens,), device=device, dtype=torch.int32)
    out = _empty((tokens, d), device)
    bt = 8 if small else 4
    return ZooCase(f"embedding gather {tokens} x {d}", "embedding_gather",
                   [idx, table, out, d], (_cdiv(tokens, bt),),
                   {"BLOCK_T": bt, "BLOCK_D": _next_pow2(d), "num_warps": 4}, (2,),
                   lambda a: [_f64(a[1])[a[0].long()]], 2 * tokens * d * 4, tol=0)


def index_select_inductor(device, small):
    vocab, d, tokens = (40, 24, 30) if small else (30000, 768, 32768)
    table = torch.randn(vocab, d, device=device)
    idx = torch.randint(0, vocab, (tokens,), device=device, dtype=torch.int64)
    out = _empty((tokens, d), device)
    n = tokens * d
    xblock = 128 if small else 1024
    return ZooCase(f"index_select (Inductor) {tokens} x {d}", "index_select_inductor",
                   [idx, table, out, n], (_cdiv(n, xblock),),
                   {"D": d, "XBLOCK": xblock, "num_warps": 4}, (2,),
                   lambda a: [_f64(a[1])[a[0]]], 2 * n * 4, tol=0)


def scatter_rows(device, small):
    rows, d = (30, 45) if small else (32768, 1000)
    src = torch.randn(rows, d, device=device)
    idx = torch.randperm(rows, device=device).to(torch.int32)
    out = _empty((rows, d), device)

    def ref(a):
        out = torch.empty(rows, d, dtype=torch.float64, device=a[0].device)
        out[a[1].long()] = _f64(a[0])
        return [out]

    br, bd = (8, 16) if small else (4, 1024)
    return ZooCase(f"scatter rows {rows} x {d}", "scatter_rows", [src, idx, out, rows, d],
                   (_cdiv(rows, br), _cdiv(d, bd)), {"BLOCK_R": br, "BLOCK_D": bd, "num_warps": 4},
                   (2,), ref, 2 * rows * d * 4, tol=0)


def gather_in_tile(device, small):
    m, n = (10, 32) if small else (65536, 128)
    x = torch.randn(m, n, device=device)
    idx = torch.randint(0, n, (m, n), device=device, dtype=torch.int32)
    out = _empty((m, n), device)
    bm = 4 if small else 16
    return ZooCase(f"tl.gather in a tile {m}x{n}", "gather_in_tile", [x, idx, out, m, n],
                   (_cdiv(m, bm),), {"BLOCK_M": bm, "num_warps": 4}, (2,),
                   lambda a: [torch.gather(_f64(a[0]), 1, a[1].long())], 3 * m * n * 4, tol=0)


def bias_gelu_fp16(device, small):
    m, n = (20, 50) if small else (8192, 5000)
    x = _rows(device, m, n, n + 8, torch.float16)
    b = torch.randn(n, device=device, dtype=torch.float16)
    y = _empty((m, n), device, torch.float16)
    bm, bn = (8, 16) if small else (16, 256)

    def ref(a):
        return [torch.nn.functional.gelu(_f64(a[0]) + _f64(a[1]), approximate="tanh")]

    return ZooCase(f"bias + GELU fp16 {m}x{n}", "bias_gelu_fp16",
                   [x, b, y, m, n, x.stride(0), y.stride(0)], (_cdiv(m, bm), _cdiv(n, bn)),
                   {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4}, (2,), ref, 2 * m * n * 2,
                   tol=1e-2)


def broadcast_mixed(device, small):
    m, n = (30, 20) if small else (8000, 4096)
    a = torch.randn(n, m, device=device).t()  # a transposed view: strides (1, m)
    c = torch.randn(m, device=device)
    r = torch.randn(n, device=device, dtype=torch.float16)
    out = _empty((m, n), device, torch.float16)
    bm, bn = (8, 8) if small else (64, 64)
    return ZooCase(f"broadcast chain, transposed fp32 + fp16 -> fp16 {m}x{n}",
                   "broadcast_mixed", [a, c, r, out, m, n, a.stride(0), a.stride(1)],
                   (_cdiv(m, bm), _cdiv(n, bn)), {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4},
                   (3,), lambda t: [_f64(t[0]) * _f64(t[1])[:, None] + _f64(t[2])[None, :]],
                   m * n * (4 + 2), tol=1e-2)


def pointwise_inductor(device, small):
    m, n = (9, 30) if small else (16384, 3000)
    x = torch.randn(m, n, device=device)
    w, b = torch.randn(n, device=device), torch.randn(m, device=device)
    y = _empty((m, n), device)
    xblock = 128 if small else 1024

    def ref(a):
        x = _f64(a[0])
        return [torch.sigmoid(x * _f64(a[1]) + _f64(a[2])[:, None]) * x]

    return ZooCase(f"pointwise broadcast (Inductor) {m}x{n}", "pointwise_inductor",
                   [x, w, b, y, m * n, n], (_cdiv(m * n, xblock),),
                   {"XBLOCK": xblock, "num_warps": 4}, (3,), ref, 2 * m * n * 4)


def add_transposed_int(device, small):
    m, n = (24, 40) if small else (8192, 8192)
    x = torch.randint(-100, 100, (m, n), device=device, dtype=torch.int32)
    y = torch.randn(n, m, device=device)
    out = _empty((m, n), device)
    bm, bn = (8, 8) if small else (64, 64)
    return ZooCase(f"int32 + transposed fp32 {m}x{n}", "add_transposed_int", [x, y, out, m, n],
                   (_cdiv(m, bm), _cdiv(n, bn)), {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4},
                   (2,), lambda a: [_f64(a[0]) + _f64(a[1]).t()], 3 * m * n * 4, tol=1e-6)


CASES = [
    softmax_rows, log_softmax_rows, softmax_persistent_inductor, softmax_looped_inductor,
    logsumexp_looped_inductor, softmax_backward_rows, layer_norm_rows, rms_norm_rows_fp16,
    layer_norm_persistent_inductor, rms_norm_persistent_inductor, var_mean_looped_inductor,
    group_norm_stats_looped_inductor, group_norm_apply_inductor, sum_looped_inductor,
    amax_looped_inductor_fp16, argmax_looped_inductor, col_sum_looped_inductor,
    sum_persistent_inductor_fp16, _tile_reduce(0, False), _tile_reduce(1, False),
    _tile_reduce(0, True), _tile_reduce(1, True), _argmax_tile(0), _argmax_tile(1),
    _reduce_3d(0), _reduce_3d(1), _reduce_3d(2), _transpose_trans(torch.float32, 64),
    _transpose_trans(torch.float32, 32), _transpose_trans(torch.float16, 128),
    _transpose_trans(torch.float16, 64), transpose_strides, clone_transpose_inductor, permute_3d,
    permute_021_inductor, _cumsum(0), _cumsum(1), embedding_gather, index_select_inductor,
    scatter_rows, gather_in_tile, bias_gelu_fp16, broadcast_mixed, pointwise_inductor,
    add_transposed_int,
]


# -- running ----------------------------------------------------------------------------------


def poison(case: ZooCase) -> None:
    for i in case.outputs:
        t = case.args[i]
        if t.dtype.is_floating_point:
            t.fill_(float("nan"))
        else:
            t.fill_(-7)


def check(case: ZooCase) -> None:
    """Every output against its float64 reference (exactly for integer outputs)."""
    expected = case.reference(case.args)
    for i, want in zip(case.outputs, expected):
        got = case.args[i]
        if i in case.exact or case.tol == 0:
            torch.testing.assert_close(got.to(want.dtype) if want.dtype != got.dtype else got,
                                       want.to(got.dtype) if i in case.exact else want,
                                       rtol=0, atol=0, msg=lambda m, i=i: f"output {i}: {m}")
        else:
            torch.testing.assert_close(_f64(got), want.reshape(got.shape), rtol=case.tol,
                                       atol=case.tol, msg=lambda m, i=i: f"output {i}: {m}")


def launch(module, case: ZooCase) -> None:
    getattr(module, case.kernel)[case.grid](*case.args, **case.meta)


def _compile_seconds(flavour: str, case: ZooCase) -> float:
    """A fresh load of the kernel file, caches pointed at an empty directory: the time of
    the first launch (compile and load), minus that of a second, cached launch."""
    from run import _load

    cache = tempfile.mkdtemp()
    saved = {k: os.environ.get(k) for k in ("TRITON_CACHE_DIR", "TRITONC_CACHE_DIR")}
    os.environ["TRITON_CACHE_DIR"] = os.environ["TRITONC_CACHE_DIR"] = cache
    try:
        module = _load(flavour, ZOO_KERNELS)
        torch.cuda.synchronize()
        start = time.perf_counter()
        launch(module, case)
        torch.cuda.synchronize()
        first = time.perf_counter() - start
        start = time.perf_counter()
        launch(module, case)
        torch.cuda.synchronize()
        return first - (time.perf_counter() - start)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def copy_bandwidth() -> float:
    from tritonc.testing import do_bench

    x = torch.empty(2**28, device="cuda")
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), return_mode="median")
    return 2 * x.numel() * 4 / ms / 1e6


def main() -> None:
    from run import finish_row, load_kernels, print_geomean

    from tritonc.testing import do_bench

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="zoo_results.json")
    parser.add_argument("--only", nargs="*", default=None,
                        help="run the cases whose builder name contains one of these")
    parser.add_argument("--no-compile-time", action="store_true")
    args = parser.parse_args()
    flavours = {"tritonc": load_kernels("tritonc", ZOO_KERNELS),
                "triton": load_kernels("triton", ZOO_KERNELS)}
    copy = copy_bandwidth()
    print(f"device-to-device copy: {copy:.0f} GB/s")
    print(f"{'case':58} {'tritonc':>8} {'Triton':>8} {'copy':>5} {'ratio':>6} "
          f"{'compile s':>10}")
    rows = []
    builders = [b for b in CASES
                if args.only is None or any(s in b.__name__ for s in args.only)]
    for build in builders:
        torch.manual_seed(0)
        case = build("cuda", False)
        row = {"case": case.name, "kernel": case.kernel, "bytes": case.nbytes}
        for flavour, module in flavours.items():
            try:
                poison(case)
                launch(module, case)
                torch.cuda.synchronize()
                check(case)
                ms = do_bench(lambda module=module, case=case: launch(module, case),
                              return_mode="median")
                row[flavour] = case.nbytes / ms / 1e6
                if not args.no_compile_time:
                    row[f"{flavour}_compile_s"] = _compile_seconds(flavour, case)
            except Exception as e:  # report and go on: one failure must not hide the rest
                row[flavour] = None
                row[f"{flavour}_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        finish_row(row, flavours)
        row["fraction_of_copy"] = row["tritonc"] / copy if row.get("tritonc") else None
        rows.append(row)

        def fmt(v, spec):
            return format(v, spec) if v is not None else "-"

        compile_s = (f"{fmt(row.get('tritonc_compile_s'), '.2f')}/"
                     f"{fmt(row.get('triton_compile_s'), '.2f')}")
        print(f"{case.name[:58]:58} {fmt(row['tritonc'], '8.0f')} {fmt(row['triton'], '8.0f')} "
              f"{fmt(row['fraction_of_copy'], '5.2f')} {fmt(row['ratio'], '6.2f')} "
              f"{compile_s:>10}", flush=True)
    geomean = print_geomean(rows)
    Path(args.out).write_text(json.dumps({"copy_gbps": copy, "geomean": geomean, "rows": rows},
                                         indent=1))


if __name__ == "__main__":
    main()
