// RUN: tritonc opt %s --passes carried-layouts | filecheck %s
// Sums down the columns of a column-major matrix, through pointers the loop advances
// (`ptrs += BLOCK_R`). coalesce gave the load the layout running down dimension 0 and
// converted the loop-carried pointers to it every iteration: a trip through shared
// memory for a value the loop could carry in that layout. The pointers, their init and
// the `tt.addptr` that advances them take the load's layout, as the accumulator does;
// what remains converted is after the loop.

// CHECK-LABEL: func.func public @column_sums
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}) -> (tensor<32x16xf32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>, tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>)
// CHECK-NOT: "ttg.convert_layout"(%[[P]])
// CHECK: %[[X:.*]] = "tt.load"(%[[P]],
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : tensor<32x16xf32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>
// CHECK: %[[NEXT:.*]] = "tt.addptr"(%[[P]], %{{.*}}) : (tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>
// CHECK-NEXT: scf.yield %[[SUM]], %[[NEXT]]

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @column_sums(%arg0: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<32x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %c16_i32 = arith.constant 16 : i32
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %1 = arith.muli %0, %c16_i32 : i32
    %2 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %6 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>
    %7 = "tt.expand_dims"(%6) {axis = 1 : i32} : (tensor<32xi32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>>) -> tensor<32x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %8 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %9 = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %10 = "tt.addptr"(%9, %7) : (tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %11 = "tt.expand_dims"(%4) {axis = 0 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %12 = "tt.splat"(%arg3) : (i32) -> tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %14 = "tt.broadcast"(%10) : (tensor<32x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %15 = "tt.broadcast"(%13) : (tensor<1x16xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %16 = "tt.addptr"(%14, %15) : (tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<32x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    %17:2 = scf.for %arg4 = %c0_i32 to %arg2 step %c32_i32 iter_args(%arg5 = %cst_0, %arg6 = %16) -> (tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>)  : i32 {
      %21 = arith.subi %arg2, %arg4 : i32
      %22 = "tt.splat"(%21) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
      %23 = "tt.splat"(%21) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
      %24 = arith.cmpi slt, %7, %23 : tensor<32x1xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
      %25 = "tt.broadcast"(%24) : (tensor<32x1xi1, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16xi1, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
      %26 = "ttg.convert_layout"(%arg6) : (tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>
      %27 = "ttg.convert_layout"(%25) : (tensor<32x16xi1, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16xi1, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>
      %28 = "ttg.convert_layout"(%cst_0) : (tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16xf32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>
      %29 = "tt.load"(%26, %27, %28) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>, tensor<32x16xi1, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>, tensor<32x16xf32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>) -> tensor<32x16xf32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>
      %30 = "ttg.convert_layout"(%29) : (tensor<32x16xf32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [0, 1]>>) -> tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
      %31 = arith.addf %arg5, %30 : tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
      %32 = "tt.addptr"(%arg6, %cst) : (tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<32x16xi32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
      scf.yield %31, %32 : tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>, tensor<32x16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>
    }
    %18 = "tt.splat"(%arg1) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %19 = "tt.addptr"(%18, %4) : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %20 = "tt.reduce"(%17#0) {axis = 0 : i32, combine = @fp32_combine_0, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<32x16xf32, #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>>) -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
    "tt.store"(%19, %20) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> ()
    return
  }
  func.func private @fp32_combine_0(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32
    return %0 : f32
  }
}
