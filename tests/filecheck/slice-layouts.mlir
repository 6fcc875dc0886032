// RUN: tritonc opt %s --passes slice-layouts | filecheck %s
// A row sum expanded back onto its rows (`x - tl.sum(x, 1)[:, None]`): the reduction's
// result takes the sliced source layout, so expand_dims and broadcast give back the
// rows' own layout and the subtraction moves no data.

// CHECK-LABEL: func.func public @row_center
// CHECK: "tt.reduce"{{.*}} -> tensor<16xf32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>>
// CHECK-NEXT: "tt.expand_dims"{{.*}} -> tensor<16x1xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NOT: ttg.convert_layout
// CHECK: arith.subf {{.*}} : tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @row_center(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %0 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %cst = arith.constant dense<64> : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %3 = arith.muli %2, %cst : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %4 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %5 = "tt.addptr"(%4, %3) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %6 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %7 = "tt.broadcast"(%5) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %8 = "tt.broadcast"(%6) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %9 = "tt.addptr"(%7, %8) : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %10 = "tt.load"(%9) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %11 = "tt.reduce"(%10) {axis = 1 : i32, combine = @fp32_combine_0, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
    %12 = "tt.expand_dims"(%11) {axis = 1 : i32} : (tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xf32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %13 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %cst_0 = arith.constant dense<64> : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %14 = arith.muli %13, %cst_0 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %15 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %16 = "tt.addptr"(%15, %14) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %17 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %19 = "tt.broadcast"(%17) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %20 = "tt.addptr"(%18, %19) : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %21 = "tt.broadcast"(%12) : (tensor<16x1xf32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %22 = arith.subf %10, %21 : tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%20, %22) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
  func.func private @fp32_combine_0(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32
    return %0 : f32
  }
}
