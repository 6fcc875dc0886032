"""The opt-in: nothing without it; the alias with install(), TRITONC_AS_TRITON=1 + the
shim on PYTHONPATH (how torch's compile workers get it), or `python -m tritonc.inductor`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tritonc.inductor

ROOT = Path(__file__).resolve().parent.parent.parent


def _python(code: str, env_extra: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TRITONC_AS_TRITON", "PYTHONPATH")}
    env.update(env_extra)
    return subprocess.run([sys.executable, *args] if args else [sys.executable, "-c", code],
                          env=env, capture_output=True, text=True, timeout=300)


def _under_alias(code: str) -> subprocess.CompletedProcess:
    """`code` run in a child with the shim on its path and TRITONC_AS_TRITON=1, as torch's
    compile workers run."""
    path = os.pathsep.join([tritonc.inductor.shim_path(), str(ROOT)])
    return _python(code, {"PYTHONPATH": path, "TRITONC_AS_TRITON": "1"})


def test_importing_tritonc_registers_nothing():
    proc = _python("import sys, tritonc, tritonc.language, tritonc.inductor\n"
                   "print(sorted(n for n in sys.modules if n.split('.')[0] == 'triton'))",
                   {"PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_shim_with_the_variable_installs_the_alias():
    code = ("import triton, triton.language as tl, sys\n"
            "from triton.compiler.compiler import ASTSource\n"
            "print(triton.__version__, triton.__tritonc_version__, tl.float32.is_floating())\n"
            "print(all(getattr(m, '__file__', None) is None for n, m in sys.modules.items()"
            " if n.split('.')[0] == 'triton'))")
    proc = _under_alias(code)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[0].split()[0] == "3.6.0" and lines[0].endswith("True")
    assert lines[1] == "True"


def test_shim_without_the_variable_refuses_by_name():
    path = os.pathsep.join([tritonc.inductor.shim_path(), str(ROOT)])
    proc = _python("import triton", {"PYTHONPATH": path})
    assert proc.returncode != 0
    assert "TRITONC_AS_TRITON is not 1" in proc.stderr


def test_module_runner(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import os, sys, triton\n"
                      "print(triton.__tritonc_version__, os.environ['TRITONC_AS_TRITON'],"
                      " sys.argv[1:])\n")
    proc = _python("", {"PYTHONPATH": str(ROOT)}, "-m", "tritonc.inductor", str(script), "a")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[1:] == ["1", "['a']"]
    bad = _python("", {"PYTHONPATH": str(ROOT)}, "-m", "tritonc.inductor")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_install_refuses_beside_a_real_triton(tmp_path):
    fake = tmp_path / "triton"
    fake.mkdir()
    (fake / "__init__.py").write_text("__version__ = '3.6.0'\n")
    proc = _python("import triton, tritonc.inductor\ntritonc.inductor.install()",
                   {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})
    assert proc.returncode != 0 and "a real triton is already imported" in proc.stderr


def test_install_refuses_after_inductor_saw_no_triton():
    """Meta-tensor arithmetic imports torch._dynamo and with it Inductor's runtime, which
    decides once that there is no triton: install() then says so instead of leaving
    Inductor half-configured."""
    proc = _python("import torch\nx = torch.randn(2, device='meta') + 1.5\n"
                   "import tritonc.inductor\ntritonc.inductor.install()",
                   {"PYTHONPATH": str(ROOT)})
    assert proc.returncode != 0 and "imported before tritonc.inductor.install()" in proc.stderr
    ok = _python("import tritonc.inductor\ntritonc.inductor.install()\nimport torch\n"
                 "x = torch.randn(2, device='meta') + 1.5\n"
                 "from torch._inductor.runtime import hints\nprint(hasattr(hints, 'triton'))",
                 {"PYTHONPATH": str(ROOT)})
    assert ok.returncode == 0 and ok.stdout.strip() == "True", ok.stderr


WORKER_SCRIPT = '''
import time
import torch
import torch._inductor.config as config
import triton
from torch._inductor.async_compile import AsyncCompile

config.cpu_backend = "triton"
config.compile_threads = 2
config.force_disable_caches = True
config.worker_start_method = "subprocess"
compiles = []
compile_fn = triton.compile
triton.compile = lambda *a, **k: compiles.append(1) or compile_fn(*a, **k)
start = time.time()
while not AsyncCompile.use_process_pool() and time.time() - start < 240:
    time.sleep(0.2)
assert AsyncCompile.use_process_pool(), "the compile workers did not start"


def f(x, y):
    return torch.softmax(x * y, -1) + torch.relu(y).sum(0)


x, y = torch.randn(37, 129), torch.randn(37, 129)
torch.testing.assert_close(torch.compile(f)(x, y), f(x, y))
print("compiles in the parent:", len(compiles))
'''


def test_compile_workers_get_the_alias(tmp_path):
    """Inductor's compile workers import `triton` through the shim: every kernel is
    compiled there (none in the parent) and the results run correctly in the parent."""
    script = tmp_path / "workers.py"
    script.write_text(WORKER_SCRIPT)
    proc = _python("", {"PYTHONPATH": str(ROOT), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "c")},
                   "-m", "tritonc.inductor", str(script))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "compiles in the parent: 0" in proc.stdout


def test_triton_tools_modules_are_tritoncs():
    code = ("import torch, triton\n"
            "from triton.tools.tensor_descriptor import TensorDescriptor\n"
            "from triton.tools.mxfp import MXFP4Tensor\n"
            "import tritonc.tools.tensor_descriptor as td, tritonc.tools.mxfp as mx\n"
            "d = TensorDescriptor.from_tensor(torch.zeros(16, 32), [8, 16])\n"
            "print(TensorDescriptor is td.TensorDescriptor, MXFP4Tensor is mx.MXFP4Tensor,"
            " list(d.shape), list(d.block_shape))")
    proc = _under_alias(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True True [16, 32] [8, 16]"


def test_extra_cuda_under_the_alias_is_tritoncs():
    code = ("import triton.language as tl\n"
            "import tritonc.language.extra.cuda as cuda\n"
            "names = ('gdc_wait', 'gdc_launch_dependents', 'globaltimer', 'smid', 'num_warps',"
            " 'num_threads')\n"
            "print(all(getattr(tl.extra.cuda, n) is getattr(cuda, n) for n in names),"
            " tl.extra.cuda.libdevice is tl.extra.libdevice)")
    proc = _under_alias(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True True"
