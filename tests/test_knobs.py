"""`tritonc.knobs`: defaults, what the compile and launch paths read from it, the cache
keys it reaches, and the fresh/reset pair behind the `fresh_knobs` fixtures."""

import os
import re

import pytest

import tritonc
import tritonc.language as tl
from tritonc import knobs
from tritonc._internal_testing import _fresh_knobs_impl
from tritonc.backends.base import Target, get_backend
from tritonc.backends.cuda.options import CUDAOptions
from tritonc.runtime import gpu_launch, launch
from tritonc.runtime.cache import cache_dir

FMA = re.compile(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32")


@tritonc.jit
def mul_add(data):
    ptrs = data + tl.arange(0, 128)
    tl.store(ptrs, tl.load(ptrs) * 1.5 + 1.0)


@pytest.fixture
def fresh():
    fresh_function, reset_function = _fresh_knobs_impl()
    try:
        yield fresh_function()
    finally:
        reset_function()


def ptx() -> str:
    return tritonc.compile(mul_add, signature={"data": "*fp32"}, target="cuda:90").asm["ptx"]


def test_knobs_is_reachable_from_the_package():
    assert tritonc.knobs is knobs
    assert knobs.language.default_fp_fusion is True
    assert knobs.runtime.override_arch is None
    assert knobs.runtime.launch_enter_hook is None and knobs.runtime.jit_post_compile_hook is None


def test_default_fp_fusion_decides_fma_in_ptx(fresh):
    assert FMA.search(ptx())
    fresh.language.default_fp_fusion = False
    text = ptx()
    assert not FMA.search(text)
    assert re.search(r"\bmul(\.rn)?\.f32", text) and re.search(r"\badd(\.rn)?\.f32", text)


def test_explicit_enable_fp_fusion_beats_the_default(fresh):
    fresh.language.default_fp_fusion = False
    kernel = tritonc.compile(mul_add, signature={"data": "*fp32"}, target="cuda:90",
                             enable_fp_fusion=True)
    assert FMA.search(kernel.asm["ptx"])


def test_override_arch_picks_the_launch_target(fresh):
    assert gpu_launch.target_arch((9, 0)) == 90
    for text, arch in (("sm80", 80), ("sm_70", 70), ("90a", 90), ("86", 86)):
        fresh.runtime.override_arch = text
        assert gpu_launch.target_arch((9, 0)) == arch
    assert gpu_launch.target_arch((9, 0), "sm75") == 75  # the launch option wins
    fresh.runtime.override_arch = "gfx942"
    with pytest.raises(ValueError, match="not a CUDA architecture"):
        gpu_launch.target_arch((9, 0))


def test_fresh_and_reset_restore_defaults_and_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    original = knobs.language
    fresh_function, reset_function = _fresh_knobs_impl()
    fresh = fresh_function()
    assert fresh.language is not original and "TRITONC_CACHE_DIR" not in os.environ
    fresh.language.default_fp_fusion = False
    fresh.cache.dir = str(tmp_path / "elsewhere")
    assert "TRITONC_CACHE_DIR" not in os.environ  # propagate_env is off while fresh
    assert cache_dir() == tmp_path / "elsewhere"
    reset_function()
    assert knobs.language is original and knobs.language.default_fp_fusion is True
    assert os.environ["TRITONC_CACHE_DIR"] == str(tmp_path) and cache_dir() == tmp_path
    assert knobs.propagate_env is True


def test_reset_drops_assigned_values():
    group = knobs.language.copy()
    group.default_fp_fusion = False
    assert group.overrides() == {"default_fp_fusion": False}
    assert group.reset().default_fp_fusion is True and group.overrides() == {}


def test_scope_restores_values_and_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("TRITONC_CACHE_DIR", raising=False)
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)
        assert os.environ["TRITONC_CACHE_DIR"] == str(tmp_path) and cache_dir() == tmp_path
    assert "TRITONC_CACHE_DIR" not in os.environ
    assert "dir" not in knobs.cache.overrides()


def test_environment_defaults(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITONC_CACHE_AUTOTUNING", "1")
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    assert knobs.cache.dir == str(tmp_path)
    assert knobs.autotuning.cache is True and knobs.runtime.interpret is True
    with knobs.runtime.scope():
        knobs.runtime.interpret = False
        assert os.environ["TRITONC_INTERPRET"] == "0"
    assert os.environ["TRITONC_INTERPRET"] == "1"


def test_disk_cache_key_parts_follow_the_knobs(fresh):
    fused = CUDAOptions()
    fresh.language.default_fp_fusion = False
    assert CUDAOptions().enable_fp_fusion is False
    assert CUDAOptions().hash() != fused.hash()
    backend_hash = get_backend(Target("cuda", 90)).hash()
    fresh.nvidia.libdevice_path = "/elsewhere/libdevice.10.bc"
    assert get_backend(Target("cuda", 90)).hash() != backend_hash


def test_in_memory_keys_follow_the_knobs(fresh):
    before = gpu_launch.code_knobs()
    fresh.runtime.override_arch = "sm80"
    assert gpu_launch.code_knobs() != before


def test_code_knob_change_empties_hot_path_entries(fresh):
    table = mul_add.__dict__.setdefault("_fast_kernels", {})
    table["shape"] = object()
    launch._FAST_TABLES.add(mul_add)
    fresh.runtime.debug = True  # changes no code: entries stay
    assert "shape" in table
    fresh.language.default_fp_fusion = False
    assert table == {}
    table["shape"] = object()
    knobs.language = knobs.language.copy()  # a replaced group counts as a change
    assert table == {}
