"""The code generator: walks a @jit function's Python AST and drives the semantic layer.

One `visit_<Node>` per Python construct the language has; anything else raises
`UnsupportedLanguageConstruct`. Expressions become calls into `Semantic`, so the same
walk emits TTIR over the MLIR builder and computes values over the numpy builder.
Control flow whose condition is known during the walk (a constexpr, or any value in
the interpreter, whose builder is `concrete`) runs as Python control flow; otherwise
it becomes `scf.if` / `scf.for` / `scf.while` (see `control_flow.py`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
import os
from collections.abc import Callable
from typing import Any

from tritonc.compiler.control_flow import ChangedConstant, ControlFlowMixin, assigned_names
from tritonc.compiler.errors import (
    CompilationError,
    CompileTimeAssertionFailure,
    UnsupportedLanguageConstruct,
)
from tritonc.language import builtins as tl_builtins
from tritonc.language import dtypes as T
from tritonc.language.core import constexpr, is_aggregate, is_builtin, tensor
from tritonc.language.semantic import Semantic, SemanticError
from tritonc.language.semantic_core import describe_value
from tritonc.runtime.jit import JITFunction

_DEBUG = os.environ.get("TRITONC_DEBUG_COMPILER", "") == "1"


class KernelReturn(Exception):
    """Unwinds a concrete walk at `return` (the interpreter's early exit)."""


_INLINE = object()  # call_noinline's answer for a function it leaves to be inlined


def _cause(fn: JITFunction, error: CompilationError) -> BaseException:
    """What an error in a call to `fn` is chained to: for a function of the language's
    own library (`tl.dot_scaled`, `tl.sort`, ...), the first exception that is not a
    CompilationError (the user's kernel, not the library's insides, is where it points);
    else the callee's CompilationError itself."""
    if not getattr(fn.fn, "__module__", "").startswith("tritonc.language"):
        return error
    cause: BaseException = error
    while isinstance(cause, CompilationError) and cause.__cause__ is not None:
        cause = cause.__cause__
    return cause


def _inline_only(values) -> bool:
    """Whether any of `values` (or an item of a tuple among them) is a tensor descriptor or
    an aggregate: a value only an inlined call can take or give (a separate function
    could not reach the ops that made it)."""
    values = [_unwrap(v) for v in values]
    return any(_inline_only(v) if isinstance(v, tuple)
               else isinstance(v, tl_builtins.tensor_descriptor) or is_aggregate(v)
               for v in values)


class BoundJIT:
    """A standard-library function reached as a tensor method (`x.sum(0)`), or a `@jit`
    method of an aggregate reached through an instance (`pair.first_of()`)."""

    def __init__(self, fn: JITFunction, self_value: Any) -> None:
        self.fn, self.self_value = fn, self_value


def _is_constexpr_function(fn: Any) -> bool:
    return getattr(fn, "__triton_constexpr_function__", False)


def _unwrap(v: Any) -> Any:
    return v.value if isinstance(v, constexpr) else v


_INTERNAL_MARKERS = ("object has no attribute", "unsupported operand", "not iterable",
                     "not subscriptable", "object is not callable", "<locals>", "_semantic",
                     "NoneType", "takes no keyword", "argument must be", "object cannot be")


def _is_internal(e: Exception) -> bool:
    """Whether `e` comes from inside the compiler rather than from a check of its own."""
    if isinstance(e, (AttributeError, IndexError, KeyError, ZeroDivisionError,
                      AssertionError, NotImplementedError)):
        return True
    return isinstance(e, TypeError) and any(m in str(e) for m in _INTERNAL_MARKERS)


def _type_name(v: Any) -> str:
    if isinstance(v, tensor):
        return str(v.type)
    v = _unwrap(v)
    return "None" if v is None else type(v).__name__


def _argument_types(args: list, kwargs: dict) -> str:
    parts = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    return f"({', '.join(parts)})"


def _describe(e: Exception) -> str:
    """The one-line reason for an exception raised while compiling a node."""
    if isinstance(e, (SemanticError, tl_builtins.StaticAssertionError)):
        return str(e)
    if isinstance(e, RecursionError):
        return "the expression is nested too deeply to compile; split it into several statements"
    if _is_internal(e):
        return "this expression's operands have types it cannot take"
    text = str(e)
    return text if text.startswith(type(e).__name__) else f"{type(e).__name__}: {text}"


class CodeGenerator(ControlFlowMixin, ast.NodeVisitor):
    """Walks one function body; callees get a generator of their own."""

    _binary_methods = {ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__",
                       ast.Div: "__truediv__", ast.FloorDiv: "__floordiv__", ast.Mod: "__mod__",
                       ast.BitAnd: "__and__", ast.BitOr: "__or__", ast.BitXor: "__xor__",
                       ast.LShift: "__lshift__", ast.RShift: "__rshift__", ast.Pow: "__pow__"}
    _compare_methods = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__",
                        ast.LtE: "__le__", ast.Gt: "__gt__", ast.GtE: "__ge__"}
    _unary_methods = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__",
                      ast.Not: "__not__"}

    def __init__(self, fn: JITFunction, semantic: Semantic, scope: dict[str, Any]) -> None:
        self.fn = fn
        self.semantic = semantic
        self.builder = semantic.builder
        self.lscope: dict[str, Any] = dict(scope)
        self.returned = False
        self.ret_value: Any = None
        self.in_tail = False  # the statement being visited ends the function
        self.if_continuation: list[ast.stmt] = []  # the statements after the `if` visited next
        self.return_node: ast.Return | None = None
        self.statically_implemented = {
            "static_assert": tl_builtins.static_assert, "static_print": tl_builtins.static_print,
            "print": self._print, "len": self._len, "min": self._minmax(tl_builtins.minimum, min),
            "max": self._minmax(tl_builtins.maximum, max), "int": int, "float": float,
            "isinstance": self._isinstance, "range": tl_builtins.range, "getattr": getattr,
            "tuple": tuple, "list": list, "zip": zip, "enumerate": enumerate, "abs": abs,
            "bool": bool, "str": str, "repr": repr, "type": type, "hasattr": hasattr,
        }

    # -- errors and locations ------------------------------------------------------------
    def error(self, node: ast.AST | None, message: str,
              cls: type[CompilationError] = CompilationError) -> CompilationError:
        return cls(self.fn.src, node, message, filename=self.fn.filename,
                   line_offset=self.fn.def_line - 1, kernel=self.fn.__name__)

    def locate(self, node: ast.AST) -> None:
        """Make `node`'s line and column the location of the ops built next."""
        line = getattr(node, "lineno", None)
        if line is None:
            return
        if not self.builder.concrete:
            from tritonc.compiler.mlir_builder import ir

            with self.builder.context:
                self.builder.loc = ir.Location.file(self.fn.filename, line + self.fn.def_line - 1,
                                                    node.col_offset + 1)
        self.current_line = line + self.fn.def_line - 1

    def visit(self, node: ast.AST) -> Any:
        if node is None:
            return None
        self.locate(node)
        try:
            return super().visit(node)
        except (CompilationError, KernelReturn):
            raise
        except Exception as e:
            if _DEBUG:
                raise
            if isinstance(e, tl_builtins.StaticAssertionError):
                raise self.error(node, _describe(e), CompileTimeAssertionFailure) from None
            raise self.error(node, _describe(e)) from e

    def generic_visit(self, node: ast.AST) -> Any:
        raise self.error(node, f"unsupported language construct: {type(node).__name__}",
                         UnsupportedLanguageConstruct)

    # -- names -----------------------------------------------------------------------------
    def lookup(self, name: str, node: ast.AST) -> Any:
        if name in self.lscope:
            value = self.lscope[name]
            if isinstance(value, ChangedConstant):
                raise self.error(node, value.message)
            return value
        closure = inspect.getclosurevars(self.fn.fn).nonlocals if self.fn.fn.__closure__ else {}
        for where, table in (("closure", closure), ("global", self.fn.__globals__)):
            if name in table:
                value = table[name]
                if self._allowed_global(value):
                    return value
                if inspect.isfunction(value):
                    raise self.error(node, f"{name!r} is not a @jit function or a Triton builtin: "
                                     f"decorate it with @triton.jit to call it from a kernel "
                                     f"(or with @tl.constexpr_function to run it at compile time)")
                raise self.error(node, f"Cannot access {where} variable {name!r} of type "
                                 f"{type(value).__name__} from a @jit function: only "
                                 f"tl.constexpr values (`{name} = tl.constexpr(...)`), tl "
                                 f"dtypes, modules and @jit functions are allowed, since other "
                                 f"globals may change after compilation")
        if name in self.statically_implemented:
            return self.statically_implemented[name]
        if name in ("True", "False", "None"):
            return constexpr({"True": True, "False": False, "None": None}[name])
        raise self.error(node, f"name {name!r} is not defined")

    @staticmethod
    def _allowed_global(value: Any) -> bool:
        return (isinstance(value, (constexpr, T.base_type, JITFunction, type(os)))
                or is_builtin(value) or _is_constexpr_function(value) or inspect.isclass(value)
                or value is None or isinstance(value, tl_builtins.tensor_descriptor))

    def set_name(self, name: str, value: Any, node: ast.AST, sanitize: bool = False) -> None:
        """Bind `name`; with `sanitize` (a plain assignment), a number becomes a scalar
        tensor as in Triton (annotate the name `tl.constexpr` to keep it constexpr)."""
        raw = _unwrap(value)
        if isinstance(raw, (bool, int, float)) and (sanitize or not isinstance(value, constexpr)):
            value = self.semantic.to_tensor(raw)
        self.lscope[name] = value

    def visit_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def visit_Constant(self, node: ast.Constant) -> constexpr:
        return constexpr(node.value)

    # -- statements ------------------------------------------------------------------------
    def visit_block(self, stmts: list[ast.stmt], tail: bool = False) -> None:
        """Visit a statement list; an `if` that may return takes the rest of the list
        into each of its branches (a branch that returns never reaches it), so
        `if c: return` followed by more code is `if c: return else: <the rest>`.

        `tail` says the list ends the function, so falling off its end returns None.
        """
        for i, stmt in enumerate(stmts):
            if self.returned:
                return
            rest = stmts[i + 1:]
            if isinstance(stmt, ast.If) and rest and self.contains_return([stmt]):
                self.in_tail = tail
                self.if_continuation = rest
                self.visit(stmt)
                return
            self.in_tail = tail and not rest
            self.visit(stmt)

    @staticmethod
    def contains_return(stmts: list[ast.stmt]) -> bool:
        return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.visit_block(node.body, tail=True)

    def visit_Pass(self, node: ast.Pass) -> None:
        return None

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Call) and isinstance(node.value.func, (ast.Name,
                                                                             ast.Attribute)):
            callee = self.visit(node.value.func)
            note = getattr(callee, "must_use_result", False)
            if note:
                extra = f" {note}" if isinstance(note, str) else ""
                raise self.error(node, f"The result of {callee.__name__} is not being used.{extra}")
        self.visit(node.value)

    def visit_Return(self, node: ast.Return) -> None:
        value = self.visit(node.value) if node.value is not None else None
        if isinstance(value, constexpr) and value.value is None:
            value = None  # `return None` is a plain `return`
        self.return_node = node
        if isinstance(value, (bool, int, float)):
            value = self.semantic.to_tensor(value)
        self.ret_value = value
        self.returned = True
        if self.builder.concrete and getattr(self, "_raise_on_return", False):
            raise KernelReturn

    def visit_Assign(self, node: ast.Assign) -> None:
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value, sanitize=True)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        annotation = self.visit(node.annotation)
        value = self.visit(node.value) if node.value is not None else None
        if _unwrap(annotation) is constexpr or annotation is constexpr:
            if isinstance(value, tensor):
                raise self.error(node, f"{ast.unparse(node.target)} is annotated tl.constexpr "
                                 "but its value is only known at run time")
            value = constexpr(value)
            self.assign(node.target, value)
            return
        self.assign(node.target, value, sanitize=True)

    def assign(self, target: ast.expr, value: Any, sanitize: bool = False) -> None:
        if isinstance(target, ast.Name):
            self.set_name(target.id, value, target, sanitize)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = _unwrap(value)
            if not isinstance(values, (tuple, list)):
                raise self.error(target, f"cannot unpack {type(values).__name__} into "
                                 f"{len(target.elts)} names")
            if len(values) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(values)} values into "
                                 f"{len(target.elts)} names")
            for t, v in zip(target.elts, values, strict=False):
                self.assign(t, v, sanitize)
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__}",
                             UnsupportedLanguageConstruct)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        load = ast.copy_location(ast.Name(id=node.target.id, ctx=ast.Load()), node.target) \
            if isinstance(node.target, ast.Name) else node.target
        binop = ast.copy_location(ast.BinOp(left=load, op=node.op, right=node.value), node)
        self.assign(node.target, self.visit(binop), sanitize=True)

    def visit_Assert(self, node: ast.Assert) -> None:
        msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
        cond = self.visit(node.test)
        if not isinstance(cond, tensor):
            if not _unwrap(cond):
                raise self.error(node, f"assertion failed: {msg or ast.unparse(node.test)}")
            return
        text = f"{self.fn.filename}:{self.current_line}: {self.fn.__name__}: " \
               f"Assertion `{ast.unparse(node.test)}` failed" + (f": {msg}" if msg else "")
        self.semantic.device_assert(cond, text)

    # -- expressions ----------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> Any:
        """`a + b + c + ...` nests to the left: walk the chain in a loop, not by recursion,
        so a long sum compiles however many terms it has."""
        chain = []
        while isinstance(node, ast.BinOp):
            chain.append(node)
            node = node.left
        value = self.visit(node)
        for link in reversed(chain):
            rhs = self.visit(link.right)
            self.locate(link)
            method = self._binary_methods.get(type(link.op))
            if method is None:
                raise self.error(link, f"unsupported operator {type(link.op).__name__}",
                                 UnsupportedLanguageConstruct)
            try:
                value = self.apply_binary(method, value, rhs, link)
            except CompilationError:
                raise
            except Exception as e:
                if _DEBUG:
                    raise
                raise self.error(link, _describe(e)) from e
        return value

    def apply_binary(self, method: str, lhs: Any, rhs: Any, node: ast.AST) -> Any:
        if isinstance(lhs, tensor):
            if method == "__pow__":
                raise self.error(node, "** is not supported on tensors; use "
                                 "tl.extra.libdevice.pow")
            return getattr(lhs, method)(rhs, _semantic=self.semantic)
        if isinstance(rhs, tensor):
            if method in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
                swapped = {"__lt__": "__gt__", "__le__": "__ge__", "__gt__": "__lt__",
                           "__ge__": "__le__"}.get(method, method)
                return getattr(rhs, swapped)(lhs, _semantic=self.semantic)
            return getattr(rhs, "__r" + method[2:])(lhs, _semantic=self.semantic)
        a, b = _unwrap(lhs), _unwrap(rhs)
        if isinstance(a, (tuple, list)) and method == "__add__":
            return tuple(a) + tuple(b)
        try:
            result = getattr(operator, method)(a, b)
        except (TypeError, AttributeError):
            raise self.error(node, f"cannot apply `{ast.unparse(node)}` to "
                             f"{describe_value(a)} and {describe_value(b)}") from None
        return constexpr(result)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.visit(node.operand)
        if isinstance(operand, tensor):
            return getattr(operand, self._unary_methods[type(node.op)])(_semantic=self.semantic)
        if isinstance(operand, tuple):
            raise self.error(node, f"`{ast.unparse(node)}`: unary operators do not apply to "
                             "a tuple")
        value = _unwrap(operand)
        ops = {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Invert: lambda v: ~v,
               ast.Not: lambda v: not v}
        return constexpr(ops[type(node.op)](value))

    def visit_Compare(self, node: ast.Compare) -> Any:
        if len(node.ops) != 1:
            raise self.error(node, "chained comparisons (a < b < c) are not supported; use "
                             "(a < b) & (b < c)", UnsupportedLanguageConstruct)
        lhs, rhs = self.visit(node.left), self.visit(node.comparators[0])
        op = type(node.ops[0])
        if op in (ast.Is, ast.IsNot) and _unwrap(rhs) is None and isinstance(lhs, tensor):
            return constexpr(op is ast.IsNot)  # a tensor is never None, known while compiling
        if op in (ast.Is, ast.IsNot, ast.In, ast.NotIn):
            if op in (ast.In, ast.NotIn) and (isinstance(lhs, tensor) or isinstance(rhs, tensor)):
                raise self.error(node, f"`{ast.unparse(node)}`: `in` needs constexpr operands")
            a, b = _unwrap(lhs), _unwrap(rhs)
            result = {ast.Is: lambda: a is b, ast.IsNot: lambda: a is not b,
                      ast.In: lambda: a in b, ast.NotIn: lambda: a not in b}[op]()
            return constexpr(result)
        return self.apply_binary(self._compare_methods[op], lhs, rhs, node)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for value_node in node.values[1:]:
            if not isinstance(result, tensor):
                # Python's short circuit on a value known now
                if bool(_unwrap(result)) != is_and:
                    return result
                result = self.visit(value_node)
                continue
            rhs = self.visit(value_node)
            method = "logical_and" if is_and else "logical_or"
            result = getattr(result, method)(rhs, _semantic=self.semantic)
        return result

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        cond = self.visit(node.test)
        known = self.static_condition(cond)
        if known is not None:
            return self.visit(node.body if known else node.orelse)
        return self.runtime_ifexp(node, cond)

    def visit_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.visit(e) for e in node.elts)

    visit_List = visit_Tuple

    def visit_JoinedStr(self, node: ast.JoinedStr) -> constexpr:
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                v = self.visit(value.value)
                if isinstance(v, tensor):
                    raise self.error(value, "f-strings can only format constexpr values")
                spec = self.visit(value.format_spec).value if value.format_spec else ""
                parts.append(format(_unwrap(v), spec))
        return constexpr("".join(parts))

    def visit_ListComp(self, node: ast.ListComp) -> tuple:
        if len(node.generators) != 1 or node.generators[0].ifs:
            raise self.error(node, "only simple list comprehensions are supported",
                             UnsupportedLanguageConstruct)
        gen = node.generators[0]
        iterable = self.visit(gen.iter)
        if isinstance(iterable, tl_builtins.static_range):
            iterable = builtins.range(iterable.start, iterable.end, iterable.step)
        values = []
        saved = dict(self.lscope)
        for item in _unwrap(iterable):
            self.assign(gen.target, constexpr(item) if not isinstance(item, tensor) else item)
            values.append(self.visit(node.elt))
        self.lscope = saved
        return tuple(values)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        value = self.visit(node.value)
        index = self.visit(node.slice)
        if isinstance(value, tensor):
            return self._subscript_tensor(value, index, node)
        container, key = _unwrap(value), _unwrap(index)
        if isinstance(key, tuple):
            key = tuple(_unwrap(k) for k in key)
        result = container[key]
        return result if isinstance(result, (tensor, tuple)) else constexpr(result)

    def visit_Slice(self, node: ast.Slice) -> slice:
        parts = [_unwrap(self.visit(p)) if p is not None else None
                 for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def _subscript_tensor(self, value: tensor, index: Any, node: ast.AST) -> tensor:
        """`x[:, None]`: full slices keep a dimension, None inserts one."""
        items = index if isinstance(index, tuple) else (index,)
        axis = 0
        for item in items:
            item = _unwrap(item)
            if item is None:
                value = self.semantic.expand_dims(value, axis)
            elif isinstance(item, slice) and item == slice(None, None, None):
                pass
            else:
                raise self.error(node, "unsupported tensor index: tensors can only be indexed "
                                 "with `:` and `None`")
            axis += 1
        return value

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        base = self.visit(node.value)
        name = node.attr
        if isinstance(base, tensor):
            if name in ("dtype", "type"):
                return getattr(base, name)
            if name == "shape":
                return constexpr(tuple(base.shape))
            if name == "numel":
                return base.numel
            if name == "T":
                return self.semantic.permute(base, builtins.range(len(base.shape))[::-1])
            attr = getattr(type(base), name, None)
            if isinstance(attr, JITFunction):
                return BoundJIT(attr, base)
            if attr is None:
                raise self.error(node, f"tensor has no attribute {name!r}")
            return getattr(base, name)
        if isinstance(base, constexpr) and name == "type" and not hasattr(base.value, "type"):
            return base.type  # tl.constexpr_type, as Triton gives a constexpr's type
        obj = _unwrap(base)
        if is_aggregate(obj) and isinstance(getattr(type(obj), name, None), JITFunction):
            return BoundJIT(getattr(type(obj), name), obj)
        if not hasattr(obj, name):
            what = "None" if obj is None else type(obj).__name__
            raise self.error(node, f"{what} has no attribute {name!r}")
        result = getattr(obj, name)
        if isinstance(result, (int, float, bool, str, tuple)) and \
                not isinstance(result, T.base_type):
            return constexpr(result)
        return result

    # -- calls -----------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> Any:
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(_unwrap(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(_unwrap(self.visit(k.value)))
            else:
                kwargs[k.arg] = self.visit(k.value)
        return self.call(fn, args, kwargs, node)

    def call(self, fn: Any, args: list, kwargs: dict, node: ast.AST) -> Any:
        fn = _unwrap(fn)
        if isinstance(fn, BoundJIT):
            return self.call_function(fn.fn, [fn.self_value, *args], kwargs, node)
        if isinstance(fn, JITFunction):
            return self.call_function(fn, args, kwargs, node)
        if is_builtin(fn) or is_builtin(getattr(fn, "__func__", None)):
            extra = {"_generator": self} if getattr(fn, "wants_generator", False) else {}
            name = getattr(fn, "__name__", repr(fn))
            self._bind_builtin(fn, name, args, kwargs, node)
            try:
                result = fn(*args, **kwargs, _semantic=self.semantic, **extra)
            except CompilationError as e:
                if e.filename == self.fn.filename and e.kernel == self.fn.__name__:
                    raise
                # a function the builtin called (a combine function): report the call too
                raise self.error(node, f"in tl.{name}: {e.message}") from e
            except (KernelReturn, SemanticError, tl_builtins.StaticAssertionError):
                raise
            except Exception as e:
                if _DEBUG:
                    raise
                if _is_internal(e):
                    raise self.error(node, f"tl.{name}() cannot take arguments of types "
                                     f"{_argument_types(args, kwargs)}") from e
                raise self.error(node, f"{name}: {e}") from e
            return constexpr(result) if isinstance(result, (int, float, bool)) else result
        if fn in self.statically_implemented.values() or _is_constexpr_function(fn) or \
                inspect.isclass(fn):
            self._bind_builtin(fn, getattr(fn, "__name__", repr(fn)), args, kwargs, node)
            if getattr(fn, "__self__", None) is self or getattr(fn, "takes_values", False):
                result = fn(*args, **kwargs)  # helpers that look at tensors themselves
            elif _is_constexpr_function(fn) and fn not in self.statically_implemented.values():
                result = self._call_constexpr_function(fn, args, kwargs, node)
            else:
                result = fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in
                                                            kwargs.items()})
            if isinstance(result, (bool, int, float, str)):
                return constexpr(result)
            return result
        raise self.error(node, f"{getattr(fn, '__name__', fn)!r} is not a @jit function or a "
                         "Triton builtin and cannot be called from a kernel")

    def _bind_builtin(self, fn: Any, name: str, args: list, kwargs: dict,
                      node: ast.AST) -> None:
        """Check a builtin call's arguments against its signature (less the hidden
        `_semantic` / `_generator`), so a wrong call names the user's mistake."""
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return
        params = [p for n, p in sig.parameters.items() if n not in ("_semantic", "_generator")]
        try:
            sig.replace(parameters=params).bind(*args, **kwargs)
        except TypeError as e:
            prefix = "tl." if is_builtin(fn) or is_builtin(getattr(fn, "__func__", None)) \
                or inspect.isclass(fn) else ""
            raise self.error(node, f"{prefix}{name}(): {e}") from None

    def _call_constexpr_function(self, fn: Callable, args: list, kwargs: dict,
                                 node: ast.AST) -> Any:
        """Run a constexpr_function helper now; its failure is reported at the call."""
        name = getattr(fn, "__name__", repr(fn))
        for value in [*args, *kwargs.values()]:
            if isinstance(value, tensor):
                raise self.error(node, f"constexpr function {name} got a tensor argument; it "
                                 "only takes values known at compile time")
        try:
            return fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
        except tl_builtins.StaticAssertionError:
            raise
        except Exception as e:
            if _DEBUG:
                raise
            raise self.error(node, f"in constexpr function {name}: {_describe(e)}") from e

    def call_function(self, fn: JITFunction, args: list, kwargs: dict | None = None,
                      node: ast.AST | None = None) -> Any:
        """Call a @jit function: inlined into the current walk, or a func.call with noinline."""
        try:
            bound = fn.bind(tuple(args), kwargs or {})
        except TypeError as e:
            raise self.error(node, str(e)) from None
        scope = {}
        for p in fn.params:
            value = bound[p.name]
            if isinstance(value, (bool, int, float)) and not isinstance(value, constexpr):
                value = constexpr(value)
            # A tensor passed for a callee's tl.constexpr parameter stays a tensor, as in
            # Triton (its fused-attention tutorial passes offsets that way).
            scope[p.name] = value if isinstance(value, (tensor, constexpr, tuple)) or \
                value is None else constexpr(value)
        if fn.noinline and not self.builder.concrete and not _inline_only(scope.values()):
            result = self.call_noinline(fn, scope, node)
            if result is not _INLINE:
                return result
        return self.call_inlined(fn, scope, node)

    def call_inlined(self, fn: JITFunction, scope: dict, node: ast.AST | None) -> Any:
        """Walk `fn`'s body into the current function with `scope` as its arguments."""
        callee = CodeGenerator(fn, self.semantic, scope)
        try:
            callee.visit(fn.parse())
        except CompilationError as e:
            if node is None:
                raise
            raise self.error(node, f"in call to {fn.__name__}: {e.message}",
                             type(e)) from _cause(fn, e)
        return callee.ret_value

    def call_noinline(self, fn: JITFunction, scope: dict, node: ast.AST | None) -> Any:
        """Emit `fn` once per argument types and constexpr values as a private func.func.

        A tensor descriptor is made and used in one function (its lowering reads the
        `tt.make_tensor_descriptor` that built it), so a function that returns one is
        not emitted: the answer is `_INLINE`, and the call is inlined instead.
        """
        from tritonc.compiler.mlir_builder import name_prefix

        tensors = {k: v for k, v in scope.items() if isinstance(v, tensor)}
        key = (fn, tuple((k, v.type) for k, v in tensors.items()),
               tuple((k, repr(v)) for k, v in scope.items() if not isinstance(v, tensor)))
        cache = self.__dict__.setdefault("_noinline_cache", {})
        builder = self.builder
        if key not in cache:
            saved_ip = builder.ip
            symbol = f"{fn.__name__}__{name_prefix([t.type.scalar for t in tensors.values()])}" \
                     f"_{len(cache)}"
            func_op, block_args = builder.function(symbol, [v.type for v in tensors.values()],
                                                   "private", arg_names=list(tensors))
            inner = dict(scope)
            inner.update({k: tensor(a, v.type)
                          for (k, v), a in zip(tensors.items(), block_args, strict=True)})
            callee = CodeGenerator(fn, self.semantic, inner)
            try:
                callee.visit(fn.parse())
            except CompilationError as e:
                if node is None:
                    raise
                raise self.error(node, f"in call to {fn.__name__}: {e.message}") \
                    from _cause(fn, e)
            ret = callee.ret_value
            outs = list(ret) if isinstance(ret, tuple) else ([] if ret is None else [ret])
            if _inline_only(outs):
                func_op.operation.erase()
                builder.ip = saved_ip
                cache[key] = _INLINE
                return _INLINE
            if any(not isinstance(o, tensor) for o in outs):
                raise self.error(node, f"noinline function {fn.__name__} must return tensors")
            builder.set_result_types(func_op, [o.type for o in outs])
            builder.return_([o.handle for o in outs])
            builder.ip = saved_ip
            cache[key] = (symbol, [o.type for o in outs], isinstance(ret, tuple))
        if cache[key] is _INLINE:
            return _INLINE
        symbol, types, is_tuple = cache[key]
        results = builder.call(symbol, [v.handle for v in tensors.values()], types)
        outs = [tensor(h, t) for h, t in zip(results, types, strict=False)]
        if is_tuple:
            return tuple(outs)
        return outs[0] if outs else None

    # -- statically implemented functions --------------------------------------------------
    def _print(self, *args) -> None:
        prefix = ""
        values = list(args)
        if values and isinstance(_unwrap(values[0]), str):
            prefix = _unwrap(values.pop(0))
        self.semantic.device_print(prefix, [_unwrap(v) for v in values], False)

    @staticmethod
    def _len(x) -> int:
        if isinstance(x, tensor):
            return x.shape[0]
        return len(_unwrap(x))

    def _minmax(self, tl_fn: Callable, py_fn: Callable) -> Callable:
        def fn(*args):
            if any(isinstance(a, tensor) for a in args):
                result = args[0]
                for a in args[1:]:
                    result = tl_fn(result, a, _semantic=self.semantic)
                return result
            return py_fn(*(_unwrap(a) for a in args))

        fn.__name__ = py_fn.__name__
        fn.takes_values = True
        return fn

    @staticmethod
    def _isinstance(obj, cls) -> bool:
        return isinstance(_unwrap(obj), cls)


__all__ = ["CodeGenerator", "KernelReturn", "assigned_names"]
