// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// tests/running_products.py (64 x 32 fp16 tiles, 4 warps, 3 stages, sm_90) before
// software-pipeline. In @in_place each step stores its product into x, whose next block
// the following step loads: the load is computed from the argument the store writes
// (pointer_bases), so it is loaded where it stands, neither copied ahead into a ring nor
// prefetched. In @elsewhere the product goes to another argument and the tile joins the
// ring.

// CHECK-LABEL: func.func public @in_place
// CHECK: scf.for
// CHECK-NOT: ttg.pipelined
// CHECK-NOT: ttg.prefetch
// CHECK: "tt.store"
// CHECK-NEXT: }{{$}}

// CHECK-LABEL: func.func public @elsewhere
// CHECK: scf.for
// CHECK: "tt.load"{{.*}}ttg.pipelined
// CHECK: ttg.pipeline_stages = 3 : i32

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @in_place(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32) {
    %c2048_i32 = arith.constant 2048 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #ttg.mma<[4, 1]>>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<32> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %cst_1 = arith.constant dense<32> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %0 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %3 = arith.muli %2, %cst_1 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %4 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %5 = "tt.broadcast"(%3) : (tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %6 = "tt.broadcast"(%4) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %7 = arith.addi %5, %6 : tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %8 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %9 = arith.muli %8, %cst_0 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %10 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %11 = "tt.addptr"(%10, %9) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %12 = "tt.broadcast"(%11) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %13 = "tt.broadcast"(%4) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %14 = "tt.addptr"(%12, %13) : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %15 = "tt.load"(%14) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32  : i32 {
      %16 = arith.muli %arg4, %c2048_i32 : i32
      %17 = "tt.addptr"(%arg0, %16) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %18 = "tt.splat"(%17) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %19 = "tt.addptr"(%18, %7) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %20 = "tt.load"(%19) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %21 = "tt.dot"(%20, %15, %cst) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf32, #ttg.mma<[4, 1]>>) -> tensor<64x32xf32, #ttg.mma<[4, 1]>>
      %22 = arith.truncf %21 : tensor<64x32xf32, #ttg.mma<[4, 1]>> to tensor<64x32xf16, #ttg.mma<[4, 1]>>
      %23 = arith.addi %arg4, %c1_i32 : i32
      %24 = arith.muli %23, %c2048_i32 : i32
      %25 = "tt.addptr"(%arg0, %24) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %26 = "tt.splat"(%25) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %27 = "tt.addptr"(%26, %7) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %28 = "ttg.convert_layout"(%22) : (tensor<64x32xf16, #ttg.mma<[4, 1]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      "tt.store"(%27, %28) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> ()
    }
    return
  }
  func.func public @elsewhere(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32) {
    %c2048_i32 = arith.constant 2048 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #ttg.mma<[4, 1]>>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<32> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %cst_1 = arith.constant dense<32> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %0 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %3 = arith.muli %2, %cst_1 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %4 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %5 = "tt.broadcast"(%3) : (tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %6 = "tt.broadcast"(%4) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %7 = arith.addi %5, %6 : tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %8 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %9 = arith.muli %8, %cst_0 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %10 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %11 = "tt.addptr"(%10, %9) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %12 = "tt.broadcast"(%11) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %13 = "tt.broadcast"(%4) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %14 = "tt.addptr"(%12, %13) : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %15 = "tt.load"(%14) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32  : i32 {
      %16 = arith.muli %arg4, %c2048_i32 : i32
      %17 = "tt.addptr"(%arg0, %16) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %18 = "tt.splat"(%17) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %19 = "tt.addptr"(%18, %7) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %20 = "tt.load"(%19) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %21 = "tt.dot"(%20, %15, %cst) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf32, #ttg.mma<[4, 1]>>) -> tensor<64x32xf32, #ttg.mma<[4, 1]>>
      %22 = arith.truncf %21 : tensor<64x32xf32, #ttg.mma<[4, 1]>> to tensor<64x32xf16, #ttg.mma<[4, 1]>>
      %23 = arith.addi %arg4, %c1_i32 : i32
      %24 = arith.muli %23, %c2048_i32 : i32
      %25 = "tt.addptr"(%arg2, %24) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %26 = "tt.splat"(%25) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %27 = "tt.addptr"(%26, %7) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %28 = "ttg.convert_layout"(%22) : (tensor<64x32xf16, #ttg.mma<[4, 1]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      "tt.store"(%27, %28) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> ()
    }
    return
  }
}
