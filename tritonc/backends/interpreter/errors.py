"""Errors the interpreter raises while running a kernel.

All derive from `InterpreterError`, so a caller can catch the family at once. Each
message names what went wrong in the kernel's terms (the argument's name, the op).
"""

from __future__ import annotations

from tritonc.errors import TritonError


class InterpreterError(TritonError, RuntimeError):
    """Base class of every error raised by the numpy interpreter."""


class InterpreterUnsupported(InterpreterError):
    """An op (or a form of one) that the interpreter cannot run."""


class InterpreterMemoryError(InterpreterError):
    """A load, store or atomic outside every registered buffer, or misaligned."""


class InterpreterDeadlock(InterpreterError):
    """A `while` loop that cannot end: an iteration left the program's values and every
    buffer as the one before, so every later one will too (a program spinning on another
    program's progress, such as a grid barrier: the interpreter runs programs one after
    another)."""


class DeviceAssertionError(InterpreterError):
    """`tl.device_assert` failed. `str(e)` is the assertion's message.

    `pid` is the failing program's grid index and `index` the first failing element's
    index within the block (empty for scalars).
    """

    def __init__(self, message: str, pid: tuple[int, ...] = (), index: tuple[int, ...] = ()):
        super().__init__(message)
        self.message = message
        self.pid = pid
        self.index = index
