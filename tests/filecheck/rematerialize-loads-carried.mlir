// RUN: tritonc opt %s --passes rematerialize-loads | filecheck %s
// The statistics of dot-minus-key-stats through pointers the loop carries
// (`stat_ptrs += BLOCK_N`; 32 x 16 scores, 4 warps, sm_90: the corpus kernel
// dot_minus_carried_stats). The pointers take the row slice of the mma layout with their
// slot of the loop: the init is converted once, before the loop, the increment and the
// yield follow, and the 16 statistics load in that slice with no conversion in the loop.

// CHECK-LABEL: func.func public @dot_minus_carried_stats
// CHECK: %[[INIT:.*]] = "ttg.convert_layout"({{.*}}) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[P:.*]] = %[[INIT]], {{.*}})
// CHECK: %[[S:.*]] = "tt.load"(%[[P]]) {{.*}} -> tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
// CHECK-NOT: "ttg.convert_layout"(%[[S]])
// CHECK: "tt.expand_dims"(%[[S]])
// CHECK: "tt.addptr"(%[[P]], {{.*}}) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
// CHECK: scf.yield

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @dot_minus_carried_stats(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<32x16xf32, #ttg.mma<[4, 1]>>
    %cst_0 = arith.constant dense<512> : tensor<32x16xi32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
    %cst_1 = arith.constant dense<16> : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %c16_i32 = arith.constant 16 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_2 = arith.constant dense<32> : tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %cst_4 = arith.constant dense<32> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %1 = arith.muli %0, %c32_i32 : i32
    %2 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %6 = arith.muli %5, %cst_4 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %7 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %8 = "tt.addptr"(%7, %6) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %9 = "tt.expand_dims"(%2) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %10 = "tt.broadcast"(%8) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %11 = "tt.broadcast"(%9) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %12 = "tt.addptr"(%10, %11) : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %13 = "tt.load"(%12) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %14 = "ttg.convert_layout"(%13) : (tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>
    %15 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %16 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %17 = "tt.addptr"(%16, %15) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %18 = "tt.expand_dims"(%15) {axis = 0 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %19 = arith.muli %18, %cst_2 : tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %20 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %21 = "tt.addptr"(%20, %19) : (tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>, tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %22 = "tt.expand_dims"(%2) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %23 = "tt.broadcast"(%21) : (tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
    %24 = "tt.broadcast"(%22) : (tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x16xi32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
    %25 = "tt.addptr"(%23, %24) : (tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xi32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>) -> tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
    %26:3 = scf.for %arg5 = %c0_i32 to %arg4 step %c16_i32 iter_args(%arg6 = %cst, %arg7 = %17, %arg8 = %25) -> (tensor<32x16xf32, #ttg.mma<[4, 1]>>, tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>)  : i32 {
      %31 = "tt.load"(%arg8) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = "", ttg.pipelined} : (tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>) -> tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      %32 = "ttg.convert_layout"(%cst_3) : (tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %33 = "tt.dot"(%14, %31, %32) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>, tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xf32, #ttg.mma<[4, 1]>>) -> tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %34 = "tt.load"(%arg7) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
      %35 = "ttg.convert_layout"(%34) : (tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
      %36 = "tt.expand_dims"(%35) {axis = 0 : i32} : (tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>) -> tensor<1x16xf32, #ttg.mma<[4, 1]>>
      %37 = "tt.broadcast"(%36) : (tensor<1x16xf32, #ttg.mma<[4, 1]>>) -> tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %38 = arith.subf %33, %37 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %39 = math.exp2 %38 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %40 = arith.addf %arg6, %39 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %41 = "tt.addptr"(%arg7, %cst_1) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %42 = "tt.addptr"(%arg8, %cst_0) : (tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xi32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>) -> tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      scf.yield %40, %41, %42 : tensor<32x16xf32, #ttg.mma<[4, 1]>>, tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
    } {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}
    %27 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %28 = "tt.addptr"(%27, %4) : (tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %29 = "tt.reduce"(%26#0) {axis = 1 : i32, combine = @fp32_combine_0, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<32x16xf32, #ttg.mma<[4, 1]>>) -> tensor<32xf32, #ttg.slice<1 : i64, #ttg.mma<[4, 1]>>>
    %30 = "ttg.convert_layout"(%29) : (tensor<32xf32, #ttg.slice<1 : i64, #ttg.mma<[4, 1]>>>) -> tensor<32xf32, #ttg.blocked<[1], [32], [4], [0]>>
    "tt.store"(%28, %30) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> ()
    return
  }
  func.func private @fp32_combine_0(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32
    return %0 : f32
  }
}

