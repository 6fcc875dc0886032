"""Finding ptxas and libdevice: overrides, the NVIDIA wheels, search order, the error text."""

import os
import stat

import pytest

from tritonc.backends.cuda import tools
from tritonc.backends.cuda.tools import LIBDEVICE, PTXAS, ToolNotFound, search


def _write(path, text, executable=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _fake_ptxas(path, release="12.8"):
    script = f'#!/bin/sh\necho "Cuda compilation tools, release {release}, V{release}.93"\n'
    return _write(path, script, executable=True)


def test_ptxas_override_wins_over_roots(tmp_path):
    fake = _fake_ptxas(tmp_path / "my" / "ptxas")
    root = tmp_path / "toolkit"
    _fake_ptxas(root / "bin" / "ptxas")
    found = search(PTXAS, {"TRITONC_PTXAS": str(fake)}, [str(root)])
    assert found == str(fake)
    assert tools.ptxas_version(found) == (12, 8)


def test_libdevice_override(tmp_path):
    bc = _write(tmp_path / "libdevice.10.bc", "BC")
    assert search(LIBDEVICE, {"TRITONC_LIBDEVICE": str(bc)}, []) == str(bc)


def test_broken_override_is_an_error_not_a_fallback(tmp_path):
    root = tmp_path / "toolkit"
    _fake_ptxas(root / "bin" / "ptxas")
    missing = tmp_path / "nowhere" / "ptxas"
    with pytest.raises(ToolNotFound, match="TRITONC_PTXAS=.*nowhere"):
        search(PTXAS, {"TRITONC_PTXAS": str(missing)}, [str(root)])
    not_executable = _write(tmp_path / "plain" / "ptxas", "")
    with pytest.raises(ToolNotFound, match="not an executable file"):
        search(PTXAS, {"TRITONC_PTXAS": str(not_executable)}, [])


def test_first_root_holding_the_tool_wins(tmp_path):
    empty, first, second = tmp_path / "empty", tmp_path / "first", tmp_path / "second"
    empty.mkdir()
    _fake_ptxas(first / "bin" / "ptxas")
    _fake_ptxas(second / "bin" / "ptxas")
    _write(second / "nvvm" / "libdevice" / "libdevice.10.bc", "BC")
    roots = [str(empty), str(first), str(second)]
    assert search(PTXAS, {}, roots) == str(first / "bin" / "ptxas")
    assert search(LIBDEVICE, {}, roots) == str(second / "nvvm" / "libdevice" / "libdevice.10.bc")


def test_roots_order_wheels_then_cuda_home_then_system(tmp_path):
    roots = tools.toolkit_roots({"CUDA_HOME": str(tmp_path)})
    assert roots[-2:] == [str(tmp_path), "/usr/local/cuda"]
    assert any(root.endswith(os.path.join("nvidia", "cu13")) for root in roots[:-2])
    assert tools.toolkit_roots({"CUDA_HOME": "/usr/local/cuda"})[-1] == "/usr/local/cuda"


def test_wheels_of_this_venv_are_found():
    wheel_roots = tools.toolkit_roots({})[:-1]
    ptxas = search(PTXAS, {}, wheel_roots)
    libdevice = search(LIBDEVICE, {}, wheel_roots)
    assert ptxas.endswith(os.path.join("nvidia", "cu13", "bin", "ptxas"))
    assert libdevice.endswith(os.path.join("nvidia", "cu13", LIBDEVICE.relpath))
    assert tools.ptxas_version(ptxas) >= (13, 0)
    assert os.path.isfile(tools.find_ptxas()) and os.path.isfile(tools.find_libdevice())


def test_nothing_found_names_every_place_tried(tmp_path):
    with pytest.raises(ToolNotFound) as empty:
        search(PTXAS, {}, [])
    assert "$TRITONC_PTXAS (not set)" in str(empty.value)

    roots = [str(tmp_path / "a"), str(tmp_path / "b")]
    with pytest.raises(ToolNotFound) as error:
        search(LIBDEVICE, {}, roots)
    message = str(error.value)
    places = ["$TRITONC_LIBDEVICE"] + [os.path.join(r, LIBDEVICE.relpath) for r in roots]
    positions = [message.index(place) for place in places]
    assert positions == sorted(positions)
    assert "nvidia-nvvm" in message


def test_unreadable_version_is_an_error(tmp_path):
    script = _write(tmp_path / "ptxas", "#!/bin/sh\necho hello\n", executable=True)
    with pytest.raises(ToolNotFound, match="cannot read the version"):
        tools.ptxas_version(str(script))
