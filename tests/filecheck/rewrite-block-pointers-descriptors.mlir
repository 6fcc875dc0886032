// RUN: tritonc opt %s --passes rewrite-block-pointers{descriptors=true} | filecheck %s
// With `descriptors` (sm_90): the block pointers of a matmul's loop, A row-major and B
// column-major (order [0, 1]), made from arguments whose contiguous stride is 1, become
// descriptors made beside them, A's over M x K, B's over N x K (its dimensions swapped);
// the loop reads them at the carried offsets (B's swapped) and B's block is transposed
// back. The store after the loop stays a tensor of pointers and a mask.

// CHECK-LABEL: func.func public @bp_dot
// CHECK: %[[A:.*]] = "tt.make_tensor_descriptor"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
// CHECK: %[[B:.*]] = "tt.make_tensor_descriptor"(%arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
// CHECK: scf.for
// CHECK-NOT: "tt.load"
// CHECK: %[[X:.*]] = "tt.descriptor_load"(%[[A]], %[[AM:.*]], %[[AK:.*]]) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
// CHECK: %[[Y:.*]] = "tt.descriptor_load"(%[[B]], %[[BN:.*]], %[[BK:.*]]) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
// CHECK: %[[T:.*]] = "tt.trans"(%[[Y]]) {order = array<i32: 1, 0>} : (tensor<64x32xf16>) -> tensor<32x64xf16>
// CHECK: "tt.dot"(%[[X]], %[[T]], %{{.*}})
// CHECK: scf.yield
// CHECK: "tt.store"(%{{.*}}, %{{.*}}, %{{.*}}) {boundary_check = array<i32>
module {
  func.func public @bp_dot(%a_ptr: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %K: i32, %stride_am: i32 {tt.divisibility = 16 : i32}, %stride_bn: i32 {tt.divisibility = 16 : i32}) {
    %0 = arith.extsi %M : i32 to i64
    %1 = arith.extsi %K : i32 to i64
    %2 = arith.extsi %stride_am : i32 to i64
    %c1_i32 = arith.constant 1 : i32
    %3 = arith.extsi %c1_i32 : i32 to i64
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    %4 = "tt.make_block_ptr"(%a_ptr, %0, %1, %2, %3, %c0_i32, %c0_i32_0) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tt.ptr<f16, 1 : i32>, i64, i64, i64, i64, i32, i32) -> !tt.ptr<tensor<64x32xf16>, 1 : i32>
    %5 = arith.extsi %K : i32 to i64
    %6 = arith.extsi %N : i32 to i64
    %c1_i32_1 = arith.constant 1 : i32
    %7 = arith.extsi %c1_i32_1 : i32 to i64
    %8 = arith.extsi %stride_bn : i32 to i64
    %c0_i32_2 = arith.constant 0 : i32
    %c0_i32_3 = arith.constant 0 : i32
    %9 = "tt.make_block_ptr"(%b_ptr, %5, %6, %7, %8, %c0_i32_2, %c0_i32_3) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 0, 1>} : (!tt.ptr<f16, 1 : i32>, i64, i64, i64, i64, i32, i32) -> !tt.ptr<tensor<32x64xf16>, 1 : i32>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %c0_i32_4 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %10:3 = scf.for %arg8 = %c0_i32_4 to %K step %c32_i32 iter_args(%arg9 = %cst, %arg10 = %4, %arg11 = %9) -> (tensor<64x64xf32>, !tt.ptr<tensor<64x32xf16>, 1 : i32>, !tt.ptr<tensor<32x64xf16>, 1 : i32>)  : i32 {
      %16 = "tt.load"(%arg10) {boundary_check = array<i32: 0, 1>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (!tt.ptr<tensor<64x32xf16>, 1 : i32>) -> tensor<64x32xf16>
      %17 = "tt.load"(%arg11) {boundary_check = array<i32: 0, 1>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (!tt.ptr<tensor<32x64xf16>, 1 : i32>) -> tensor<32x64xf16>
      %18 = "tt.dot"(%16, %17, %arg9) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
      %c0_i32_8 = arith.constant 0 : i32
      %c32_i32_9 = arith.constant 32 : i32
      %19 = "tt.advance"(%arg10, %c0_i32_8, %c32_i32_9) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.ptr<tensor<64x32xf16>, 1 : i32>, i32, i32) -> !tt.ptr<tensor<64x32xf16>, 1 : i32>
      %c32_i32_10 = arith.constant 32 : i32
      %c0_i32_11 = arith.constant 0 : i32
      %20 = "tt.advance"(%arg11, %c32_i32_10, %c0_i32_11) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.ptr<tensor<32x64xf16>, 1 : i32>, i32, i32) -> !tt.ptr<tensor<32x64xf16>, 1 : i32>
      scf.yield %18, %19, %20 : tensor<64x64xf32>, !tt.ptr<tensor<64x32xf16>, 1 : i32>, !tt.ptr<tensor<32x64xf16>, 1 : i32>
    }
    %11 = arith.extsi %M : i32 to i64
    %12 = arith.extsi %N : i32 to i64
    %13 = arith.extsi %N : i32 to i64
    %c1_i32_5 = arith.constant 1 : i32
    %14 = arith.extsi %c1_i32_5 : i32 to i64
    %c0_i32_6 = arith.constant 0 : i32
    %c0_i32_7 = arith.constant 0 : i32
    %15 = "tt.make_block_ptr"(%c_ptr, %11, %12, %13, %14, %c0_i32_6, %c0_i32_7) {operandSegmentSizes = array<i32: 1, 2, 2, 2>, order = array<i32: 1, 0>} : (!tt.ptr<f32, 1 : i32>, i64, i64, i64, i64, i32, i32) -> !tt.ptr<tensor<64x64xf32>, 1 : i32>
    "tt.store"(%15, %10#0) {boundary_check = array<i32: 0, 1>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<tensor<64x64xf32>, 1 : i32>, tensor<64x64xf32>) -> ()
    return
  }
}

