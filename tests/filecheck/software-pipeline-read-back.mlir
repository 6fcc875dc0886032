// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// A weight-only int8 matmul for decoding (16 x 128 fp16 activations, 128 x 64 int8
// weights converted to fp16 and scaled per column before the dot; mma.sync, 4 warps,
// 4 stages on sm_90). The weights reach the dot through sitofp and mulf: their tile joins
// the ring and is marked to be read back into registers where it is loaded; the fp16
// tile, read by the dot itself, is not.

// CHECK-LABEL: func.func public @dequant_matmul
// CHECK: scf.for
// CHECK: %[[A:.*]] = "tt.load"
// CHECK-SAME: ttg.pipelined
// CHECK-NOT: ttg.read_back
// CHECK-SAME: -> tensor<16x128xf16
// CHECK: %[[B:.*]] = "tt.load"
// CHECK-SAME: ttg.pipelined, ttg.read_back
// CHECK-SAME: -> tensor<128x64xi8
// CHECK-NEXT: arith.sitofp %[[B]]
// CHECK: "tt.dot"(%[[A]],
// CHECK: scf.yield
// CHECK-NEXT: } {ttg.pipeline_stages = 4 : i32, ttg.ring_buffers = 3 : i32}{{$}}

module attributes {"ttg.num-stages" = 4 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @dequant_matmul(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i8, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: i32, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}, %arg9: i32 {tt.divisibility = 16 : i32}) {
    %c127_i32 = arith.constant 127 : i32
    %cst = arith.constant dense<128> : tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %cst_0 = arith.constant dense<0> : tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #ttg.mma<[1, 4]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>
    %c64_i32 = arith.constant 64 : i32
    %c16_i32 = arith.constant 16 : i32
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %1 = arith.muli %0, %c16_i32 : i32
    %2 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.get_program_id"() {axis = 1 : i32} : () -> i32
    %6 = arith.muli %5, %c64_i32 : i32
    %7 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %8 = "tt.splat"(%6) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %9 = arith.addi %8, %7 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %10 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %11 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %12 = "tt.splat"(%arg7) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %14 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %16 = "tt.expand_dims"(%10) {axis = 0 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %19 = "tt.addptr"(%17, %18) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %20 = "tt.expand_dims"(%10) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %21 = "tt.splat"(%arg8) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %22 = arith.muli %20, %21 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %23 = "tt.splat"(%arg1) : (!tt.ptr<i8, 1 : i32>) -> tensor<128x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %24 = "tt.addptr"(%23, %22) : (tensor<128x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>, tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %25 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %26 = "tt.broadcast"(%24) : (tensor<128x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %27 = "tt.broadcast"(%25) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %28 = "tt.addptr"(%26, %27) : (tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %29 = "tt.splat"(%arg2) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %30 = "tt.addptr"(%29, %9) : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %31 = "tt.splat"(%arg5) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %32 = arith.cmpi slt, %9, %31 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %33 = "tt.load"(%30, %32, %cst_3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xi1, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>
    %34 = arith.addi %arg6, %c127_i32 : i32
    %35 = arith.divsi %34, %c128_i32 : i32
    %36:3 = scf.for %arg10 = %c0_i32 to %35 step %c1_i32 iter_args(%arg11 = %cst_2, %arg12 = %19, %arg13 = %28) -> (tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>)  : i32 {
      %52 = arith.muli %arg10, %c128_i32 : i32
      %53 = arith.subi %arg6, %52 : i32
      %54 = "tt.splat"(%arg4) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %55 = arith.cmpi slt, %11, %54 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %56 = "tt.splat"(%53) : (i32) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %57 = arith.cmpi slt, %16, %56 : tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %58 = "tt.broadcast"(%55) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %59 = "tt.broadcast"(%57) : (tensor<1x128xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %60 = arith.andi %58, %59 : tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %61 = "tt.load"(%arg12, %60, %cst_1) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %62 = "tt.splat"(%53) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %63 = arith.cmpi slt, %20, %62 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %64 = "tt.splat"(%arg5) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %65 = arith.cmpi slt, %25, %64 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %66 = "tt.broadcast"(%63) : (tensor<128x1xi1, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %67 = "tt.broadcast"(%65) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %68 = arith.andi %66, %67 : tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %69 = "tt.load"(%arg13, %68, %cst_0) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %70 = arith.sitofp %69 : tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>> to tensor<128x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %71 = "tt.expand_dims"(%33) {axis = 0 : i32} : (tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %72 = "tt.broadcast"(%71) : (tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %73 = arith.mulf %70, %72 : tensor<128x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %74 = "tt.dot"(%61, %73, %arg11) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.mma<[1, 4]>>
      %75 = "tt.addptr"(%arg12, %cst) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %76 = arith.muli %arg8, %c128_i32 : i32
      %77 = "tt.splat"(%76) : (i32) -> tensor<128x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %78 = "tt.addptr"(%arg13, %77) : (tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      scf.yield %74, %75, %78 : tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    }
    %37 = "tt.splat"(%arg9) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %38 = arith.muli %11, %37 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %39 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %40 = "tt.addptr"(%39, %38) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %41 = "tt.broadcast"(%40) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %42 = "tt.broadcast"(%25) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %43 = "tt.addptr"(%41, %42) : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %44 = "tt.splat"(%arg4) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %45 = arith.cmpi slt, %11, %44 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %46 = "tt.splat"(%arg5) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %47 = arith.cmpi slt, %25, %46 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %48 = "tt.broadcast"(%45) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %49 = "tt.broadcast"(%47) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %50 = arith.andi %48, %49 : tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %51 = "ttg.convert_layout"(%36#0) : (tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%43, %51, %50) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
}
