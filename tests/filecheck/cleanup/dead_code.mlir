// RUN: passes cleanup
// Unused pure ops vanish, and so do the ops only they used; side effects stay.

// CHECK-LABEL: func.func @dead
// CHECK-NOT: "tt.make_range"
// CHECK-NOT: "tt.expand_dims"
// CHECK-NOT: "tt.broadcast"
// CHECK: "tt.print"
// CHECK: "tt.get_program_id"
// CHECK-NOT: "tt.get_program_id"
func.func @dead(%x: i32) -> i32 {
  %r = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %e = "tt.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
  %b = "tt.broadcast"(%e) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %c = arith.addi %b, %b : tensor<32x64xi32>
  "tt.print"(%x) {hex = false, is_signed = array<i32: 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, prefix = "x"} : (i32) -> ()
  %p = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
  %q = "tt.get_program_id"() {axis = 1 : i32} : () -> i32
  return %p : i32
}

// An extern call marked pure can vanish; one that is not stays.
// CHECK-LABEL: func.func @externs
// CHECK: "tt.extern_elementwise"
// CHECK-SAME: symbol = "__nv_side_effect"
// CHECK-NOT: "tt.extern_elementwise"
func.func @externs(%x: f32) {
  %a = "tt.extern_elementwise"(%x) {libname = "", libpath = "", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, pure = true, symbol = "__nv_sinf"} : (f32) -> f32
  %b = "tt.extern_elementwise"(%x) {libname = "", libpath = "", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, pure = false, symbol = "__nv_side_effect"} : (f32) -> f32
  return
}
