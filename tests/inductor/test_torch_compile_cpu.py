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


def test_user_written_kernel_inside_a_compiled_function(triton_alias, captured):
    """A user's `@triton.jit` kernel called from a compiled function (Inductor's
    `triton_kernel_wrapper`): traced, written into Inductor's module with its helper
    and its `constexpr_function`, compiled and run by tritonc beside Inductor's own
    kernel for the ops around it."""
    user = importlib.import_module("user_kernels")
    triton = triton_alias

    def fn(x, y):
        out = torch.full_like(x, float("nan"))
        n = x.numel()
        user.axpy_kernel[(triton.cdiv(n, 64),)](x, y, out, 0.5, n, BLOCK=64)
        return torch.sin(out)

    torch.manual_seed(3)
    x, y = torch.randn(1000), torch.randn(1000)
    got = torch.compile(fn)(x, y)
    want = torch.sin(0.5 * x.double() + y.double())
    torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-5)
    names = {src.fn.__name__ for src, _ in captured}
    assert "axpy_kernel" in names and len(names) > 1  # the user's, and Inductor's sin
    assert isinstance(user.halves, triton.runtime.jit.ConstexprFunction)
    assert not isinstance(user._scaled, triton.runtime.jit.ConstexprFunction)
