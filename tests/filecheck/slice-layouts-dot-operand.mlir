// RUN: tritonc opt %s --passes slice-layouts | filecheck %s
// GPTQ-style 4-bit weights dequantized in the loop (16 x 128 x 64 tiles, 4 warps, sm_90):
// a scale and a zero point per output column, loaded each iteration and broadcast onto
// the weight tile, and the nibble shifts broadcast down its rows. In a module with a dot,
// only such broadcasts (in a loop, onto a tile on its way to a dot operand) are taken:
// the scales and zero points load in the tile's layout sliced at dimension 0 and the
// shifts are made in it, so each broadcast repeats registers; the epilogue's broadcasts
// stay as they were (propagate-mma lays out what meets the dot's result).

// CHECK-LABEL: func.func public @matmul_w4a16
// CHECK: scf.for
// CHECK: %[[S:.*]] = "tt.load"({{.*}}) -> tensor<64xf16, #ttg.slice<0 : i64, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>>
// CHECK: %[[W:.*]] = "tt.load"({{.*}}) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK: %[[SH:.*]] = "tt.broadcast"({{.*}}) : (tensor<128x1xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>)
// CHECK-NEXT: arith.shrsi %[[W]], %[[SH]]
// CHECK: %[[ES:.*]] = "tt.expand_dims"(%[[S]]) {axis = 0 : i32} : ({{.*}}) -> tensor<1x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK-NEXT: "tt.broadcast"(%[[ES]]) : (tensor<1x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>)
// CHECK: "tt.dot"
// CHECK: scf.yield
// CHECK: "tt.broadcast"({{.*}}) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>)

