"""Every corpus kernel with a numpy oracle, run in the interpreter on fresh random inputs.

Outputs are poisoned (NaN for floats, a bit pattern for integers) before the launch and
the reference is computed from the same poisoned arguments, so an element the kernel
should have written but did not shows up as a mismatch.
"""

import numpy as np
import pytest
import torch
from corpus import KERNELS

ORACLE_KERNELS = [k for k in KERNELS if k.make_case is not None and k.reference is not None]
RAW_TORCH_VIEWS = {"*bf16": torch.bfloat16, "*fp8e4nv": torch.float8_e4m3fn,
                   "*fp8e5": torch.float8_e5m2}


def poison(array: np.ndarray) -> None:
    if array.dtype.kind == "f":
        array.fill(np.nan)
    elif array.dtype.kind == "b":
        array.fill(True)
    else:
        array.view(np.uint8).fill(0xA5)


def as_kernel_argument(value, type_name):
    """numpy arrays pass as they are; raw-bit arrays of bf16/fp8 become torch views."""
    if isinstance(type_name, str) and type_name.split(":")[0] in RAW_TORCH_VIEWS:
        torch_type = RAW_TORCH_VIEWS[type_name.split(":")[0]]
        return torch.from_numpy(value).view(torch_type)
    return value


@pytest.mark.parametrize("entry", ORACLE_KERNELS, ids=lambda k: k.name)
def test_corpus_kernel_in_interpreter(entry, monkeypatch, capsys):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    rng = np.random.default_rng(abs(hash(entry.name)) % 2**32)
    case = entry.make_case(rng)
    for name in case.outputs:
        poison(case.args[name])
    expected = entry.reference({n: v.copy() if isinstance(v, np.ndarray) else v
                                for n, v in case.args.items()})
    args = {n: as_kernel_argument(v, entry.signature.get(n)) for n, v in case.args.items()}
    entry.fn[case.grid](**args, **entry.constexprs)
    for name in case.outputs:
        got, want = case.args[name], np.asarray(expected[name])
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                       rtol=case.rtol, atol=case.atol, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)
