"""The model set run under torch.compile with tritonc as `triton`.

Each `Workload` builds a function and its inputs for a device at one of two sizes:
`small` (the CPU tests, interpreted) or full (the GPU test and benchmark). `check`
compares a compiled run against eager: outputs, and gradients of the inputs that
require them when the workload has a backward. Dropout draws differ from eager's by
design (another generator), so its check is structural: every output is 0 or x/(1-p)
and the kept fraction is near 1-p.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F


@dataclass
class Workload:
    name: str
    make: Callable[[str, bool], tuple[Callable, tuple]]
    backward: bool = False
    dynamic: bool = False
    mode: str | None = None
    atol: float = 1e-4
    rtol: float = 1e-4
    cpu: bool = True  # part of the CPU subset
    check: str = "close"  # or "dropout"
    second_sizes: Callable[[str, bool], tuple] | None = None  # dynamic: another call
    tags: tuple[str, ...] = field(default=())


def _randn(*shape: int, device: str, grad: bool = False, dtype=torch.float32) -> torch.Tensor:
    return torch.randn(*shape, device=device, dtype=dtype).requires_grad_(grad)


def _mlp(act: Callable) -> Callable[[str, bool], tuple]:
    def make(device: str, small: bool) -> tuple[Callable, tuple]:
        n, d, h = (13, 24, 40) if small else (4096, 1024, 4096)
        w1 = _randn(h, d, device=device) / math.sqrt(d)
        w2 = _randn(d, h, device=device) / math.sqrt(h)
        b1 = _randn(h, device=device)

        def fn(x):
            return F.linear(act(F.linear(x, w1, b1)), w2)

        return fn, (_randn(n, d, device=device),)

    return make


def _swiglu(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d, h = (11, 24, 36) if small else (4096, 1024, 2816)
    wg = _randn(h, d, device=device) / math.sqrt(d)
    wu = _randn(h, d, device=device) / math.sqrt(d)
    wd = _randn(d, h, device=device) / math.sqrt(h)

    def fn(x):
        return F.linear(F.silu(F.linear(x, wg)) * F.linear(x, wu), wd)

    return fn, (_randn(n, d, device=device),)


def _layer_norm(grad: bool) -> Callable[[str, bool], tuple]:
    def make(device: str, small: bool) -> tuple[Callable, tuple]:
        n, d = (19, 100) if small else (8192, 4096)
        w = _randn(d, device=device, grad=grad)
        b = _randn(d, device=device, grad=grad)

        def fn(x, w, b):
            return F.layer_norm(x, (d,), w, b)

        return fn, (_randn(n, d, device=device, grad=grad), w, b)

    return make


def _rms_norm(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d = (17, 96) if small else (8192, 4096)

    def fn(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    return fn, (_randn(n, d, device=device, grad=True), _randn(d, device=device, grad=True))


def _group_norm(device: str, small: bool) -> tuple[Callable, tuple]:
    n, c, hw = (3, 8, 5) if small else (32, 256, 32)

    def fn(x, w, b):
        return F.group_norm(x, 4, w, b)

    return fn, (_randn(n, c, hw, hw, device=device, grad=True),
                _randn(c, device=device, grad=True), _randn(c, device=device, grad=True))


def _batch_norm(device: str, small: bool) -> tuple[Callable, tuple]:
    n, c, hw = (3, 6, 5) if small else (64, 256, 28)

    def fn(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True)

    return fn, (_randn(n, c, hw, hw, device=device, grad=True),
                _randn(c, device=device, grad=True), _randn(c, device=device, grad=True))


def _rowwise(op: Callable) -> Callable[[str, bool], tuple]:
    def make(device: str, small: bool) -> tuple[Callable, tuple]:
        n, d = (21, 77) if small else (8192, 8192)
        return op, (_randn(n, d, device=device) * 3,)

    return make


def _cross_entropy(device: str, small: bool) -> tuple[Callable, tuple]:
    n, v = (13, 50) if small else (8192, 32000)
    target = torch.randint(0, v, (n,), device=device)

    def fn(logits):
        return F.cross_entropy(logits, target)

    return fn, (_randn(n, v, device=device, grad=True),)


class Block(torch.nn.Module):
    """A pre-norm transformer block: causal attention and a GELU MLP."""

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.norm2 = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        attn = scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.down(F.gelu(self.up(self.norm2(x)), approximate="tanh"))


def _transformer(train: bool) -> Callable[[str, bool], tuple]:
    def make(device: str, small: bool) -> tuple[Callable, tuple]:
        b, s, d, heads = (2, 8, 32, 2) if small else (8, 1024, 1024, 16)
        block = Block(d, heads).to(device)
        params = list(block.parameters())

        def fn(x, *ps):
            return block(x)

        return fn, (_randn(b, s, d, device=device, grad=train), *params)

    return make


def _embedding(device: str, small: bool) -> tuple[Callable, tuple]:
    v, d, b, s = (50, 16, 2, 9) if small else (50000, 1024, 16, 1024)
    pos = _randn(s, d, device=device)
    idx = torch.randint(0, v, (b, s), device=device)

    def fn(w):
        return F.embedding(idx, w) * math.sqrt(d) + pos

    return fn, (_randn(v, d, device=device, grad=True),)


def _gather(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d, k = (12, 30, 7) if small else (4096, 4096, 512)
    index = torch.randint(0, d, (n, k), device=device)

    def fn(x):
        return torch.gather(x, 1, index) * 2.0

    return fn, (_randn(n, d, device=device),)


def _scatter_add(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d, m = (40, 8, 10) if small else (1 << 20, 64, 4096)
    index = torch.randint(0, m, (n,), device=device)

    def fn(src):
        out = torch.zeros(m, d, device=src.device)
        return out.index_add(0, index, src)

    return fn, (_randn(n, d, device=device),)


def _index_put(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d, m = (30, 6, 9) if small else (1 << 18, 128, 8192)
    index = torch.randperm(n, device=device)[:m]

    def fn(x, vals):
        y = x.clone()
        y[index] = vals * 2
        return y

    return fn, (_randn(n, d, device=device), _randn(m, d, device=device))


def _scan(op: Callable) -> Callable[[str, bool], tuple]:
    def make(device: str, small: bool) -> tuple[Callable, tuple]:
        n, d = (9, 33) if small else (4096, 4096)
        return op, (_randn(n, d, device=device),)

    return make


def _dropout(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d = (16, 64) if small else (8192, 8192)

    def fn(x):
        return F.dropout(x, p=0.25, training=True)

    return fn, (torch.rand(n, d, device=device) + 0.5,)


def _pooling(device: str, small: bool) -> tuple[Callable, tuple]:
    n, c, hw = (2, 3, 10) if small else (64, 128, 56)

    def fn(x):
        return F.max_pool2d(x, 3, 2, 1) + F.avg_pool2d(x, 3, 2, 1)

    return fn, (_randn(n, c, hw, hw, device=device),)


def _dynamic(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d = (11, 40) if small else (4096, 3000)

    def fn(x, y):
        return torch.tanh(x) * y.softmax(-1) + x.sum(-1, keepdim=True)

    return fn, (_randn(n, d, device=device), _randn(n, d, device=device))


def _dynamic_second(device: str, small: bool) -> tuple:
    n, d = (7, 29) if small else (3000, 2049)
    return (_randn(n, d, device=device), _randn(n, d, device=device))


def _var_mean(device: str, small: bool) -> tuple[Callable, tuple]:
    n, d = (5, 3000) if small else (64, 1 << 20)

    def fn(x):
        var, mean = torch.var_mean(x, dim=-1)
        return var + mean, x.amax(-1), torch.relu(x).sum(-1)

    return fn, (_randn(n, d, device=device),)


def _matmul(kind: str) -> Callable[[str, bool], tuple]:
    def make(device: str, small: bool) -> tuple[Callable, tuple]:
        m, n, k = (64, 48, 32) if small else (4096, 4096, 4096)
        dtype = torch.float32 if device == "cpu" else torch.float16
        a = _randn(m, k, device=device, dtype=dtype)
        b = _randn(k, n, device=device, dtype=dtype)
        if kind == "mm":
            return (lambda x, y: torch.relu(x @ y)), (a, b)
        if kind == "addmm":
            bias = _randn(n, device=device, dtype=dtype)
            return (lambda x, y, z: torch.addmm(z, x, y)), (a, b, bias)
        batch = 4 if small else 16
        a = _randn(batch, m // 4 if not small else m, k, device=device, dtype=dtype)
        b = _randn(batch, k, n, device=device, dtype=dtype)
        return (lambda x, y: torch.bmm(x, y) * 0.5), (a, b)

    return make


def _flex_attention(device: str, small: bool) -> tuple[Callable, tuple]:
    from torch.nn.attention.flex_attention import flex_attention

    b, h, s, d = (1, 2, 128, 32) if small else (8, 16, 2048, 64)

    def causal(score, b, h, q, kv):
        return torch.where(q >= kv, score, -float("inf"))

    def fn(q, k, v):
        return flex_attention(q, k, v, score_mod=causal)

    dtype = torch.float16 if device != "cpu" else torch.float32
    return fn, tuple(_randn(b, h, s, d, device=device, dtype=dtype) for _ in range(3))


WORKLOADS: list[Workload] = [
    Workload("mlp_gelu", _mlp(F.gelu), atol=1e-3, rtol=1e-3),
    Workload("mlp_silu_swiglu", _swiglu, atol=1e-3, rtol=1e-3),
    Workload("layer_norm_fwd", _layer_norm(False)),
    Workload("layer_norm_fwd_bwd", _layer_norm(True), backward=True, atol=1e-3, rtol=1e-3),
    Workload("rms_norm_fwd_bwd", _rms_norm, backward=True, atol=1e-3, rtol=1e-3),
    Workload("group_norm_fwd_bwd", _group_norm, backward=True, atol=1e-3, rtol=1e-3),
    Workload("batch_norm_fwd_bwd", _batch_norm, backward=True, atol=1e-3, rtol=1e-3),
    Workload("softmax", _rowwise(lambda x: torch.softmax(x, -1))),
    Workload("log_softmax", _rowwise(lambda x: torch.log_softmax(x, -1))),
    Workload("cross_entropy_fwd_bwd", _cross_entropy, backward=True, atol=1e-4, rtol=1e-3),
    Workload("transformer_block_infer", _transformer(False), atol=2e-3, rtol=2e-3),
    Workload("transformer_block_train", _transformer(True), backward=True, atol=2e-3,
             rtol=2e-3),
    Workload("embedding_positional_fwd_bwd", _embedding, backward=True),
    Workload("gather", _gather),
    Workload("scatter_add", _scatter_add, atol=1e-4),
    Workload("index_put", _index_put),
    Workload("cumsum", _scan(lambda x: torch.cumsum(x, -1)), atol=1e-3, rtol=1e-3),
    Workload("sort", _scan(lambda x: torch.sort(x, -1)[0])),
    Workload("argmax", _scan(lambda x: (torch.argmax(x, -1), torch.argmin(x, 0)))),
    Workload("topk", _scan(lambda x: torch.topk(torch.sigmoid(x), 5, -1)[0])),
    Workload("dropout", _dropout, check="dropout"),
    Workload("pooling", _pooling),
    Workload("dynamic_shapes", _dynamic, dynamic=True, second_sizes=_dynamic_second),
    Workload("welford_var_mean_amax", _var_mean, atol=1e-3, rtol=1e-3),
    Workload("max_autotune_mm", _matmul("mm"), mode="max-autotune-no-cudagraphs",
             atol=5e-2, rtol=1e-2, cpu=False),
    Workload("max_autotune_addmm", _matmul("addmm"), mode="max-autotune-no-cudagraphs",
             atol=5e-2, rtol=1e-2, cpu=False),
    Workload("max_autotune_bmm", _matmul("bmm"), mode="max-autotune-no-cudagraphs",
             atol=5e-2, rtol=1e-2, cpu=False),
    Workload("flex_attention", _flex_attention, atol=2e-2, rtol=2e-2, cpu=False),
]

BY_NAME = {w.name: w for w in WORKLOADS}


def _leaves(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _leaves(v)]
    return []


def _grads(fn: Callable, args: tuple,
           backward: bool) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """(outputs, gradients of the inputs that require them) of one run."""
    for a in args:
        if isinstance(a, torch.Tensor) and a.grad is not None:
            a.grad = None
    outs = _leaves(fn(*args))
    needs = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if not needs or not backward:
        return [o.detach() for o in outs], []
    loss = sum((o.float() * torch.linspace(0.5, 1.5, o.numel(), device=o.device)
                .view(o.shape)).sum() for o in outs if o.is_floating_point())
    grads = torch.autograd.grad(loss, needs, allow_unused=True)
    return [o.detach() for o in outs], [g for g in grads if g is not None]


def compile_fn(workload: Workload, fn: Callable) -> Callable:
    return torch.compile(fn, dynamic=True if workload.dynamic else None, mode=workload.mode)


def check(workload: Workload, device: str, small: bool) -> None:
    """Compile the workload, run it, compare with eager; raise AssertionError on mismatch."""
    torch._dynamo.reset()
    fn, args = workload.make(device, small)
    compiled = compile_fn(workload, fn)
    if workload.check == "dropout":
        x = args[0]
        out = compiled(x)
        kept = out != 0
        torch.testing.assert_close(out[kept], (x / 0.75)[kept], atol=1e-5, rtol=1e-5)
        frac = kept.float().mean().item()
        assert abs(frac - 0.75) < 0.1, f"kept fraction {frac}"
        return
    calls = [args] + ([workload.second_sizes(device, small)] if workload.second_sizes else [])
    for call in calls:
        with torch.no_grad() if not workload.backward else torch.enable_grad():
            got_out, got_grads = _grads(compiled, call, workload.backward)
            want_out, want_grads = _grads(fn, call, workload.backward)
        assert len(got_out) == len(want_out) and len(got_grads) == len(want_grads)
        for got, want in zip(got_out + got_grads, want_out + want_grads, strict=True):
            torch.testing.assert_close(got, want, atol=workload.atol, rtol=workload.rtol,
                                       check_dtype=True)
