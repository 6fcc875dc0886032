"""The `triton` that a process finds when tritonc's shim directory is on its path.

With TRITONC_AS_TRITON=1 it installs tritonc's alias (`tritonc.inductor.install`) and
hands every name of the alias to whoever imported it; without, it refuses, naming the
variable, rather than stand in for a Triton nobody asked to replace.
"""

import os
import sys

if os.environ.get("TRITONC_AS_TRITON", "") != "1":
    raise ImportError("tritonc's triton shim is on sys.path but TRITONC_AS_TRITON is not 1; "
                      "set TRITONC_AS_TRITON=1 to use tritonc as triton, or remove "
                      f"{os.path.dirname(os.path.dirname(__file__))} from PYTHONPATH")

del sys.modules[__name__]
import tritonc.inductor  # noqa: E402

tritonc.inductor.install()
sys.modules[__name__] = sys.modules["triton"]
