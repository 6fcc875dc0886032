"""The style zoo: kernels written the ways Triton's tutorials and libraries write them
(persistent, descriptor, grouped, split-K, batched, skinny, int8, fused-epilogue and
while-loop matmuls, layer norm backward with a lock, flash-attention backward, seeded dropout, an
online softmax), tritonc beside Triton on the same source in the same run.

    python3 benchmarks/styles.py [--quick] [--only NAME,...] [--out results.json]

Each case of `CASES` launches the kernels of `benchmarks/style_kernels.py`, loaded once
as tritonc and once bound to Triton from the same source (`run.load_kernels`). For
each: fresh random inputs, a reference computed by torch (float64 where rounding
matters, exact for int8 and the dropout mask), the outputs poisoned (NaN, or a sentinel
for integers) before each compiler's launch, the result checked (a mismatch or an
exception is reported as that compiler's error and the run goes on), then the median
time of `do_bench`. A launch that needs zeroed memory (split-K's C, the layer norm
locks) zeroes it in the timed call, as a user's wrapper would. Prints one line per case:
name, size, metric (TFLOP/s or TOP/s for matmuls and attention, GB/s for memory-bound
kernels: the bytes that must move), tritonc, Triton, ratio tritonc / Triton, and the
geometric mean of the ratios; the persistent matmuls also time torch.matmul (cuBLAS) on
the same inputs. `--quick` runs one size of each style; `--only` the cases whose name
contains one of the comma-separated strings.

The same cases, built small and ragged on the CPU, run in the interpreter and through
ptxas in `tests/test_style_kernels.py`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

STYLE_KERNELS = HERE / "style_kernels.py"
LOG2E = 1.4426950408889634


@dataclass
class Launch:
    """`kernel[grid](*args, **meta)`."""

    kernel: str
    grid: tuple
    args: list
    meta: dict


@dataclass
class StyleCase:
    """One case: its launches run in order after `prepare` (zeroing what must start at
    zero); `outputs` are the tensors they write (final results, and intermediates that
    are poisoned as well: an unwritten element shows in the results), `reference()`
    the expected values of the checked outputs by name."""

    name: str
    size: str
    launches: list[Launch]
    outputs: dict
    reference: Callable[[], dict]
    metric: str  # "TFLOP/s", "TOP/s" or "GB/s"
    work: float  # flops (ops) or bytes
    prepare: Callable[[], None] | None = None
    tol: float = 1e-2  # |got - want| <= tol * (|want| + rms(want)), elementwise
    exact: tuple[str, ...] = field(default=())  # outputs compared exactly
    vendor: Callable[[], object] | None = None  # the same product by torch (cuBLAS)

    def per_ms(self, ms: float) -> float:
        """The metric at `ms` milliseconds: TFLOP/s (TOP/s) or GB/s."""
        return self.work / ms / (1e9 if self.metric != "GB/s" else 1e6)


def cdiv(a: int, b: int) -> int:
    """ceil(a / b): the programs that cover a extent in blocks of b."""
    return (a + b - 1) // b


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def f64(t):
    """`t` in float64, for references."""
    return t.to(torch.float64)


def _num_sms(device, small: bool) -> int:
    if small:
        return 3  # a few programs, each walking several tiles
    if device == "cuda":
        return torch.cuda.get_device_properties(0).multi_processor_count
    return 132  # H100 / H200


def randn(shape, device, dtype=torch.float16, scale=1.0):
    """Fresh normal inputs times `scale`, in `dtype`."""
    return (torch.randn(shape, device=device) * scale).to(dtype)


def empty(shape, device, dtype=torch.float16):
    """An output tensor (poisoned before each launch by `poison`)."""
    return torch.empty(shape, device=device, dtype=dtype)


def _matmul_ref(a, b):
    return lambda: {"c": f64(a) @ f64(b)}


# -- the cases: each builder takes (device, small) ---------------------------------------------


def _persistent(size, small_size):
    def build(device, small):
        m, n, k = small_size if small else size
        bm, bn, bk, warps = (16, 32, 16, 4) if small else (128, 256, 64, 8)
        sms = _num_sms(device, small)
        a, b = randn((m, k), device), randn((k, n), device)
        c = empty((m, n), device)
        tiles = cdiv(m, bm) * cdiv(n, bn)
        launch = Launch("matmul_persistent", (min(sms, tiles),),
                        [a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride()],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8 if not small else 2,
                             NUM_SMS=sms, num_warps=warps, num_stages=3))
        return StyleCase("persistent matmul, pointers", f"{m}x{n}x{k}", [launch], {"c": c},
                         _matmul_ref(a, b), "TFLOP/s", 2 * m * n * k,
                         vendor=lambda: torch.matmul(a, b))

    build.__name__ = f"persistent_matmul_{size[0]}"
    return build


def _persistent_descriptor(size, small_size, subtile, specialize=False,
                           tile=(128, 256, 64, 8, 3)):
    def build(device, small):
        m, n, k = small_size if small else size  # N, K: rows of 16 bytes, as TMA needs
        bm, bn, bk, warps, stages = (16, 32, 16, 4, 3) if small else tile
        sms = _num_sms(device, small)
        a, w = randn((m, k), device), randn((n, k), device)  # B as N x K
        c = empty((m, n), device)
        tiles = cdiv(m, bm) * cdiv(n, bn)
        launch = Launch("matmul_persistent_descriptor", (min(sms, tiles),),
                        [a, w, c, m, n, k],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8 if not small else 2,
                             NUM_SMS=sms, EPILOGUE_SUBTILE=subtile,
                             WARP_SPECIALIZE=specialize, num_warps=warps,
                             num_stages=stages))
        shape = "" if tile[:2] == (128, 256) else f", {tile[0]}x{tile[1]}/{tile[3]}w"
        name = ("persistent matmul, descriptors" + (", subtiled C" if subtile else "")
                + (", warp_specialize" if specialize else "") + shape)
        return StyleCase(name, f"{m}x{n}x{k}", [launch], {"c": c},
                         lambda: {"c": f64(a) @ f64(w).T}, "TFLOP/s", 2 * m * n * k,
                         vendor=lambda: torch.matmul(a, w.T))

    shape = "" if tile[:2] == (128, 256) else f"_{tile[0]}x{tile[1]}_{tile[3]}w"
    build.__name__ = (f"persistent_descriptor{'_subtile' if subtile else ''}"
                      f"{'_ws' if specialize else ''}{shape}_{size[0]}")
    return build


def grouped_gemm(device, small):
    problems = ([(37, 45, 40), (16, 20, 70), (50, 33, 16)] if small else
                [(4096, 4096, 4096), (2048, 8192, 2048), (4000, 1000, 3000), (1024, 4096, 8192),
                 (512, 14336, 4096), (3000, 3000, 1000)])
    bm, bn, bk = (16, 16, 16) if small else (128, 128, 64)
    sms = _num_sms(device, small)
    a_s = [randn((m, k), device) for m, _, k in problems]
    b_s = [randn((k, n), device) for _, n, k in problems]
    c_s = [empty((m, n), device) for m, n, _ in problems]

    def table(ts):
        return torch.tensor([t.data_ptr() for t in ts], device=device, dtype=torch.int64)

    sizes = torch.tensor([x for p in problems for x in p], device=device, dtype=torch.int32)
    lds = torch.tensor([x for a, b, c in zip(a_s, b_s, c_s)
                        for x in (a.stride(0), b.stride(0), c.stride(0))],
                       device=device, dtype=torch.int32)
    a_t, b_t, c_t = table(a_s), table(b_s), table(c_s)
    launch = Launch("grouped_matmul", (sms,), [a_t, b_t, c_t, sizes, lds, len(problems)],
                    dict(NUM_SM=sms, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=4,
                         num_stages=3))

    def ref():
        return {f"c{i}": f64(a) @ f64(b) for i, (a, b) in enumerate(zip(a_s, b_s))}

    flops = sum(2 * m * n * k for m, n, k in problems)
    return StyleCase("grouped GEMM, table of pointers", f"{len(problems)} problems", [launch],
                     {f"c{i}": c for i, c in enumerate(c_s)}, ref, "TFLOP/s", flops)


def _split_k(size, small_size, split):
    def build(device, small):
        m, n, k = small_size if small else size
        bm, bn, bk, warps = (16, 16, 16, 4) if small else (128, 128, 64, 4)
        s = 3 if small else split
        a, b = randn((m, k), device), randn((k, n), device)
        c = empty((m, n), device, torch.float32)
        launch = Launch("matmul_split_k", (cdiv(m, bm) * cdiv(n, bn), s),
                        [a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride()],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, SPLIT_K=s,
                             EVEN_K=k % (bk * s) == 0, num_warps=warps, num_stages=3))
        return StyleCase(f"split-K matmul, atomic_add fp32 C (split {s})", f"{m}x{n}x{k}",
                         [launch], {"c": c}, _matmul_ref(a, b), "TFLOP/s", 2 * m * n * k,
                         prepare=c.zero_)

    build.__name__ = f"split_k_{size[2]}"
    return build


def batched_matmul(device, small):
    z, m, n, k = (3, 37, 45, 40) if small else (32, 1024, 1024, 1024)
    bm, bn, bk = (16, 16, 16) if small else (128, 128, 64)
    a = randn((z, m, k), device)
    b = randn((z, n, k), device).transpose(1, 2)  # a transposed view, as K^T in attention
    c = empty((z, m, n), device)
    launch = Launch("bmm", (cdiv(m, bm) * cdiv(n, bn), z),
                    [a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride()],
                    dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=4,
                         num_stages=4))
    return StyleCase("batched matmul, B a transposed view", f"{z}x{m}x{n}x{k}", [launch],
                     {"c": c}, _matmul_ref(a, b), "TFLOP/s", 2 * z * m * n * k)


def _skinny(size, small_size):
    def build(device, small):
        m, n, k = small_size if small else size
        bn, bk = (16, 32) if small else (64, 128)
        x = randn((m, k), device)
        w = randn((n, k), device, scale=0.05)
        y = empty((m, n), device)
        launch = Launch("linear_skinny", (cdiv(n, bn), cdiv(m, 16)),
                        [x, w, y, m, n, k, x.stride(0), w.stride(0), y.stride(0)],
                        dict(BLOCK_M=16, BLOCK_N=bn, BLOCK_K=bk, num_warps=4, num_stages=4))
        nbytes = (m * k + n * k + m * n) * 2
        return StyleCase("skinny matmul (decode), x @ W^T", f"{m}x{n}x{k}", [launch], {"y": y},
                         lambda: {"y": f64(x) @ f64(w).T}, "GB/s", nbytes)

    build.__name__ = f"skinny_matmul_m{size[0]}"
    return build


def int8_matmul(device, small):
    m, n, k = (37, 45, 70) if small else (4096, 4096, 4096)
    bm, bn, bk, warps = (16, 32, 32, 4) if small else (128, 256, 128, 8)
    a = torch.randint(-128, 128, (m, k), device=device, dtype=torch.int8)
    b = torch.randint(-128, 128, (n, k), device=device, dtype=torch.int8).T  # column-major
    c = empty((m, n), device, torch.int32)
    launch = Launch("matmul_int8", (cdiv(m, bm) * cdiv(n, bn),),
                    [a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride()],
                    dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                         num_stages=3))

    def ref():  # exact: every partial sum is an integer far below 2^53
        return {"c": (f64(a) @ f64(b)).round().to(torch.int32)}

    return StyleCase("int8 x int8 -> int32 matmul, B column-major", f"{m}x{n}x{k}", [launch],
                     {"c": c}, ref, "TOP/s", 2 * m * n * k, exact=("c",))


def _bias_act(size, small_size, activation, tile=(128, 256, 64, 8)):
    def build(device, small):
        m, n, k = small_size if small else size
        bm, bn, bk, warps = (16, 32, 16, 4) if small else tile
        a, b = randn((m, k), device), randn((k, n), device, scale=0.05)
        bias = randn((n,), device)
        c = empty((m, n), device)
        launch = Launch("matmul_bias_act", (cdiv(m, bm) * cdiv(n, bn),),
                        [a, b, bias, c, m, n, k, *a.stride(), *b.stride(), *c.stride()],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                             ACTIVATION=activation, num_warps=warps, num_stages=3))

        def ref():
            x = f64(a) @ f64(b) + f64(bias)
            if activation == "leaky_relu":
                return {"c": torch.nn.functional.leaky_relu(x, 0.01)}
            return {"c": torch.nn.functional.gelu(x, approximate="tanh")}

        tiles = "" if tile == (128, 256, 64, 8) else f", {bm}x{bn}x{bk} tiles on {warps} warps"
        return StyleCase(f"matmul + bias + {activation} epilogue{tiles}", f"{m}x{n}x{k}",
                         [launch], {"c": c}, ref, "TFLOP/s", 2 * m * n * k)

    build.__name__ = f"matmul_bias_{activation}_{size[0]}" + (
        "" if tile == (128, 256, 64, 8) else f"_{tile[0]}x{tile[1]}_{tile[3]}w")
    return build


def _while_matmul(size, small_size):
    def build(device, small):
        m, n, k = small_size if small else size
        bm, bn, bk = (16, 32, 16) if small else (128, 128, 64)
        a, b = randn((m, k), device), randn((k, n), device)
        c = empty((m, n), device)
        launch = Launch("matmul_while", (cdiv(m, bm), cdiv(n, bn)),
                        [a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0)],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=4, num_stages=3))
        return StyleCase("matmul, the K loop a while loop", f"{m}x{n}x{k}", [launch],
                         {"c": c}, _matmul_ref(a, b), "TFLOP/s", 2 * m * n * k)

    build.__name__ = f"while_matmul_{size[0]}"
    return build


def _layer_norm_bwd(size, small_size):
    def build(device, small):
        m, n = small_size if small else size
        x = randn((m, n), device, scale=2.0) + 0.5
        w = (torch.rand(n, device=device) + 0.5).to(torch.float16)
        dy = randn((m, n), device)
        xf = x.float()
        mean = xf.mean(1)
        rstd = 1 / torch.sqrt(xf.var(1, unbiased=False) + 1e-5)
        block_n = _next_pow2(n)
        warps = min(max(block_n // 256, 1), 8)
        group = 4 if small else (96 if n <= 8192 else 64)
        if not small and n <= 4096:
            group = 128
        locks = torch.zeros(2 * group, device=device, dtype=torch.int32)
        dx = empty((m, n), device)
        part_dw, part_db = empty((group, n), device), empty((group, n), device)
        dw, db = empty((n,), device), empty((n,), device)
        bm, bn = (4, 16) if small else (32, 128)
        launches = [
            Launch("layer_norm_bwd_dx", (m,),
                   [dx, dy, part_dw, part_db, x, w, mean, rstd, locks, x.stride(0), n],
                   dict(GROUP_SIZE_M=group, BLOCK_SIZE_N=block_n, num_warps=warps)),
            Launch("layer_norm_bwd_dwdb", (cdiv(n, bn),), [part_dw, part_db, dw, db, group, n],
                   dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, num_warps=4)),
        ]

        def ref():
            xhat = (f64(x) - f64(mean)[:, None]) * f64(rstd)[:, None]
            wdy = f64(w) * f64(dy)
            c1 = (xhat * wdy).mean(1, keepdim=True)
            c2 = wdy.mean(1, keepdim=True)
            return {"dx": (wdy - (xhat * c1 + c2)) * f64(rstd)[:, None],
                    "dw": (f64(dy) * xhat).sum(0), "db": f64(dy).sum(0)}

        nbytes = 3 * m * n * 2 + 3 * n * 2
        return StyleCase("layer norm backward (lock + partial dw/db)", f"{m}x{n}", launches,
                         {"dx": dx, "dw": dw, "db": db, "part_dw": part_dw, "part_db": part_db},
                         ref, "GB/s", nbytes, prepare=locks.zero_)

    build.__name__ = f"layer_norm_bwd_{size[1]}"
    return build


def _attention_bwd(head_dim, small_shape):
    def build(device, small):
        z, h, n_ctx, d = small_shape if small else (4, 16, 2048, head_dim)
        m1, n1, m2, n2 = (16, 32, 32, 16) if small else (32, 128, 128, 32)
        # the tutorial's 4 warps; at d 128 the fp32 dK and dV of a 128-key block alone
        # are 256 registers a thread on 4 warps, so 8
        warps = 4 if small or head_dim <= 64 else 8
        sm_scale = 1 / math.sqrt(d)
        q, k, v, do = (randn((z, h, n_ctx, d), device) for _ in range(4))
        if device == "meta":
            lse2 = torch.empty((z, h, n_ctx), device=device)
            o = empty((z, h, n_ctx, d), device)
        else:  # the forward's outputs: O, and the log-sum-exp in base 2
            s = (f64(q) @ f64(k).transpose(-1, -2)) * sm_scale
            lse2 = (torch.logsumexp(s, -1) * LOG2E).float()
            o = (torch.softmax(s, -1) @ f64(v)).to(torch.float16)
            del s
        dq, dk, dv = (empty(q.shape, device) for _ in range(3))
        delta = empty((z, h, n_ctx), device, torch.float32)
        launches = [
            Launch("attn_bwd_preprocess", (n_ctx // n1, z * h), [o, do, delta, n_ctx],
                   dict(BLOCK_M=n1, HEAD_DIM=d, num_warps=4)),
            Launch("attn_bwd", (n_ctx // n1, 1, z * h),
                   [q, k, v, sm_scale, do, dq, dk, dv, lse2, delta, *q.stride()[:3],
                    q.stride(3), h, n_ctx],
                   dict(BLOCK_M1=m1, BLOCK_N1=n1, BLOCK_M2=m2, BLOCK_N2=n2, HEAD_DIM=d,
                        num_warps=warps, num_stages=3)),
        ]

        def ref():
            qd, kd, vd, dod = f64(q), f64(k), f64(v), f64(do)
            p = torch.softmax((qd @ kd.transpose(-1, -2)) * sm_scale, -1)
            dv_ = p.transpose(-1, -2) @ dod
            dp = dod @ vd.transpose(-1, -2)
            dlt = (f64(o) * dod).sum(-1, keepdim=True)
            ds = p * (dp - dlt)
            del p, dp
            return {"dq": ds @ kd * sm_scale, "dk": ds.transpose(-1, -2) @ qd * sm_scale,
                    "dv": dv_, "delta": dlt[..., 0]}

        flops = 2.5 * 4 * z * h * n_ctx * n_ctx * d  # as the tutorial counts the backward
        return StyleCase(f"attention backward d{d}", f"{z}x{h}x{n_ctx}x{d}", launches,
                         {"dq": dq, "dk": dk, "dv": dv, "delta": delta}, ref, "TFLOP/s", flops,
                         tol=2e-2)

    build.__name__ = f"attention_bwd_d{head_dim}"
    return build


# Philox 4x32-10 as `tl.rand` draws it, in int64 torch arithmetic (any device)
_M32 = 0xFFFFFFFF


def _mulhilo(a: int, x):
    lo16, hi16 = x & 0xFFFF, x >> 16
    p1, p2 = a * lo16, a * hi16  # a * x = p2 * 2^16 + p1, each under 2^48
    return (p2 + (p1 >> 16)) >> 16, (p1 + ((p2 & 0xFFFF) << 16)) & _M32


def philox_uniform(seed, offsets):
    """`tl.rand(seed, offsets)` for int32 offsets and a non-negative seed (an int or an
    int64 tensor that broadcasts against `offsets`)."""
    c0 = offsets.to(torch.int64) & _M32
    c1 = c2 = c3 = torch.zeros_like(c0)
    k0, k1 = seed & _M32, (seed >> 32) & _M32
    for _ in range(10):
        hi_b, lo_b = _mulhilo(0xCD9E8D57, c2)
        hi_a, lo_a = _mulhilo(0xD2511F53, c0)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0, k1 = (k0 + 0x9E3779B9) & _M32, (k1 + 0xBB67AE85) & _M32
    x = torch.where(c0 >= 2**31, c0 - 2**32, c0)  # as int32
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32,
                                              device=x.device)


def _dropout_ref(x, keep_prob_of, p):
    def ref():
        keep = keep_prob_of() > torch.tensor(p, dtype=torch.float32, device=x.device)
        return {"out": torch.where(keep, f64(x) / (1 - p), 0.0)}

    return ref


def _dropout(n, small_n):
    def build(device, small):
        size = small_n if small else n
        block = 128 if small else 1024
        p, seed = 0.3, 1234
        x = torch.randn(size, device=device)
        out = empty((size,), device, torch.float32)
        launch = Launch("seeded_dropout", (cdiv(size, block),), [x, out, size, p, seed],
                        dict(BLOCK_SIZE=block, num_warps=4))
        offsets = lambda: torch.arange(size, device=device, dtype=torch.int32)  # noqa: E731
        return StyleCase("seeded dropout, tl.rand", f"{size}", [launch], {"out": out},
                         _dropout_ref(x, lambda: philox_uniform(seed, offsets()), p), "GB/s",
                         2 * size * 4, tol=1e-6)

    build.__name__ = f"dropout_{n}"
    return build


def dropout_rows(device, small):
    m, n, stride = (7, 300, 320) if small else (8192, 5000, 5120)
    block = 128 if small else 1024
    p = 0.5
    x = torch.randn(m, stride, device=device)[:, :n]
    out = empty((m, n), device, torch.float32)
    seeds = torch.randint(0, 2**31 - 1, (m,), device=device, dtype=torch.int64)
    launch = Launch("seeded_dropout_rows", (m,),
                    [x, out, seeds, n, x.stride(0), out.stride(0), p],
                    dict(BLOCK_SIZE=block, num_warps=4))
    cols = lambda: torch.arange(n, device=device, dtype=torch.int32)[None, :]  # noqa: E731
    return StyleCase("seeded dropout, a seed per row", f"{m}x{n}", [launch], {"out": out},
                     _dropout_ref(x, lambda: philox_uniform(seeds[:, None], cols()), p),
                     "GB/s", 2 * m * n * 4, tol=1e-6)


def _softmax_online(size, small_size, block):
    def build(device, small):
        m, n = small_size if small else size
        bm, bn, warps = (2, 32, 4) if small else (*block, 8)
        x = torch.randn(m, n, device=device) * 4
        y = empty((m, n), device, torch.float32)
        launch = Launch("softmax_online", (cdiv(m, bm),),
                        [x, y, m, n, x.stride(0), y.stride(0)],
                        dict(BLOCK_M=bm, BLOCK_N=bn, num_warps=warps))
        return StyleCase("softmax, online max/sum over column blocks", f"{m}x{n}", [launch],
                         {"y": y}, lambda: {"y": torch.softmax(f64(x), 1)}, "GB/s",
                         2 * m * n * 4, tol=1e-4)

    build.__name__ = f"softmax_online_{size[1]}"
    return build


CASES = [
    _persistent((4096, 4096, 4096), (40, 70, 50)),
    _persistent((4000, 4000, 4000), (33, 45, 27)),
    _persistent_descriptor((4096, 4096, 4096), (40, 72, 48), False),
    _persistent_descriptor((4096, 4096, 4096), (36, 80, 40), True),
    _persistent_descriptor((4096, 4096, 4096), (40, 72, 48), False, specialize=True),
    _persistent_descriptor((4096, 4096, 4096), (40, 72, 48), False, tile=(128, 128, 64, 4, 4)),
    _persistent_descriptor((4096, 4096, 4096), (40, 72, 48), False, specialize=True,
                           tile=(128, 128, 64, 4, 4)),
    _persistent_descriptor((4000, 4000, 4000), (50, 40, 56), False),
    grouped_gemm,
    _split_k((1024, 1024, 16384), (37, 45, 100), 8),
    _split_k((1000, 1000, 10000), (20, 30, 96), 4),
    batched_matmul,
    _skinny((16, 8192, 8192), (13, 70, 100)),
    _skinny((32, 14336, 4096), (32, 40, 64)),
    int8_matmul,
    _bias_act((4096, 4096, 4096), (37, 45, 40), "leaky_relu"),
    _bias_act((4000, 4000, 4000), (30, 70, 50), "gelu"),
    _bias_act((4096, 4096, 4096), (37, 45, 40), "gelu", tile=(64, 256, 32, 8)),
    _bias_act((4096, 4096, 4096), (37, 45, 40), "gelu", tile=(64, 128, 64, 8)),
    _while_matmul((4096, 4096, 4096), (37, 45, 40)),
    _layer_norm_bwd((4096, 8192), (23, 45)),
    _layer_norm_bwd((4096, 5000), (13, 100)),
    _attention_bwd(64, (1, 2, 64, 16)),
    _attention_bwd(128, (2, 1, 64, 32)),
    _dropout(2**26, 1000),
    _dropout(10**8 + 3, 517),
    dropout_rows,
    _softmax_online((8192, 8192), (7, 100), (4, 1024)),
    _softmax_online((4096, 50257), (5, 77), (2, 2048)),
]

QUICK = {"persistent_matmul_4096", "persistent_descriptor_4096", "grouped_gemm",
         "split_k_16384", "batched_matmul", "skinny_matmul_m16", "int8_matmul",
         "matmul_bias_leaky_relu_4096", "while_matmul_4096", "layer_norm_bwd_8192",
         "attention_bwd_d64", "attention_bwd_d128", "dropout_67108864", "dropout_rows",
         "softmax_online_8192"}


# -- running -----------------------------------------------------------------------------------


def poison(case: StyleCase) -> None:
    for t in case.outputs.values():
        if t.dtype.is_floating_point:
            t.fill_(float("nan"))
        else:
            t.fill_(-7)


def run(module, case: StyleCase) -> None:
    if case.prepare is not None:
        case.prepare()
    for launch in case.launches:
        getattr(module, launch.kernel)[launch.grid](*launch.args, **launch.meta)


def check(case: StyleCase, expected: dict) -> None:
    """Every checked output against its reference: exactly (integers), else elementwise
    within tol * (|want| + rms(want)); NaN (a poisoned element left) always fails."""
    for name, want in expected.items():
        got = case.outputs[name]
        if name in case.exact:
            if not torch.equal(got, want.to(got.dtype)):
                bad = (got != want.to(got.dtype)).sum().item()
                raise AssertionError(f"{name}: {bad} of {got.numel()} elements differ")
            continue
        err = (f64(got) - want).abs()
        bound = case.tol * (want.abs() + want.pow(2).mean().sqrt())
        if not bool((err <= bound).all()):
            worst = (err / bound).nan_to_num(float("inf")).max().item()
            bad = (~(err <= bound)).sum().item()
            raise AssertionError(f"{name}: {bad} of {got.numel()} elements off "
                                 f"(worst {worst:.3g}x the tolerance)")


def main(cases: list = CASES, quick: set = QUICK, kernel_file: Path = STYLE_KERNELS,
         doc: str = __doc__) -> None:
    """Run `cases` (builders of StyleCase) with the kernels of `kernel_file`, tritonc
    beside Triton; the command line as `doc` describes it."""
    from run import finish_row, load_kernels, print_geomean, triton_allocator

    from tritonc.testing import do_bench

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=None,
                        help="comma-separated: the cases whose name (persistent_matmul_4096, "
                             "grouped_gemm, ...) contains one of these")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    builders = [b for b in cases if not args.quick or b.__name__ in quick]
    if args.only:
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        builders = [b for b in builders if any(s in b.__name__ for s in wanted)]
        if not builders:
            parser.error(f"no case matches {args.only!r} (cases: "
                         f"{', '.join(b.__name__ for b in cases)})")
    flavours = {name: load_kernels(name, kernel_file) for name in ("tritonc", "triton")}
    triton_allocator(flavours)
    print(f"{'case':46} {'size':18} {'metric':8} {'tritonc':>8} {'Triton':>8} {'ratio':>6}")
    rows = []
    for build in builders:
        torch.manual_seed(0)
        row = {"builder": build.__name__}
        try:
            case = build("cuda", False)
            expected = case.reference()
            torch.cuda.synchronize()
        except Exception as e:  # the inputs or the reference: nothing to run
            row.update(case=build.__name__, error=f"{type(e).__name__}: {str(e)[:300]}")
            print(f"{build.__name__}: setup failed: {row['error']}", flush=True)
            rows.append(row)
            continue
        row.update(case=case.name, size=case.size, metric=case.metric)
        for flavour, module in flavours.items():
            try:
                poison(case)
                run(module, case)
                torch.cuda.synchronize()
                check(case, expected)
                ms = do_bench(lambda module=module, case=case: run(module, case), warmup=10,
                              rep=50, return_mode="median")
                row[flavour] = case.per_ms(ms)
            except Exception as e:  # report and go on: one failure must not hide the rest
                row[flavour] = None
                row[f"{flavour}_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        del expected
        if case.vendor is not None:
            row["cublas"] = case.per_ms(do_bench(case.vendor, warmup=10, rep=50,
                                                 return_mode="median"))
        row.setdefault("triton", None)
        finish_row(row, flavours)
        rows.append(row)
        _print(row)
        del case
        torch.cuda.empty_cache()
    geomean = print_geomean(rows)
    if args.out:
        Path(args.out).write_text(json.dumps({"geomean": geomean, "rows": rows}, indent=1))


def _print(row: dict) -> None:
    def fmt(v):
        return f"{v:8.1f}" if v else "       -"

    ratio = f"{row['ratio']:6.2f}" if row.get("ratio") else "     -"
    vendor = f"   cuBLAS {row['cublas']:.1f}" if row.get("cublas") else ""
    print(f"{row['case'][:46]:46} {row['size'][:18]:18} {row['metric']:8} "
          f"{fmt(row.get('tritonc'))} {fmt(row.get('triton'))} {ratio}{vendor}", flush=True)


if __name__ == "__main__":
    main()
