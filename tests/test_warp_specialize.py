"""Warp specialization (`tl.range(..., warp_specialize=True)`, sm_90): a producer
warpgroup copies the ring's tiles by TMA while the kernel's warps multiply them.

On the CPU: which loops get a producer (TTGIR), the producer's and consumers' PTX
(mbarriers both ways, `setmaxnreg` with 8 consumer warps, the launch's threads) and
ptxas without spills; the kernels in the interpreter. On an sm_90 GPU: persistent and
one-tile-per-program matmuls at ragged sizes, with programs walking several tiles so the
ring's phases run on across them, against float64."""

import pytest
import torch

import tritonc
import tritonc.language as tl


@tritonc.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PROGRAMS: tl.constexpr,
                      B_NK: tl.constexpr, SPECIALIZE: tl.constexpr):
    """C (M x N) = A (M x K) @ B, B given as K x N or (B_NK) as N x K, fp16, all
    row-major, the tiles visited by PROGRAMS programs in turn."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    if B_NK:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                           block_shape=[BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                           block_shape=[BLOCK_K, BLOCK_N])
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, warp_specialize=SPECIALIZE):
        off_m = tile // tiles_n * BLOCK_M
        off_n = tile % tiles_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([off_m, k * BLOCK_K])
            if B_NK:
                b = b_desc.load([off_n, k * BLOCK_K]).T
            else:
                b = b_desc.load([k * BLOCK_K, off_n])
            acc = tl.dot(a, b, acc)
        rows = off_m + tl.arange(0, BLOCK_M)
        cols = off_n + tl.arange(0, BLOCK_N)
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16),
                 mask=(rows[:, None] < M) & (cols[None, :] < N))


@tritonc.jit
def tile_matmul(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """One C tile per program: relu(A @ B + bias) in fp16, the K loop warp-specialized."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
        acc += tl.dot(a_desc.load([off_m, k]), b_desc.load([k, off_n]))
    rows = off_m + tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    acc += tl.load(bias_ptr + cols, mask=cols < N, other=0.0)[None, :]
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], tl.maximum(acc, 0.0).to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@tritonc.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, seq, scale, HEAD: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """softmax(Q K^T * scale) V for one head (seq x HEAD, fp16, row-major), the key loop
    asking for warp specialization as the attention tutorial writes it."""
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[seq, HEAD], strides=[HEAD, 1],
                                       block_shape=[BLOCK_M, HEAD])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[seq, HEAD], strides=[HEAD, 1],
                                       block_shape=[BLOCK_N, HEAD])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[seq, HEAD], strides=[HEAD, 1],
                                       block_shape=[BLOCK_N, HEAD])
    off_m = tl.program_id(0) * BLOCK_M
    q = q_desc.load([off_m, 0])
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD), tl.float32)
    for start in tl.range(0, seq, BLOCK_N, warp_specialize=True):
        cols = start + tl.arange(0, BLOCK_N)
        s = tl.dot(q, k_desc.load([start, 0]).T) * scale
        s = tl.where(cols[None, :] < seq, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v_desc.load([start, 0]))
        m_i = m_new
    rows = off_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD)
    tl.store(o_ptr + rows[:, None] * HEAD + dims[None, :], (acc / l_i[:, None]).to(tl.float16),
             mask=rows[:, None] < seq)


def _attention_reference(q, k, v, scale):
    s = (q.double() @ k.double().T) * scale
    return torch.softmax(s, dim=-1) @ v.double()


PERSISTENT_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
                  "N": "i32", "K": "i32"}
TILE_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "bias_ptr": "*fp32",
            "M": "i32", "N": "i32", "K": "i32"}
DIVISIBLE = {"a_ptr", "b_ptr", "c_ptr", "bias_ptr", "N", "K"}


def _persistent(arch=90, num_warps=8, specialize=True, b_nk=False, block_n=256, stages=3,
                block_m=128):
    return tritonc.compile(persistent_matmul, PERSISTENT_SIG,
                           dict(BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=64, PROGRAMS=132,
                                B_NK=b_nk, SPECIALIZE=specialize),
                           target=f"cuda:{arch}", num_warps=num_warps, num_stages=stages,
                           divisible_by_16=DIVISIBLE)


def _ring_loop(ttgir: str) -> str:
    return next(line for line in ttgir.splitlines() if "ttg.ring_buffers" in line)


