// RUN: tritonc opt %s --passes hoist-tensormaps | filecheck %s
// Four descriptors made in a kernel on sm_90, each read in a loop by a dot. The first
// (A: base, shape and a stride divisible by 16 from arguments, through an extsi; the
// last stride the constant 1) gets the map argument %arg7 and the recipe of its launch;
// the second (its base offset by the program id), the third (a row stride with no
// divisibility) and the fourth (its last stride not 1) keep their operands only.

// CHECK-LABEL: func.func public @descriptors
// CHECK-SAME: %arg6: i32, %arg7: !tt.ptr<i8, 1 : i32>)
// CHECK-SAME: attributes {tt.tensormaps = [{base = 0 : i32, block = array<i32: 64, 32>, element_bytes = 2 : i32, map = 7 : i32, shape = ["%2", "%3"], strides = ["%4", "1"]}]}
// CHECK: %[[A:.*]] = "tt.make_tensor_descriptor"(%arg0, %arg2, %arg3, %{{.*}}, %c1_i64) {{.*}}tt.tensormap = 7 : i32}
// CHECK: "tt.make_tensor_descriptor"(%{{.*}}, %arg2, %arg3, %{{.*}}, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"}
// CHECK: "tt.make_tensor_descriptor"(%arg1, %arg2, %arg3, %{{.*}}, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"}
// CHECK: "tt.make_tensor_descriptor"(%arg1, %arg2, %arg3, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"}
// CHECK-NOT: tt.tensormap =
// CHECK: scf.for

#a = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#b = #ttg.blocked<[8, 1], [4, 8], [1, 4], [0, 1]>
#mma = #ttg.mma<[4, 1]>
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @descriptors(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32, %arg6: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = arith.extsi %arg4 : i32 to i64
    %u = arith.extsi %arg5 : i32 to i64
    %pid = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %moved = "tt.addptr"(%arg0, %pid) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
    %d0 = "tt.make_tensor_descriptor"(%arg0, %arg2, %arg3, %s, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
    %d1 = "tt.make_tensor_descriptor"(%moved, %arg2, %arg3, %s, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
    %d2 = "tt.make_tensor_descriptor"(%arg1, %arg2, %arg3, %u, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
    %d3 = "tt.make_tensor_descriptor"(%arg1, %arg2, %arg3, %s, %c2_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
    %r:3 = scf.for %k = %c0_i32 to %arg6 step %c1_i32 iter_args(%acc0 = %cst, %acc1 = %cst, %acc2 = %cst) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>)  : i32 {
      %off = arith.muli %k, %c32_i32 : i32
      %x0 = "tt.descriptor_load"(%d0, %c0_i32, %off) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16, #a>
      %x1 = "tt.descriptor_load"(%d1, %c0_i32, %off) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16, #a>
      %x2 = "tt.descriptor_load"(%d2, %c0_i32, %off) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16, #a>
      %x3 = "tt.descriptor_load"(%d3, %c0_i32, %off) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16, #a>
      %t1 = "tt.trans"(%x1) {order = array<i32: 1, 0>} : (tensor<64x32xf16, #a>) -> tensor<32x64xf16, #b>
      %t2 = "tt.trans"(%x2) {order = array<i32: 1, 0>} : (tensor<64x32xf16, #a>) -> tensor<32x64xf16, #b>
      %t3 = "tt.trans"(%x3) {order = array<i32: 1, 0>} : (tensor<64x32xf16, #a>) -> tensor<32x64xf16, #b>
      %p0 = "tt.dot"(%x0, %t1, %acc0) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #a>, tensor<32x64xf16, #b>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %p1 = "tt.dot"(%x0, %t2, %acc1) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #a>, tensor<32x64xf16, #b>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      %p2 = "tt.dot"(%x0, %t3, %acc2) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #a>, tensor<32x64xf16, #b>, tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma>
      scf.yield %p0, %p1, %p2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
    }
    return
  }
}
