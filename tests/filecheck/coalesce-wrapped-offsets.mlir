// RUN: tritonc opt %s --passes coalesce | filecheck %s
// A column-major tile whose column indices wrap, `(pid * BLOCK_N + arange) % N`, as the
// matmul tutorial writes its offsets: a remainder by a uniform value leaves the rows
// (offs_k, stride 1) contiguous, so the load runs down them, eight fp16 (16 bytes) a
// thread, and its value is converted back for its users.

// CHECK-LABEL: func.func public @wrapped_columns
// CHECK: arith.remsi
// CHECK: %[[P:.*]] = "ttg.convert_layout"({{.*}}) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [8, 4], [1, 4], [0, 1]>>
// CHECK: %[[X:.*]] = "tt.load"(%[[P]]) {{.*}} -> tensor<64x32xf16, #ttg.blocked<[8, 1], [8, 4], [1, 4], [0, 1]>>
// CHECK: "ttg.convert_layout"(%[[X]]) {{.*}} -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @wrapped_columns(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: i32, %arg3: i32 {tt.divisibility = 16 : i32}) {
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %c32_i32 = arith.constant 32 : i32
    %1 = arith.muli %0, %c32_i32 : i32
    %2 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.splat"(%arg2) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %6 = arith.remsi %4, %5 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %7 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %8 = "tt.expand_dims"(%7) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %9 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %10 = "tt.addptr"(%9, %8) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %11 = "tt.expand_dims"(%6) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %12 = "tt.splat"(%arg3) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %14 = "tt.broadcast"(%10) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %15 = "tt.broadcast"(%13) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %16 = "tt.addptr"(%14, %15) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %17 = "tt.load"(%16) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %18 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %c32_i32_0 = arith.constant 32 : i32
    %19 = arith.muli %18, %c32_i32_0 : i32
    %20 = "tt.addptr"(%arg1, %19) : (!tt.ptr<f32, 1 : i32>, i32) -> !tt.ptr<f32, 1 : i32>
    %21 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %22 = "tt.splat"(%20) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %23 = "tt.addptr"(%22, %21) : (tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %24 = "tt.reduce"(%17) {axis = 0 : i32, combine = @fp16_combine_0, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>
    %25 = arith.extf %24 : tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>> to tensor<32xf32, #ttg.blocked<[1], [32], [4], [0]>>
    "tt.store"(%23, %25) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xf32, #ttg.blocked<[1], [32], [4], [0]>>) -> ()
    return
  }
  func.func private @fp16_combine_0(%arg0: f16, %arg1: f16) -> f16 {
    %0 = arith.addf %arg0, %arg1 : f16
    return %0 : f16
  }
}
