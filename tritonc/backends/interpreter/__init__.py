"""The numpy interpreter: runs Triton kernels on the CPU, one program at a time.

`NumpyBuilder` implements the `Builder` protocol of `tritonc.language.builder` with
numpy; `Memory` holds the host buffers kernel pointers reach.
"""

from tritonc.backends.interpreter.block_ops import BlockPointer, TensorDescriptor
from tritonc.backends.interpreter.errors import (
    DeviceAssertionError,
    InterpreterError,
    InterpreterMemoryError,
    InterpreterUnsupported,
)
from tritonc.backends.interpreter.memory import Memory
from tritonc.backends.interpreter.numpy_builder import NumpyBuilder
from tritonc.backends.interpreter.registry import RULES

__all__ = [
    "BlockPointer",
    "DeviceAssertionError",
    "InterpreterError",
    "InterpreterMemoryError",
    "InterpreterUnsupported",
    "Memory",
    "NumpyBuilder",
    "RULES",
    "TensorDescriptor",
]
