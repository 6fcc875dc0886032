// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// Nested loops whose loads both feed dots (fp16, 64 x 64 x 32, sm_90): the inner loop's
// tiles join a ring; the outer loop, which holds it, takes none (the two rings would
// share shared memory), and its tile for the second dot is prefetched into registers.

// CHECK-LABEL: func.func public @nested_rings
// CHECK: scf.for
// CHECK: scf.for
// CHECK: "tt.load"{{.*}}ttg.pipelined}
// CHECK: "tt.load"{{.*}}ttg.pipelined}
// CHECK: } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}
// CHECK: "tt.load"{{.*}}ttg.prefetch}
// CHECK: "tt.dot"
// CHECK: scf.yield
// CHECK-NEXT: }{{$}}

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @nested_rings(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32, %arg4: i32 {tt.divisibility = 16 : i32}) {
    %c4096_i32 = arith.constant 4096 : i32
    %cst = arith.constant dense<64> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %cst_0 = arith.constant dense<64> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %c64_i32 = arith.constant 64 : i32
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %0 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "ttg.convert_layout"(%cst_1) : (tensor<64x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %3 = scf.for %arg5 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg6 = %2) -> (tensor<64x64xf32, #ttg.mma<[4, 1]>>)  : i32 {
      %13 = arith.muli %arg5, %c64_i32 : i32
      %14 = arith.muli %13, %arg4 : i32
      %15 = arith.muli %arg5, %arg4 : i32
      %16 = arith.muli %15, %c64_i32 : i32
      %17 = scf.for %arg7 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg8 = %2) -> (tensor<64x64xf32, #ttg.mma<[4, 1]>>)  : i32 {
        %32 = "tt.addptr"(%arg0, %14) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
        %33 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
        %34 = "tt.splat"(%arg4) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
        %35 = arith.muli %33, %34 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
        %36 = "tt.splat"(%32) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
        %37 = "tt.addptr"(%36, %35) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
        %38 = "tt.splat"(%arg7) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
        %39 = arith.addi %38, %1 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
        %40 = "tt.expand_dims"(%39) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
        %41 = "tt.broadcast"(%37) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
        %42 = "tt.broadcast"(%40) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
        %43 = "tt.addptr"(%41, %42) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
        %44 = "tt.load"(%43) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
        %45 = "tt.addptr"(%arg1, %16) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
        %46 = "tt.expand_dims"(%39) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
        %47 = arith.muli %46, %cst_0 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
        %48 = "tt.splat"(%45) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
        %49 = "tt.addptr"(%48, %47) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
        %50 = "tt.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
        %51 = "tt.broadcast"(%49) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
        %52 = "tt.broadcast"(%50) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
        %53 = "tt.addptr"(%51, %52) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
        %54 = "tt.load"(%53) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
        %55 = "tt.dot"(%44, %54, %arg8) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
        scf.yield %55 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
      }
      %18 = arith.truncf %17 : tensor<64x64xf32, #ttg.mma<[4, 1]>> to tensor<64x64xf16, #ttg.mma<[4, 1]>>
      %19 = "ttg.convert_layout"(%18) : (tensor<64x64xf16, #ttg.mma<[4, 1]>>) -> tensor<64x64xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>
      %20 = arith.muli %arg5, %c4096_i32 : i32
      %21 = "tt.addptr"(%arg1, %20) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %22 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %23 = arith.muli %22, %cst : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %24 = "tt.splat"(%21) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %25 = "tt.addptr"(%24, %23) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %26 = "tt.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %27 = "tt.broadcast"(%25) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %28 = "tt.broadcast"(%26) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %29 = "tt.addptr"(%27, %28) : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %30 = "tt.load"(%29) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<64x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %31 = "tt.dot"(%19, %30, %arg6) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>, tensor<64x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      scf.yield %31 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
    }
    %4 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %5 = arith.muli %4, %cst : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %6 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %7 = "tt.addptr"(%6, %5) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %8 = "tt.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %9 = "tt.broadcast"(%7) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %10 = "tt.broadcast"(%8) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %11 = "tt.addptr"(%9, %10) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %12 = "ttg.convert_layout"(%3) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    "tt.store"(%11, %12) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> ()
    return
  }
}
