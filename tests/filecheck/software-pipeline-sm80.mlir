// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// The fp16 matmul loop of software-pipeline.mlir on sm_80: both tiles join the ring of
// three stages; mma.sync leaves no dot in flight, so no spare buffer, and its two
// buffers (16 KB) fit a seventh block on an SM where three (24 KB) fit six.

// CHECK-LABEL: func.func public @ring_matmul
// CHECK: "tt.load"{{.*}}ttg.pipelined{{.*}} -> tensor<64x32xf16
// CHECK: "tt.load"{{.*}}ttg.pipelined{{.*}} -> tensor<32x64xf16
// CHECK: scf.yield
// CHECK-NEXT: } {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 2 : i32}{{$}}

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @ring_matmul(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %cst_0 = arith.constant dense<2048> : tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %cst_1 = arith.constant dense<32> : tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.mma<[2, 2]>>
    %cst_5 = arith.constant dense<64> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %0 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %3 = "tt.splat"(%arg3) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %4 = arith.muli %2, %3 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %5 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %6 = "tt.addptr"(%5, %4) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %7 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %8 = "tt.broadcast"(%6) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %9 = "tt.broadcast"(%7) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %10 = "tt.addptr"(%8, %9) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %11 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %12 = arith.muli %11, %cst_5 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %13 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %14 = "tt.addptr"(%13, %12) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %15 = "tt.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %16 = "tt.broadcast"(%14) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %18 = "tt.addptr"(%16, %17) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %19:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c32_i32 iter_args(%arg5 = %cst_4, %arg6 = %10, %arg7 = %18) -> (tensor<64x64xf32, #ttg.mma<[2, 2]>>, tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>)  : i32 {
      %27 = arith.subi %arg3, %arg4 : i32
      %28 = "tt.splat"(%27) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %29 = arith.cmpi slt, %7, %28 : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %30 = "tt.broadcast"(%29) : (tensor<1x32xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi1, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %31 = "tt.load"(%arg6, %30, %cst_3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi1, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %32 = "tt.splat"(%27) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
      %33 = arith.cmpi slt, %11, %32 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
      %34 = "tt.broadcast"(%33) : (tensor<32x1xi1, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %35 = "tt.load"(%arg7, %34, %cst_2) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %36 = "tt.dot"(%31, %35, %arg5) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[2, 2]>>) -> tensor<64x64xf32, #ttg.mma<[2, 2]>>
      %37 = "tt.addptr"(%arg6, %cst_1) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %38 = "tt.addptr"(%arg7, %cst_0) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      scf.yield %36, %37, %38 : tensor<64x64xf32, #ttg.mma<[2, 2]>>, tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    }
    %20 = arith.muli %2, %cst : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %21 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %22 = "tt.addptr"(%21, %20) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %23 = "tt.broadcast"(%22) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %24 = "tt.broadcast"(%15) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %25 = "tt.addptr"(%23, %24) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %26 = "ttg.convert_layout"(%19#0) : (tensor<64x64xf32, #ttg.mma<[2, 2]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%25, %26) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
}
