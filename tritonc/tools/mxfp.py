"""Host helpers for microscaling (MX) formats: fp4 e2m1 values and e8m0 scales.

`MXFP4Tensor` holds fp4 e2m1 codes (one per uint8, low 4 bits: sign, 2 exponent bits,
1 mantissa bit; values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives) and packs two
codes per byte for kernels. `MXScaleTensor` holds e8m0 scales (uint8: 2**(code - 127),
255 is NaN).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

FP4_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


class MXFP4Tensor:
    """fp4 e2m1 data: `data` holds one code per element (uint8)."""

    def __init__(self, data: torch.Tensor | None = None, size: Sequence[int] | None = None,
                 device: str | torch.device | None = None) -> None:
        if data is None:
            if size is None:
                raise ValueError("MXFP4Tensor needs `data` or `size`")
            data = torch.zeros(tuple(size), dtype=torch.uint8, device=device)
        elif data.dtype != torch.uint8:
            data = self._encode(data.float()).to(device or data.device)
        self.data = data
        self.device = data.device

    @staticmethod
    def _encode(values: torch.Tensor) -> torch.Tensor:
        """The nearest e2m1 code of each value (ties to the even code)."""
        table = torch.tensor(FP4_VALUES, device=values.device)
        distance = (values.abs().unsqueeze(-1) - table).abs()
        magnitude = distance.argmin(-1).to(torch.uint8)
        sign = (values < 0).to(torch.uint8) << 3
        return sign | magnitude

    def random(self, generator: torch.Generator | None = None) -> MXFP4Tensor:
        """Fill with uniformly random codes; returns self."""
        self.data = torch.randint(0, 16, tuple(self.data.shape), dtype=torch.uint8,
                                  generator=generator).to(self.device)
        return self

    def to(self, dtype: torch.dtype) -> torch.Tensor:
        """The decoded values as `dtype`."""
        table = torch.tensor(FP4_VALUES, dtype=torch.float32, device=self.device)
        codes = self.data.long()
        values = table[codes & 7]
        return torch.where((codes & 8) != 0, -values, values).to(dtype)

    def to_packed_tensor(self, dim: int) -> torch.Tensor:
        """Two codes per byte along `dim` (even index in the low nibble); `dim` is padded
        to an even length with zeros."""
        data = self.data.movedim(dim, -1)
        if data.shape[-1] % 2:
            data = torch.nn.functional.pad(data, (0, 1))
        packed = data[..., 0::2] | (data[..., 1::2] << 4)
        return packed.movedim(-1, dim).contiguous()


class MXScaleTensor:
    """e8m0 scales: `data` holds one biased exponent per element (uint8)."""

    def __init__(self, data: torch.Tensor | None = None, size: Sequence[int] | None = None,
                 device: str | torch.device | None = None) -> None:
        if data is None:
            if size is None:
                raise ValueError("MXScaleTensor needs `data` or `size`")
            data = torch.full(tuple(size), 127, dtype=torch.uint8, device=device)
        elif data.dtype != torch.uint8:
            exponent = torch.log2(data.float()).round().clamp(-127, 127)
            data = (exponent + 127).to(torch.uint8)
        self.data = data
        self.device = data.device

    def random(self, low: float | None = None, high: float | None = None,
               generator: torch.Generator | None = None) -> MXScaleTensor:
        """Fill with random powers of two in [low, high] (default: all finite); returns self."""
        lo = 0 if low is None else int(torch.log2(torch.tensor(float(low))).ceil()) + 127
        hi = 254 if high is None else int(torch.log2(torch.tensor(float(high))).floor()) + 127
        lo, hi = max(lo, 0), min(hi, 254)
        if lo > hi:
            raise ValueError(f"no e8m0 value lies in [{low}, {high}]")
        self.data = torch.randint(lo, hi + 1, tuple(self.data.shape), dtype=torch.int32,
                                  generator=generator).to(torch.uint8).to(self.device)
        return self

    def to(self, dtype: torch.dtype) -> torch.Tensor:
        """The scales 2**(code - 127) as `dtype` (code 255 is NaN)."""
        values = torch.exp2(self.data.float() - 127)
        return torch.where(self.data == 255, torch.nan, values).to(dtype)
