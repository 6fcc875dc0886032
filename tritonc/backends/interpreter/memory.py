"""Host buffers behind kernel pointers, and memory-safe access to them.

`Memory.register(array, name)` gives a buffer a disjoint virtual address range and
returns its base pointer (a 0-d np.int64 handle). Buffer `i` is based at
`(i + 1) << 41` and owns the addresses within 2**40 bytes either side, so every
pointer, even one a kernel moved before its buffer's start, decodes to a buffer
and a signed byte offset by integer arithmetic alone. Pointer arithmetic
(`tt.addptr`) is then plain int64 addition.

Pointer arithmetic goes through `Memory.advance`, which keeps each pointer's
provenance: a pointer moved 2**40 bytes or more from its buffer would decode into a
neighbouring buffer's range (or wrap around), so such a lane is marked instead, at an
address in a reserved range that remembers the buffer it came from; any access through
it is reported as out of bounds of that buffer, never served from another argument.

Accesses read and write the registered arrays themselves, through typed views of
their bytes. Every access checks its active lanes: an address outside its buffer, or
not aligned to the element size, raises `InterpreterMemoryError` naming the buffer's
argument, the offset and the buffer's size.

The virtual ranges lie above 2**56, out of reach of the host's own addresses. A kernel
may also follow a real host address it loaded (a table of `data_ptr()`s, cast with
`.to(tl.pointer_type(...))`): an access through an address below the virtual ranges is
served from the live torch tensor or numpy array whose memory holds it, registered then
as a buffer of its own (named for the address) and checked the same way; an address in
no live tensor's memory is an error, as a null pointer is.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tritonc.backends.interpreter.errors import InterpreterMemoryError

_SHIFT = 41
_HALF = 1 << (_SHIFT - 1)
# buffer i owns the addresses of slot `_FIRST_SLOT + i` (`(address + _HALF) >> _SHIFT`);
# the slots below are the host's own addresses
_FIRST_SLOT = 1 << 16
_HOST_END = (_FIRST_SLOT << _SHIFT) - _HALF
# the last slot of the int64 address space holds pointers moved out of their buffer's
# range: `_STRAY_BASE + i` for a pointer that left buffer i
_STRAY_SLOT = (1 << (63 - _SHIFT)) - 1
_STRAY_INDEX = _STRAY_SLOT - _FIRST_SLOT
_STRAY_BASE = _STRAY_SLOT << _SHIFT


@dataclass
class Buffer:
    """One registered host buffer: its bytes, its argument name, typed views of it."""

    name: str
    data: np.ndarray  # 1-d uint8 view of the buffer's bytes
    owner: object  # keeps the host memory alive
    views: dict[np.dtype, np.ndarray] = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return self.data.size

    def typed(self, dt: np.dtype) -> np.ndarray:
        """The buffer as a 1-d array of `dt` (a trailing partial element is left out)."""
        view = self.views.get(dt)
        if view is None:
            size = dt.itemsize
            view = self.data[: self.nbytes // size * size].view(dt)
            self.views[dt] = view
        return view


def _byte_span(array: np.ndarray) -> tuple[np.ndarray, int]:
    """A uint8 view of all the bytes `array` spans, and the offset of its first element."""
    if array.flags.c_contiguous:
        return array.reshape(-1).view(np.uint8), 0
    if not array.flags.writeable:
        raise ValueError("a strided buffer must be writable to be registered")
    start = array.__array_interface__["data"][0]
    lo = hi = 0
    for n, stride in zip(array.shape, array.strides, strict=True):
        if n == 0:
            return np.zeros(0, np.uint8), 0
        if stride < 0:
            lo += (n - 1) * stride
        else:
            hi += (n - 1) * stride
    span = hi - lo + array.itemsize
    raw = (ctypes.c_uint8 * span).from_address(start + lo)
    return np.frombuffer(raw, dtype=np.uint8), -lo


class Memory:
    """The buffers one launch can reach, keyed by virtual address."""

    def __init__(self) -> None:
        self.buffers: list[Buffer] = []
        self.host: list[tuple[int, int, int]] = []  # (first byte, end, buffer index)

    def register(self, array: np.ndarray, name: str) -> np.ndarray:
        """Make `array` reachable by the kernel as argument `name`; return its pointer."""
        array = np.asarray(array)
        data, first = _byte_span(array)
        self.buffers.append(Buffer(name, data, array))
        return np.array(self.base(len(self.buffers) - 1) + first, dtype=np.int64)

    @staticmethod
    def base(index: int) -> int:
        """The virtual address of buffer `index`'s first byte."""
        return (index + _FIRST_SLOT) << _SHIFT

    @staticmethod
    def decode(addr: Any) -> tuple[Any, Any]:
        """(buffer index, byte offset) of an address or an array of them."""
        index = ((addr + _HALF) >> _SHIFT) - _FIRST_SLOT
        return index, addr - ((index + _FIRST_SLOT) << _SHIFT)

    @staticmethod
    def advance(ptr: np.ndarray, offset: np.ndarray) -> np.ndarray:
        """`ptr + offset` (bytes), marking lanes that leave their buffer's address range
        (a host address moves freely: its access finds its memory)."""
        with np.errstate(over="ignore"):
            result = ptr + offset
        source = (ptr + _HALF) >> _SHIFT
        left = (source != (result + _HALF) >> _SHIFT) & (source >= _FIRST_SLOT)
        stray = source == _STRAY_SLOT
        if not (np.any(left) or np.any(stray)):
            return result
        marked = np.where(stray, ptr,
                          _STRAY_BASE + np.clip(source - _FIRST_SLOT, 0, 1 << 20))
        return np.where(left | stray, marked, result)

    def digest(self) -> bytes:
        """A digest of every buffer's bytes (two equal digests: memory is unchanged)."""
        import hashlib

        h = hashlib.blake2b(digest_size=16)
        for buf in self.buffers:
            h.update(buf.data)
        return h.digest()

    # -- host addresses -------------------------------------------------------
    def _virtual(self, addr: np.ndarray, what: str) -> np.ndarray:
        """`addr` with every host address (below the virtual ranges) replaced by the
        virtual address of the same byte of the live tensor holding it; an address past
        the end of one (and in no other) keeps its offset from it, so the access is out
        of that tensor's bounds."""
        if addr.size == 0 or int(addr.min()) >= _HOST_END:
            return addr
        out = addr.copy()
        host = out < _HOST_END
        for a in np.unique(out[host]):
            lanes = host & (out == a)
            if not lanes.any():
                continue
            start, end, index = self._host_range(int(a), what)
            if start <= a < end:
                lanes = host & (out >= start) & (out < end)
            out[lanes] = out[lanes] - start + self.base(index)
            host &= ~lanes
        return out

    def _host_range(self, addr: int, what: str) -> tuple[int, int, int]:
        """(first byte, end, buffer index) of the live tensor memory holding `addr`, or of
        the nearest one below it (within 2**40 bytes) when none holds it."""
        for start, end, index in self.host:
            if start <= addr < end:
                return start, end, index
        found = _live_memory_at(addr)
        if found is not None:
            start, nbytes, owner = found
            raw = (ctypes.c_uint8 * nbytes).from_address(start)
            self.buffers.append(Buffer(f"tensor at {start:#x}", np.frombuffer(raw, np.uint8),
                                       owner))
            self.host.append((start, start + nbytes, len(self.buffers) - 1))
            return self.host[-1]
        below = [r for r in self.host if r[0] <= addr < r[0] + _HALF]
        if below:
            return max(below)
        raise InterpreterMemoryError(
            f"{what} through address {addr:#x}, which is in no argument's buffer "
            "(a null or corrupted pointer?)")

    # -- checked element access -----------------------------------------------
    def locate(self, addr: np.ndarray, itemsize: int, what: str) -> tuple[Buffer, np.ndarray]:
        """The buffer all of `addr` fall in and their element indices, checked.

        `addr` holds only the lanes that access memory. Raises
        `InterpreterMemoryError` for an address outside its buffer or misaligned.
        """
        lo, hi = int(addr.min()), int(addr.max())
        index, lo_off = self.decode(lo)
        if index != self.decode(hi)[0]:
            raise InterpreterMemoryError(
                f"{what} spans several buffers in one access (addresses {lo:#x}..{hi:#x})")
        buf = self._buffer(int(index), lo, what)
        offsets = addr - self.base(int(index))
        hi_off = hi - self.base(int(index))
        if lo_off < 0 or hi_off + itemsize > buf.nbytes:
            bad = lo_off if lo_off < 0 else hi_off
            raise InterpreterMemoryError(
                f"{what} out of bounds of argument '{buf.name}': byte offset {bad} "
                f"(element {bad // itemsize} of {itemsize} bytes) is outside its "
                f"{buf.nbytes} bytes ({buf.nbytes // itemsize} elements)")
        if itemsize > 1 and np.any(offsets & (itemsize - 1)):
            bad = int(offsets[(offsets & (itemsize - 1)) != 0].flat[0])
            raise InterpreterMemoryError(
                f"{what} misaligned in argument '{buf.name}': byte offset {bad} is not a "
                f"multiple of the element size {itemsize}")
        return buf, offsets // itemsize

    def _buffer(self, index: int, addr: int, what: str) -> Buffer:
        if index == _STRAY_INDEX:
            origin = addr - _STRAY_BASE
            name = self.buffers[origin].name if 0 <= origin < len(self.buffers) else "?"
            raise InterpreterMemoryError(
                f"{what} out of bounds of argument '{name}': the pointer was moved 2**40 bytes "
                "or more outside its buffer (it may land in another argument's memory)")
        if 0 <= index < len(self.buffers):
            return self.buffers[index]
        raise InterpreterMemoryError(
            f"{what} through address {addr:#x}, which is in no argument's buffer "
            "(a null or corrupted pointer?)")

    def groups(self, addr: np.ndarray) -> list[np.ndarray]:
        """Boolean lane masks splitting `addr` by buffer (usually just one, all true)."""
        if addr.size == 0 or self.decode(int(addr.min()))[0] == self.decode(int(addr.max()))[0]:
            return [np.ones(addr.shape, dtype=bool)]
        index, _ = self.decode(addr)
        return [index == i for i in np.unique(index)]

    def read(self, addr: np.ndarray, dt: np.dtype, what: str = "load") -> np.ndarray:
        """Values of type `dt` at each address (all lanes active)."""
        out = np.empty(addr.shape, dtype=dt)
        if addr.size == 0:
            return out
        addr = self._virtual(addr, what)
        for lanes in self.groups(addr):
            a = addr if lanes.all() else addr[lanes]
            buf, idx = self.locate(a, dt.itemsize, what)
            vals = buf.typed(np.dtype(dt.type))[idx]
            if lanes.all():
                out[...] = vals
            else:
                out[lanes] = vals
        return out

    def write(self, addr: np.ndarray, values: np.ndarray, what: str = "store") -> None:
        """Store `values` at each address (all lanes active; later lanes win)."""
        if addr.size == 0:
            return
        addr = self._virtual(addr, what)
        for lanes in self.groups(addr):
            a, v = (addr, values) if lanes.all() else (addr[lanes], values[lanes])
            buf, idx = self.locate(a, values.dtype.itemsize, what)
            buf.typed(np.dtype(values.dtype.type))[idx] = v

    def element_view(self, addr: np.ndarray, dt: np.dtype, what: str
                     ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(lane mask, typed buffer view, element indices) per buffer, for atomics."""
        out = []
        addr = self._virtual(addr, what)
        for lanes in self.groups(addr):
            buf, idx = self.locate(addr[lanes], dt.itemsize, what)
            out.append((lanes, buf.typed(np.dtype(dt.type)), idx))
        return out


def _live_memory_at(addr: int) -> tuple[int, int, object] | None:
    """(first byte, size, owner) of the memory of a live CPU torch tensor or numpy array
    that holds host address `addr`, or None. Only plain tensors count (not the fake and
    functional subclasses compilers make, which own no memory), and never address 0."""
    import gc
    import sys

    if addr == 0:
        return None
    torch = sys.modules.get("torch")
    tensors = (torch.Tensor, torch.nn.Parameter) if torch is not None else ()
    for obj in gc.get_objects():
        # type(), not isinstance: that would ask lazy modules for `__class__`
        if type(obj) in tensors and obj.device.type == "cpu":
            storage = obj.untyped_storage()
            start, nbytes = storage.data_ptr(), storage.nbytes()
            if start and start <= addr < start + nbytes:
                return start, nbytes, storage
    for array in _reachable_arrays():
        start = array.__array_interface__["data"][0]
        if start and start <= addr < start + array.nbytes:
            return start, array.nbytes, array
    return None


def _reachable_arrays():
    """The numpy arrays owning their memory that the garbage collector's objects or the
    locals of any thread's frames refer to. The collector does not track arrays of
    numbers, so they are found through what holds them (a list, a module's globals, a
    caller's local variable)."""
    import gc
    import sys

    holders = [frame.f_locals for top in sys._current_frames().values()
               for frame in _stack(top)]
    for holder in (*gc.get_objects(), *holders):
        for obj in gc.get_referents(holder):
            if type(obj) is np.ndarray:
                while isinstance(obj.base, np.ndarray):
                    obj = obj.base
                if obj.base is None:
                    yield obj


def _stack(frame):
    while frame is not None:
        yield frame
        frame = frame.f_back


def masked_load(memory: Memory, addr: np.ndarray, mask: np.ndarray | None,
                other: np.ndarray | None, dt: np.dtype, what: str = "load") -> np.ndarray:
    """Load `dt` values at `addr` where `mask` is set; `other` (or 0) elsewhere.

    Masked-off lanes are neither checked nor read. int1 is read as bytes, nonzero true.
    """
    raw = np.dtype(np.uint8) if dt.kind == "b" else dt
    if mask is None or (mask.all() and mask.shape == addr.shape):
        vals = memory.read(addr, raw, what)
    else:
        mask = np.broadcast_to(mask, addr.shape)
        vals = np.zeros(addr.shape, dtype=raw)
        if other is not None:
            vals[...] = other.astype(np.uint8) if dt.kind == "b" else other
        if mask.any():
            vals[mask] = memory.read(addr[mask], raw, what)
    return vals != 0 if dt.kind == "b" else vals


def masked_store(memory: Memory, addr: np.ndarray, values: np.ndarray,
                 mask: np.ndarray | None, what: str = "store") -> None:
    """Store `values` at `addr` where `mask` is set; masked-off lanes are not checked."""
    values = np.broadcast_to(values, addr.shape)
    if values.dtype.kind == "b":
        values = values.astype(np.uint8)
    if mask is None or mask.all():
        memory.write(addr, values, what)
        return
    mask = np.broadcast_to(mask, addr.shape)
    if mask.any():
        memory.write(addr[mask], values[mask], what)
