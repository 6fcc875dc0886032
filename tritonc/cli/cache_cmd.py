"""`tritonc cache ls|clear`: the on-disk kernel cache (`tritonc.runtime.cache.cache_dir()`)."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import click

_KEY = re.compile(r"[0-9a-f]{8,128}")


def cache_entries(root: Path) -> list[Path]:
    """The entry directories `<root>/<key[:2]>/<key>` of the cache, oldest first."""
    entries = []
    if root.is_dir():
        for shard in root.iterdir():
            if shard.is_dir() and re.fullmatch(r"[0-9a-f]{2}", shard.name):
                entries += [e for e in shard.iterdir()
                            if e.is_dir() and _KEY.fullmatch(e.name) and e.name[:2] == shard.name]
    return sorted(entries, key=lambda e: e.stat().st_mtime)


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def human_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def human_age(seconds: float) -> str:
    for unit, length in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= length:
            return f"{seconds / length:.0f}{unit}"
    return f"{max(seconds, 0):.0f}s"


@click.group("cache")
def cache_group() -> None:
    """The on-disk cache of compiled kernels ($TRITONC_CACHE_DIR or ~/.cache/tritonc)."""


@cache_group.command("ls")
def cache_ls() -> None:
    """One line per entry: key, size, age, kernel name."""
    from tritonc.runtime.cache import cache_dir, read_regular_file

    root = cache_dir()
    entries = cache_entries(root)
    now = time.time()
    total = 0
    for entry in entries:
        size = _size(entry)
        total += size
        name = ""
        try:
            name = json.loads(read_regular_file(entry / "metadata.json")).get("name", "")
        except (OSError, ValueError, AttributeError):
            pass
        age = human_age(now - entry.stat().st_mtime)
        click.echo(f"{entry.name[:16]}  {human_size(size):>9}  {age:>5}  {name}")
    click.echo(f"{len(entries)} entries, {human_size(total)} in {root}")


@cache_group.command("clear")
def cache_clear() -> None:
    """Remove every entry (and everything else under the cache directory)."""
    from tritonc.runtime.cache import cache_dir

    root = cache_dir()
    count = len(cache_entries(root))
    if root.is_dir():
        for child in root.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
    click.echo(f"removed {count} entries from {root}")