@pytest.mark.parametrize("b_nk", [False, True])
def test_the_ring_loop_gets_a_producer(b_nk):
    ttgir = _persistent(b_nk=b_nk).asm["ttgir"]
    assert "ttg.warp_specialized" in _ring_loop(ttgir)
    assert "ttg.producer_warps = 4" in ttgir
    # no spare buffer: the producer refills a buffer as soon as its wgmma is done
    assert "ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3" in _ring_loop(ttgir)


@pytest.mark.parametrize("arch,specialize", [(80, True), (90, False)])
def test_no_producer_without_hopper_or_the_request(arch, specialize):
    kernel = _persistent(arch=arch, specialize=specialize)
    assert "ttg.producer_warps" not in kernel.asm["ttgir"]
    assert "setmaxnreg" not in kernel.asm["ptx"]
    assert kernel.metadata.get("producer_warps") is None


def test_pointer_tiles_get_no_producer():
    """cp.async copies of pointer tiles need every thread: the loop runs as before."""
    @tritonc.jit
    def pointer_matmul(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in tl.range(0, K, BLOCK, warp_specialize=True):
            a = tl.load(a_ptr + offs[:, None] * K + (k + offs)[None, :])
            b = tl.load(b_ptr + (k + offs)[:, None] * BLOCK + offs[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)

    kernel = tritonc.compile(pointer_matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16",
                                              "c_ptr": "*fp32", "K": "i32"},
                             dict(BLOCK=64), target="cuda:90", num_warps=4, num_stages=3,
                             divisible_by_16={"a_ptr", "b_ptr", "c_ptr", "K"})
    assert "ttg.pipelined" in kernel.asm["ttgir"]
    assert "ttg.producer_warps" not in kernel.asm["ttgir"]


def test_attention_keeps_its_loop():
    """Two dots and a softmax between them: the key loop is pipelined as without the
    request, all warps copying and multiplying (Triton too specializes it on sm_100 only)."""
    kernel = tritonc.compile(attention, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16",
                                         "o_ptr": "*fp16", "seq": "i32", "scale": "fp32"},
                             dict(HEAD=64, BLOCK_M=128, BLOCK_N=64), target="cuda:90",
                             num_warps=4, num_stages=3,
                             divisible_by_16={"q_ptr", "k_ptr", "v_ptr", "o_ptr", "seq"})
    assert "ttg.pipelined" in kernel.asm["ttgir"]
    assert "ttg.producer_warps" not in kernel.asm["ttgir"]
    assert "wgmma.mma_async" in kernel.asm["ptx"] and "cp.async.bulk.tensor" in kernel.asm["ptx"]
    assert kernel.metadata["threads"] == 128


# (warps asked for, tile, consumer warps, threads, registers the roles set): a 128-row
# tile on one warpgroup runs on two consumer warpgroups (`consumer_warps`), a 64-row one
# on one
@pytest.mark.parametrize("asked,tile,num_warps,threads,registers", [
    (8, (128, 256), 8, 384, (40, 232)), (4, (128, 128), 8, 384, (40, 232)),
    (4, (64, 128), 4, 256, None)])
def test_the_roles_in_the_ptx(asked, tile, num_warps, threads, registers):
    kernel = _persistent(num_warps=asked, block_m=tile[0], block_n=tile[1])
    ptx = kernel.asm["ptx"]
    assert f".reqntid {threads}, 1, 1" in ptx
    assert kernel.metadata["producer_warps"] == 4 and kernel.metadata["num_warps"] == num_warps
    # full barriers wait for one arrival (and the bytes), empty ones for each consumer warp
    assert ptx.count("mbarrier.init.shared::cta.b64") == 6
    assert f"], {num_warps};" in ptx
    assert "mbarrier.arrive.shared::cta.b64" in ptx  # consumers give buffers back
    assert "cp.async.bulk.tensor.2d" in ptx and "mbarrier.try_wait.parity" in ptx
    assert f"bar.sync 1, {32 * num_warps};" in ptx or "bar.sync 1," not in ptx
    # one consumer warpgroup keeps its wgmma in flight; two wait for it in the iteration
    assert ("wgmma.wait_group.sync.aligned 1;" in ptx) == (num_warps == 4)
    if registers is None:
        assert "setmaxnreg" not in ptx
    else:
        assert f"setmaxnreg.dec.sync.aligned.u32 {registers[0]};" in ptx
        assert f"setmaxnreg.inc.sync.aligned.u32 {registers[1]};" in ptx
    report = kernel.metadata["ptxas"]
    assert report["spill_stores"] == 0 and report["spill_loads"] == 0
    assert report["registers"] * threads <= 64 * 1024


