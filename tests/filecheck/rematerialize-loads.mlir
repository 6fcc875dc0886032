// RUN: tritonc opt %s --passes rematerialize-loads | filecheck %s
// Scores less a statistic of each key, a block of 16 keys an iteration (32 x 16 scores,
// 4 warps, sm_90: the corpus kernel dot_minus_key_stats). The 16 statistics were loaded
// in the default layout and converted to the row slice of the mma layout every
// iteration, through shared memory; with fewer elements than the CTA's 128 threads, they
// are loaded in that slice instead: the pointers and the mask are made again in it from
// their ranges and splats, and the conversion is gone. The key tile in the ring keeps
// its layout.

// CHECK-LABEL: func.func public @dot_minus_key_stats
// CHECK: scf.for
// CHECK: "tt.load"({{.*}}ttg.pipelined{{.*}} -> tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
// CHECK: %[[P:.*]] = "tt.addptr"({{.*}}) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
// CHECK: %[[S:.*]] = "tt.load"(%[[P]], {{.*}}) -> tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
// CHECK-NOT: "ttg.convert_layout"(%[[S]])
// CHECK: "tt.expand_dims"(%[[S]]) {axis = 0 : i32} : (tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>) -> tensor<1x16xf32, #ttg.mma<[4, 1]>>
// CHECK: scf.yield

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @dot_minus_key_stats(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: i32, %arg5: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<32x16xf32, #ttg.mma<[4, 1]>>
    %cst_0 = arith.constant dense<0x7F800000> : tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
    %cst_2 = arith.constant dense<32> : tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %c16_i32 = arith.constant 16 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %cst_5 = arith.constant dense<32> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %1 = arith.muli %0, %c32_i32 : i32
    %2 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %6 = arith.muli %5, %cst_5 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %7 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %8 = "tt.addptr"(%7, %6) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %9 = "tt.expand_dims"(%2) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %10 = "tt.broadcast"(%8) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %11 = "tt.broadcast"(%9) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %12 = "tt.addptr"(%10, %11) : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %13 = "tt.splat"(%arg4) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %14 = arith.cmpi slt, %5, %13 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %15 = "tt.broadcast"(%14) : (tensor<32x1xi1, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32xi1, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %16 = "tt.load"(%12, %15, %cst_4) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xi1, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %17 = "ttg.convert_layout"(%16) : (tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>
    %18 = scf.for %arg6 = %c0_i32 to %arg5 step %c16_i32 iter_args(%arg7 = %cst) -> (tensor<32x16xf32, #ttg.mma<[4, 1]>>)  : i32 {
      %25 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %26 = "tt.splat"(%arg6) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %27 = arith.addi %26, %25 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %28 = "tt.expand_dims"(%27) {axis = 0 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %29 = arith.muli %28, %cst_2 : tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %30 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %31 = "tt.addptr"(%30, %29) : (tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>, tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %32 = "tt.expand_dims"(%2) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
      %33 = "tt.broadcast"(%31) : (tensor<1x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      %34 = "tt.broadcast"(%32) : (tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x16xi32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      %35 = "tt.addptr"(%33, %34) : (tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xi32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>) -> tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      %36 = "tt.splat"(%arg5) : (i32) -> tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %37 = arith.cmpi slt, %28, %36 : tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %38 = "tt.broadcast"(%37) : (tensor<1x16xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x16xi1, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      %39 = "tt.load"(%35, %38, %cst_1) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = "", ttg.pipelined} : (tensor<32x16x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xi1, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>) -> tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
      %40 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %41 = "tt.addptr"(%40, %27) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %42 = "tt.splat"(%arg5) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %43 = arith.cmpi slt, %27, %42 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %44 = "tt.load"(%41, %43, %cst_0) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi1, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
      %45 = "ttg.convert_layout"(%cst_3) : (tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %46 = "tt.dot"(%17, %39, %45) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>, tensor<32x16xf16, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>, tensor<32x16xf32, #ttg.mma<[4, 1]>>) -> tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %47 = "ttg.convert_layout"(%44) : (tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>
      %48 = "tt.expand_dims"(%47) {axis = 0 : i32} : (tensor<16xf32, #ttg.slice<0 : i64, #ttg.mma<[4, 1]>>>) -> tensor<1x16xf32, #ttg.mma<[4, 1]>>
      %49 = "tt.broadcast"(%48) : (tensor<1x16xf32, #ttg.mma<[4, 1]>>) -> tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %50 = arith.subf %46, %49 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %51 = math.exp2 %50 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
      %52 = arith.addf %arg7, %51 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
      scf.yield %52 : tensor<32x16xf32, #ttg.mma<[4, 1]>>
    } {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}
    %19 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %20 = "tt.addptr"(%19, %4) : (tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %21 = "tt.reduce"(%18) {axis = 1 : i32, combine = @fp32_combine_0, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<32x16xf32, #ttg.mma<[4, 1]>>) -> tensor<32xf32, #ttg.slice<1 : i64, #ttg.mma<[4, 1]>>>
    %22 = "tt.splat"(%arg4) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %23 = arith.cmpi slt, %4, %22 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %24 = "ttg.convert_layout"(%21) : (tensor<32xf32, #ttg.slice<1 : i64, #ttg.mma<[4, 1]>>>) -> tensor<32xf32, #ttg.blocked<[1], [32], [4], [0]>>
    "tt.store"(%20, %24, %23) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xf32, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi1, #ttg.blocked<[1], [32], [4], [0]>>) -> ()
    return
  }
  func.func private @fp32_combine_0(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32
    return %0 : f32
  }
}

