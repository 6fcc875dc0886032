// RUN: tritonc opt %s --passes coalesce | filecheck %s
// The input rows are 16-byte aligned (stride_x, %arg4, is divisible by 16), the output's
// are not (stride_y, %arg5, is unknown): the load keeps eight fp16 per thread; the store,
// which can only be scalar, takes one element per thread, so that a warp writes 32
// consecutive fp16 instead of leaving gaps between its lanes. Its pointers, value and mask
// are converted to that layout.

// CHECK-LABEL: func.func public @_scale_rows_fp16
// CHECK: "tt.load"{{.*}} -> tensor<16x256xf16, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
// CHECK: "ttg.convert_layout"{{.*}} -> tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
// CHECK-NEXT: "ttg.convert_layout"{{.*}} -> tensor<16x256xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
// CHECK-NEXT: "ttg.convert_layout"{{.*}} -> tensor<16x256xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
// CHECK-NEXT: "tt.store"
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @_scale_rows_fp16(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32) {
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %c16_i32 = arith.constant 16 : i32
    %1 = arith.muli %0, %c16_i32 : i32
    %2 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #ttg.blocked<[2], [32], [4], [0]>>
    %6 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %7 = "tt.splat"(%arg2) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %8 = arith.cmpi slt, %6, %7 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %9 = "tt.expand_dims"(%5) {axis = 0 : i32} : (tensor<256xi32, #ttg.blocked<[2], [32], [4], [0]>>) -> tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>
    %10 = "tt.splat"(%arg3) : (i32) -> tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>
    %11 = arith.cmpi slt, %9, %10 : tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>
    %12 = "tt.broadcast"(%8) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x256xi1, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %13 = "tt.broadcast"(%11) : (tensor<1x256xi1, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x256xi1, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %14 = arith.andi %12, %13 : tensor<16x256xi1, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %15 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %16 = "tt.splat"(%arg4) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %17 = arith.muli %15, %16 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %18 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %19 = "tt.addptr"(%18, %17) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %20 = "tt.expand_dims"(%5) {axis = 0 : i32} : (tensor<256xi32, #ttg.blocked<[2], [32], [4], [0]>>) -> tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>
    %21 = "tt.broadcast"(%19) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %22 = "tt.broadcast"(%20) : (tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x256xi32, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %23 = "tt.addptr"(%21, %22) : (tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>, tensor<16x256xi32, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %24 = "tt.load"(%23, %14) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>, padding = ""} : (tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>, tensor<16x256xi1, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x256xf16, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %25 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %26 = "tt.splat"(%arg5) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %27 = arith.muli %25, %26 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %28 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %29 = "tt.addptr"(%28, %27) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %30 = "tt.expand_dims"(%5) {axis = 0 : i32} : (tensor<256xi32, #ttg.blocked<[2], [32], [4], [0]>>) -> tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>
    %31 = "tt.broadcast"(%29) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %32 = "tt.broadcast"(%30) : (tensor<1x256xi32, #ttg.blocked<[1, 2], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x256xi32, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %33 = "tt.addptr"(%31, %32) : (tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>, tensor<16x256xi32, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %cst = arith.constant dense<2.000000e+00> : tensor<16x256xf16, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    %34 = arith.mulf %24, %cst : tensor<16x256xf16, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>
    "tt.store"(%33, %34, %14) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x256x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>, tensor<16x256xf16, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>, tensor<16x256xi1, #ttg.blocked<[1, 8], [1, 32], [4, 1], [1, 0]>>) -> ()
    return
  }
}