def test_a_warp_specialized_k_loop():
    kernel = tritonc.compile(tile_matmul, TILE_SIG, dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64),
                             target="cuda:90", num_warps=4, num_stages=4,
                             divisible_by_16=DIVISIBLE)
    assert "ttg.warp_specialized" in _ring_loop(kernel.asm["ttgir"])
    assert ".reqntid 384, 1, 1" in kernel.asm["ptx"]  # two consumer warpgroups


@pytest.mark.parametrize("specialize, knob, warps", [(True, "1", 8), (False, "1", 4),
                                                     (True, "0", 4)])
def test_a_128_row_tile_on_one_warpgroup_gets_two_consumer_warpgroups(specialize, knob, warps,
                                                                      monkeypatch):
    """Asked for warp specialization, 4 warps and a 128 x 128 tile copied by TMA run as
    8 consumer warps (each warpgroup 64 rows: one m64n128k16 wgmma per K step where one
    warpgroup issued two) beside the producer; not asked for, or with the knob off, the
    kernel keeps its 4 warps."""
    monkeypatch.setenv("TRITONC_WARP_SPECIALIZE", knob)
    kernel = _persistent(num_warps=4, block_n=128, specialize=specialize)
    assert kernel.metadata["num_warps"] == warps
    assert f'"ttg.num-warps" = {warps}' in kernel.asm["ttgir"]
    assert f"#ttg.mma<[{warps}, 1]>" in kernel.asm["ttgir"]
    assert kernel.asm["ptx"].count("wgmma.mma_async") == 4 * 8 // warps
    assert kernel.metadata["threads"] == 32 * warps + (128 if warps == 8 else 0)


@tritonc.jit
def batched_products(x_ptr, out_ptr, steps, BATCH: tl.constexpr, ROWS: tl.constexpr):
    offs = (tl.arange(0, BATCH)[:, None, None] * ROWS * ROWS
            + tl.arange(0, ROWS)[None, :, None] * ROWS + tl.arange(0, ROWS)[None, None, :])
    acc = tl.zeros((BATCH, ROWS, ROWS), dtype=tl.float32)
    for _ in tl.range(0, steps, warp_specialize=True):
        x = tl.load(x_ptr + offs)
        acc = tl.dot(x, x, acc)
    tl.store(out_ptr + offs, acc)


def test_a_batched_dot_keeps_its_warps():
    """A 3-D dot in a loop asking for warp specialization: no wgmma, no producer, the
    warps asked for."""
    kernel = tritonc.compile(batched_products, {"x_ptr": "*fp16", "out_ptr": "*fp32",
                                                "steps": "i32"},
                             dict(BATCH=2, ROWS=128), target="cuda:90", num_warps=4,
                             num_stages=3, divisible_by_16={"x_ptr", "out_ptr"})
    assert kernel.metadata["num_warps"] == 4 and "producer_warps" not in kernel.metadata


def _operands(m, n, k, device, b_nk=False):
    a = torch.randn(m, k, device=device).half()
    b = torch.randn((n, k) if b_nk else (k, n), device=device).half()
    expected = a.double() @ (b.double().T if b_nk else b.double())
    return a, b, expected


def test_the_kernels_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(1)
    a, b, expected = _operands(40, 24, 40, "cpu")
    c = torch.full((40, 24), float("nan"), dtype=torch.float16)
    persistent_matmul[(2,)](a, b, c, 40, 24, 40, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16,
                            PROGRAMS=2, B_NK=False, SPECIALIZE=True)
    torch.testing.assert_close(c.double(), expected, rtol=2e-3, atol=2e-3)
    bias = torch.randn(24)
    out = torch.full((40, 24), float("nan"), dtype=torch.float16)
    tile_matmul[(3, 2)](a, b, out, bias, 40, 24, 40, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    torch.testing.assert_close(out.double(), (expected + bias.double()).clamp(min=0),
                               rtol=2e-3, atol=2e-3)


def test_attention_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    torch.manual_seed(2)
    seq = 40
    q, k, v = (torch.randn(seq, 16).half() for _ in range(3))
    out = torch.full((seq, 16), float("nan"), dtype=torch.float16)
    attention[(3,)](q, k, v, out, seq, 0.25, HEAD=16, BLOCK_M=16, BLOCK_N=16)
    torch.testing.assert_close(out.double(), _attention_reference(q, k, v, 0.25),
                               rtol=2e-3, atol=2e-3)


def _hopper():
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("warp specialization copies by TMA, sm_90 on")


# N and K multiples of 16 (rows of 16-byte multiples, which TMA needs), none of the
# blocks: masked edges in M, N and K, and a K below one block
@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(1000, 784, 528), (300, 272, 48), (129, 528, 1040)])
@pytest.mark.parametrize("num_warps,block_m,block_n", [(8, 128, 256), (4, 128, 128),
                                                      (4, 64, 128)])
