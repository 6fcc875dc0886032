"""The MLIR loader and import hygiene."""

import subprocess
import sys

from tritonc.compiler import mlir_loader

MODULE = """
func.func @k(%p: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %n: i32) {
  %r = "tt.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %s = "tt.splat"(%p) : (!tt.ptr<f32, 1 : i32>) -> tensor<128x!tt.ptr<f32, 1 : i32>>
  %a = "tt.addptr"(%s, %r) : (tensor<128x!tt.ptr<f32, 1 : i32>>, tensor<128xi32>)
       -> tensor<128x!tt.ptr<f32, 1 : i32>>
  %v = "tt.load"(%a) {cache = "", evict = "", is_volatile = false, boundary_check = array<i32>,
       padding = "", operandSegmentSizes = array<i32: 1, 0, 0>}
       : (tensor<128x!tt.ptr<f32, 1 : i32>>) -> tensor<128xf32>
  return
}
"""


def test_context_with_tt_parses_and_verifies():
    ir = mlir_loader.load()
    module = ir.Module.parse(MODULE, mlir_loader.new_context())
    assert module.operation.verify()
    assert '"tt.load"' in str(module)


def test_wrong_arity_fails_verification():
    ir = mlir_loader.load()
    bad = MODULE.replace('"tt.splat"(%p) : (!tt.ptr<f32, 1 : i32>)',
                         '"tt.splat"(%p, %p) : (!tt.ptr<f32, 1 : i32>, !tt.ptr<f32, 1 : i32>)')
    try:
        ir.Module.parse(bad, mlir_loader.new_context())
    except Exception as e:  # MLIRError
        assert "tt.splat" in str(e)
    else:
        raise AssertionError("a tt.splat with two operands should not verify")


def test_libllvm_found_in_llvm_package():
    assert mlir_loader.libllvm_path().endswith("llvm/lib/libLLVM.so")


def test_import_tritonc_keeps_mlir_out():
    code = ("import sys, time; t = time.perf_counter(); import tritonc, tritonc.language; "
            "print(time.perf_counter() - t, 'mlir' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, has_mlir, has_torch = out.stdout.split()
    assert has_mlir == "False" and has_torch == "False"
    assert float(seconds) < 0.3
