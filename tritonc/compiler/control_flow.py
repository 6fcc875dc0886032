"""`if`, `for` and `while` for the code generator.

A construct whose condition or bounds are known during the walk runs as Python
control flow: constexpr conditions, `tl.static_range`, and everything in the
interpreter (whose builder is `concrete`). Otherwise it becomes structured MLIR:

    if c: x = a            %x = scf.if %c -> (T) { scf.yield %a } else { scf.yield %x0 }
    for i in range(lo, hi, s): acc += f(i)
                           %acc = scf.for %i = %lo to %hi step %s iter_args(%a = %acc0) -> (T)
    while c: body          %v = scf.while (%a = %v0) : ... { scf.condition(%c) %a } do { ... }

The values a region yields are the names it assigns that were defined (as tensors)
before it; a loop-carried name whose type changes inside the loop is an error.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from tritonc.compiler.errors import UnsupportedLanguageConstruct
from tritonc.language import builtins as tl_builtins
from tritonc.language import dtypes as T
from tritonc.language import standard as tl_standard
from tritonc.language.core import constexpr, is_aggregate, tensor
from tritonc.language.semantic_core import describe_value


def constness_note(a: T.base_type, b: T.base_type) -> str:
    """The explanation to add to a type mismatch of `a` and `b`, when a pointer to
    constant data meets a plain pointer (else nothing)."""
    if not T.differ_in_constness(a, b):
        return ""
    return ("; one is a pointer to constant data (from a parameter annotated tl.const), "
            "which does not mix with a plain pointer")


def assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names a statement list may assign (in order of first assignment)."""
    names: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.For):
                targets = [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names[n.id] = None
    return list(names)


class ControlFlowMixin:
    """visit_If / visit_For / visit_While of `CodeGenerator`."""

    def static_condition(self, cond: Any) -> bool | None:
        """The truth of `cond` when it is known now, else None."""
        if not isinstance(cond, tensor):
            return bool(cond.value if isinstance(cond, constexpr) else cond)
        if self.builder.concrete:
            if cond.type.is_block() and cond.type.numel == 1:  # as Triton: its one element
                return bool(self.builder.static_value(cond.handle.reshape(())))
            if cond.type.is_block():
                raise ValueError("the condition of an `if` or `while` must be a scalar, "
                                 f"got a tensor of shape {list(cond.shape)}")
            return bool(self.builder.static_value(cond.handle))
        return None

    def _carried(self, names: list[str]) -> list[str]:
        return [n for n in names if carries(self.lscope.get(n))]

    # -- if ----------------------------------------------------------------------------------
    def visit_If(self, node: ast.If) -> None:
        rest, self.if_continuation = self.if_continuation, []
        body, orelse = node.body + rest, node.orelse + rest
        tail = self.in_tail
        cond = self.visit(node.test)
        known = self.static_condition(cond)
        if known is not None:
            self.visit_block(body if known else orelse, tail)
            return
        cond = self.scalar_condition(cond, node.test, "an `if`")
        self._runtime_if(node, cond, body, orelse, tail)

    def scalar_condition(self, cond: tensor, node: ast.AST, what: str) -> tensor:
        """A runtime condition as an i1 scalar (a one-element tensor gives its element)."""
        if cond.type.is_block() and cond.type.numel == 1:
            cond = self.call_function(tl_standard.item, [cond], {}, node)
        if cond.type.is_block():
            raise self.error(node, f"the condition of {what} must be a scalar, got a "
                             f"tensor of shape {list(cond.shape)}")
        return self.semantic.cast(cond, T.int1)

    def _visit_branch(self, stmts: list[ast.stmt], block, before: dict,
                      tail: bool) -> tuple[dict, bool, Any]:
        from tritonc.compiler.mlir_builder import ir

        self.lscope = dict(before)
        self.returned, self.ret_value = False, None
        self.builder.ip = ir.InsertionPoint(block)
        self.visit_block(stmts, tail)
        return self.lscope, self.returned, self.ret_value

    def _runtime_if(self, node: ast.If, cond: tensor, body: list[ast.stmt],
                    orelse: list[ast.stmt], tail: bool) -> None:
        from tritonc.compiler.mlir_builder import ir

        builder = self.builder
        before = dict(self.lscope)
        saved_ip = builder.ip
        scratch = builder.if_op(cond.handle, [], has_else=True)
        then_scope, then_ret, then_value = self._visit_branch(body, scratch.then_block, before,
                                                              tail)
        else_scope, else_ret, else_value = self._visit_branch(orelse, scratch.else_block,
                                                              before, tail)
        second_return = self.return_node if else_ret else None
        builder.ip = saved_ip
        if then_ret != else_ret and tail:
            # the branch that does not return ends the function: it returns None too, or
            # poison of the other branch's types where that one returns values (as Triton)
            if then_ret:
                else_value = self._poison_like(then_value, scratch.else_block, node)
            else:
                then_value = self._poison_like(else_value, scratch.then_block, node)
            then_ret = else_ret = True
        if then_ret != else_ret:
            raise self.error(node, "inside a runtime `if`, either both branches return or "
                             "neither does")
        names = [] if then_ret else [
            n for n in then_scope if n in else_scope
            and carries(then_scope[n]) and carries(else_scope[n])
            and (then_scope[n] is not before.get(n) or else_scope[n] is not before.get(n))]
        for n in names:
            a, b = _types(then_scope[n]), _types(else_scope[n])
            if a != b:
                a, b = _type_text(then_scope[n]), _type_text(else_scope[n])
                raise self.error(node, f"Mismatched type for {n} between the `if` branch "
                                 f"({a}) and the `else` branch ({b}){constness_note(a, b)}")
        then_vals = [part for n in names for part in carried_parts(then_scope[n])]
        else_vals = [part for n in names for part in carried_parts(else_scope[n])]
        ret_template = None
        if then_ret:
            then_outs, ret_template = self._flatten_return(then_value, node)
            else_outs, _ = self._flatten_return(else_value, node)
            if len(then_outs) != len(else_outs):
                raise self.error(node, f"the branches return {len(then_outs)} and "
                                 f"{len(else_outs)} values: every path through a function "
                                 "must return the same number of values")
            for a, b in zip(then_outs, else_outs, strict=False):
                if a.type != b.type:
                    raise self.error(second_return or node, "Inconsistent return types: the "
                                     f"branches return "
                                     f"{a.type} and {b.type}{constness_note(a.type, b.type)}")
            then_vals, else_vals = then_vals + then_outs, else_vals + else_outs
        final = builder.if_op(cond.handle, [v.type for v in then_vals], has_else=True)
        for src, dst, vals in ((scratch.then_block, final.then_block, then_vals),
                               (scratch.else_block, final.else_block, else_vals)):
            builder.move_region_ops(src, dst)
            builder.ip = ir.InsertionPoint(dst)
            builder.yield_([v.handle for v in vals])
        scratch.operation.erase()
        builder.ip = saved_ip
        results = [tensor(h, v.type) for h, v in zip(final.results, then_vals, strict=False)]
        self.lscope = before
        defined = {n: then_scope[n] for n in then_scope if n in else_scope and n not in before
                   and not carries(then_scope[n])
                   and then_scope[n] is else_scope[n]}
        self.lscope.update(defined)
        rest = iter(results)
        for n in names:
            self.lscope[n] = rebuild_carried(then_scope[n], rest)
        if not then_ret:  # (when both branches return, nothing follows the `if`)
            self._forget(sorted({*_changed_constants(before, then_scope, names),
                                 *_changed_constants(before, else_scope, names)}),
                         "a runtime `if`")
        self.returned = then_ret
        if then_ret:
            self.ret_value = self._unflatten_return(ret_template, list(rest))

    def runtime_ifexp(self, node: ast.IfExp, cond: tensor) -> Any:
        """`a if c else b` on a runtime `c`: each side is built inside its branch of an
        `scf.if`, so only the taken side runs; sides without a value (calls such as
        `tl.store`) make an `scf.if` without results. Sides of different types, and
        any condition that is a tensor of several elements, compute both sides and
        combine them with `tl.where`, which promotes and broadcasts."""
        from tritonc.compiler.mlir_builder import ir

        if cond.type.is_block() and cond.type.numel != 1:
            return self.semantic.where(cond, _value(self.visit(node.body)),
                                       _value(self.visit(node.orelse)))
        cond = self.scalar_condition(cond, node.test, "a conditional expression")
        builder = self.builder
        saved_ip = builder.ip
        scratch = builder.if_op(cond.handle, [], has_else=True)
        sides = []
        for side, block in ((node.body, scratch.then_block), (node.orelse, scratch.else_block)):
            builder.ip = ir.InsertionPoint(block)
            sides.append(_value(self.visit(side)))
        builder.ip = saved_ip
        then_value, else_value = sides
        void = then_value is None and else_value is None
        same = (isinstance(then_value, tensor) and isinstance(else_value, tensor)
                and then_value.type == else_value.type)
        if not (void or same):
            if then_value is None or else_value is None:
                raise self.error(node, "one side of this conditional expression has a value "
                                 "and the other has none")
            if all(isinstance(v, tensor) and v.dtype.is_ptr() for v in sides):
                a, b = then_value.type, else_value.type
                raise self.error(node, "Ternary expression with dynamic condition has "
                                 f"inconsistent types {a} and {b}{constness_note(a, b)}")
            for block in (scratch.then_block, scratch.else_block):
                for op in list(block.operations):
                    op.detach_from_parent()
                    saved_ip.insert(op)
            scratch.operation.erase()
            return self.semantic.where(cond, then_value, else_value)
        types = [] if void else [then_value.type]
        final = builder.if_op(cond.handle, types, has_else=True)
        for src, dst, value in ((scratch.then_block, final.then_block, then_value),
                                (scratch.else_block, final.else_block, else_value)):
            builder.move_region_ops(src, dst)
            builder.ip = ir.InsertionPoint(dst)
            builder.yield_([] if void else [value.handle])
        scratch.operation.erase()
        builder.ip = saved_ip
        return None if void else tensor(final.results[0], then_value.type)

    def _flatten_return(self, value: Any, node: ast.AST) -> tuple[list[tensor], Any]:
        if value is None:
            return [], None
        if isinstance(value, tuple):
            return [self.semantic.to_tensor(v) for v in value], len(value)
        return [self.semantic.to_tensor(value)], -1

    def _poison_like(self, value: Any, block, node: ast.AST) -> Any:
        """`ub.poison` values, at the end of `block`, shaped as the returned `value`."""
        from tritonc.compiler.mlir_builder import ir

        outs, template = self._flatten_return(value, node)
        saved_ip, self.builder.ip = self.builder.ip, ir.InsertionPoint(block)
        poison = [tensor(self.builder.poison(v.type), v.type) for v in outs]
        self.builder.ip = saved_ip
        return self._unflatten_return(template, poison)

    @staticmethod
    def _unflatten_return(template: Any, values: list[tensor]) -> Any:
        if template is None:
            return None
        return values[0] if template == -1 else tuple(values)

    # -- for ---------------------------------------------------------------------------------
    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node, "for ... else is not supported", UnsupportedLanguageConstruct)
        if not isinstance(node.iter, ast.Call):
            raise self.error(node.iter, "a for loop must iterate over range(...), "
                             "tl.range(...) or tl.static_range(...)",
                             UnsupportedLanguageConstruct)
        iterator = self.visit(node.iter)
        if isinstance(iterator, builtins.range):
            iterator = tl_builtins.range(iterator.start, iterator.stop, iterator.step)
        if isinstance(iterator, tl_builtins.static_range):
            self._python_loop(node, builtins.range(iterator.start, iterator.end, iterator.step),
                              wrap=constexpr)
            return
        if not isinstance(iterator, tl_builtins.range):
            raise self.error(node.iter, "a for loop must iterate over range(...), "
                             "tl.range(...) or tl.static_range(...)",
                             UnsupportedLanguageConstruct)
        bounds = [iterator.start, iterator.end, iterator.step]
        self._check_range_bounds(node.iter, bounds)
        if self.builder.concrete:
            values = [int(self.builder.static_value(b.handle)) if isinstance(b, tensor)
                      else int(b.value if isinstance(b, constexpr) else b) for b in bounds]
            if values[2] == 0:
                raise self.error(node.iter, "range() step must not be zero")
            self._python_loop(node, builtins.range(*values),
                              wrap=lambda i: self.semantic.to_tensor(i))
            return
        self._scf_for(node, bounds, iterator)

    def _check_range_bounds(self, node: ast.AST, bounds: list) -> None:
        """range() bounds are scalar integers: Python ints, constexprs or scalar tensors."""
        for what, b in zip(("start", "end", "step"), bounds, strict=True):
            value = b.value if isinstance(b, constexpr) else b
            if isinstance(value, tensor):
                if value.type.is_block():
                    raise self.error(node, f"range() {what} must be a scalar integer, got a "
                                     f"tensor of shape {list(value.shape)}")
                if not value.dtype.is_int() or value.dtype.is_bool():
                    raise self.error(node, f"range() {what} must be an integer, got "
                                     f"{value.dtype}")
            elif isinstance(value, bool) or not isinstance(value, int):
                raise self.error(node, f"range() {what} must be an integer, got "
                                 f"{describe_value(value)}")

    def _python_loop(self, node: ast.For, values, wrap) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a single name")
        for i in values:
            self.lscope[node.target.id] = wrap(i)
            self.visit_block(node.body)
            if self.returned:
                return

    def _scf_for(self, node: ast.For, bounds: list, iterator: tl_builtins.range) -> None:
        from tritonc.compiler.mlir_builder import ir

        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a single name")
        step_value = bounds[2].value if isinstance(bounds[2], constexpr) else bounds[2]
        if isinstance(step_value, int) and step_value <= 0:
            if step_value == 0:
                raise self.error(node.iter, "range() step must not be zero")
            # scf.for counts up: run k over range(0, lb - ub, -step) with i = lb - k
            bounds = [bounds[0], bounds[1], constexpr(-step_value)]
        descending = isinstance(step_value, int) and step_value < 0
        lb, ub, step = (self.semantic.to_tensor(b) for b in bounds)
        iv_ty = self.semantic.integer_promote(self.semantic.integer_promote(lb.dtype, ub.dtype),
                                              step.dtype)
        if not iv_ty.is_int():
            raise self.error(node.iter, "range() bounds must be integers")
        iv_ty = T.int64 if iv_ty.primitive_bitwidth == 64 else T.int32
        lb, ub, step = (self.semantic.cast(b, iv_ty) for b in (lb, ub, step))
        start = lb
        if descending:
            zero = self.semantic.cast(self.semantic.to_tensor(0), iv_ty)
            lb, ub = zero, self.semantic.sub(lb, ub)
        names = self._carried(assigned_names(node.body))
        before = dict(self.lscope)
        inits = [before[n] for n in names]
        builder = self.builder
        loop = builder.for_op(lb.handle, ub.handle, step.handle,
                              [p.handle for v in inits for p in carried_parts(v)])
        for name, value in (("tt.num_stages", iterator.num_stages),
                            ("tt.loop_unroll_factor", iterator.loop_unroll_factor)):
            if value is not None:
                builder.set_op_attr(loop, name, int(value))
        for name in iterator.flags:
            builder.set_unit_attr(loop, name)
        if iterator.disable_licm:
            builder.disable_licm(loop)
        saved_ip = builder.ip
        builder.ip = ir.InsertionPoint(loop.body)
        self.lscope = dict(before)
        iv = tensor(loop.induction_variable, iv_ty)
        self.lscope[node.target.id] = self.semantic.sub(start, iv) if descending else iv
        self._bind_carried(names, inits, loop.inner_iter_args)
        self.visit_block(node.body)
        if self.returned:
            raise self.error(node, "`return` inside a loop is not supported",
                             UnsupportedLanguageConstruct)
        self._end_loop(node, names, inits, before, saved_ip, loop.results)

    def _end_loop(self, node: ast.AST, names: list[str], inits: list, before: dict,
                  saved_ip, results) -> None:
        """Yield the body's carried values, leave the body and bind the carried names to
        the loop's `results`; the constants the body changed are forgotten."""
        self.builder.yield_(self._carried_values(node, names, inits))
        changed = _changed_constants(before, self.lscope, names)
        self.builder.ip = saved_ip
        self.lscope = before
        self._bind_carried(names, inits, results)
        self._forget(changed, "the loop")

    def _forget(self, names: list[str], where: str) -> None:
        """Bind `names`, whose constants `where` changed, to `ChangedConstant`s."""
        for n in names:
            self.lscope[n] = ChangedConstant(n, where)

    def _bind_carried(self, names: list[str], inits: list, handles) -> None:
        """Bind each carried name to its value made of `handles` (block arguments or
        results), shaped as its initial value."""
        rest = iter(handles)
        for n, init in zip(names, inits, strict=False):
            self.lscope[n] = rebuild_carried(
                init, (tensor(next(rest), p.type) for p in carried_parts(init)))

    def _carried_values(self, node: ast.AST, names: list[str], inits: list) -> list:
        """The handles a loop body yields for its carried names, each of its initial type."""
        yields = []
        for n, init in zip(names, inits, strict=False):
            value = self.lscope.get(n)
            if not carries(value) or _types(value) != _types(init):
                want = _type_text(init)
                got = _type_text(value) if carries(value) else \
                    type(value).__name__
                note = constness_note(init.type, value.type) \
                    if isinstance(value, tensor) and isinstance(init, tensor) else ""
                raise self.error(node, f"loop-carried variable {n!r} has type {want} "
                                 f"before the loop but {got} inside it; convert it explicitly "
                                 f"(e.g. {n} = {n}.to(...)) so the type stays the same{note}")
            yields += [p.handle for p in carried_parts(value)]
        return yields

    # -- while -------------------------------------------------------------------------------
    def _while_test(self, node: ast.While) -> tuple[Any, bool]:
        """The loop's condition, and whether `tl.condition(..., disable_licm=True)` gave it."""
        cond = self.visit(node.test)
        if isinstance(cond, tl_builtins.condition):
            return cond.condition, cond.disable_licm
        return cond, False

    def _interpret_while(self, node: ast.While) -> None:
        """The loop run in the interpreter; an iteration that changes neither the names
        the body assigns nor memory, after one that did not either, raises
        InterpreterDeadlock: every later iteration would be the same."""
        from tritonc.backends.interpreter.errors import InterpreterDeadlock

        names = sorted(assigned_names(node.body))
        last_values, last_memory = None, None
        while self.static_condition(self._while_test(node)[0]):
            self.visit_block(node.body)
            if self.returned:
                return
            values = [_fingerprint(self.lscope.get(n)) for n in names]
            if values != last_values:
                last_values, last_memory = values, None
                continue
            memory = self.builder.memory.digest()
            if memory == last_memory:
                raise self.error(node, "this loop can never end here") from InterpreterDeadlock(
                    "the loop's iterations change nothing: it waits for another program, "
                    "which the interpreter runs only after this one (a grid barrier "
                    "cannot run in the interpreter)")
            last_memory = memory

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error(node, "while ... else is not supported",
                             UnsupportedLanguageConstruct)
        if self.builder.concrete:
            self._interpret_while(node)
            return
        from tritonc.compiler.mlir_builder import ir

        names = self._carried(assigned_names(node.body))
        before = dict(self.lscope)
        inits = [before[n] for n in names]
        builder = self.builder
        saved_ip = builder.ip
        parts = [p for v in inits for p in carried_parts(v)]
        op, before_block, after_block = builder.while_op([p.type for p in parts],
                                                         [p.handle for p in parts])
        builder.ip = ir.InsertionPoint(before_block)
        self.lscope = dict(before)
        self._bind_carried(names, inits, before_block.arguments)
        cond, no_licm = self._while_test(node)
        if no_licm:
            builder.disable_licm(op)
        if not isinstance(cond, tensor):
            cond = self.semantic.to_tensor(bool(cond.value if isinstance(cond, constexpr)
                                                else cond))
        cond = self.scalar_condition(cond, node.test, "a `while`")
        builder.condition(cond.handle, list(before_block.arguments))
        builder.ip = ir.InsertionPoint(after_block)
        self.lscope = dict(before)
        self._bind_carried(names, inits, after_block.arguments)
        self.visit_block(node.body)
        self._end_loop(node, names, inits, before, saved_ip, op.results)


