"""The inference zoo: kernels written the ways LLM-inference libraries write them
(weight-only int8 matmuls with K x N or N x K weights, GPTQ-style 4-bit weights, a
row-scaled fp8 matmul, a SwiGLU matmul, a mixture-of-experts matmul over sorted token ids,
rotary embeddings two ways, split-KV decode attention for grouped query heads, a
convolution as an implicit GEMM), tritonc beside Triton on the same source in the same
run.

    python3 benchmarks/inference.py [--quick] [--only NAME,...] [--out results.json]

The cases launch the kernels of `benchmarks/inference_kernels.py` and run exactly as
benchmarks/styles.py runs its own (fresh random inputs, a torch reference in float64,
outputs poisoned before each compiler's launch and checked before timing, the median of
`do_bench`, the ratio tritonc / Triton and its geomean). `--quick` runs one size of each.

The same cases, built small and ragged on the CPU, run in the interpreter and through
ptxas in `tests/test_style_kernels.py`.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from styles import Launch, StyleCase, cdiv, empty, f64, main, randn  # noqa: E402

INFERENCE_KERNELS = HERE / "inference_kernels.py"


def _w8a16(size, small_size, n_by_k: bool = False):
    def build(device, small):
        m, n, k = small_size if small else size
        bm = 16 if small or m <= 64 else 128
        bn, bk, warps = (32, 32, 4) if small else ((64, 128, 4) if m <= 64 else (128, 64, 8))
        a = randn((m, k), device)
        b = torch.randint(-127, 128, (n, k) if n_by_k else (k, n), device=device,
                          dtype=torch.int8)
        b = b.t() if n_by_k else b
        scale = (torch.rand(n, device=device) * 0.02 + 0.005).to(torch.float16)
        c = empty((m, n), device)
        launch = Launch("matmul_w8a16", (cdiv(m, bm) * cdiv(n, bn),),
                        [a, b, scale, c, m, n, k, a.stride(0), *b.stride(), c.stride(0)],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                             num_stages=4 if m <= 64 else 3))
        decode = m <= 64
        weights = "N x K" if n_by_k else "K x N"
        return StyleCase(f"weight-only int8 matmul ({weights} weights), dequantized in the loop",
                         f"{m}x{n}x{k}", [launch], {"c": c},
                         lambda: {"c": (f64(a) @ f64(b)) * f64(scale)},
                         "GB/s" if decode else "TFLOP/s",
                         (m * k * 2 + k * n + m * n * 2) if decode else 2 * m * n * k)

    build.__name__ = f"w8a16_m{size[0]}" + ("_nk" if n_by_k else "")
    return build


def _w4a16(size, small_size):
    def build(device, small):
        m, n, k = small_size if small else size
        decode = m <= 64
        group = 32 if small else 128
        bm = 16 if small or decode else 128
        bn, bk, warps = (32, 32, 4) if small else ((64, 128, 4) if decode else (128, 64, 8))
        a = randn((m, k), device)
        gen = torch.Generator().manual_seed(k)
        nibbles = torch.randint(0, 16, (k, n), generator=gen).to(device)
        packed = (nibbles.reshape(k // 8, 8, n).to(torch.int64)
                  << (4 * torch.arange(8, device=device)).reshape(1, 8, 1)).sum(1)
        packed = packed.to(torch.uint32).view(torch.int32) if device != "meta" else \
            torch.empty((k // 8, n), device=device, dtype=torch.int32)
        scales = (torch.rand(k // group, n, device=device) * 0.02 + 0.005).to(torch.float16)
        zeros = torch.randint(6, 10, (k // group, n), device=device).to(torch.float16)
        c = empty((m, n), device)
        launch = Launch("matmul_w4a16", (cdiv(m, bm) * cdiv(n, bn),),
                        [a, packed, scales, zeros, c, m, n, k, a.stride(0), packed.stride(0),
                         c.stride(0), scales.stride(0), group],
                        dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                             num_stages=4 if decode else 3))

        def ref():
            rows = torch.arange(k, device=device) // group
            w = (f64(nibbles) - f64(zeros)[rows]) * f64(scales)[rows]
            return {"c": f64(a) @ w}

        return StyleCase("GPTQ-style 4-bit weights, nibbles unpacked in the loop",
                         f"{m}x{n}x{k}", [launch], {"c": c}, ref,
                         "GB/s" if decode else "TFLOP/s",
                         (m * k * 2 + k * n // 2 + m * n * 2) if decode else 2 * m * n * k)

    build.__name__ = f"w4a16_m{size[0]}"
    return build


def fp8_rowwise(device, small):
    m, n, k = (45, 40, 96) if small else (8192, 8192, 8192)
    bm, bn, bk, warps = (16, 16, 32, 4) if small else (128, 256, 128, 8)
    a = (torch.randn(m, k, device=device) * 2).to(torch.float8_e4m3fn)
    w = (torch.randn(n, k, device=device) * 2).to(torch.float8_e4m3fn)
    a_scale = torch.rand(m, device=device) + 0.5
    w_scale = torch.rand(n, device=device) * 0.01 + 0.005
    c = empty((m, n), device, torch.bfloat16)
    launch = Launch("matmul_fp8_rowwise", (cdiv(m, bm) * cdiv(n, bn),),
                    [a, w, a_scale, w_scale, c, m, n, k, a.stride(0), w.stride(0), c.stride(0)],
                    dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                         num_stages=3))

    def ref():
        return {"c": (f64(a) @ f64(w).T) * f64(a_scale)[:, None] * f64(w_scale)}

    # wgmma adds fp8 products at less than fp32 precision: over K = 8192 both compilers'
    # results stray up to 2x the usual tolerance from the float64 product
    return StyleCase("fp8 e4m3 matmul, row-wise scales, bf16 out", f"{m}x{n}x{k}", [launch],
                     {"c": c}, ref, "TFLOP/s", 2 * m * n * k, tol=3e-2)


def swiglu(device, small):
    m, n, k = (37, 45, 70) if small else (4096, 4096, 4096)
    bm, bn, bk, warps = (16, 32, 16, 4) if small else (128, 128, 64, 8)
    x = randn((m, k), device)
    w1, w3 = randn((k, n), device, scale=0.05), randn((k, n), device, scale=0.05)
    out = empty((m, n), device)
    launch = Launch("matmul_swiglu", (cdiv(m, bm) * cdiv(n, bn),),
                    [x, w1, w3, out, m, n, k, x.stride(0), w1.stride(0), out.stride(0)],
                    dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                         num_stages=3))

    def ref():
        g, u = f64(x) @ f64(w1), f64(x) @ f64(w3)
        return {"out": torch.nn.functional.silu(g) * u}

    return StyleCase("SwiGLU matmul, two accumulators in one loop", f"{m}x{n}x{k}", [launch],
                     {"out": out}, ref, "TFLOP/s", 4 * m * n * k)


def _route(tokens, experts, top_k, block_m, device):
    """Sorted token ids (slot = token * top_k + j) grouped by expert, each group padded to
    block_m with tokens * top_k, and the expert of each block."""
    gen = torch.Generator().manual_seed(tokens)
    chosen = torch.rand(tokens, experts, generator=gen).topk(top_k, 1).indices.reshape(-1)
    ids, blocks = [], []
    for e in range(experts):
        slots = (chosen == e).nonzero().flatten()
        pad = -len(slots) % block_m
        ids.append(torch.cat([slots, torch.full((pad,), tokens * top_k)]))
        blocks += [e] * ((len(slots) + pad) // block_m)
    return (chosen, torch.cat(ids).to(device=device, dtype=torch.int32),
            torch.tensor(blocks, device=device, dtype=torch.int32))


def moe(device, small):
    tokens, experts, top_k, n, k = (40, 4, 2, 48, 80) if small else (4096, 8, 2, 4096, 4096)
    bm, bn, bk, warps = (16, 32, 32, 4) if small else (64, 128, 64, 4)
    chosen, sorted_ids, expert_ids = _route(tokens, experts, top_k, bm, "cpu")
    a = randn((tokens, k), device)
    w = randn((experts, n, k), device, scale=0.05)
    c = empty((tokens * top_k, n), device)
    padded = len(sorted_ids)
    launch = Launch("moe_matmul", (cdiv(padded, bm) * cdiv(n, bn),),
                    [a, w, c, sorted_ids.to(device), expert_ids.to(device), padded, n, k,
                     tokens * top_k, a.stride(0), w.stride(0), w.stride(1), c.stride(0)],
                    dict(TOP_K=top_k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                         num_warps=warps, num_stages=4))

    def ref():
        rows, experts_of = f64(a).repeat_interleave(top_k, 0), chosen.to(device)
        out = torch.empty(tokens * top_k, n, device=device, dtype=torch.float64)
        for e in range(experts):
            out[experts_of == e] = rows[experts_of == e] @ f64(w[e]).T
        return {"c": out}

    return StyleCase("mixture-of-experts matmul, gathered rows", f"{tokens}x{top_k}x{n}x{k}",
                     [launch], {"c": c}, ref, "TFLOP/s", 2 * tokens * top_k * n * k)


def _rotary(kernel, style):
    def build(device, small):
        tokens, heads, d = (7, 5, 16) if small else (8192, 32, 128)
        block_h = 4 if small else 16
        x = randn((tokens, heads, d), device)
        angle = torch.rand(tokens, d // 2, device=device) * 6.3
        cos, sin = angle.cos(), angle.sin()
        out = empty((tokens, heads, d), device)
        launch = Launch(kernel, (tokens, cdiv(heads, block_h)),
                        [x, cos, sin, out, heads, x.stride(0), x.stride(1)],
                        dict(HEAD_DIM=d, BLOCK_H=block_h, num_warps=4))

        def ref():
            xf, c, s = f64(x), f64(cos)[:, None, :], f64(sin)[:, None, :]
            if style == "halves":
                x1, x2 = xf[..., : d // 2], xf[..., d // 2:]
                return {"out": torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)}
            x1, x2 = xf[..., 0::2], xf[..., 1::2]
            return {"out": torch.stack([x1 * c - x2 * s, x2 * c + x1 * s], -1).flatten(-2)}

        return StyleCase(f"rotary embedding, {style}", f"{tokens}x{heads}x{d}", [launch],
                         {"out": out}, ref, "GB/s", 2 * x.numel() * 2 + 2 * cos.numel() * 4)

    build.__name__ = f"rotary_{style}"
    return build


def _decode_attention(seq_len, small_seq):
    def build(device, small):
        batch, kv_heads, group, d = (2, 2, 4, 32) if small else (16, 8, 4, 128)
        t = small_seq if small else seq_len
        splits, block_n = (4, 16) if small else (16, 64)
        heads = kv_heads * group
        q = randn((batch, heads, d), device)
        k, v = randn((batch, t, kv_heads, d), device), randn((batch, t, kv_heads, d), device)
        part_o = empty((batch * heads * splits, d), device, torch.float32)
        part_lse = empty((batch * heads * splits,), device, torch.float32)
        o = empty((batch, heads, d), device)
        scale = 1 / math.sqrt(d)
        launches = [
            Launch("decode_attention_split", (batch, kv_heads, splits),
                   [q, k, v, part_o, part_lse, t, scale, q.stride(0), q.stride(1), k.stride(0),
                    k.stride(1), k.stride(2)],
                   dict(GROUP=group, HEAD_DIM=d, BLOCK_G=16, BLOCK_N=block_n, SPLITS=splits,
                        num_warps=4, num_stages=3)),
            Launch("decode_attention_reduce", (batch * heads,), [part_o, part_lse, o],
                   dict(HEAD_DIM=d, SPLITS=splits, num_warps=4)),
        ]

        def ref():
            kk = f64(k).repeat_interleave(group, 2).permute(0, 2, 3, 1)  # B H D T
            vv = f64(v).repeat_interleave(group, 2).transpose(1, 2)  # B H T D
            p = torch.softmax((f64(q)[:, :, None, :] @ kk) * scale, -1)
            return {"o": (p @ vv)[:, :, 0, :]}

        return StyleCase("split-KV decode attention, grouped heads", f"{batch}x{heads}x{t}x{d}",
                         launches, {"o": o, "part_o": part_o, "part_lse": part_lse}, ref, "GB/s",
                         2 * k.numel() * 2)

    build.__name__ = f"decode_attention_{seq_len}"
    return build


def conv2d(device, small):
    nb, h, w, c, k_out = (2, 5, 7, 32, 40) if small else (32, 56, 56, 256, 256)
    bm, bn, bk, warps = (16, 16, 16, 4) if small else (128, 128, 64, 4)
    x = randn((nb, h, w, c), device)
    wt = randn((3, 3, c, k_out), device, scale=0.05)
    y = empty((nb, h, w, k_out), device)
    launch = Launch("conv2d_nhwc", (cdiv(nb * h * w, bm) * cdiv(k_out, bn),),
                    [x, wt, y, nb, h, w, c, k_out],
                    dict(R=3, S=3, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                         num_warps=warps, num_stages=3))

    def ref():
        out = torch.nn.functional.conv2d(f64(x).permute(0, 3, 1, 2),
                                         f64(wt).permute(3, 2, 0, 1), padding=1)
        return {"y": out.permute(0, 2, 3, 1)}

    return StyleCase("3x3 convolution, implicit GEMM over NHWC", f"{nb}x{h}x{w}x{c}->{k_out}",
                     [launch], {"y": y}, ref, "TFLOP/s", 2 * nb * h * w * k_out * 9 * c)


CASES = [
    _w8a16((4096, 4096, 4096), (37, 45, 70)),
    _w8a16((16, 8192, 8192), (13, 70, 100)),
    _w8a16((4096, 4096, 4096), (37, 45, 70), n_by_k=True),
    _w8a16((16, 8192, 8192), (13, 70, 100), n_by_k=True),
    _w4a16((4096, 4096, 4096), (37, 45, 64)),
    _w4a16((16, 8192, 8192), (13, 70, 64)),
    fp8_rowwise,
    swiglu,
    moe,
    _rotary("rotary_halves", "halves"),
    _rotary("rotary_interleaved", "interleaved"),
    _decode_attention(8000, 100),
    _decode_attention(32768, 120),
    conv2d,
]

QUICK = {"w8a16_m4096", "w8a16_m16", "w8a16_m16_nk", "w4a16_m16", "fp8_rowwise", "swiglu",
         "moe", "rotary_halves", "rotary_interleaved", "decode_attention_8000", "conv2d"}


if __name__ == "__main__":
    main(CASES, QUICK, INFERENCE_KERNELS, __doc__)
