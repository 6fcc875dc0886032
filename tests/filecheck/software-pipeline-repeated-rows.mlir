// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// tests/read_back_kernels.py nibble_matmul before software-pipeline: 4-bit weights packed
// eight to an int32 along K, a 128 x 64 tile of words whose pointers (and mask, along N
// only) repeat down runs of 8 rows (`offs_k // 8`), read back into registers and unpacked
// before an mma.sync dot (16 x 64 x 128, 4 warps, 4 stages, sm_90). Its ring buffer keeps
// each distinct row once: 16 x 64 words, 4 KB a stage instead of 32. The activations'
// tile, each row its own, is stored whole.

// CHECK-LABEL: func.func public @nibble_matmul
// CHECK: scf.for
// CHECK: "tt.load"{{.*}}ttg.pipelined}
// CHECK: "tt.load"{{.*}}ttg.pipelined, ttg.read_back, ttg.repeated_rows = 8 : i32}
// CHECK: ttg.pipeline_stages = 4 : i32

module attributes {"ttg.num-stages" = 4 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @nibble_matmul(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<128> : tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %cst_0 = arith.constant dense<8> : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %cst_1 = arith.constant dense<15> : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %cst_2 = arith.constant dense<0> : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #ttg.mma<[1, 4]>>
    %cst_5 = arith.constant dense<4> : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_6 = arith.constant dense<8> : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_7 = arith.constant dense<8> : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
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
    %12 = "tt.splat"(%arg6) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %14 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %16 = "tt.expand_dims"(%10) {axis = 0 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %19 = "tt.addptr"(%17, %18) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %20 = "tt.expand_dims"(%10) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %21 = arith.divsi %20, %cst_7 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %22 = "tt.splat"(%arg7) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %24 = "tt.splat"(%arg1) : (!tt.ptr<i32, 1 : i32>) -> tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %25 = "tt.addptr"(%24, %23) : (tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>, tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %26 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %27 = "tt.broadcast"(%25) : (tensor<128x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %28 = "tt.broadcast"(%26) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %29 = "tt.addptr"(%27, %28) : (tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %30 = arith.remsi %10, %cst_6 : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %31 = arith.muli %30, %cst_5 : tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %32 = arith.divsi %arg5, %c128_i32 : i32
    %33 = arith.muli %arg7, %c16_i32 : i32
    %34:3 = scf.for %arg9 = %c0_i32 to %32 step %c1_i32 iter_args(%arg10 = %cst_4, %arg11 = %19, %arg12 = %29) -> (tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>)  : i32 {
      %50 = "tt.splat"(%arg3) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %51 = arith.cmpi slt, %11, %50 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %52 = "tt.broadcast"(%51) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %53 = "tt.load"(%arg11, %52, %cst_3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %54 = "tt.splat"(%arg4) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %55 = arith.cmpi slt, %26, %54 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %56 = "tt.broadcast"(%55) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %57 = "tt.load"(%arg12, %56, %cst_2) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %58 = "tt.expand_dims"(%31) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %59 = "tt.broadcast"(%58) : (tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %60 = arith.shrsi %57, %59 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %61 = arith.andi %60, %cst_1 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %62 = arith.subi %61, %cst_0 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %63 = arith.sitofp %62 : tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>> to tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %64 = "tt.dot"(%53, %63, %arg10) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.mma<[1, 4]>>
      %65 = "tt.addptr"(%arg11, %cst) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %66 = "tt.splat"(%33) : (i32) -> tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      %67 = "tt.addptr"(%arg12, %66) : (tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
      scf.yield %64, %65, %67 : tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    }
    %35 = "tt.splat"(%arg8) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %36 = arith.muli %11, %35 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %37 = "tt.splat"(%arg2) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %38 = "tt.addptr"(%37, %36) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %39 = "tt.broadcast"(%38) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %40 = "tt.broadcast"(%26) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %41 = "tt.addptr"(%39, %40) : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %42 = "tt.splat"(%arg3) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %43 = arith.cmpi slt, %11, %42 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %44 = "tt.splat"(%arg4) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %45 = arith.cmpi slt, %26, %44 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %46 = "tt.broadcast"(%43) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %47 = "tt.broadcast"(%45) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %48 = arith.andi %46, %47 : tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %49 = "ttg.convert_layout"(%34#0) : (tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%41, %49, %48) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
}

