"""Every corpus kernel with a numpy oracle, run on the GPU against it."""

import numpy as np
import pytest
from corpus import KERNELS

ORACLE = [k for k in KERNELS if k.make_case and k.reference]


def poison(array: np.ndarray) -> None:
    # finite for floats: a NaN accumulator would make float atomic max/min ill-defined
    if array.dtype.kind == "f":
        array.fill(12345.0)
    elif array.dtype.kind == "b":
        array.fill(True)
    else:
        array.view(np.uint8).fill(0xA5)


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ORACLE, ids=lambda k: k.name)
def test_corpus_kernel_on_gpu(entry):
    import torch
    from test_corpus_interpreter import RAW_TORCH_VIEWS

    rng = np.random.default_rng(abs(hash(entry.name)) % 2**32)
    case = entry.make_case(rng)
    for name in case.outputs:
        poison(case.args[name])
    expected = entry.reference({n: v.copy() if isinstance(v, np.ndarray) else v
                                for n, v in case.args.items()})
    def to_device(value, kind):
        if isinstance(value, np.ndarray):
            t = torch.from_numpy(value.copy()).cuda()
            return t.view(RAW_TORCH_VIEWS[kind]) if kind in RAW_TORCH_VIEWS else t
        if isinstance(value, tuple):
            items = [to_device(v, "") for v in value]
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
        return value

    args = {name: to_device(value, str(entry.signature.get(name, "")).split(":")[0])
            for name, value in case.args.items()}
    entry.fn[case.grid](**args, **entry.constexprs)
    torch.cuda.synchronize()
    for name in case.outputs:
        got = args[name]
        if got.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
            got = got.view(torch.uint16 if got.dtype == torch.bfloat16 else torch.uint8)
        got = got.cpu().numpy()
        want = np.asarray(expected[name])
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                       rtol=case.rtol, atol=case.atol, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)
