// RUN: tritonc opt %s --passes rewrite-block-pointers | filecheck %s
// A select between two block pointers selects each part; a function taking a block
// pointer as an argument is left as it is (its block pointers lower as they stand).

// CHECK-LABEL: func.func public @chosen
// CHECK-DAG: %[[OFF:.*]] = arith.select %arg2, %c0_i32, %c64_i32 : i32
// CHECK-DAG: %[[BASE:.*]] = arith.select %arg2, %arg0, %arg1 : !tt.ptr<f32, 1 : i32>
// CHECK: %[[O64:.*]] = arith.extsi %[[OFF]] : i32 to i64
// CHECK: "tt.addptr"(%[[BASE]], %{{.*}})
// CHECK: "tt.load"
// CHECK-NOT: tt.make_block_ptr
// CHECK-LABEL: func.func private @takes
// CHECK: "tt.load"(%arg0)
module {
  func.func public @chosen(%x: !tt.ptr<f32, 1 : i32>, %y: !tt.ptr<f32, 1 : i32>, %c: i1, %out: !tt.ptr<f32, 1 : i32>) {
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %c256_i64 = arith.constant 256 : i64
    %p = "tt.make_block_ptr"(%x, %c256_i64, %c1_i64, %c0_i32) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, order = array<i32: 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i32) -> !tt.ptr<tensor<64xf32>, 1 : i32>
    %q = "tt.make_block_ptr"(%y, %c256_i64, %c1_i64, %c64_i32) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, order = array<i32: 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i32) -> !tt.ptr<tensor<64xf32>, 1 : i32>
    %s = arith.select %c, %p, %q : !tt.ptr<tensor<64xf32>, 1 : i32>
    %t = "tt.load"(%s) {boundary_check = array<i32: 0>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "zero"} : (!tt.ptr<tensor<64xf32>, 1 : i32>) -> tensor<64xf32>
    %o = "tt.make_block_ptr"(%out, %c256_i64, %c1_i64, %c0_i32) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, order = array<i32: 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i32) -> !tt.ptr<tensor<64xf32>, 1 : i32>
    "tt.store"(%o, %t) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<tensor<64xf32>, 1 : i32>, tensor<64xf32>) -> ()
    return
  }
  func.func private @takes(%p: !tt.ptr<tensor<64xf32>, 1 : i32>) -> tensor<64xf32> {
    %t = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (!tt.ptr<tensor<64xf32>, 1 : i32>) -> tensor<64xf32>
    return %t : tensor<64xf32>
  }
}
