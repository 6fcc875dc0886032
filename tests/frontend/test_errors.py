"""Bad kernels: each fails with a `CompilationError` naming the reason and the offending line.

The offending line of each kernel carries the marker comment `# <- error`; the test
finds its absolute line number in this file and compares it with the error's `lineno`.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.compiler.errors import CompilationError, UnsupportedLanguageConstruct
from tritonc.language.standard import constexpr_function

MARKER = "# <- error"
NOT_CONSTEXPR = 42
PTRS = {"x_ptr": "*fp32", "y_ptr": "*fp32"}
X = {"x_ptr": "*fp32"}


def marked_line(fn) -> int:
    """The absolute line number of the line of `fn` (a JITFunction) marked `# <- error`."""
    lines, first = inspect.getsourcelines(fn.fn)
    hits = [first + i for i, line in enumerate(lines) if MARKER in line]
    assert len(hits) == 1, f"{fn.__name__} needs exactly one marked line"
    return hits[0]


@triton.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, y)  # noqa: F821  # <- error


@triton.jit
def _two_args(a, b):
    return a + b


@triton.jit
def wrong_arg_count(x_ptr):
    tl.store(x_ptr, _two_args(1.0))  # <- error


@triton.jit
def wrong_kwarg(x_ptr):
    tl.store(x_ptr, _two_args(1.0, c=2.0))  # <- error


@triton.jit
def pointer_plus_pointer(x_ptr, y_ptr):
    p = x_ptr + y_ptr  # <- error
    tl.store(p, 1.0)


@triton.jit
def float_mask(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs * 1.0)  # <- error
    tl.store(x_ptr + offs, x)


@triton.jit
def store_pointer_into_float(x_ptr, y_ptr):
    tl.store(x_ptr, y_ptr)  # <- error


@triton.jit
def runtime_arange_bound(x_ptr, n):
    offs = tl.arange(0, n)  # <- error
    tl.store(x_ptr + offs, 1.0)


@triton.jit
def arange_not_power_of_two(x_ptr):
    offs = tl.arange(0, 100)  # <- error
    tl.store(x_ptr + offs, 1.0)


@triton.jit
def full_not_power_of_two(x_ptr):
    t = tl.full((33,), 1.0, tl.float32)  # <- error
    tl.store(x_ptr + tl.arange(0, 32), tl.sum(t))


@triton.jit
def not_of_tuple(x_ptr):
    flag = not (0, 0)  # <- error
    tl.store(x_ptr, flag)


@triton.jit
def incompatible_shapes(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(x_ptr + a, (a + b).to(tl.float32))  # <- error


@triton.jit
def dot_1d(x_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16))
    c = tl.dot(a, a)  # <- error
    tl.store(x_ptr, c)


@triton.jit
def uses_break(x_ptr, n):
    for _i in range(n):
        break  # <- error


@triton.jit
def uses_continue(x_ptr, n):
    for _i in range(n):
        continue  # <- error


@triton.jit
def uses_try(x_ptr):
    try:  # <- error
        tl.store(x_ptr, 1.0)
    except Exception:
        pass


@triton.jit
def uses_with(x_ptr):
    with open("f"):  # <- error
        tl.store(x_ptr, 1.0)


@triton.jit
def uses_lambda(x_ptr):
    f = lambda v: v + 1  # noqa: E731  # <- error
    tl.store(x_ptr, f(1.0))


@triton.jit
def for_over_list(x_ptr):
    for i in [1, 2, 3]:  # <- error
        tl.store(x_ptr + i, 1.0)


@triton.jit
def non_constexpr_global(x_ptr):
    tl.store(x_ptr, NOT_CONSTEXPR)  # <- error


@triton.jit
def loop_carried_type_change(x_ptr, n):
    acc = 0
    for _i in range(n):  # <- error
        acc = acc + 1.5
    tl.store(x_ptr, acc)


@triton.jit
def while_carried_type_change(x_ptr, n):
    acc = 0
    while acc < n:  # <- error
        acc = acc * 0.5
    tl.store(x_ptr, acc)


@constexpr_function
def _block_for(n):
    if n > 1024:
        raise ValueError(f"block {n} is too large")
    return n


@triton.jit
def constexpr_function_raises(x_ptr, N: tl.constexpr):
    BLOCK: tl.constexpr = _block_for(N)  # <- error
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


@triton.jit
def static_assert_fails(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 64 == 0, f"BLOCK={BLOCK} must be a multiple of 64")  # <- error


@triton.jit
def power_on_tensors(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x ** 2)  # <- error


@triton.jit
def chained_comparison(x_ptr, n):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, 1.0, mask=0 <= offs < n)  # <- error


@triton.jit
def block_condition(x_ptr):
    offs = tl.arange(0, 16)
    if offs > 3:  # <- error
        tl.store(x_ptr + offs, 1.0)


@triton.jit
def block_while_condition(x_ptr):
    offs = tl.arange(0, 16)
    while offs:  # <- error
        offs = offs - 1
    tl.store(x_ptr + offs, 1.0)


@triton.jit
def unknown_tensor_attribute(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x.nonexistent)  # <- error


@triton.jit
def bad_cache_modifier(x_ptr):
    x = tl.load(x_ptr, cache_modifier=".zz")  # <- error
    tl.store(x_ptr, x)


@triton.jit
def missing_constexpr(x_ptr, BLOCK: tl.constexpr):  # <- error
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


@triton.jit
def non_constexpr_shape(x_ptr, n):
    z = tl.zeros((n,), tl.float32)  # <- error
    tl.store(x_ptr, tl.sum(z))


@triton.jit
def bad_reshape(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.reshape(x, (4, 8))  # <- error
    tl.store(x_ptr, tl.sum(y))


def _plain_python(x):
    return x


@triton.jit
def calls_plain_python(x_ptr):
    tl.store(x_ptr, _plain_python(1.0))  # <- error


@triton.jit
def unknown_builtin_keyword(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, foo=1))  # <- error


@triton.jit
def return_in_one_branch(x_ptr, n):
    for i in range(n):
        if i > 2:  # <- error
            return
        tl.store(x_ptr + i, 1.0)


@triton.jit
def bitwise_on_floats(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x & 1)  # <- error


@triton.jit
def bad_program_axis(x_ptr):
    tl.store(x_ptr, tl.program_id(3).to(tl.float32))  # <- error


@triton.jit
def _callee_with_error(x):
    return x + undefined_in_callee  # noqa: F821


@triton.jit
def error_in_callee(x_ptr):
    tl.store(x_ptr, _callee_with_error(1.0))  # <- error


@triton.jit
def offset_past_64_bits(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs + 2**64, 1.0)  # <- error


@triton.jit
def int32_scalar_out_of_range(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, (offs + 2**40).to(tl.float32))  # <- error


@triton.jit
def full_out_of_range(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.full((16,), 2**40, tl.int32).to(tl.float32))  # <- error


@triton.jit
def store_wider_than_pointer(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.zeros((16, 16), tl.float32))  # <- error


@triton.jit
def store_block_through_scalar_pointer(x_ptr):
    tl.store(x_ptr, tl.zeros((16,), tl.float32))  # <- error


@triton.jit
def expand_dims_axis_too_large(x_ptr):
    offs = tl.arange(0, 16)
    y = tl.expand_dims(offs, 5)  # <- error
    tl.store(x_ptr + offs, tl.sum(y, 0).to(tl.float32))


@triton.jit
def block_too_large(x_ptr):
    offs = tl.arange(0, 2**21)  # <- error
    tl.store(x_ptr + offs, 1.0)


@triton.jit
def broadcast_too_large(x_ptr):
    a = tl.arange(0, 2048)
    b = a[:, None] + a[None, :]  # <- error
    tl.store(x_ptr, tl.sum(tl.sum(b, 0), 0).to(tl.float32))


@triton.jit
def range_over_tensor(x_ptr, n):
    offs = tl.arange(0, 16)
    for i in range(n, offs):  # <- error
        tl.store(x_ptr + i, 1.0)


@triton.jit
def range_over_float(x_ptr, n):
    for i in range(0, 2.5):  # <- error
        tl.store(x_ptr + i, 1.0)


@triton.jit
def broadcast_to_without_shape(x_ptr):
    v = tl.broadcast_to(0)  # <- error
    tl.store(x_ptr, v)


@triton.jit
def full_with_int_dtype(x_ptr):
    tl.store(x_ptr, tl.sum(tl.full((16,), 0, 5), 0))  # <- error


@triton.jit
def kernel_returns_value(x_ptr):
    tl.store(x_ptr, 1.0)
    return 1  # <- error


@triton.jit
def loop_carried_shape_change(x_ptr, n):
    acc = tl.zeros((16,), tl.float32)
    for _i in range(n):  # <- error
        acc = tl.zeros((16, 16), tl.float32)
    tl.store(x_ptr, tl.sum(tl.sum(acc, 0), 0))


@triton.jit
def defined_in_one_branch(x_ptr, n):
    if n > 3:
        y = 1.0
    tl.store(x_ptr, y)  # noqa: F821  # <- error


@triton.jit
def branches_of_different_types(x_ptr, n):
    if n > 3:  # <- error
        y = 1.0
    else:
        y = 1
    tl.store(x_ptr, y)


@triton.jit
def return_inside_loop(x_ptr, n):
    for i in range(n):  # <- error
        tl.store(x_ptr + i, 1.0)
        return


@triton.jit
def store_without_value(x_ptr):
    tl.store(x_ptr)  # <- error


@triton.jit
def arange_with_three_arguments(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16, 2), 1.0)  # <- error


@triton.jit
def module_as_operand(x_ptr):
    tl.store(x_ptr, tl + 1.0)  # <- error


@triton.jit
def imprecise_acc_beyond_k(x_ptr):
    a = tl.full((64, 64), 1.0, tl.float8e5)
    c = tl.dot(a, a, max_num_imprecise_acc=128)  # <- error
    tl.store(x_ptr + tl.arange(0, 64), tl.sum(c, axis=1))


# (kernel, signature, constexprs, expected message fragment, error class)
CASES = [
    (undefined_name, X, {}, "name 'y' is not defined", CompilationError),
    (wrong_arg_count, X, {}, "_two_args() is missing the argument 'b'", CompilationError),
    (wrong_kwarg, X, {}, "_two_args() got an unexpected argument 'c'", CompilationError),
    (pointer_plus_pointer, PTRS, {}, "cannot add pointers together", CompilationError),
    (float_mask, X, {"BLOCK": 16}, "the mask of load must be a boolean (int1) tensor, not fp32",
     CompilationError),
    (store_pointer_into_float, PTRS, {}, "cannot store a pointer (*fp32) through *fp32",
     CompilationError),
    (runtime_arange_bound, {**X, "n": "i32"}, {},
     "arange's start and end must be constexpr integers", CompilationError),
    (arange_not_power_of_two, X, {}, "arange's range must be a power of 2",
     CompilationError),
    (full_not_power_of_two, X, {}, "Shape element 0 must be a power of 2", CompilationError),
    (not_of_tuple, X, {}, "`not (0, 0)`: unary operators do not apply to a tuple",
     CompilationError),
    (incompatible_shapes, X, {}, "incompatible shapes [16] and [32]", CompilationError),
    (dot_1d, X, {}, "dot operands must both be 2-D", CompilationError),
    (imprecise_acc_beyond_k, X, {}, "max_num_imprecise_acc (128) must be <= K (64)",
     CompilationError),
    (uses_break, {**X, "n": "i32"}, {}, "`break` is not supported",
     UnsupportedLanguageConstruct),
    (uses_continue, {**X, "n": "i32"}, {}, "`continue` is not supported",
     UnsupportedLanguageConstruct),
    (uses_try, X, {}, "`try` is not supported", UnsupportedLanguageConstruct),
    (uses_with, X, {}, "`with` is not supported", UnsupportedLanguageConstruct),
    (uses_lambda, X, {}, "`lambda` is not supported", UnsupportedLanguageConstruct),
    (for_over_list, X, {}, "a for loop must iterate over range(...)",
     UnsupportedLanguageConstruct),
    (non_constexpr_global, X, {}, "Cannot access global variable 'NOT_CONSTEXPR' of type int",
     CompilationError),
    (loop_carried_type_change, {**X, "n": "i32"}, {},
     "loop-carried variable 'acc' has type int32 before the loop but fp32 inside it",
     CompilationError),
    (while_carried_type_change, {**X, "n": "i32"}, {},
     "loop-carried variable 'acc' has type int32 before the loop but fp32 inside it",
     CompilationError),
    (constexpr_function_raises, X, {"N": 4096},
     "in constexpr function _block_for: ValueError: block 4096 is too large", CompilationError),
    (static_assert_fails, X, {"BLOCK": 48},
     "static_assert failed: BLOCK=48 must be a multiple of 64", CompilationError),
    (power_on_tensors, X, {}, "** is not supported on tensors", CompilationError),
    (chained_comparison, {**X, "n": "i32"}, {}, "chained comparisons (a < b < c) are not "
     "supported", UnsupportedLanguageConstruct),
    (block_condition, X, {}, "the condition of an `if` must be a scalar, got a tensor of shape "
     "[16]", CompilationError),
    (block_while_condition, X, {}, "the condition of a `while` must be a scalar, got a tensor "
     "of shape [16]", CompilationError),
    (unknown_tensor_attribute, X, {}, "tensor has no attribute 'nonexistent'", CompilationError),
    (bad_cache_modifier, X, {}, "unknown cache modifier '.zz'", CompilationError),
    (missing_constexpr, X, {}, "constexpr argument 'BLOCK' has no value", CompilationError),
    (non_constexpr_shape, {**X, "n": "i32"}, {}, "shape entries must be constexpr integers",
     CompilationError),
    (bad_reshape, X, {}, "cannot reshape [16] (16 elements) to [4, 8] (32 elements)",
     CompilationError),
    (calls_plain_python, X, {}, "'_plain_python' is not a @jit function or a Triton builtin",
     CompilationError),
    (unknown_builtin_keyword, X, {}, "tl.load(): got an unexpected keyword argument 'foo'",
     CompilationError),
    (return_in_one_branch, {**X, "n": "i32"}, {}, "inside a runtime `if`, either both branches "
     "return or neither does", CompilationError),
    (bitwise_on_floats, X, {}, "bitwise operators need integer operands, not fp32",
     CompilationError),
    (bad_program_axis, X, {}, "program_id axis must be 0, 1, or 2 but got 3", CompilationError),
    (error_in_callee, X, {}, "in call to _callee_with_error: name 'undefined_in_callee' is not "
     "defined", CompilationError),
    (offset_past_64_bits, X, {}, "integer 18446744073709551616 cannot be represented in "
     "64 bits", CompilationError),
    (int32_scalar_out_of_range, X, {}, "Scalar 1099511627776 is out of range for type int32",
     CompilationError),
    (full_out_of_range, X, {}, "integer constant 1099511627776 is out of range for int32",
     CompilationError),
    (store_wider_than_pointer, X, {}, "store: the value has shape [16, 16], which does not "
     "broadcast to the pointer's shape [16]", CompilationError),
    (store_block_through_scalar_pointer, X, {}, "store: the value has shape [16], which does "
     "not broadcast to the pointer's shape []", CompilationError),
    (expand_dims_axis_too_large, X, {}, "expand_dims axis 5 is out of range for a 1-D tensor",
     CompilationError),
    (block_too_large, X, {}, "a block of shape [2097152] has 2097152 elements, more than the "
     "maximum of 1048576", CompilationError),
    (broadcast_too_large, X, {}, "a block of shape [2048, 2048] has 4194304 elements",
     CompilationError),
    (range_over_tensor, {**X, "n": "i32"}, {}, "range() end must be a scalar integer, got a "
     "tensor of shape [16]", CompilationError),
    (range_over_float, {**X, "n": "i32"}, {}, "range() end must be an integer, got 2.5 of "
     "type float", CompilationError),
    (broadcast_to_without_shape, X, {}, "broadcast_to needs a shape", CompilationError),
    (full_with_int_dtype, X, {}, "expected a dtype such as tl.float32, got 5", CompilationError),
    (kernel_returns_value, X, {}, "a kernel cannot return a value", CompilationError),
    (loop_carried_shape_change, {**X, "n": "i32"}, {}, "loop-carried variable 'acc' has type "
     "<[16], fp32> before the loop but <[16, 16], fp32> inside it", CompilationError),
    (defined_in_one_branch, {**X, "n": "i32"}, {}, "name 'y' is not defined", CompilationError),
    (branches_of_different_types, {**X, "n": "i32"}, {}, "Mismatched type for y between the "
     "`if` branch (fp32) and the `else` branch (int32)", CompilationError),
    (store_without_value, X, {}, "tl.store(): missing a required argument: 'value'",
     CompilationError),
    (arange_with_three_arguments, X, {}, "tl.arange(): too many positional arguments",
     CompilationError),
    (module_as_operand, X, {}, "cannot apply `tl + 1.0` to the module tritonc.language and "
     "1.0 of type float", CompilationError),
    (return_inside_loop, {**X, "n": "i32"}, {}, "`return` inside a loop is not supported",
     UnsupportedLanguageConstruct),
]


def test_enough_cases() -> None:
    assert len(CASES) >= 25


@pytest.mark.parametrize("fn,signature,constexprs,message,cls", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_error(fn, signature, constexprs, message, cls) -> None:
    with pytest.raises(cls) as info:
        triton.compile(fn, signature, constexprs, target="ttir")
    err = info.value
    assert message in err.message, err.message
    assert err.lineno == marked_line(fn), str(err)
    assert err.filename == __file__
    text = str(err)
    assert f"{__file__}:{err.lineno}:" in text
    # the offending source line is quoted, a caret below it, and the message last
    lines = text.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip() == "^")
    assert MARKER in lines[caret - 1]
    assert len(lines[caret]) == err.col_offset + 1
    assert lines[-1] == err.message.splitlines()[-1]
    assert "Traceback" not in text


def test_error_is_picklable() -> None:
    import pickle

    with pytest.raises(CompilationError) as info:
        triton.compile(undefined_name, X, {})
    again = pickle.loads(pickle.dumps(info.value))
    assert again.lineno == info.value.lineno
    assert str(again) == str(info.value)


def test_callee_error_chains_to_the_callee_line() -> None:
    with pytest.raises(CompilationError) as info:
        triton.compile(error_in_callee, X, {})
    cause = info.value.__cause__
    assert isinstance(cause, CompilationError)
    lines, first = inspect.getsourcelines(_callee_with_error.fn)
    assert cause.lineno == first + 2


def test_error_tracebacks_show_no_frames_of_the_walk() -> None:
    """Neither the error nor the errors it chains to carry the code generator's frames:
    the callee's error points at its line, the builtin's error at the builtin."""
    import traceback

    for fn, builtin in ((error_in_callee, None), (dot_1d, "semantic_ops.py")):
        with pytest.raises(CompilationError) as info:
            triton.compile(fn, X, {})
        err = info.value
        while err is not None:
            text = "".join(traceback.format_exception(type(err), err, err.__traceback__,
                                                      chain=False))
            assert "code_generator.py" not in text, text
            if builtin and err.__cause__ is None:
                assert builtin in text, text
            err = err.__cause__


@triton.jit
def _returns_two_shapes(n):
    if n == 0:
        return tl.arange(0, 4)
    else:
        return tl.arange(0, 8)  # <- error


@triton.jit
def calls_two_shapes(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, 4), _returns_two_shapes(n))


def test_inconsistent_returns_point_at_the_second_return() -> None:
    with pytest.raises(CompilationError) as info:
        triton.compile(calls_two_shapes, {**X, "n": "i32"}, {}, target="ttir")
    cause = info.value.__cause__
    assert "Inconsistent return types" in cause.message
    assert cause.lineno == marked_line(_returns_two_shapes)


@triton.jit
def where_on_integers(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.where(offs % 2, 1.0, 2.0))


def test_where_on_a_non_boolean_condition_warns() -> None:
    with pytest.warns(UserWarning, match="tl.where takes a boolean condition; a int32 one"):
        triton.compile(where_on_integers, X, {}, target="ttir")


def test_a_constexpr_not_to_specialize_is_an_error() -> None:
    @triton.jit(do_not_specialize=["N"])
    def kernel(x_ptr, N: tl.constexpr):
        tl.store(x_ptr, N)

    with pytest.raises(CompilationError, match="N marked as constexpr and listed in "
                                               "do_not_specialize"):
        triton.compile(kernel, X, {"N": 5}, target="ttir")


def _interpreter_arguments(signature: dict, rng: np.random.Generator) -> list:
    args = []
    for type_name in signature.values():
        if type_name.startswith("*"):
            args.append(rng.standard_normal(64).astype(np.float32))
        else:
            args.append(int(rng.integers(5, 9)))
    return args


# a launch binds its arguments first: a missing constexpr is a TypeError of the call there
INTERPRETED = [c for c in CASES if c[0] is not missing_constexpr]


@pytest.mark.parametrize("fn,signature,constexprs,message,cls", INTERPRETED,
                         ids=[c[0].__name__ for c in INTERPRETED])
def test_interpreter_rejects_the_same_kernel(fn, signature, constexprs, message, cls,
                                             monkeypatch) -> None:
    """The interpreter rejects every kernel the compiler rejects, with the same error at the
    same line, and writes nothing."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    args = _interpreter_arguments(signature, np.random.default_rng(len(fn.__name__)))
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(cls) as info:
        fn[(1,)](*args, **constexprs)
    assert message in info.value.message, info.value.message
    assert info.value.lineno == marked_line(fn), str(info.value)
    for got, want in zip(args, before, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want)


