"""torch.compile with tritonc as `triton`, on a machine without a GPU.

Inductor generates its Triton kernels for CPU tensors (`cpu_backend="triton"`), with
the same code generator it uses for CUDA; tritonc's `cpu` backend runs them in the
interpreter, and each workload's outputs and gradients are compared with eager. Every
kernel Inductor generated is then compiled again through the same `ASTSource` path
for sm_90 and sm_80, to PTX and cubin.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

torch = pytest.importorskip("torch")

import inductor_models as models  # noqa: E402

import tritonc.inductor  # noqa: E402

CPU_WORKLOADS = [w for w in models.WORKLOADS if w.cpu]


@pytest.fixture(scope="module")
def triton_alias(triton):
    """The alias installed for this module's tests, Inductor set to use it on the CPU."""
    import torch._inductor.config as config

    saved = {k: getattr(config, k) for k in ("cpu_backend", "compile_threads",
                                             "force_disable_caches")}
    config.cpu_backend = "triton"
    config.compile_threads = 1
    config.force_disable_caches = True
    yield triton
    for key, value in saved.items():
        setattr(config, key, value)
    torch._dynamo.reset()
    tritonc.inductor.uninstall()


@pytest.fixture
def captured(triton_alias, monkeypatch):
    """Every (ASTSource, options) Inductor compiles during the test."""
    calls = []
    compile_fn = triton_alias.compile

    def capture(src, target=None, options=None):
        calls.append((src, dict(options or {})))
        return compile_fn(src, target=target, options=options)

    monkeypatch.setattr(triton_alias, "compile", capture)
    return calls


def _distinct(calls):
    seen, out = set(), []
    for src, options in calls:
        key = (src.fn.src, repr(sorted(src.constants.items())), options.get("num_warps"))
        if key not in seen:
            seen.add(key)
            out.append((src, options))
    return out


@pytest.mark.parametrize("workload", CPU_WORKLOADS, ids=[w.name for w in CPU_WORKLOADS])
def test_workload_matches_eager_and_compiles_for_cuda(workload, captured, triton_alias):
    torch.manual_seed(0)
    models.check(workload, "cpu", small=True)
    kernels = _distinct(captured)
    assert kernels, "Inductor generated no Triton kernel"
    from tritonc.inductor.backends import GPUTarget

    for src, options in kernels:
        for arch in (90, 80):
            binary = triton_alias.compile(src, target=GPUTarget("cuda", arch, 32),
                                          options=options)
            assert f".target sm_{arch}" in binary.asm["ptx"]
            assert binary.asm["cubin"][:4] == b"\x7fELF"
            assert binary.metadata.num_warps == options["num_warps"]
            assert binary.n_regs and binary.n_regs > 0
            assert binary.n_spills is not None


def test_no_real_triton_is_imported(triton_alias):
    models.check(models.BY_NAME["softmax"], "cpu", small=True)
    names = [n for n in sys.modules if n == "triton" or n.startswith("triton.")]
    assert "triton" in names and "triton.language" in names
    for name in names:
        module = sys.modules[name]
        assert getattr(module, "__file__", None) is None, f"{name} is a real module"
        assert module.__spec__.origin is None
    assert importlib.util.find_spec("triton").loader is None
    assert sys.modules["triton"].__tritonc_version__


def test_alias_answers_inductor_queries(triton_alias):
    from torch._inductor.runtime import triton_compat
    from torch._inductor.utils import triton_version_uses_attrs_dict
    from torch.utils._triton import has_triton_package, triton_backend

    assert has_triton_package() and triton_compat.HAS_TRITON
    assert triton_compat.builtins_use_semantic_kwarg
    assert triton_version_uses_attrs_dict()
    assert triton_compat.libdevice.pow is not None
    assert triton_backend().hash()
    assert "cpu" in triton_alias.backends.backends
    key = triton_compat.triton_key()
    assert key.startswith("tritonc-") and key == triton_compat.triton_key()


def test_unsupported_torch_is_named():
    with pytest.raises(tritonc.inductor.UnsupportedTorch, match=r"torch 2\.4\.1 "):
        tritonc.inductor.check_torch("2.4.1")
    tritonc.inductor.check_torch("2.11.0+cu130")
    tritonc.inductor.check_torch(torch.__version__)
