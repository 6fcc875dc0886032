"""On-disk cache of compiled kernels: one directory per key, published atomically.

An entry is `<root>/<key[:2]>/<key>/`: the entry's files (`kernel.cubin`, `kernel.ptx`,
`metadata.json`, ...) plus `manifest.json`, which records each file's size and sha256
and is written last. `put` writes everything into a temporary directory under the root
and renames it into place, so a reader sees a whole entry or none; when another process
published the key first, its good entry is kept and ours discarded. `get` checks every
file against the manifest: a truncated or corrupted entry is removed and reported as a
miss, so the caller rebuilds it. Files are not fsynced: an entry damaged by a crash is
caught by the same check.

The root is `$TRITONC_CACHE_DIR`, else `~/.cache/tritonc` (`cache_dir()`). Keys are hex
digests made by the caller, e.g. with `make_key`. This module uses only the standard
library, so a cache hit never imports MLIR.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path

MANIFEST = "manifest.json"
TMP_PREFIX = ".tmp-"  # in-flight writes and entries being removed; never read as entries

_KEY = re.compile(r"[0-9a-f]{8,128}")
_FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def cache_dir() -> Path:
    """The cache root: `$TRITONC_CACHE_DIR` when set and non-empty, else `~/.cache/tritonc`."""
    configured = os.environ.get("TRITONC_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "tritonc"


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

    def get(self, key: str) -> dict[str, bytes] | None:
        """The files of `key`'s entry, or None for a miss or a damaged (now removed) entry."""
        entry = self.entry_path(key)
        try:
            manifest = (entry / MANIFEST).read_bytes()
        except FileNotFoundError:
            if entry.exists():  # entries are published whole: no manifest means damage
                self._remove(entry)
            return None
        files = _read_verified(entry, manifest)
        if files is None:
            self._remove(entry)
        return files

    def put(self, key: str, files: Mapping[str, bytes]) -> None:
        """Publish `files` under `key`, unless another process already published a good entry."""
        entry = self.entry_path(key)
        for name in files:
            _check_file_name(name)
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=self.directory))
        try:
            listing = {}
            for name, data in files.items():
                (tmp / name).write_bytes(data)
                listing[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            manifest = json.dumps({"files": listing}, indent=1, sort_keys=True)
            (tmp / MANIFEST).write_text(manifest + "\n")
            entry.parent.mkdir(exist_ok=True)
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
        shutil.rmtree(trash, ignore_errors=True)


def _read_verified(entry: Path, manifest: bytes) -> dict[str, bytes] | None:
    """The entry's files if each matches the manifest's size and sha256, else None."""
    try:
        listing = json.loads(manifest)["files"]
        files = {}
        for name, expected in listing.items():
            if not _FILE_NAME.fullmatch(name) or name == MANIFEST:
                return None
            data = (entry / name).read_bytes()
            if (len(data) != expected["size"]
                    or hashlib.sha256(data).hexdigest() != expected["sha256"]):
                return None
            files[name] = data
    except (ValueError, KeyError, TypeError, AttributeError, FileNotFoundError):
        return None
    return files
