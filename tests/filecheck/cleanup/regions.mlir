// RUN: passes cleanup-own
// A value defined before a loop is reused inside it; one defined inside a branch is not
// reused after it, nor in the other branch; functions never share values.

// CHECK-LABEL: func.func @loop
// CHECK: %[[S:.*]] = "tt.splat"(%arg0)
// CHECK: scf.for
// CHECK-NOT: "tt.splat"
// CHECK: arith.addi %{{.*}}, %[[S]]
func.func @loop(%x: i32, %n: index) -> tensor<16xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = "tt.splat"(%x) : (i32) -> tensor<16xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (tensor<16xi32>) {
    %t = "tt.splat"(%x) : (i32) -> tensor<16xi32>
    %u = arith.addi %acc, %t : tensor<16xi32>
    scf.yield %u : tensor<16xi32>
  }
  return %r : tensor<16xi32>
}

// CHECK-LABEL: func.func @branches
// CHECK: scf.if
// CHECK: "tt.splat"
// CHECK: } else {
// CHECK: "tt.splat"
// CHECK: }
// CHECK: "tt.splat"
func.func @branches(%x: i32, %c: i1) -> (tensor<16xi32>, tensor<16xi32>) {
  %r = scf.if %c -> tensor<16xi32> {
    %a = "tt.splat"(%x) : (i32) -> tensor<16xi32>
    scf.yield %a : tensor<16xi32>
  } else {
    %b = "tt.splat"(%x) : (i32) -> tensor<16xi32>
    scf.yield %b : tensor<16xi32>
  }
  %d = "tt.splat"(%x) : (i32) -> tensor<16xi32>
  return %r, %d : tensor<16xi32>, tensor<16xi32>
}

// CHECK-LABEL: func.func @other
// CHECK: "tt.get_program_id"
func.func @other() -> i32 {
  %p = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
  return %p : i32
}

// CHECK-LABEL: func.func @another
// CHECK: "tt.get_program_id"
func.func @another() -> i32 {
  %p = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
  return %p : i32
}
