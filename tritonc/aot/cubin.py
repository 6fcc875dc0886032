"""What a cubin says about its kernels, read from the ELF file without the CUDA toolkit.

A cubin is a 64-bit little-endian ELF file. The sm it was built for is in `e_flags`
(bits 8-15 in the ABI of CUDA 12 and later, bits 0-7 before). Each kernel has a
`.text.<name>` section; `.nv.info` holds attributes as (format, attribute, size, payload)
records, among them EIATTR_REGCOUNT (0x2f) and EIATTR_FRAME_SIZE (0x11), each a
(symbol index, value) pair; `.nv.shared.<name>` has the size of the kernel's static
shared memory. Spills and dynamic shared memory are not recorded in the cubin: for those
`tritonc compile` writes a `.json` sidecar next to it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

_EIFMT_SVAL = 4
_EIATTR_REGCOUNT = 0x2F
_EIATTR_FRAME_SIZE = 0x11


@dataclass
class CubinKernel:
    """Resource usage of one kernel as the cubin records it."""

    name: str
    registers: int = 0
    stack_frame: int = 0
    static_shared: int = 0


@dataclass
class CubinInfo:
    """The sm of a cubin and its kernels."""

    arch: int
    kernels: dict[str, CubinKernel] = field(default_factory=dict)


def _cstr(data: bytes, offset: int) -> str:
    return data[offset:data.index(b"\0", offset)].decode(errors="replace")


def parse_cubin(data: bytes) -> CubinInfo:
    """Parse a cubin; ValueError when it is not a 64-bit little-endian CUDA ELF file."""
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 or data[5] != 1:
        raise ValueError("not a cubin (a 64-bit little-endian ELF file)")
    e_flags = struct.unpack_from("<I", data, 0x30)[0]
    arch = (e_flags >> 8) & 0xFF if data[8] >= 7 else e_flags & 0xFF
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    try:
        sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                    for i in range(shnum)]
        names_at = sections[shstrndx][4]
        named = {_cstr(data, names_at + s[0]): s for s in sections}
    except (struct.error, IndexError, ValueError) as e:
        raise ValueError(f"malformed cubin: {e}") from None
    info = CubinInfo(arch)
    for name, section in named.items():
        if name.startswith(".text."):
            kernel = info.kernels.setdefault(name[6:], CubinKernel(name[6:]))
            kernel.registers = section[7] >> 24  # older ABIs keep the count here
    for name, section in named.items():
        if name.startswith(".nv.shared.") and name[11:] in info.kernels:
            info.kernels[name[11:]].static_shared = section[5]
    symbols = _symbol_names(data, named)
    if ".nv.info" in named:
        _read_attributes(data, named[".nv.info"], symbols, info)
    return info


def _symbol_names(data: bytes, named: dict) -> dict[int, str]:
    if ".symtab" not in named or ".strtab" not in named:
        return {}
    symtab, strtab = named[".symtab"], named[".strtab"]
    out = {}
    for i in range(symtab[5] // 24):
        name_offset = struct.unpack_from("<I", data, symtab[4] + 24 * i)[0]
        out[i] = _cstr(data, strtab[4] + name_offset)
    return out


def _read_attributes(data: bytes, section: tuple, symbols: dict[int, str],
                     info: CubinInfo) -> None:
    offset, end = section[4], section[4] + section[5]
    while offset + 4 <= end:
        fmt, attr, size = data[offset], data[offset + 1], struct.unpack_from(
            "<H", data, offset + 2)[0]
        if fmt != _EIFMT_SVAL:  # other formats carry no size: 2 bytes (+2 for a value)
            offset += 4 if fmt == 3 else 2
            continue
        if attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE) and size >= 8:
            symbol, value = struct.unpack_from("<II", data, offset + 4)
            kernel = info.kernels.get(symbols.get(symbol, ""))
            if kernel is not None:
                if attr == _EIATTR_REGCOUNT:
                    kernel.registers = value
                else:
                    kernel.stack_frame = value
        offset += 4 + size