def _value(v: Any) -> Any:
    return v.value if isinstance(v, constexpr) else v


class ChangedConstant:
    """What a name holds after a runtime loop or `if` that gave its compile-time constant
    (a constexpr, a tuple of them) another value: unknown while compiling, so reading it
    is an error (`CodeGenerator.lookup`); a name nothing reads again is no error."""

    def __init__(self, name: str, where: str) -> None:
        self.message = (f"{name!r} holds a compile-time constant that {where} changes; its "
                        f"value after it is known only at run time: make it a tensor before "
                        f"({name} = tl.full(...) or a plain `{name} = 0`, not a tl.constexpr)")


def _changed_constants(before: dict, after: dict, carried: list[str]) -> list[str]:
    """The names whose constants (values no loop or branch carries) `after` changes."""
    return [n for n, old in before.items() if n not in carried and n in after
            and after[n] is not old and not carries(old) and _types(after[n]) != _types(old)]


def carries(value: Any) -> bool:
    """Whether loops and branches carry `value`: a tensor, a tensor descriptor, or a tuple
    or aggregate holding one (their constant entries travel as they are)."""
    if isinstance(value, (tensor, tl_builtins.tensor_descriptor)):
        return True
    if isinstance(value, tuple):
        return any(carries(v) for v in value)
    return is_aggregate(value) and any(carries(v) for v in vars(value).values())