@triton.jit
def _legal_twin(x_ptr, n):
    acc = 0.0
    for i in range(n):
        acc = acc + i
    if n > 3:
        y = acc * 2
    else:
        y = acc
    tl.store(x_ptr, y)
    return None


def test_legal_kernel_runs_in_both(monkeypatch) -> None:
    """The checks reject only what they should: the legal twin compiles and interprets."""
    triton.compile(_legal_twin, {**X, "n": "i32"}, {})
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.full(4, np.nan, np.float32)
    _legal_twin[(1,)](x, 6)
    assert x[0] == 2 * sum(range(6))


def test_long_sum_compiles() -> None:
    """A 400-term sum nests 400 deep in the AST; the code generator walks it in a loop."""
    import textwrap
    import types

    terms = " + ".join(f"x * {i}.0" for i in range(400))
    src = textwrap.dedent(f"""
        def long_sum(x_ptr):
            x = tl.load(x_ptr)
            tl.store(x_ptr, {terms})
        """)
    module = types.ModuleType("long_sum_module")
    module.tl = tl
    path = Path(__file__).with_name("_generated_long_sum.py")
    code = compile(src, str(path), "exec")
    import linecache

    linecache.cache[str(path)] = (len(src), None, src.splitlines(True), str(path))
    exec(code, module.__dict__)
    kernel = triton.jit(module.long_sum)
    ttir = triton.compile(kernel, X, {}).asm["ttir"]
    assert ttir.count("arith.addf") == 399
    x = np.array([1.5], np.float32)
    kernel.interpret = True
    kernel[(1,)](x)
    assert x[0] == np.float32(1.5 * sum(range(400)))


@triton.jit
def _scaled_dot_wrong_scale(x_ptr):
    a = tl.full((32, 64), 0, tl.uint8)
    b = tl.full((64, 32), 0, tl.uint8)
    lhs_scale = tl.full((32, 4), 127, tl.uint8)
    rhs_scale = tl.full((32, 2), 127, tl.uint8)
    c = tl.dot_scaled(a, lhs_scale, "e5m2", b, rhs_scale, "e5m2")  # <- error
    tl.store(x_ptr + tl.arange(0, 32), tl.sum(c, axis=1))


def test_errors_inside_library_functions_point_at_the_kernel() -> None:
    """A bad argument to a function the language writes in itself (tl.dot_scaled) is an
    error at the kernel's call, chained to what went wrong, not to the library's insides."""
    with pytest.raises(CompilationError) as info:
        triton.compile(_scaled_dot_wrong_scale, X, {})
    err = info.value
    assert err.lineno == marked_line(_scaled_dot_wrong_scale)
    assert err.filename == __file__
    assert str(err.__cause__) == "lhs_scale must be a tensor of shape [32, 2]. Got ['32', '4']"
    assert not isinstance(err.__cause__, CompilationError)
