// RUN: tritonc opt %s --passes carried-layouts | filecheck %s
// Weights of int8 read down their columns (B column-major, K contiguous) and converted
// to fp16 and scaled on their way to the dot (64 x 64 x 64, 4 warps, sm_90). coalesce
// loads the tile along K and converts it back to the default layout right after the
// load; the conversions to fp16 then ran in the default layout and a ring buffer would
// be read back across its columns. The conversion's value takes the load's layout
// instead: sitofp and the scaling run where the tile was loaded, and the tile meets the
// dot in that layout (the loop-carried pointers and the scale take it too).

// CHECK-LABEL: func.func public @dequant_matmul
// CHECK: scf.for {{.*}} tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
// CHECK: %[[W:.*]] = "tt.load"({{.*}}) -> tensor<64x64xi8, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
// CHECK-NEXT: %[[H:.*]] = arith.sitofp %[[W]] : tensor<64x64xi8, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>> to tensor<64x64xf16, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
// CHECK: %[[S:.*]] = arith.mulf %[[H]], {{.*}} : tensor<64x64xf16, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
// CHECK-NEXT: "tt.dot"({{.*}}, %[[S]], {{.*}}) {{.*}}, tensor<64x64xf16, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @dequant_matmul(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i8, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: i32, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}, %arg9: i32 {tt.divisibility = 16 : i32}) {
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.get_program_id"() {axis = 1 : i32} : () -> i32
    %c64_i32_0 = arith.constant 64 : i32
    %6 = arith.muli %5, %c64_i32_0 : i32
    %7 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %8 = "tt.splat"(%6) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %9 = arith.addi %8, %7 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %10 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %11 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %12 = "tt.splat"(%arg7) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %14 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %16 = "tt.expand_dims"(%10) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %cst = arith.constant dense<1> : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %17 = arith.muli %16, %cst : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %18 = "tt.broadcast"(%15) : (tensor<64x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %19 = "tt.broadcast"(%17) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %20 = "tt.addptr"(%18, %19) : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %21 = "tt.expand_dims"(%10) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %cst_1 = arith.constant dense<1> : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %22 = arith.muli %21, %cst_1 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %23 = "tt.splat"(%arg1) : (!tt.ptr<i8, 1 : i32>) -> tensor<64x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %24 = "tt.addptr"(%23, %22) : (tensor<64x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %25 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %26 = "tt.splat"(%arg8) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %27 = arith.muli %25, %26 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %28 = "tt.broadcast"(%24) : (tensor<64x1x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %29 = "tt.broadcast"(%27) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %30 = "tt.addptr"(%28, %29) : (tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %31 = "tt.splat"(%arg2) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %32 = "tt.addptr"(%31, %9) : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
    %33 = "tt.splat"(%arg5) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %34 = arith.cmpi slt, %9, %33 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>
    %35 = "tt.load"(%32, %34, %cst_2) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xi1, #ttg.blocked<[1], [32], [4], [0]>>, tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %c64_i32_4 = arith.constant 64 : i32
    %36 = arith.addi %arg6, %c64_i32_4 : i32
    %c1_i32 = arith.constant 1 : i32
    %37 = arith.subi %36, %c1_i32 : i32
    %c64_i32_5 = arith.constant 64 : i32
    %38 = arith.divsi %37, %c64_i32_5 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_6 = arith.constant 1 : i32
    %39:3 = scf.for %arg10 = %c0_i32 to %38 step %c1_i32_6 iter_args(%arg11 = %cst_3, %arg12 = %20, %arg13 = %30) -> (tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>)  : i32 {
      %c64_i32_7 = arith.constant 64 : i32
      %59 = arith.muli %arg10, %c64_i32_7 : i32
      %60 = arith.subi %arg6, %59 : i32
      %61 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %62 = "tt.splat"(%arg4) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %63 = arith.cmpi slt, %61, %62 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %64 = "tt.expand_dims"(%10) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %65 = "tt.splat"(%60) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %66 = arith.cmpi slt, %64, %65 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %67 = "tt.broadcast"(%63) : (tensor<64x1xi1, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %68 = "tt.broadcast"(%66) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %69 = arith.andi %67, %68 : tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %cst_8 = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %70 = "tt.load"(%arg12, %69, %cst_8) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %71 = "tt.expand_dims"(%10) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %72 = "tt.splat"(%60) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %73 = arith.cmpi slt, %71, %72 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
      %74 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %75 = "tt.splat"(%arg5) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %76 = arith.cmpi slt, %74, %75 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %77 = "tt.broadcast"(%73) : (tensor<64x1xi1, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %78 = "tt.broadcast"(%76) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %79 = arith.andi %77, %78 : tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %cst_9 = arith.constant dense<0> : tensor<64x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %80 = "ttg.convert_layout"(%arg13) : (tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
      %81 = "ttg.convert_layout"(%79) : (tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
      %82 = "ttg.convert_layout"(%cst_9) : (tensor<64x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64xi8, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
      %83 = "tt.load"(%80, %81, %82) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>, tensor<64x64xi1, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>, tensor<64x64xi8, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>) -> tensor<64x64xi8, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>
      %84 = "ttg.convert_layout"(%83) : (tensor<64x64xi8, #ttg.blocked<[16, 1], [4, 8], [1, 4], [0, 1]>>) -> tensor<64x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %85 = arith.sitofp %84 : tensor<64x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>> to tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %86 = "tt.expand_dims"(%35) {axis = 0 : i32} : (tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %87 = "tt.broadcast"(%86) : (tensor<1x64xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %88 = arith.mulf %85, %87 : tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %89 = "tt.dot"(%70, %88, %arg11) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      %cst_10 = arith.constant dense<64> : tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %90 = "tt.addptr"(%arg12, %cst_10) : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %cst_11 = arith.constant dense<64> : tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %91 = "tt.addptr"(%arg13, %cst_11) : (tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      scf.yield %89, %90, %91 : tensor<64x64xf32, #ttg.mma<[4, 1]>>, tensor<64x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    }
    %40 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %41 = "tt.splat"(%arg9) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %42 = arith.muli %40, %41 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %43 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %44 = "tt.addptr"(%43, %42) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %45 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %46 = "tt.broadcast"(%44) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %47 = "tt.broadcast"(%45) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %48 = "tt.addptr"(%46, %47) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %49 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %50 = "tt.splat"(%arg4) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %51 = arith.cmpi slt, %49, %50 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %52 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %53 = "tt.splat"(%arg5) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %54 = arith.cmpi slt, %52, %53 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %55 = "tt.broadcast"(%51) : (tensor<64x1xi1, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %56 = "tt.broadcast"(%54) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %57 = arith.andi %55, %56 : tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    %58 = "ttg.convert_layout"(%39#0) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    "tt.store"(%48, %58, %57) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> ()
    return
  }
}
