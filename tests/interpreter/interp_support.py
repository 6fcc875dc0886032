"""Shared helpers for the interpreter tests: types, a builder, one-op calls."""

from __future__ import annotations

from typing import Any

import numpy as np

import tritonc.language.dtypes as tl
from tritonc.backends.interpreter import Memory, NumpyBuilder


def ty(name: str | tl.dtype, *shape: int) -> tl.base_type:
    """A scalar type, or a block of it when a shape is given."""
    dt = tl.from_name(name) if isinstance(name, str) else name
    return tl.block_type(dt, shape) if shape else dt


def ptr(name: str, *shape: int) -> tl.base_type:
    p = tl.pointer_type(tl.from_name(name))
    return tl.block_type(p, shape) if shape else p


def op(b: NumpyBuilder, name: str, operands: list[Any], result: tl.base_type,
       **attrs: Any) -> Any:
    """Run one single-result op."""
    (out,) = b.create(name, operands, [result], attrs)
    return out


def new_builder() -> tuple[NumpyBuilder, Memory]:
    memory = Memory()
    return NumpyBuilder(memory), memory


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)
