"""The ttg memory ops and memory-descriptor type: the verifier refuses what IRDL can check;
the cleanup pass on real kernels leaves IR that verifies and has no duplicate pure op."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tritonc
from tritonc.compiler import mlir_loader
from tritonc.passes.ttgir import cleanup

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus import KERNELS  # noqa: E402

# ruff: noqa: E501 (MLIR lines quote whole types)

SHARED = '#ttg.swizzled_shared<4 : i32, 1 : i32, 8 : i32, [1, 0]>'


def memdesc(mutability: str = "mutable", block: str = "tensor<64x64xf16>") -> str:
    return f'!ttg.memdesc<{block}, {SHARED}, "{mutability}">'


def parse(body: str, args: str = ""):
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(f"func.func @f({args}) {{\n{body}\n  return\n}}")
        assert module.operation.verify()
        return str(module)


def test_store_to_a_mutable_buffer_verifies():
    md = memdesc()
    text = parse(f'''
  %b = "ttg.local_alloc"() {{operandSegmentSizes = array<i32: 0>}} : () -> {md}
  "ttg.local_store"(%x, %b) : (tensor<64x64xf16>, {md}) -> ()''', "%x: tensor<64x64xf16>")
    assert '"ttg.local_store"' in text and '"mutable">' in text


@pytest.mark.parametrize("body, args, message", [
    (f'''%b = "ttg.local_alloc"(%x) {{operandSegmentSizes = array<i32: 1>}} : (tensor<64x64xf16>) -> {memdesc("immutable")}
  "ttg.local_store"(%x, %b) : (tensor<64x64xf16>, {memdesc("immutable")}) -> ()''',
     "%x: tensor<64x64xf16>", 'expected \'"mutable"\''),
    ('''%v = "ttg.local_load"(%x) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<64x64xf16>) -> tensor<64x64xf16>''',
     "%x: tensor<64x64xf16>", "expected base type 'ttg.memdesc'"),
    (f'''%b = "ttg.local_alloc"() {{operandSegmentSizes = array<i32: 0>}} : () -> {memdesc("frozen")}''',
     "", "frozen"),
    (f'''%b = "ttg.local_alloc"() {{operandSegmentSizes = array<i32: 0>}} : () -> {memdesc(block="f16")}''',
     "", "builtin.tensor"),
    ('''%w = "ttg.async_wait"() {operandSegmentSizes = array<i32: 0>} : () -> !ttg.async_token''',
     "", "num"),
    ('''%w = "ttg.async_commit_group"(%x) {operandSegmentSizes = array<i32: 1>} : (i32) -> !ttg.async_token''',
     "%x: i32", "ttg.async_token"),
])
def test_the_verifier_refuses_misused_memory_ops(body, args, message):
    with pytest.raises(Exception, match=message):
        parse(body, args)


@pytest.mark.parametrize("k", KERNELS, ids=[k.name for k in KERNELS])
def test_cleanup_on_corpus_ttir_verifies_and_leaves_no_duplicates(k):
    text = tritonc.compile(k.fn, k.signature, k.constexprs, target="ttir",
                           divisible_by_16=k.divisible_by_16).asm["ttir"]
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(text)
        cleanup.cleanup(module)
        assert module.operation.verify()
        seen = set()
        for key in _pure_keys(module, ir):
            assert key not in seen, key
            seen.add(key)


def _pure_keys(module, ir):
    """(block, op key) of every pure tt/ttg op, for ops in the same block."""
    keys = []

    def visit(op):
        if cleanup.is_pure(op.operation):
            keys.append((op.operation.block, cleanup._key(op.operation)))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return keys


def test_cleanup_merges_the_duplicate_index_ops_of_a_2d_tile():
    from corpus import BY_NAME

    k = BY_NAME["tile_2d"]
    text = tritonc.compile(k.fn, k.signature, k.constexprs, target="ttir",
                           divisible_by_16=k.divisible_by_16).asm["ttir"]
    ir = mlir_loader.load()
    with mlir_loader.new_context():
        module = ir.Module.parse(text)
        assert cleanup.cleanup(module, upstream=False) > 0
        assert len(str(module)) < len(text)
