// RUN: tritonc opt %s --passes coalesce | filecheck %s
// A transposing copy (4 warps): the load runs along the rows and keeps the default
// layout; the store's addresses run down the columns (`y + rn * M + rm`), so the store
// takes a layout with dimension 0 fastest, four consecutive elements per thread (one
// aligned 16-byte access), and its pointers and value are converted to it.

// CHECK-LABEL: func.func public @transpose_copy
// CHECK: "tt.load"{{.*}} -> tensor<32x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
// CHECK: "ttg.convert_layout"{{.*}} -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
// CHECK: "ttg.convert_layout"{{.*}} -> tensor<32x32xf32, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
// CHECK: "tt.store"{{.*}} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[4, 1], [8, 4], [1, 4], [0, 1]>>
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @transpose_copy(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %0 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %cst = arith.constant dense<32> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %3 = arith.muli %2, %cst : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %4 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %5 = "tt.addptr"(%4, %3) : (tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %6 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %7 = "tt.broadcast"(%5) : (tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %8 = "tt.broadcast"(%6) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %9 = "tt.addptr"(%7, %8) : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %10 = "tt.load"(%9) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %11 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %cst_0 = arith.constant dense<32> : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %12 = arith.muli %11, %cst_0 : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %13 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<1x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %14 = "tt.addptr"(%13, %12) : (tensor<1x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>, tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<1x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %15 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %16 = "tt.broadcast"(%14) : (tensor<1x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %18 = "tt.addptr"(%16, %17) : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    "tt.store"(%18, %10) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> ()
    return
  }
}
