// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// Two wgmma dots in a pipelined loop (sm_90, 4 warps, 3 stages), both reading tiles of
// the ring and a 64 x 32 operand loaded before the loop. In @two_dots the first
// accumulates into a value only the loop yields and the second is read at once: the
// second's wait covers the first, which is marked ttg.wait_later (attention's backward:
// dV += P^T dO, then dP^T = V dO^T). In @dot_in_flight the order is swapped: the
// accumulating dot, last, stays in flight into the next iteration (ttg.async_dot), so no
// wait of this iteration covers the first dot, which waits itself.

// CHECK-LABEL: func.func public @two_dots
// CHECK: scf.for
// CHECK: "tt.dot"{{.*}}ttg.wait_later
// CHECK-NOT: ttg.wait_later
// CHECK: scf.yield
// CHECK-NEXT: } {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}{{$}}

// CHECK-LABEL: func.func public @dot_in_flight
// CHECK-NOT: ttg.wait_later
// CHECK: } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 4 : i32}{{$}}

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @two_dots(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %cst_2 = arith.constant dense<32> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %0 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %3 = arith.muli %2, %cst_2 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %4 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %5 = "tt.addptr"(%4, %3) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %6 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %7 = "tt.broadcast"(%5) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %8 = "tt.broadcast"(%6) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %9 = "tt.addptr"(%7, %8) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %10 = "tt.load"(%9) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %11 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %12 = "tt.splat"(%arg6) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %14 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %16 = "tt.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %19 = "tt.addptr"(%17, %18) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %20 = "tt.splat"(%arg2) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %21 = "tt.addptr"(%20, %13) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %22 = "tt.broadcast"(%21) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %23 = "tt.addptr"(%22, %18) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %24 = arith.muli %arg6, %c32_i32 : i32
    %25 = "ttg.convert_layout"(%cst_1) : (tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %26:4 = scf.for %arg7 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg8 = %25, %arg9 = %cst, %arg10 = %19, %arg11 = %23) -> (tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>)  : i32 {
      %39 = "tt.load"(%arg10) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %40 = "tt.load"(%arg11) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %41 = "tt.dot"(%10, %39, %arg8) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %42 = "tt.dot"(%10, %40, %25) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %43 = arith.mulf %42, %42 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %44 = arith.addf %arg9, %43 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %45 = "tt.splat"(%24) : (i32) -> tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %46 = "tt.addptr"(%arg10, %45) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %47 = "tt.addptr"(%arg11, %45) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      scf.yield %41, %44, %46, %47 : tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    }
    %27 = arith.muli %2, %cst_0 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %28 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %29 = "tt.addptr"(%28, %27) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %30 = "tt.broadcast"(%29) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %31 = "tt.broadcast"(%16) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %32 = "tt.addptr"(%30, %31) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %33 = "ttg.convert_layout"(%26#0) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%32, %33) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    %34 = "tt.splat"(%arg4) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %35 = "tt.addptr"(%34, %27) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %36 = "tt.broadcast"(%35) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %37 = "tt.addptr"(%36, %31) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %38 = "ttg.convert_layout"(%26#1) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%37, %38) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
  func.func public @dot_in_flight(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %cst_2 = arith.constant dense<32> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %0 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %1 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %2 = "tt.expand_dims"(%0) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %3 = arith.muli %2, %cst_2 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %4 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %5 = "tt.addptr"(%4, %3) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %6 = "tt.expand_dims"(%1) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %7 = "tt.broadcast"(%5) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %8 = "tt.broadcast"(%6) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %9 = "tt.addptr"(%7, %8) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %10 = "tt.load"(%9) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
    %11 = "tt.expand_dims"(%1) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %12 = "tt.splat"(%arg6) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %14 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %16 = "tt.expand_dims"(%0) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %19 = "tt.addptr"(%17, %18) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %20 = "tt.splat"(%arg2) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %21 = "tt.addptr"(%20, %13) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %22 = "tt.broadcast"(%21) : (tensor<32x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %23 = "tt.addptr"(%22, %18) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %24 = arith.muli %arg6, %c32_i32 : i32
    %25 = "ttg.convert_layout"(%cst_1) : (tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %26:4 = scf.for %arg7 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg8 = %25, %arg9 = %cst, %arg10 = %19, %arg11 = %23) -> (tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>)  : i32 {
      %39 = "tt.load"(%arg10) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %40 = "tt.load"(%arg11) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %41 = "tt.dot"(%10, %40, %25) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %42 = "tt.dot"(%10, %39, %arg8) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %43 = arith.mulf %41, %41 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %44 = arith.addf %arg9, %43 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %45 = "tt.splat"(%24) : (i32) -> tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %46 = "tt.addptr"(%arg10, %45) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %47 = "tt.addptr"(%arg11, %45) : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      scf.yield %42, %44, %46, %47 : tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<32x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    }
    %27 = arith.muli %2, %cst_0 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %28 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %29 = "tt.addptr"(%28, %27) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %30 = "tt.broadcast"(%29) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %31 = "tt.broadcast"(%16) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %32 = "tt.addptr"(%30, %31) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %33 = "ttg.convert_layout"(%26#0) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%32, %33) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    %34 = "tt.splat"(%arg4) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %35 = "tt.addptr"(%34, %27) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %36 = "tt.broadcast"(%35) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %37 = "tt.addptr"(%36, %31) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %38 = "ttg.convert_layout"(%26#1) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%37, %38) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
}
