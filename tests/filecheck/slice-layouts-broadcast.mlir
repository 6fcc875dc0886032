// RUN: tritonc opt %s --passes slice-layouts | filecheck %s
// A row index loaded, expanded and scaled (`out + dest[:, None] * D + cols[None, :]`)
// meets a tile whose lanes run along the columns: the index is loaded and computed in
// the tile's own layout (sliced at the new axis before expand_dims), so the broadcast
// repeats registers and nothing but the index's pointers is converted.

// CHECK-LABEL: func.func public @scatter_rows
// CHECK: "ttg.convert_layout"{{.*}} -> tensor<4x!tt.ptr<i32, 1 : i32>, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>>
// CHECK-NEXT: "tt.load"{{.*}} -> tensor<4xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>>
// CHECK-NOT: ttg.convert_layout
// CHECK: "tt.broadcast"{{.*}} : (tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>) -> tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
// CHECK-NOT: ttg.convert_layout
// CHECK: "tt.store"
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @scatter_rows(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<1024> : tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %0 = "tt.make_range"() {end = 4 : i32, start = 0 : i32} : () -> tensor<4xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32, #ttg.blocked<[4], [32], [4], [0]>>
    %2 = "tt.splat"(%arg1) : (!tt.ptr<i32, 1 : i32>) -> tensor<4x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.addptr"(%2, %0) : (tensor<4x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<4xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<4x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = "tt.load"(%3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<4x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<4xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<4xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %6 = arith.muli %5, %cst : tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %7 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %8 = "tt.addptr"(%7, %6) : (tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>, tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>) -> tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %9 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<1024xi32, #ttg.blocked<[4], [32], [4], [0]>>) -> tensor<1x1024xi32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    %10 = "tt.broadcast"(%8) : (tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>) -> tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    %11 = "tt.broadcast"(%9) : (tensor<1x1024xi32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>) -> tensor<4x1024xi32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    %12 = "tt.addptr"(%10, %11) : (tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>, tensor<4x1024xi32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>) -> tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    %13 = "tt.load"(%12) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>) -> tensor<4x1024xf32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    %14 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<4xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %15 = "tt.splat"(%arg3) : (i32) -> tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %16 = arith.muli %14, %15 : tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %17 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %18 = "tt.addptr"(%17, %16) : (tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>, tensor<4x1xi32, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>) -> tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>
    %19 = "tt.broadcast"(%18) : (tensor<4x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [4, 8], [1, 4], [1, 0]>>) -> tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    %20 = "tt.addptr"(%19, %11) : (tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>, tensor<4x1024xi32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>) -> tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>
    "tt.store"(%20, %13) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x1024x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>, tensor<4x1024xf32, #ttg.blocked<[1, 4], [1, 32], [1, 4], [1, 0]>>) -> ()
    return
  }
}
