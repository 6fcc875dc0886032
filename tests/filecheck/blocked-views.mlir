// RUN: tritonc opt %s --passes blocked-views | filecheck %s
// Pairs of a loaded 16 x 128 tile taken apart by reshape and split, one half scaled, the
// halves joined the other way round and reshaped back (TTGIR as propagate-mma leaves it,
// 4 warps). assign-layouts gave the 16 x 64 x 2 shape a layout of its own, so each of the
// four view ops exchanged the tile through shared memory. The first reshape's result takes
// the loaded layout read as 16 x 64 x 2, the halves, the product and the join follow,
// and the second reshape's result is again the layout the store has: no conversion is
// left, and every view op keeps each element in the register that held it.

// CHECK-LABEL: func.func public @swap_pairs
// CHECK-NOT: "ttg.convert_layout"
// CHECK: %[[X:.*]] = "tt.load"
// CHECK-SAME: -> tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
// CHECK-NEXT: %[[R:.*]] = "tt.reshape"(%[[X]]) {{.*}} -> tensor<16x64x2xf32, #ttg.blocked<[1, 2, 2], [1, 32, 1], [4, 1, 1], [2, 1, 0]>>
// CHECK-NEXT: %[[S:.*]]:2 = "tt.split"(%[[R]]) {{.*}} -> (tensor<16x64xf32, #ttg.blocked<[1, 2], [1, 32], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 2], [1, 32], [4, 1], [1, 0]>>)
// CHECK: %[[M:.*]] = arith.mulf %[[S]]#1, %{{.*}} : tensor<16x64xf32, #ttg.blocked<[1, 2], [1, 32], [4, 1], [1, 0]>>
// CHECK-NEXT: %[[J:.*]] = "tt.join"(%[[M]], %[[S]]#0) {{.*}} -> tensor<16x64x2xf32, #ttg.blocked<[1, 2, 2], [1, 32, 1], [4, 1, 1], [2, 1, 0]>>
// CHECK-NEXT: %[[Y:.*]] = "tt.reshape"(%[[J]]) {{.*}} -> tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
// CHECK-NOT: "ttg.convert_layout"
// CHECK: "tt.store"(%{{.*}}, %[[Y]])

// A transposed tile stored along its rows: the transpose is left to move the data, as
// its free layout would need the same exchange before the store.
// CHECK-LABEL: func.func public @transpose_tile
// CHECK: "tt.trans"
// CHECK-SAME: -> tensor<128x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
// CHECK-NOT: "ttg.convert_layout"
// CHECK: "tt.store"

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @swap_pairs(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %0 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>
    %2 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<16xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>) -> tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %cst = arith.constant dense<128> : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %cst_0 = arith.constant dense<128> : tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %3 = arith.muli %2, %cst_0 : tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %4 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>
    %6 = "tt.expand_dims"(%5) {axis = 0 : i32} : (tensor<128xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>) -> tensor<1x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %7 = "tt.broadcast"(%3) : (tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %8 = "tt.broadcast"(%6) : (tensor<1x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %9 = arith.addi %7, %8 : tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %10 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %11 = "tt.addptr"(%10, %9) : (tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %12 = "tt.load"(%11) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %13 = "tt.reshape"(%12) {allow_reorder = false} : (tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x64x2xf32, #ttg.blocked<[1, 1, 2], [1, 32, 1], [2, 2, 1], [2, 1, 0]>>
    %14:2 = "tt.split"(%13) : (tensor<16x64x2xf32, #ttg.blocked<[1, 1, 2], [1, 32, 1], [2, 2, 1], [2, 1, 0]>>) -> (tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>)
    %cst_1 = arith.constant dense<2.000000e+00> : tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %15 = arith.mulf %14#1, %cst_1 : tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %16 = "tt.join"(%15, %14#0) : (tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64x2xf32, #ttg.blocked<[1, 1, 2], [1, 32, 1], [2, 2, 1], [2, 1, 0]>>
    %17 = "tt.reshape"(%16) {allow_reorder = false} : (tensor<16x64x2xf32, #ttg.blocked<[1, 1, 2], [1, 32, 1], [2, 2, 1], [2, 1, 0]>>) -> tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %18 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %19 = "tt.addptr"(%18, %9) : (tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    "tt.store"(%19, %17) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>, tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> ()
    return
  }
  func.func public @transpose_tile(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %0 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>
    %2 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<16xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>) -> tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %cst = arith.constant dense<128> : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %cst_0 = arith.constant dense<128> : tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %3 = arith.muli %2, %cst_0 : tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %4 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %5 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %6 = "tt.addptr"(%5, %3) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %7 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %8 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>
    %9 = "tt.expand_dims"(%8) {axis = 0 : i32} : (tensor<128xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>>) -> tensor<1x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %10 = "tt.broadcast"(%6) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %11 = "tt.broadcast"(%9) : (tensor<1x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %12 = "tt.addptr"(%10, %11) : (tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %13 = "tt.load"(%12) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x128x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>
    %14 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %15 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
    %16 = "tt.expand_dims"(%15) {axis = 1 : i32} : (tensor<128xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>) -> tensor<128x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %cst_1 = arith.constant dense<16> : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %cst_2 = arith.constant dense<16> : tensor<128x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %17 = arith.muli %16, %cst_2 : tensor<128x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %18 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %19 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %20 = "tt.addptr"(%19, %17) : (tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<128x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %21 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %22 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
    %23 = "tt.expand_dims"(%22) {axis = 0 : i32} : (tensor<16xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>) -> tensor<1x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %24 = "tt.broadcast"(%20) : (tensor<128x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %25 = "tt.broadcast"(%23) : (tensor<1x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %26 = "tt.addptr"(%24, %25) : (tensor<128x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<128x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %27 = "tt.trans"(%13) {order = array<i32: 1, 0>} : (tensor<16x128xf32, #ttg.blocked<[1, 4], [1, 32], [4, 1], [1, 0]>>) -> tensor<128x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    "tt.store"(%26, %27) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<128x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> ()
    return
  }
}
