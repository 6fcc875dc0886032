"""On-disk cache of compiled kernels: one directory per key, published atomically.

An entry is `<root>/<key[:2]>/<key>/`: the entry's files (`kernel.cubin`, `kernel.ptx`,
`metadata.json`, ...) plus `manifest.json`, which records each file's size and sha256
and is written last. `put` writes everything into a temporary directory under the root
and renames it into place, so a reader sees a whole entry or none; when another process
published the key first, its good entry is kept and ours discarded. `get` checks every
file against the manifest: a truncated or corrupted entry is removed and reported as a
miss, so the caller rebuilds it. Files are not fsynced: an entry damaged by a crash is
caught by the same check.

Faults never fail a launch. `get` opens only regular files (a FIFO, a directory or a
symlink where a file should be is damage: the entry is removed), and a caller that
names the files it needs (`required`) gets a miss, never a partial entry. A cache
directory that cannot be used (read-only, a file in its place, a full disk) makes
`get` miss and `put` do nothing, with one `CacheUnusableWarning` per directory: the
kernel is compiled and run without the cache.

The root is `knobs.cache.dir`: `$TRITONC_CACHE_DIR`, else `~/.cache/tritonc`
(`cache_dir()`). Keys are hex digests made by the caller, e.g. with `make_key`; a key
for compiler output includes `compiler_key()`, the digest of tritonc's own sources, so
an entry written by another build of the compiler is never taken. This module uses only
the standard library, so a cache hit never imports MLIR.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import uuid
import warnings
from collections.abc import Mapping
from pathlib import Path

MANIFEST = "manifest.json"
TMP_PREFIX = ".tmp-"  # in-flight writes and entries being removed; never read as entries

_KEY = re.compile(r"[0-9a-f]{8,128}")
_warned: set[str] = set()  # directories already reported unusable in this process


class CacheUnusableWarning(RuntimeWarning):
    """The cache directory cannot be written; kernels are compiled without the cache."""


def _warn_unusable(directory: Path, error: OSError) -> None:
    if str(directory) in _warned:
        return
    _warned.add(str(directory))
    warnings.warn(f"the kernel cache {directory} cannot be used ({error.strerror or error}); "
                  "compiling without it (set TRITONC_CACHE_DIR to a writable directory)",
                  CacheUnusableWarning, stacklevel=3)
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def cache_dir() -> Path:
    """The cache root: `knobs.cache.dir`, which is `$TRITONC_CACHE_DIR` when set and
    non-empty, else `~/.cache/tritonc`, unless assigned in Python."""
    from tritonc import knobs

    return Path(knobs.cache.dir).expanduser()


def source_digest(root: Path) -> str:
    """The digest of the source files (.py, .c, .h) under `root`, names and contents."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".h", ".c")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def compiler_key() -> str:
    """`source_digest` of the installed tritonc package: changes with any change to the
    compiler."""
    return source_digest(Path(__file__).resolve().parent.parent)


def make_key(*parts: str | bytes) -> str:
    """The sha256 hex digest of `parts` (length-prefixed, so ("ab", "c") != ("a", "bc"))."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _check_file_name(name: str) -> None:
    if not _FILE_NAME.fullmatch(name) or name == MANIFEST:
        raise ValueError(f"bad cache file name {name!r}: want a plain name, not {MANIFEST!r}")


class Cache:
    """A cache directory (by default `cache_dir()`) of verified, atomically written entries."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else cache_dir()

    def entry_path(self, key: str) -> Path:
        """The directory of `key`'s entry (which may not exist)."""
        if not _KEY.fullmatch(key):
            raise ValueError(f"bad cache key {key!r}: want a lowercase hex digest")
        return self.directory / key[:2] / key

    def get(self, key: str, required: tuple[str, ...] = ()) -> dict[str, bytes] | None:
        """The files of `key`'s entry, or None for a miss or a damaged (now removed) entry.

        An entry lacking any of the `required` files counts as damaged."""
        entry = self.entry_path(key)
        try:
            manifest = read_regular_file(entry / MANIFEST)
        except FileNotFoundError:
            if _is_dir(entry):  # entries are published whole: no manifest means damage
                self._remove(entry)
            return None
        except NotADirectoryError:  # the root, its shard or the entry is a file
            if _is_dir(self.directory) and not _is_dir(entry.parent):
                self._remove(entry.parent)
            elif _is_dir(entry.parent):
                self._remove(entry)
            return None
        except OSError:  # not a regular file, unreadable: damage
            self._remove(entry)
            return None
        files = _read_verified(entry, manifest)
        if files is None or any(name not in files for name in required):
            self._remove(entry)
            return None
        return files

    def put(self, key: str, files: Mapping[str, bytes]) -> None:
        """Publish `files` under `key`, unless another process already published a good entry.

        When the cache directory cannot be written, warn once and keep nothing."""
        entry = self.entry_path(key)
        for name in files:
            _check_file_name(name)
        try:
            self._put(entry, key, files)
        except OSError as e:
            _warn_unusable(self.directory, e)

    def _put(self, entry: Path, key: str, files: Mapping[str, bytes]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=self.directory))
        try:
            listing = {}
            for name, data in files.items():
                (tmp / name).write_bytes(data)
                listing[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            manifest = json.dumps({"files": listing}, indent=1, sort_keys=True)
            (tmp / MANIFEST).write_text(manifest + "\n")
            if entry.parent.exists() and not _is_dir(entry.parent):
                self._remove(entry.parent)  # a file where the shard directory belongs
            entry.parent.mkdir(exist_ok=True)
            if entry.exists() and not _is_dir(entry):
                self._remove(entry)
            self._publish(tmp, entry, key)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # gone already when the rename won

    def _publish(self, tmp: Path, entry: Path, key: str) -> None:
        # Renaming a directory onto a non-empty one fails: someone published first. Keep
        # theirs if it is good; if not, `get` has removed it and we try again.
        for _ in range(3):
            try:
                os.rename(tmp, entry)
                return
            except OSError as e:
                if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            if self.get(key) is not None:
                return

    def _remove(self, entry: Path) -> None:
        # Rename first so that no reader sees a half-deleted entry.
        trash = self.directory / f"{TMP_PREFIX}{uuid.uuid4().hex}"
        try:
            os.rename(entry, trash)
        except FileNotFoundError:  # another reader removed it first
            return
        except OSError as e:  # a read-only cache keeps its damage; it is never served
            _warn_unusable(self.directory, e)
            return
        if _is_dir(trash):
            shutil.rmtree(trash, ignore_errors=True)
        else:
            trash.unlink(missing_ok=True)


def _is_dir(path: Path) -> bool:
    """A real directory (a symlink to one is not)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def read_regular_file(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file. Opened without blocking and without
    following symlinks, then checked, so a FIFO or a device is never read from."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def _read_verified(entry: Path, manifest: bytes) -> dict[str, bytes] | None:
    """The entry's files if each matches the manifest's size and sha256, else None."""
    try:
        listing = json.loads(manifest)["files"]
        files = {}
        for name, expected in listing.items():
            if not _FILE_NAME.fullmatch(name) or name == MANIFEST:
                return None
            data = read_regular_file(entry / name)
            if (len(data) != expected["size"]
                    or hashlib.sha256(data).hexdigest() != expected["sha256"]):
                return None
            files[name] = data
    except (ValueError, KeyError, TypeError, AttributeError, OSError):
        return None
    return files
