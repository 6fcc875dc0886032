"""tritonc.tools.mxfp: fp4 e2m1 codes and e8m0 scales on the host."""

import torch

from tritonc.tools.mxfp import MXFP4Tensor, MXScaleTensor


def test_fp4_round_trip_and_packing():
    values = torch.tensor([[0.0, 0.5, -1.0, 1.5, 2.0], [3.0, -4.0, 6.0, -0.5, 1.2]])
    fp4 = MXFP4Tensor(values)
    decoded = fp4.to(torch.float32)
    expect = values.clone()
    expect[1, 4] = 1.0  # 1.2 rounds to the nearest code
    assert torch.equal(decoded, expect)
    packed = fp4.to_packed_tensor(dim=1)
    assert packed.shape == (2, 3) and packed.dtype == torch.uint8
    low, high = packed & 0xF, packed >> 4
    assert torch.equal(low, fp4.data[:, 0::2])
    assert torch.equal(high[:, :2], fp4.data[:, 1::2]) and torch.all(high[:, 2] == 0)


def test_fp4_random_codes_decode_to_the_table():
    torch.manual_seed(0)
    fp4 = MXFP4Tensor(size=(64, 8)).random()
    table = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}
    assert set(fp4.to(torch.float32).abs().unique().tolist()) <= table
    assert fp4.data.max() <= 15


def test_e8m0_scales():
    torch.manual_seed(1)
    scales = MXScaleTensor(size=(32, 4)).random(high=64.0)
    values = scales.to(torch.float32)
    assert torch.all(values <= 64.0) and torch.all(values > 0)
    assert torch.equal(torch.log2(values), torch.log2(values).round())
    nan = MXScaleTensor(torch.tensor([255], dtype=torch.uint8)).to(torch.float32)
    assert torch.isnan(nan).all()
    assert MXScaleTensor(torch.tensor([0.25, 8.0])).to(torch.float32).tolist() == [0.25, 8.0]
