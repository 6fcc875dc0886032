// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// The ring_matmul loop of software-pipeline.mlir with 128 x 256 x 64 tiles on 8 warps:
// a 48 KB stage, one block per SM with three buffers or four, so the loop whose dot
// stays in flight takes the spare buffer (192 KB, within the 200 KB ring budget).

// CHECK-LABEL: func.func public @ring_matmul
// CHECK: "tt.load"{{.*}}ttg.pipelined{{.*}} -> tensor<128x64xf16
// CHECK: "tt.load"{{.*}}ttg.pipelined{{.*}} -> tensor<64x256xf16
// CHECK: scf.yield
// CHECK-NEXT: } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 4 : i32}{{$}}

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @ring_matmul(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<256> : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %cst_0 = arith.constant dense<16384> : tensor<64x256xi32, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
    %cst_1 = arith.constant dense<64> : tensor<128x64xi32, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<64x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #ttg.mma<[8, 1]>>
    %cst_5 = arith.constant dense<256> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
    %0 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [8], [0]>>
    %1 = "tt.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #ttg.blocked<[1], [32], [8], [0]>>
    %2 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [8], [0]>>
    %3 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [8], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %4 = "tt.splat"(%arg3) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %5 = arith.muli %3, %4 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %6 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<128x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %7 = "tt.addptr"(%6, %5) : (tensor<128x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>, tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>) -> tensor<128x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %8 = "tt.expand_dims"(%2) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [8], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>
    %9 = "tt.broadcast"(%7) : (tensor<128x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
    %10 = "tt.broadcast"(%8) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
    %11 = "tt.addptr"(%9, %10) : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
    %12 = "tt.expand_dims"(%2) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [8], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
    %13 = arith.muli %12, %cst_5 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
    %14 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
    %16 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<256xi32, #ttg.blocked<[1], [32], [8], [0]>>) -> tensor<1x256xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>) -> tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<1x256xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>) -> tensor<64x256xi32, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
    %19 = "tt.addptr"(%17, %18) : (tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, tensor<64x256xi32, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>) -> tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
    %20:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c64_i32 iter_args(%arg5 = %cst_4, %arg6 = %11, %arg7 = %19) -> (tensor<128x256xf32, #ttg.mma<[8, 1]>>, tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>)  : i32 {
      %28 = arith.subi %arg3, %arg4 : i32
      %29 = "tt.splat"(%28) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>
      %30 = arith.cmpi slt, %8, %29 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>
      %31 = "tt.broadcast"(%30) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
      %32 = "tt.load"(%arg6, %31, %cst_3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<128x64xi1, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>) -> tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
      %33 = "tt.splat"(%28) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
      %34 = arith.cmpi slt, %12, %33 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>
      %35 = "tt.broadcast"(%34) : (tensor<64x1xi1, #ttg.blocked<[1, 1], [32, 1], [2, 4], [1, 0]>>) -> tensor<64x256xi1, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
      %36 = "tt.load"(%arg7, %35, %cst_2) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, tensor<64x256xi1, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, tensor<64x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>) -> tensor<64x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
      %37 = "tt.dot"(%32, %36, %arg5) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<64x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, tensor<128x256xf32, #ttg.mma<[8, 1]>>) -> tensor<128x256xf32, #ttg.mma<[8, 1]>>
      %38 = "tt.addptr"(%arg6, %cst_1) : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
      %39 = "tt.addptr"(%arg7, %cst_0) : (tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, tensor<64x256xi32, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>) -> tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
      scf.yield %37, %38, %39 : tensor<128x256xf32, #ttg.mma<[8, 1]>>, tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<64x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
    }
    %21 = arith.muli %3, %cst : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %22 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %23 = "tt.addptr"(%22, %21) : (tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>, tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>) -> tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>
    %24 = "tt.broadcast"(%23) : (tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 2], [1, 0]>>) -> tensor<128x256x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>
    %25 = "tt.broadcast"(%16) : (tensor<1x256xi32, #ttg.blocked<[1, 1], [1, 32], [1, 8], [1, 0]>>) -> tensor<128x256xi32, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>
    %26 = "tt.addptr"(%24, %25) : (tensor<128x256x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>, tensor<128x256xi32, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>) -> tensor<128x256x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>
    %27 = "ttg.convert_layout"(%20#0) : (tensor<128x256xf32, #ttg.mma<[8, 1]>>) -> tensor<128x256xf32, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>
    "tt.store"(%26, %27) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x256x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>, tensor<128x256xf32, #ttg.blocked<[1, 4], [1, 32], [4, 2], [1, 0]>>) -> ()
    return
  }
}
