"""Cache faults never fail a launch: an unusable directory, damaged entries, special files.

Each fault is made by hand; the cache must answer with a miss (and remove the damage), or,
for a directory it cannot use, keep nothing and warn once, and the kernel path must still
return a correct cubin.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import warnings
from pathlib import Path

import pytest

from tritonc.backends.cuda.options import CUDAOptions
from tritonc.runtime import cache as cache_module
from tritonc.runtime.cache import MANIFEST, Cache, CacheUnusableWarning, make_key
from tritonc.runtime.gpu_launch import compiled_binary

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

from vector_add import add_kernel  # noqa: E402

FILES = {"kernel.cubin": os.urandom(3000), "metadata.json": b'{"name": "k"}'}
SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}
ROOT_ONLY = os.geteuid() == 0 if hasattr(os, "geteuid") else False


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "_warned", set())


def build() -> dict:
    return compiled_binary(add_kernel, SIG, {"BLOCK_SIZE": 1024}, set(SIG), CUDAOptions(), 90)


def put_and_locate(cache: Cache, name: str) -> tuple[str, Path]:
    key = make_key(name)
    cache.put(key, FILES)
    assert cache.get(key) == FILES
    return key, cache.entry_path(key)


def test_a_file_where_the_cache_directory_belongs(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.write_text("not a directory")
    cache = Cache(root)
    key = make_key("file root")
    assert cache.get(key) is None
    with pytest.warns(CacheUnusableWarning, match="cannot be used"):
        cache.put(key, FILES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per directory: the second put is silent
        cache.put(key, FILES)
    assert cache.get(key) is None
    assert root.read_text() == "not a directory"


@pytest.mark.skipif(ROOT_ONLY, reason="root writes through read-only permissions")
def test_a_read_only_cache_directory(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    root.chmod(0o500)
    try:
        cache = Cache(root)
        with pytest.warns(CacheUnusableWarning):
            cache.put(make_key("read only"), FILES)
        assert cache.get(make_key("read only")) is None
    finally:
        root.chmod(0o700)


def test_a_cached_file_that_became_a_directory(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key, entry = put_and_locate(cache, "dir")
    (entry / "kernel.cubin").unlink()
    (entry / "kernel.cubin").mkdir()
    assert cache.get(key) is None
    assert not entry.exists()
    cache.put(key, FILES)
    assert cache.get(key) == FILES


def test_a_manifest_that_became_a_directory(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key, entry = put_and_locate(cache, "manifest dir")
    (entry / MANIFEST).unlink()
    (entry / MANIFEST).mkdir()
    assert cache.get(key) is None
    assert not entry.exists()


def test_an_entry_that_became_a_file(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key, entry = put_and_locate(cache, "entry file")
    for child in entry.iterdir():
        child.unlink()
    entry.rmdir()
    entry.write_bytes(b"junk")
    assert cache.get(key) is None
    cache.put(key, FILES)
    assert cache.get(key) == FILES


def test_a_manifest_that_lacks_a_required_file(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key, entry = put_and_locate(cache, "no cubin")
    manifest = json.loads((entry / MANIFEST).read_text())
    del manifest["files"]["kernel.cubin"]
    (entry / MANIFEST).write_text(json.dumps(manifest))
    assert cache.get(key) == {"metadata.json": FILES["metadata.json"]}  # verified, but partial
    assert cache.get(key, required=("kernel.cubin",)) is None
    assert not entry.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["kernel.cubin", MANIFEST])
def test_a_fifo_in_an_entry_does_not_hang(tmp_path: Path, name: str) -> None:
    cache = Cache(tmp_path)
    key, entry = put_and_locate(cache, f"fifo {name}")
    (entry / name).unlink()
    os.mkfifo(entry / name)
    result: list = []
    reader = threading.Thread(target=lambda: result.append(cache.get(key)), daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():
        with open(entry / name, "wb"):  # release the reader before failing
            pass
        pytest.fail("Cache.get blocked on a FIFO")
    assert result == [None]
    assert not entry.exists()


def test_a_symlink_in_an_entry_is_not_followed(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache")
    key, entry = put_and_locate(cache, "symlink")
    outside = tmp_path / "outside.bin"
    outside.write_bytes(FILES["kernel.cubin"])
    (entry / "kernel.cubin").unlink()
    (entry / "kernel.cubin").symlink_to(outside)
    assert cache.get(key) is None
    assert outside.read_bytes() == FILES["kernel.cubin"]


# -- the kernel path: every fault above ends with a correct cubin -------------------------
def _cubin_entry(tmp_path: Path) -> Path:
    (cubin,) = tmp_path.glob("*/*/kernel.cubin")
    return cubin.parent


def test_kernel_compiles_without_an_unusable_cache(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    good_root = tmp_path / "good"
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(good_root))
    good = build()["kernel.cubin"]
    bad_root = tmp_path / "bad"
    bad_root.write_text("a file")
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(bad_root))
    with pytest.warns(CacheUnusableWarning):
        assert build()["kernel.cubin"] == good
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert build()["kernel.cubin"] == good


@pytest.mark.parametrize("fault", ["cubin is a directory", "manifest lacks the cubin",
                                   "cubin is a fifo"])
def test_kernel_entry_faults_are_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         fault: str) -> None:
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    good = build()["kernel.cubin"]
    entry = _cubin_entry(tmp_path)
    if fault == "manifest lacks the cubin":
        manifest = json.loads((entry / MANIFEST).read_text())
        del manifest["files"]["kernel.cubin"]
        (entry / MANIFEST).write_text(json.dumps(manifest))
    else:
        (entry / "kernel.cubin").unlink()
        if fault == "cubin is a directory":
            (entry / "kernel.cubin").mkdir()
        else:
            os.mkfifo(entry / "kernel.cubin")
    assert build()["kernel.cubin"] == good  # rebuilt and stored again
    assert Cache(tmp_path).get(entry.name, required=("kernel.cubin",))["kernel.cubin"] == good


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cache_ls_does_not_hang_on_a_fifo(tmp_path: Path) -> None:
    import subprocess

    cache = Cache(tmp_path)
    _, entry = put_and_locate(cache, "ls fifo")
    (entry / "metadata.json").unlink()
    os.mkfifo(entry / "metadata.json")
    done = subprocess.run([sys.executable, "-m", "tritonc.cli.main", "cache", "ls"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TRITONC_CACHE_DIR": str(tmp_path),
                               "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "1 entries" in done.stdout