def carried_parts(value: Any) -> list[tensor]:
    """The tensors a value carried by a loop or branch travels as: a tensor itself; a
    tensor descriptor its handle and the tensors among its shape and strides; a tuple or
    an aggregate the parts of its entries, in order; a constant none."""
    if isinstance(value, tl_builtins.tensor_descriptor):
        dims = value.shape + value.strides
        return [value.value, *(d for d in dims if isinstance(d, tensor))]
    if isinstance(value, tuple):
        return [p for v in value for p in carried_parts(v)]
    if is_aggregate(value):
        return [p for v in vars(value).values() for p in carried_parts(v)]
    return [value] if isinstance(value, tensor) else []


def rebuild_carried(like: Any, parts) -> Any:
    """The value shaped as `like` made of `parts` (an iterator, `carried_parts` order)."""
    parts = iter(parts)
    if isinstance(like, tl_builtins.tensor_descriptor):
        handle = next(parts)
        dims = [next(parts) if isinstance(d, tensor) else d
                for d in like.shape + like.strides]
        rank = len(like.shape)
        return tl_builtins.tensor_descriptor(handle, dims[:rank], dims[rank:])
    if isinstance(like, tuple):
        items = [rebuild_carried(v, parts) for v in like]
        return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)
    if is_aggregate(like):
        value = object.__new__(type(like))
        for name, v in vars(like).items():
            setattr(value, name, rebuild_carried(v, parts))
        return value
    return next(parts) if isinstance(like, tensor) else like


