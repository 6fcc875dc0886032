"""The on-disk kernel cache: hits, misses, damaged entries, racing writers, its directory."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tritonc.runtime.cache import (
    MANIFEST,
    TMP_PREFIX,
    Cache,
    cache_dir,
    compiler_key,
    make_key,
    source_digest,
)

REPO = Path(__file__).resolve().parent.parent
FILES = {
    "kernel.cubin": bytes(range(256)) * 40,
    "kernel.ptx": b".version 8.0\n.target sm_80\n",
    "metadata.json": b'{"name": "add_kernel", "num_warps": 4}',
}


@pytest.fixture
def cache(tmp_path: Path) -> Cache:
    return Cache(tmp_path / "cache")


def leftovers(cache: Cache) -> list[str]:
    return [p.name for p in cache.directory.iterdir() if p.name.startswith(TMP_PREFIX)]


def test_miss_then_hit(cache: Cache) -> None:
    key = make_key("add_kernel", b"source", "sm_90")
    assert cache.get(key) is None
    cache.put(key, FILES)
    assert cache.get(key) == FILES
    assert cache.entry_path(key) == cache.directory / key[:2] / key
    assert sorted(os.listdir(cache.entry_path(key))) == sorted([*FILES, MANIFEST])
    assert leftovers(cache) == []


def test_round_trip_of_arbitrary_bytes(cache: Cache) -> None:
    files = {"empty.bin": b"", "all_bytes.bin": bytes(range(256)), "nul.txt": b"\0\0\n"}
    key = make_key("bytes")
    cache.put(key, files)
    assert cache.get(key) == files


def test_manifest_records_size_and_hash(cache: Cache) -> None:
    key = make_key("manifest")
    cache.put(key, FILES)
    listing = json.loads((cache.entry_path(key) / MANIFEST).read_text())["files"]
    assert listing["kernel.cubin"]["size"] == len(FILES["kernel.cubin"])
    assert len(listing["kernel.cubin"]["sha256"]) == 64


def test_make_key() -> None:
    assert make_key("a", "b") == make_key(b"a", b"b")
    assert make_key("ab", "c") != make_key("a", "bc")
    assert len(make_key()) == 64 and int(make_key("x"), 16) >= 0


def test_source_digest_follows_every_source_file(tmp_path: Path) -> None:
    """Compiled kernels are keyed by the compiler's own sources: editing, adding or
    renaming a source file changes the digest; other files do not count."""
    (tmp_path / "passes").mkdir()
    (tmp_path / "passes" / "dot.py").write_text("A = 1\n")
    (tmp_path / "launcher.h").write_text("int x;\n")
    first = source_digest(tmp_path)
    assert source_digest(tmp_path) == first
    (tmp_path / "notes.txt").write_text("not a source")
    assert source_digest(tmp_path) == first
    (tmp_path / "passes" / "dot.py").write_text("A = 2\n")
    edited = source_digest(tmp_path)
    assert edited != first
    (tmp_path / "passes" / "dot.py").rename(tmp_path / "passes" / "mma.py")
    assert source_digest(tmp_path) not in (first, edited)
    (tmp_path / "cgen.c").write_text("")
    assert len({first, edited, source_digest(tmp_path)}) == 3
    assert len(compiler_key()) == 64


def test_truncated_file_is_a_miss_and_the_entry_is_rebuilt(cache: Cache) -> None:
    key = make_key("truncated")
    cache.put(key, FILES)
    cubin = cache.entry_path(key) / "kernel.cubin"
    cubin.write_bytes(FILES["kernel.cubin"][:100])
    assert cache.get(key) is None
    assert not cache.entry_path(key).exists()
    cache.put(key, FILES)
    assert cache.get(key) == FILES
    assert leftovers(cache) == []


def test_corrupted_byte_is_a_miss(cache: Cache) -> None:
    key = make_key("corrupted")
    cache.put(key, FILES)
    cubin = cache.entry_path(key) / "kernel.cubin"
    data = bytearray(cubin.read_bytes())
    data[1234] ^= 0x01
    cubin.write_bytes(bytes(data))
    assert cache.get(key) is None
    assert not cache.entry_path(key).exists()


def test_missing_manifest_is_a_miss(cache: Cache) -> None:
    key = make_key("no manifest")
    cache.put(key, FILES)
    (cache.entry_path(key) / MANIFEST).unlink()
    assert cache.get(key) is None
    assert not cache.entry_path(key).exists()


def test_missing_file_or_bad_manifest_is_a_miss(cache: Cache) -> None:
    key = make_key("missing file")
    cache.put(key, FILES)
    (cache.entry_path(key) / "kernel.ptx").unlink()
    assert cache.get(key) is None
    cache.put(key, FILES)
    (cache.entry_path(key) / MANIFEST).write_text('{"files": ')
    assert cache.get(key) is None
    cache.put(key, FILES)
    assert cache.get(key) == FILES


def test_put_over_a_damaged_entry_replaces_it(cache: Cache) -> None:
    key = make_key("damaged")
    cache.put(key, FILES)
    (cache.entry_path(key) / "kernel.cubin").write_bytes(b"junk")
    cache.put(key, FILES)  # finds the published entry damaged, removes it, publishes ours
    assert cache.get(key) == FILES
    assert leftovers(cache) == []


def test_first_good_entry_wins(cache: Cache) -> None:
    key = make_key("first")
    cache.put(key, FILES)
    cache.put(key, {"kernel.cubin": b"other"})
    assert cache.get(key) == FILES
    assert leftovers(cache) == []


def test_bad_keys_and_names_are_refused(cache: Cache) -> None:
    with pytest.raises(ValueError, match="bad cache key"):
        cache.get("../../etc")
    with pytest.raises(ValueError, match="bad cache file name"):
        cache.put(make_key("x"), {"../escape": b""})
    with pytest.raises(ValueError, match="bad cache file name"):
        cache.put(make_key("x"), {MANIFEST: b""})


def _write_entry(directory: str, key: str, barrier: multiprocessing.synchronize.Barrier) -> None:
    cache = Cache(directory)
    barrier.wait()
    cache.put(key, FILES)
    assert cache.get(key) == FILES


def test_concurrent_writer_processes_leave_one_good_entry(tmp_path: Path) -> None:
    directory = str(tmp_path / "cache")
    key = make_key("raced")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(8)
    writers = [ctx.Process(target=_write_entry, args=(directory, key, barrier))
               for _ in range(8)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
    assert [writer.exitcode for writer in writers] == [0] * 8
    cache = Cache(directory)
    assert cache.get(key) == FILES
    assert leftovers(cache) == []
    assert os.listdir(cache.directory) == [key[:2]]
    assert os.listdir(cache.directory / key[:2]) == [key]


def test_tritonc_cache_dir_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path / "from_env"))
    assert cache_dir() == tmp_path / "from_env"
    key = make_key("env")
    Cache().put(key, FILES)
    assert (tmp_path / "from_env" / key[:2] / key / "kernel.cubin").exists()
    assert Cache(tmp_path / "explicit").directory == tmp_path / "explicit"


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TRITONC_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "tritonc"


def test_cache_hit_imports_neither_mlir_nor_torch(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from tritonc.runtime.cache import Cache, make_key\n"
        f"cache = Cache({str(tmp_path)!r})\n"
        "cache.put(make_key('k'), {'kernel.cubin': b'x'})\n"
        "assert cache.get(make_key('k')) == {'kernel.cubin': b'x'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mlir', 'torch')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"
