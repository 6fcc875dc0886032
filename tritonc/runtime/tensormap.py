"""The CUtensorMaps of tensor descriptors, in device memory, for TMA copies.

A kernel compiled for sm_90 copies the tiles of an aligned, zero-padded host descriptor
(`descriptors.is_aligned`) whose block TMA can copy (`descriptors.tma_box`) with
`cp.async.bulk.tensor` through this tensor map: encoded by the driver on the host
(cuTensorMapEncodeTiled) with the box and swizzle the kernel's shared-memory tiles have
and zeros outside the tensor, copied to a 128-byte device buffer once, and passed by
address. Every other descriptor passes 0, which no kernel reads. A kernel compiled for
sm_90 that makes descriptors from its arguments takes their maps as arguments after its
own (`launch_maps`, from the recipes hoist-tensormaps records). Maps are kept per
(address, shape, strides, block, element size, device), the most recent `CAPACITY` of
them: memory a freed tensor left and a new one took again with the same shape gets the
same map.
"""

from __future__ import annotations

import struct
import threading
from collections import OrderedDict
from typing import Any

from tritonc.runtime import descriptors

CAPACITY = 1024
_MAPS: OrderedDict = OrderedDict()
_CAPTURED: list = []  # maps written while a CUDA graph was captured (see `_on_device`)
_LOCK = threading.Lock()
_DATA_TYPES = {1: 0, 2: 1, 4: 2}  # CU_TENSOR_MAP_DATA_TYPE_UINT8 / UINT16 / UINT32
_SWIZZLES = {32: 1, 64: 2, 128: 3}  # CU_TENSOR_MAP_SWIZZLE_32B / 64B / 128B
_TMA_DEVICES: dict[int, bool] = {}


def _has_tma(device: Any) -> bool:
    import torch

    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _TMA_DEVICES:
        _TMA_DEVICES[index] = torch.cuda.get_device_capability(index)[0] >= 9
    return _TMA_DEVICES[index]


def device_tensormap(desc: Any) -> Any:
    """The device buffer holding `desc`'s CUtensorMap, or 0 when no kernel uses one."""
    base = desc.base
    if getattr(getattr(base, "device", None), "type", None) != "cuda":
        return 0
    elem = base.element_size()
    if descriptors.tma_box(elem, desc.block_shape) is None or desc.padding != "zero" or \
            not descriptors.is_aligned(desc) or not _has_tma(base.device):
        return 0
    return _map(base.data_ptr(), list(desc.shape), list(desc.strides), list(desc.block_shape),
                elem, base.device.index)


def launch_maps(recipes: list[dict], args: tuple) -> list[int]:
    """The device addresses of the CUtensorMaps of the descriptors a kernel makes from its
    arguments (`recipes`: the metadata's `tensormaps`, from passes/ttgir/hoist_tensormaps),
    for the flat kernel arguments `args` of one launch (pointers as addresses), on the
    current device. A descriptor with an empty dimension, whose tiles no program can copy,
    gets 0."""
    import torch

    device = torch.cuda.current_device()

    def value(source: str) -> int:
        return int(args[int(source[1:])]) if source.startswith("%") else int(source)

    found = []
    for recipe in recipes:
        shape = [value(s) for s in recipe["shape"]]
        strides = [value(s) for s in recipe["strides"]]
        if min(shape) <= 0:
            found.append(0)
            continue
        found.append(_map(int(args[recipe["base"]]), shape, strides, recipe["block"],
                          recipe["element_bytes"], device).data_ptr())
    return found


def _map(address: int, shape: list[int], strides: list[int], block: list[int], elem: int,
         device: int) -> Any:
    """The buffer on CUDA device `device` of the map of a tensor at `address` (cached, see
    above)."""
    key = (address, tuple(shape), tuple(strides), tuple(block), elem, device)
    with _LOCK:
        buffer = _MAPS.get(key)
        if buffer is None:
            buffer = _MAPS[key] = _encode(address, shape, strides, block, elem, device)
            if len(_MAPS) > CAPACITY:
                _MAPS.popitem(last=False)
        else:
            _MAPS.move_to_end(key)
    return buffer


def _encode(address: int, shape: list[int], strides: list[int], block: list[int], elem: int,
            device: int) -> Any:
    import torch

    from tritonc.runtime.driver import get_driver

    box, span = descriptors.tma_box(elem, block)
    raw = get_driver().encode_tiled(_DATA_TYPES[elem], address, list(reversed(shape)),
                                    [s * elem for s in reversed(strides[:-1])], box,
                                    _SWIZZLES[span])
    return _on_device(raw, torch.device("cuda", device))


def _on_device(raw: bytes, device: Any) -> Any:
    """The 128 bytes `raw` in a device buffer of `device`, written before any launch.

    While the current stream captures a CUDA graph (where neither a copy from host
    memory nor a synchronization may happen) the buffer is written by sixteen fills of
    8 bytes, whose values the graph keeps, and the buffer is kept for good: the graph
    reads it at every replay, long after the cache may have let it go."""
    import torch

    buffer = torch.empty(128, dtype=torch.uint8, device=device)
    if torch.cuda.is_current_stream_capturing():
        words = buffer.view(torch.int64)
        for i, word in enumerate(struct.unpack("<16q", raw)):
            words[i].fill_(word)
        _CAPTURED.append(buffer)
        return buffer
    buffer.copy_(torch.frombuffer(bytearray(raw), dtype=torch.uint8))
    torch.cuda.current_stream(device).synchronize()
    return buffer