def _types(value: Any) -> list:
    """The types of a carried value's parts, with its structure and constant entries (two
    values a loop or branch may carry as one have equal lists)."""
    if isinstance(value, tl_builtins.tensor_descriptor):
        return [p.type for p in carried_parts(value)] + [
            i for i, d in enumerate(value.shape + value.strides) if not isinstance(d, tensor)]
    if isinstance(value, tuple):
        return [("tuple", len(value)), *(t for v in value for t in _types(v))]
    if is_aggregate(value):
        return [type(value), *(t for v in vars(value).values() for t in _types(v))]
    if isinstance(value, tensor):
        return [value.type]
    return [("constant", repr(_value(value)))]


def _type_text(value: Any) -> Any:
    if isinstance(value, tl_builtins.tensor_descriptor):
        return value.value.type
    if isinstance(value, tuple):
        return f"({', '.join(str(_type_text(v)) for v in value)})"
    if is_aggregate(value):
        return type(value).__name__
    return value.type if isinstance(value, tensor) else describe_value(_value(value))


def _unsupported_visitor(what: str):
    def visit(self, node: ast.AST) -> None:
        raise self.error(node, f"{what} is not supported in a Triton kernel",
                         UnsupportedLanguageConstruct)

    return visit


for _name, _what in (("Break", "`break`"), ("Continue", "`continue`"), ("Try", "`try`"),
                     ("With", "`with`"), ("Lambda", "`lambda`"), ("Raise", "`raise`"),
                     ("Global", "`global`"), ("Nonlocal", "`nonlocal`"), ("Delete", "`del`"),
                     ("ClassDef", "a class definition"), ("AsyncFor", "`async for`"),
                     ("Yield", "`yield`"), ("Await", "`await`")):
    setattr(ControlFlowMixin, f"visit_{_name}", _unsupported_visitor(_what))


def _fingerprint(value: Any) -> Any:
    """What a value is, comparable across loop iterations (a tensor by its bytes)."""
    if isinstance(value, tensor):
        import numpy as np

        data = np.asarray(value.handle)
        return (str(data.dtype), data.shape, data.tobytes())
    return repr(value)
