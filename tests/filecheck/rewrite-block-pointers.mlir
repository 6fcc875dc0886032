// RUN: tritonc opt %s --passes rewrite-block-pointers | filecheck %s
// A block pointer carried by a loop becomes its parts: the loop carries the offsets (and
// the base, shape and strides, which canonicalize later folds away as invariant). Its
// load is a tensor of pointers from the base advanced by offset * stride plus each
// element's arange * stride, masked by -offset <= arange < shape - offset on the checked
// dimension and filled with zeros; the advance adds to the offset; the store after the
// loop is unmasked (no boundary_check). No block pointer op or type is left.

// CHECK-LABEL: func.func public @walk
// CHECK: %[[R:.*]]:5 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[BASE:.*]] = %arg0, %[[SHAPE:.*]] = %{{.*}}, %[[STRIDE:.*]] = %{{.*}}, %[[OFF:.*]] = %{{.*}}) -> (tensor<64xf32>, !tt.ptr<f32, 1 : i32>, i64, i64, i32)
// CHECK: %[[O64:.*]] = arith.extsi %[[OFF]] : i32 to i64
// CHECK: %[[MOVED:.*]] = arith.muli %[[O64]], %[[STRIDE]] : i64
// CHECK: %[[RANGE:.*]] = "tt.make_range"() {end = 64 : i32, start = 0 : i32}
// CHECK: %[[LOW:.*]] = arith.subi %{{.*}}, %[[O64]] : i64
// CHECK: %[[HIGH:.*]] = arith.subi %[[SHAPE]], %[[O64]] : i64
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: %[[FIRST:.*]] = "tt.addptr"(%[[BASE]], %[[MOVED]]) : (!tt.ptr<f32, 1 : i32>, i64) -> !tt.ptr<f32, 1 : i32>
// CHECK: %[[PTRS:.*]] = "tt.addptr"
// CHECK: "tt.load"(%[[PTRS]], %{{.*}}, %{{.*}}) {{.*}}operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""}
// CHECK: %[[NEXT:.*]] = arith.addi %[[OFF]], %c64_i32 : i32
// CHECK: scf.yield %{{.*}}, %[[BASE]], %[[SHAPE]], %[[STRIDE]], %[[NEXT]]
// CHECK: "tt.store"({{.*}}) {{.*}}operandSegmentSizes = array<i32: 1, 1, 0>}
// CHECK-NOT: tt.make_block_ptr
// CHECK-NOT: tt.advance
// CHECK-NOT: !tt.ptr<tensor
module {
  func.func public @walk(%x: !tt.ptr<f32, 1 : i32>, %out: !tt.ptr<f32, 1 : i32>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 4 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %cst = arith.constant dense<0.000000e+00> : tensor<64xf32>
    %n64 = arith.extsi %n : i32 to i64
    %p = "tt.make_block_ptr"(%x, %n64, %c1_i64, %c0_i32) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, order = array<i32: 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i32) -> !tt.ptr<tensor<64xf32>, 1 : i32>
    %r:2 = scf.for %i = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%acc = %cst, %q = %p) -> (tensor<64xf32>, !tt.ptr<tensor<64xf32>, 1 : i32>) : i32 {
      %t = "tt.load"(%q) {boundary_check = array<i32: 0>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tt.ptr<tensor<64xf32>, 1 : i32>) -> tensor<64xf32>
      %s = arith.addf %acc, %t : tensor<64xf32>
      %q2 = "tt.advance"(%q, %c64_i32) {operandSegmentSizes = array<i32: 1, 1>} : (!tt.ptr<tensor<64xf32>, 1 : i32>, i32) -> !tt.ptr<tensor<64xf32>, 1 : i32>
      scf.yield %s, %q2 : tensor<64xf32>, !tt.ptr<tensor<64xf32>, 1 : i32>
    }
    %o = "tt.make_block_ptr"(%out, %n64, %c1_i64, %c0_i32) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, order = array<i32: 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i32) -> !tt.ptr<tensor<64xf32>, 1 : i32>
    "tt.store"(%o, %r#0) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<tensor<64xf32>, 1 : i32>, tensor<64xf32>) -> ()
    return
  }
}
