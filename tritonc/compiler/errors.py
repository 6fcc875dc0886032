"""Errors that point at the kernel's own source: file, line, column, the line and a caret."""

from __future__ import annotations

import ast

from tritonc.errors import TritonError


class TargetLimitError(ValueError):
    """A construct the language allows that the compiled target cannot express (a
    descriptor block row under one TMA box row of 16 bytes). The compiler reports it as a
    CompilationError; the interpreter, which has its own rule for it, runs on."""


class CompilationError(TritonError):
    """A kernel could not be compiled (or interpreted) because of the code at `lineno`."""

    def __init__(self, src: str, node: ast.AST | None, message: str, *, filename: str = "<kernel>",
                 line_offset: int = 0, kernel: str = "") -> None:
        self.src = src
        self.message = message
        self.filename = filename
        self.kernel = kernel
        self.lineno = (getattr(node, "lineno", 1) or 1) + line_offset
        self.col_offset = getattr(node, "col_offset", 0) or 0
        self.source_line = ""
        lines = src.splitlines()
        local = self.lineno - line_offset - 1
        self.local_line = local + 1
        if node is not None and 0 <= local < len(lines):
            self.source_line = lines[local]
        super().__init__(self._format())

    @property
    def error_message(self) -> str:
        """The message alone, without the location (Triton's name for `message`)."""
        return self.message

    def _format(self) -> str:
        where = f"{self.filename}:{self.lineno}:{self.col_offset + 1}"
        inside = f" in {self.kernel}" if self.kernel else ""
        if not self.source_line:
            return f"{where}{inside}: {self.message}"
        # the position within the kernel's source as Triton gives it (the def is line 1),
        # the line with a caret, and the message last, as Triton lays it out
        return (f"{where}{inside}:\nat {self.local_line}:{self.col_offset}:\n"
                f"{self.source_line}\n{' ' * self.col_offset}^\n{self.message}")

    def __reduce__(self):
        return (_rebuild, (self.__class__, self.__dict__.copy()))


def _rebuild(cls, state):
    err = cls.__new__(cls)
    err.__dict__.update(state)
    Exception.__init__(err, err._format())
    return err


class UnsupportedLanguageConstruct(CompilationError):
    """Python syntax the Triton language does not have (break, try, with, lambda, ...)."""


class CompileTimeAssertionFailure(CompilationError):
    """A `tl.static_assert` failed while the kernel was being compiled."""
