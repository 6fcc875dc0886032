// RUN: tritonc opt %s --passes cleanup,loop-invariant-code-motion,symbol-dce | filecheck %s
// The TTIR stage (backends/cuda/stages.py: ttir_passes). x + 0 folds away, the two
// products become one, the loop-invariant product leaves the loop, the unused private
// function goes, and the duplicate `tt.splat` merges into the first (cleanup reads purity
// from the op tables: IRDL ops have no traits for upstream CSE).

// CHECK-NOT: func.func private @unused
// CHECK-LABEL: func.func public @k
// CHECK-COUNT-1: arith.muli %arg1, %arg1 : i32
// CHECK-NOT: arith.muli
// CHECK: %[[R:.*]] = scf.for
// CHECK-NOT: arith.muli
// CHECK: %[[S:.*]] = "tt.splat"(%[[R]])
// CHECK-NOT: "tt.splat"(%[[R]])
// CHECK: arith.addi %[[S]], %[[S]] : tensor<16xi32>
// CHECK-NOT: arith.addi {{.*}}, %c0_i32
module {
  func.func private @unused(%a: i32) -> i32 {
    return %a : i32
  }
  func.func public @k(%p: !tt.ptr<i32, 1 : i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c0b = arith.constant 0 : i32
    %m1 = arith.muli %n, %n : i32
    %m2 = arith.muli %n, %n : i32
    %s = arith.addi %m1, %c0b : i32
    %r = scf.for %i = %c0 to %s step %c1 iter_args(%acc = %m2) -> (i32) : i32 {
      %inv = arith.muli %n, %n : i32
      %t = arith.addi %acc, %inv : i32
      scf.yield %t : i32
    }
    %v1 = "tt.splat"(%r) : (i32) -> tensor<16xi32>
    %v2 = "tt.splat"(%r) : (i32) -> tensor<16xi32>
    %sum = arith.addi %v1, %v2 : tensor<16xi32>
    %ps = "tt.splat"(%p) : (!tt.ptr<i32, 1 : i32>) -> tensor<16x!tt.ptr<i32, 1 : i32>>
    "tt.store"(%ps, %sum) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<i32, 1 : i32>>, tensor<16xi32>) -> ()
    return
  }
}
