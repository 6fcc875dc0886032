"""Bad kernels: each fails with a `CompilationError` naming the reason and the offending line.

The offending line of each kernel carries the marker comment `# <- error`; the test
finds its absolute line number in this file and compares it with the error's `lineno`.
"""

from __future__ import annotations

import inspect

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
    (arange_not_power_of_two, X, {}, "arange's range must be a power of 2, got 100",
     CompilationError),
    (incompatible_shapes, X, {}, "incompatible shapes [16] and [32]", CompilationError),
    (dot_1d, X, {}, "dot operands must both be 2-D", CompilationError),
    (uses_break, {**X, "n": "i32"}, {}, "`break` is not supported",
     UnsupportedLanguageConstruct),
    (uses_continue, {**X, "n": "i32"}, {}, "`continue` is not supported",
     UnsupportedLanguageConstruct),
    (uses_try, X, {}, "`try` is not supported", UnsupportedLanguageConstruct),
    (uses_with, X, {}, "`with` is not supported", UnsupportedLanguageConstruct),
    (uses_lambda, X, {}, "`lambda` is not supported", UnsupportedLanguageConstruct),
    (for_over_list, X, {}, "a for loop must iterate over range(...)",
     UnsupportedLanguageConstruct),
    (non_constexpr_global, X, {}, "cannot access global variable 'NOT_CONSTEXPR' of type int",
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
    (unknown_tensor_attribute, X, {}, "tensor has no attribute 'nonexistent'", CompilationError),
    (bad_cache_modifier, X, {}, "unknown cache modifier '.zz'", CompilationError),
    (missing_constexpr, X, {}, "constexpr argument 'BLOCK' has no value", CompilationError),
    (non_constexpr_shape, {**X, "n": "i32"}, {}, "shape entries must be constexpr integers",
     CompilationError),
    (bad_reshape, X, {}, "cannot reshape [16] (16 elements) to [4, 8] (32 elements)",
     CompilationError),
    (calls_plain_python, X, {}, "'_plain_python' is not a @jit function or a Triton builtin",
     CompilationError),
    (unknown_builtin_keyword, X, {}, "load() got an unexpected keyword argument 'foo'",
     CompilationError),
    (return_in_one_branch, {**X, "n": "i32"}, {}, "inside a runtime `if`, either both branches "
     "return or neither does", CompilationError),
    (bitwise_on_floats, X, {}, "bitwise operators need integer operands, not fp32",
     CompilationError),
    (bad_program_axis, X, {}, "program_id axis must be 0, 1, or 2 but got 3", CompilationError),
    (error_in_callee, X, {}, "in call to _callee_with_error: name 'undefined_in_callee' is not "
     "defined", CompilationError),
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
    assert MARKER in text  # the offending source line is quoted, with a caret below it
    assert text.rstrip().endswith("^")
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