module attributes {"ttg.num-stages" = 4 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @matmul_w4a16(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg5: i32, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}, %arg9: i32 {tt.divisibility = 16 : i32}, %arg10: i32 {tt.divisibility = 16 : i32}, %arg11: i32 {tt.divisibility = 16 : i32}, %arg12: i32 {tt.divisibility = 16 : i32}) {
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %c16_i32 = arith.constant 16 : i32
    %1 = arith.addi %arg5, %c16_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %2 = arith.subi %1, %c1_i32 : i32
    %c16_i32_0 = arith.constant 16 : i32
    %3 = arith.divsi %2, %c16_i32_0 : i32
    %c64_i32 = arith.constant 64 : i32
    %4 = arith.addi %arg6, %c64_i32 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32_1 : i32
    %c64_i32_2 = arith.constant 64 : i32
    %6 = arith.divsi %5, %c64_i32_2 : i32
    %c8_i32 = arith.constant 8 : i32
    %7 = arith.muli %c8_i32, %6 : i32
    %8 = arith.divsi %0, %7 : i32
    %c8_i32_3 = arith.constant 8 : i32
    %9 = arith.muli %8, %c8_i32_3 : i32
    %10 = arith.subi %3, %9 : i32
    %c8_i32_4 = arith.constant 8 : i32
    %11 = arith.minsi %10, %c8_i32_4 : i32
    %12 = arith.remsi %0, %7 : i32
    %13 = arith.remsi %12, %11 : i32
    %14 = arith.addi %9, %13 : i32
    %15 = arith.remsi %0, %7 : i32
    %16 = arith.divsi %15, %11 : i32
    %c16_i32_5 = arith.constant 16 : i32
    %17 = arith.muli %14, %c16_i32_5 : i32
    %18 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %19 = "tt.splat"(%17) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %20 = arith.addi %19, %18 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %21 = "tt.splat"(%arg5) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %22 = arith.remsi %20, %21 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %c64_i32_6 = arith.constant 64 : i32
    %23 = arith.muli %16, %c64_i32_6 : i32
    %24 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %25 = "tt.splat"(%23) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %26 = arith.addi %25, %24 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %27 = "tt.splat"(%arg6) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %28 = arith.remsi %26, %27 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %29 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %30 = "tt.expand_dims"(%22) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %31 = "tt.splat"(%arg8) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %32 = arith.muli %30, %31 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %33 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %34 = "tt.addptr"(%33, %32) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %35 = "tt.expand_dims"(%29) {axis = 0 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %36 = "tt.broadcast"(%34) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %37 = "tt.broadcast"(%35) : (tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %38 = "tt.addptr"(%36, %37) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %39 = "tt.expand_dims"(%29) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %cst = arith.constant dense<8> : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %40 = arith.divsi %39, %cst : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %41 = "tt.splat"(%arg9) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %42 = arith.muli %40, %41 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %43 = "tt.splat"(%arg1) : (!tt.ptr<i32, 1 : i32>) -> tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %44 = "tt.addptr"(%43, %42) : (tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>, tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %45 = "tt.expand_dims"(%28) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %46 = "tt.broadcast"(%44) : (tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %47 = "tt.broadcast"(%45) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %48 = "tt.addptr"(%46, %47) : (tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %cst_7 = arith.constant dense<8> : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %49 = arith.remsi %29, %cst_7 : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_8 = arith.constant dense<4> : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %50 = arith.muli %49, %cst_8 : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_9 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %c128_i32 = arith.constant 128 : i32
    %51 = arith.divsi %arg7, %c128_i32 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_10 = arith.constant 1 : i32
    %52:3 = scf.for %arg13 = %c0_i32 to %51 step %c1_i32_10 iter_args(%arg14 = %cst_9, %arg15 = %38, %arg16 = %48) -> (tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>)  : i32 {
      %c128_i32_13 = arith.constant 128 : i32
      %80 = arith.muli %arg13, %c128_i32_13 : i32
      %81 = arith.divsi %80, %arg12 : i32
      %82 = arith.muli %81, %arg11 : i32
      %83 = "tt.addptr"(%arg2, %82) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %84 = "tt.splat"(%83) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %85 = "tt.addptr"(%84, %28) : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %86 = "tt.load"(%85) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>
      %87 = arith.muli %81, %arg11 : i32
      %88 = "tt.addptr"(%arg3, %87) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %89 = "tt.splat"(%88) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %90 = "tt.addptr"(%89, %28) : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %91 = "tt.load"(%90) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>
      %92 = "tt.load"(%arg15) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %93 = "tt.load"(%arg16) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %94 = "tt.expand_dims"(%50) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %95 = "tt.broadcast"(%94) : (tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %96 = arith.shrsi %93, %95 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %cst_14 = arith.constant dense<15> : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %97 = arith.andi %96, %cst_14 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %98 = arith.sitofp %97 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>> to tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %99 = "tt.expand_dims"(%91) {axis = 0 : i32} : (tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %100 = "tt.broadcast"(%99) : (tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %101 = arith.subf %98, %100 : tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %102 = "tt.expand_dims"(%86) {axis = 0 : i32} : (tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %103 = "tt.broadcast"(%102) : (tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %104 = arith.mulf %101, %103 : tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %cst_15 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %105 = "tt.dot"(%92, %104, %cst_15) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %106 = arith.addf %arg14, %105 : tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
      %cst_16 = arith.constant dense<128> : tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %107 = "tt.addptr"(%arg15, %cst_16) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %c16_i32_17 = arith.constant 16 : i32
      %108 = arith.muli %c16_i32_17, %arg9 : i32
      %109 = "tt.splat"(%108) : (i32) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %110 = "tt.addptr"(%arg16, %109) : (tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      scf.yield %106, %107, %110 : tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    }
    %c16_i32_11 = arith.constant 16 : i32
    %53 = arith.muli %14, %c16_i32_11 : i32
    %54 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %55 = "tt.splat"(%53) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %56 = arith.addi %55, %54 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %c64_i32_12 = arith.constant 64 : i32
    %57 = arith.muli %16, %c64_i32_12 : i32
    %58 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %59 = "tt.splat"(%57) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %60 = arith.addi %59, %58 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %61 = "tt.expand_dims"(%56) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %62 = "tt.splat"(%arg10) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %63 = arith.muli %61, %62 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %64 = "tt.splat"(%arg4) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %65 = "tt.addptr"(%64, %63) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %66 = "tt.expand_dims"(%60) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %67 = "tt.broadcast"(%65) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %68 = "tt.broadcast"(%66) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %69 = "tt.addptr"(%67, %68) : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %70 = arith.truncf %52#0 : tensor<16x64xf32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>> to tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %71 = "tt.expand_dims"(%56) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %72 = "tt.splat"(%arg5) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %73 = arith.cmpi slt, %71, %72 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %74 = "tt.expand_dims"(%60) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %75 = "tt.splat"(%arg6) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %76 = arith.cmpi slt, %74, %75 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %77 = "tt.broadcast"(%73) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %78 = "tt.broadcast"(%76) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %79 = arith.andi %77, %78 : tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    "tt.store"(%69, %70, %79) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> ()
    return
  }
}
