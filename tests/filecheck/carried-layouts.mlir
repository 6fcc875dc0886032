// RUN: tritonc opt %s --passes carried-layouts | filecheck %s
// A column minimum over a loop: coalesce gave the load the layout running down the
// columns (dimension 0 fastest), and its value was converted back to the accumulator's
// blocked layout every iteration. The accumulator, its init and the minimum take the
// load's layout; the one conversion left on the value is of the row minimum after the
// loop (pointer, mask and `other` conversions are recomputed when lowered, as before).

// CHECK-LABEL: func.func public @column_min
// CHECK: %[[INF:.*]] = arith.constant dense<0x7F800000> : tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INF]]) -> (tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>)
// CHECK: %[[X:.*]] = "tt.load"
// CHECK-NOT: "ttg.convert_layout"
// CHECK: %[[MIN:.*]] = arith.minnumf %[[ACC]], %[[X]] : tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
// CHECK-NEXT: scf.yield %[[MIN]]
// CHECK: %[[ROW:.*]] = "tt.reduce"
// CHECK-SAME: -> tensor<16xf32, #ttg.slice<1 : i64, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>>
// CHECK-NEXT: %[[OUT:.*]] = "ttg.convert_layout"(%[[ROW]]) {{.*}} -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
// CHECK-NEXT: "tt.store"(%{{.*}}, %[[OUT]])

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @column_min(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: i32) {
    %cst = arith.constant dense<64> : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0x7F800000> : tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %c16_i32 = arith.constant 16 : i32
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %1 = arith.muli %0, %c16_i32 : i32
    %2 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>>
    %4 = "tt.expand_dims"(%3) {axis = 1 : i32} : (tensor<16xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>>) -> tensor<16x1xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %5 = "tt.splat"(%1) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %6 = "tt.splat"(%1) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %7 = arith.addi %6, %4 : tensor<16x1xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %8 = scf.for %arg3 = %c0_i32 to %arg2 step %c32_i32 iter_args(%arg4 = %cst_0) -> (tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>)  : i32 {
      %14 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %15 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>>
      %16 = "tt.expand_dims"(%15) {axis = 0 : i32} : (tensor<32xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>>) -> tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %17 = "tt.splat"(%arg3) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %18 = "tt.splat"(%arg3) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %19 = arith.addi %18, %16 : tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %20 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %21 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %22 = "tt.addptr"(%21, %7) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %cst_1 = arith.constant dense<64> : tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %23 = arith.muli %19, %cst_1 : tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %24 = "tt.broadcast"(%22) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %25 = "tt.broadcast"(%23) : (tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %26 = "tt.addptr"(%24, %25) : (tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %27 = "tt.splat"(%arg2) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %28 = "tt.splat"(%arg2) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %29 = arith.cmpi slt, %19, %28 : tensor<1x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %30 = "tt.broadcast"(%29) : (tensor<1x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %31 = "ttg.convert_layout"(%26) : (tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
      %32 = "ttg.convert_layout"(%30) : (tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32xi1, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
      %33 = "ttg.convert_layout"(%cst_0) : (tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
      %34 = "tt.load"(%31, %32, %33) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>, tensor<16x32xi1, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>, tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>) -> tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>
      %35 = "ttg.convert_layout"(%34) : (tensor<16x32xf32, #ttg.blocked<[4, 1], [4, 8], [1, 4], [0, 1]>>) -> tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %36 = arith.minnumf %arg4, %35 : tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      scf.yield %36 : tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    }
    %9 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %10 = "tt.addptr"(%9, %2) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %11 = "tt.splat"(%1) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %12 = "tt.addptr"(%10, %11) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %13 = "tt.reduce"(%8) {axis = 1 : i32, combine = @fp32_combine_0, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x32xf32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
    "tt.store"(%12, %13) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> ()
    return
  }
  func.func private @fp32_combine_0(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.minnumf %arg0, %arg1 : f32
    return %0 : f32
  }
}