@pytest.mark.parametrize("b_nk", [False, True])
def test_persistent_on_the_gpu(m, n, k, num_warps, block_m, block_n, b_nk):
    _hopper()
    torch.manual_seed(m + n + k)
    a, b, expected = _operands(m, n, k, "cuda", b_nk)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    programs = 5  # each walks several tiles: the ring's phases run on across them
    meta = dict(BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=64, PROGRAMS=programs, B_NK=b_nk,
                SPECIALIZE=True, num_warps=num_warps, num_stages=3)
    persistent_matmul[(programs,)](a, b, c, m, n, k, **meta)
    torch.testing.assert_close(c.double(), expected, rtol=2e-3, atol=3e-2)
    compiled = persistent_matmul.warmup(a, b, c, m, n, k, grid=(programs,), **meta)
    assert compiled.metadata.get("producer_warps") == 4


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(520, 400, 1008), (64, 144, 64)])
@pytest.mark.parametrize("stages", [2, 4])
def test_k_loop_on_the_gpu(m, n, k, stages):
    _hopper()
    torch.manual_seed(m + k)
    a, b, expected = _operands(m, n, k, "cuda")
    bias = torch.randn(n, device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = (tritonc.cdiv(m, 128), tritonc.cdiv(n, 128))
    meta = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=stages)
    tile_matmul[grid](a, b, out, bias, m, n, k, **meta)
    torch.testing.assert_close(out.double(), (expected + bias.double()).clamp(min=0),
                               rtol=2e-3, atol=3e-2)
    compiled = tile_matmul.warmup(a, b, out, bias, m, n, k, grid=grid, **meta)
    assert compiled.metadata.get("producer_warps") == 4


@pytest.mark.gpu
@pytest.mark.parametrize("seq", [1000, 208])
def test_attention_on_the_gpu(seq):
    torch.manual_seed(seq)
    q, k, v = (torch.randn(seq, 64, device="cuda").half() for _ in range(3))
    out = torch.full((seq, 64), float("nan"), device="cuda", dtype=torch.float16)
    attention[(tritonc.cdiv(seq, 128),)](q, k, v, out, seq, 0.125, HEAD=64, BLOCK_M=128,
                                         BLOCK_N=64, num_warps=4, num_stages=3)
    torch.testing.assert_close(out.double(), _attention_reference(q, k, v, 0.125),
                               rtol=2e-3, atol=2e-3)


def test_the_knob_turns_it_off(monkeypatch):
    monkeypatch.setenv("TRITONC_WARP_SPECIALIZE", "0")
    kernel = _persistent()
    assert "ttg.producer_warps" not in kernel.asm["ttgir"]
    assert ".reqntid 256, 1, 1" in kernel.asm["ptx"]


def test_a_ring_that_does_not_fit_beside_the_scratch_keeps_the_loop_as_it_was():
    """4 stages of 128 x 256 x 64 fp16 tiles (192 KB) fit over the epilogue's scratch area
    (64 KB) but not beside it: the lowering returns to the plan without a producer."""
    kernel = _persistent(stages=4)
    assert "ttg.warp_specialized" in kernel.asm["ttgir"]  # asked for, and planned
    assert kernel.metadata.get("producer_warps") is None
    assert ".reqntid 256, 1, 1" in kernel.asm["ptx"] and "setmaxnreg" not in kernel.asm["ptx"]
    plain = _persistent(stages=4, specialize=False)
    assert kernel.metadata["shared"] == plain.metadata["shared"] <= 227 * 1024
