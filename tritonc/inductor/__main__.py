"""`python -m tritonc.inductor script.py [args]`: run a script with tritonc as `triton`.

`python -m tritonc.inductor --pythonpath` prints the shim directory instead, for
`TRITONC_AS_TRITON=1 PYTHONPATH=<dir> python ...`.
"""

from __future__ import annotations

import runpy
import sys

import tritonc.inductor


def main(argv: list[str]) -> int:
    if argv[:1] == ["--pythonpath"]:
        print(tritonc.inductor.shim_path())
        return 0
    if not argv or argv[0].startswith("-"):
        print("usage: python -m tritonc.inductor script.py [args...] | --pythonpath",
              file=sys.stderr)
        return 2
    tritonc.inductor.install()
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
