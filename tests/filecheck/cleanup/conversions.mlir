// RUN: passes cleanup
// After the layout passes (the TTGIR stage ends with cleanup): a layout conversion
// inside a loop that repeats one before it is the earlier one, so the loop body keeps no
// conversion of a loop-invariant value (the pipeliner then takes the tile whose address
// it fed into its cp.async ring).

// CHECK-LABEL: func.func @tiles
// CHECK: %[[COLS:.*]] = "ttg.convert_layout"
// CHECK: scf.for
// CHECK-NOT: "ttg.convert_layout"
// CHECK: arith.addi %{{.*}}, %[[COLS]]
// CHECK: scf.yield
func.func @tiles(%p: !tt.ptr<f16, 1 : i32>, %n: i32) -> tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
  %e = "tt.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>) -> tensor<1x64xi32, #ttg.mma<[4, 1]>>
  %b = "tt.broadcast"(%e) : (tensor<1x64xi32, #ttg.mma<[4, 1]>>) -> tensor<16x64xi32, #ttg.mma<[4, 1]>>
  %cols = "ttg.convert_layout"(%b) : (tensor<16x64xi32, #ttg.mma<[4, 1]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
  %base = "tt.splat"(%p) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
  %q = "tt.addptr"(%base, %cols) : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
  %first = "tt.load"(%q) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
  %out = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %first) -> (tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) : i32 {
    %row = "tt.splat"(%i) : (i32) -> tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %again = "ttg.convert_layout"(%b) : (tensor<16x64xi32, #ttg.mma<[4, 1]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %off = arith.addi %row, %again : tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %k = "tt.addptr"(%base, %off) : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %t = "tt.load"(%k) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %s = arith.addf %acc, %t : tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    scf.yield %s : tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
  }
  return %out : tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
}
