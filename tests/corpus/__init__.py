"""The kernel corpus shared by the frontend, interpreter and GPU backend tests.

`KERNELS` lists `spec.Kernel` entries. Each holds:

- `fn`: a @jit function written as Triton users write it
  (`import tritonc as triton; import tritonc.language as tl`);
- `signature` (`{"x_ptr": "*fp32", "n": "i32"}`; a tuple argument is a tuple, or a
  NamedTuple, of type strings) and `constexprs` (`{"BLOCK": 128}`), ready for
  `tritonc.compile(fn, signature, constexprs, divisible_by_16=...)`;
- `checks`: FileCheck lines for its TTIR (`CHECK-LABEL` of the kernel first);
- `uses_dot`: True when the kernel calls `tl.dot`;
- `make_case(rng) -> Case` and `reference(args) -> {output name: expected array}`, or
  None where there is no numpy oracle (printing kernels, fp8 rounding, ...).

Running a kernel against numpy:

    case = k.make_case(np.random.default_rng(0))
    expected = k.reference({n: v.copy() if isinstance(v, np.ndarray) else v
                            for n, v in case.args.items()})
    launch k.fn on case.grid with case.args (arrays become device buffers, in signature order)
    for name in case.outputs: compare the written array with expected[name]
                              (assert_allclose(rtol=case.rtol, atol=case.atol) for floats,
                               exact for integers)
"""

# ruff: noqa: E501 (FileCheck lines quote whole MLIR types)

from __future__ import annotations

from . import (
    control,
    dot,
    dot_fusions,
    elementwise,
    memory,
    misc,
    random_kernels,
    reductions,
    shapes,
    tutorials,
    tutorials_nn,
)
from .spec import Case, Kernel

KERNELS: list[Kernel] = [
    *elementwise.KERNELS,
    *shapes.KERNELS,
    *reductions.KERNELS,
    *memory.KERNELS,
    *control.KERNELS,
    *misc.KERNELS,
    *random_kernels.KERNELS,
    *dot.KERNELS,
    *dot_fusions.KERNELS,
    *tutorials.KERNELS,
    *tutorials_nn.KERNELS,
]

BY_NAME: dict[str, Kernel] = {k.name: k for k in KERNELS}
assert len(BY_NAME) == len(KERNELS), "corpus kernel names must be unique"

__all__ = ["BY_NAME", "KERNELS", "Case", "Kernel"]
