"""What every `tritonc` command shares: one-line errors with exit status 2."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from tritonc.aot.spec import UsageError

__all__ = ["OneLineErrorGroup", "UsageError", "fail", "prepare_output_dir", "write_atomic"]


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `path` through a temporary file renamed into place."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
    os.replace(tmp, path)


def prepare_output_dir(out_dir: str | os.PathLike[str]) -> Path:
    """Create the output folder (and its parents) and check that files can be written in
    it, before any slow work; UsageError naming the folder and the reason otherwise."""
    path = Path(out_dir)
    if path.exists() and not path.is_dir():
        raise UsageError(f"output folder {str(path)!r} is not a folder (a file is in its place)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create output folder {str(path)!r}: "
                         f"{e.strerror or e}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"output folder {str(path)!r} is not writable")
    return path


def fail(message: str, status: int = 2) -> NoReturn:
    """Print `tritonc: error: <message>` (one line) on stderr and exit with `status`."""
    first, *_ = str(message).splitlines() or [""]
    text = str(message) if status != 2 else first
    click.echo(f"tritonc: error: {text}", err=True)
    sys.exit(status)


class OneLineErrorGroup(click.Group):
    """A click group whose usage errors (a missing argument, an unknown option) print
    one line on stderr and exit with status 2, like the commands' own checks."""

    def main(self, *args, **kwargs):  # type: ignore[override]
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help() if e.ctx else "", err=True)
            sys.exit(2)
        except click.UsageError as e:
            command = e.ctx.command_path if e.ctx else "tritonc"
            fail(f"{command}: {e.format_message()}")
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except click.ClickException as e:
            fail(e.format_message(), e.exit_code)
        sys.exit(result if isinstance(result, int) else 0)
