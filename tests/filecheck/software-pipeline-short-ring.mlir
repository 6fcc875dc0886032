// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// A decode matmul (16 x 128 and 128 x 64 fp16 tiles, mma.sync, 4 warps, 4 stages on
// sm_90): a ring of four 20 KB stages fits two blocks on an SM, one of three fits three,
// so the loop takes S-1 buffers (its dots finish within the iteration).

// CHECK-LABEL: func.func public @linear_skinny
// CHECK: "tt.load"{{.*}}ttg.pipelined{{.*}} -> tensor<16x128xf16
// CHECK: "tt.load"{{.*}}ttg.pipelined{{.*}} -> tensor<128x64xf16
// CHECK: scf.yield
// CHECK-NEXT: } {ttg.pipeline_stages = 4 : i32, ttg.ring_buffers = 3 : i32}{{$}}

module attributes {"ttg.num-stages" = 4 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @linear_skinny(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: i32 {tt.divisibility = 16 : i32}, %arg7: i32 {tt.divisibility = 16 : i32}, %arg8: i32 {tt.divisibility = 16 : i32}) {
    %cst = arith.constant dense<128> : tensor<128x64xi32, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
    %cst_0 = arith.constant dense<128> : tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %c128_i32 = arith.constant 128 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #ttg.mma<[1, 4]>>
    %c64_i32 = arith.constant 64 : i32
    %c16_i32 = arith.constant 16 : i32
    %0 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %1 = "tt.get_program_id"() {axis = 1 : i32} : () -> i32
    %2 = arith.muli %1, %c16_i32 : i32
    %3 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = "tt.splat"(%2) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = arith.addi %4, %3 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %6 = arith.muli %0, %c64_i32 : i32
    %7 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %8 = "tt.splat"(%6) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %9 = arith.addi %8, %7 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %10 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %11 = "tt.expand_dims"(%5) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %12 = "tt.splat"(%arg6) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %13 = arith.muli %11, %12 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %14 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %15 = "tt.addptr"(%14, %13) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %16 = "tt.expand_dims"(%10) {axis = 0 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %18 = "tt.broadcast"(%16) : (tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %19 = "tt.addptr"(%17, %18) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
    %20 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %21 = "tt.splat"(%arg7) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %22 = arith.muli %20, %21 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %23 = "tt.splat"(%arg1) : (!tt.ptr<f16, 1 : i32>) -> tensor<1x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %24 = "tt.addptr"(%23, %22) : (tensor<1x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>, tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<1x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %25 = "tt.expand_dims"(%10) {axis = 1 : i32} : (tensor<128xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
    %26 = "tt.broadcast"(%24) : (tensor<1x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
    %27 = "tt.broadcast"(%25) : (tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64xi32, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
    %28 = "tt.addptr"(%26, %27) : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>, tensor<128x64xi32, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
    %29:3 = scf.for %arg9 = %c0_i32 to %arg5 step %c128_i32 iter_args(%arg10 = %cst_3, %arg11 = %19, %arg12 = %28) -> (tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>)  : i32 {
      %46 = "tt.splat"(%arg3) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %47 = arith.cmpi slt, %11, %46 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %48 = "tt.splat"(%arg9) : (i32) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %49 = arith.addi %16, %48 : tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %50 = "tt.splat"(%arg5) : (i32) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %51 = arith.cmpi slt, %49, %50 : tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %52 = "tt.broadcast"(%47) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %53 = "tt.broadcast"(%51) : (tensor<1x128xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %54 = arith.andi %52, %53 : tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %55 = "tt.load"(%arg11, %54, %cst_2) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %56 = "tt.splat"(%arg9) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %57 = arith.addi %25, %56 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %58 = "tt.splat"(%arg5) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %59 = arith.cmpi slt, %57, %58 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %60 = "tt.splat"(%arg4) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %61 = arith.cmpi slt, %20, %60 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %62 = "tt.broadcast"(%59) : (tensor<128x1xi1, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
      %63 = "tt.broadcast"(%61) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
      %64 = arith.andi %62, %63 : tensor<128x64xi1, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
      %65 = "tt.load"(%arg12, %64, %cst_1) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>, tensor<128x64xi1, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>, tensor<128x64xf16, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>) -> tensor<128x64xf16, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
      %66 = "tt.dot"(%55, %65, %arg10) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xf16, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>, tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.mma<[1, 4]>>
      %67 = "tt.addptr"(%arg11, %cst_0) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %68 = "tt.addptr"(%arg12, %cst) : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>, tensor<128x64xi32, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
      scf.yield %66, %67, %68 : tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[8, 1], [16, 2], [1, 4], [0, 1]>>
    }
    %30 = "tt.splat"(%arg8) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %31 = arith.muli %11, %30 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %32 = "tt.splat"(%arg2) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %33 = "tt.addptr"(%32, %31) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %34 = "tt.broadcast"(%33) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %35 = "tt.broadcast"(%20) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %36 = "tt.addptr"(%34, %35) : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %37 = arith.truncf %29#0 : tensor<16x64xf32, #ttg.mma<[1, 4]>> to tensor<16x64xf16, #ttg.mma<[1, 4]>>
    %38 = "tt.splat"(%arg3) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %39 = arith.cmpi slt, %11, %38 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %40 = "tt.splat"(%arg4) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %41 = arith.cmpi slt, %20, %40 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %42 = "tt.broadcast"(%39) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %43 = "tt.broadcast"(%41) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %44 = arith.andi %42, %43 : tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    %45 = "ttg.convert_layout"(%37) : (tensor<16x64xf16, #ttg.mma<[1, 4]>>) -> tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>
    "tt.store"(%36, %45, %44) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x64x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xf16, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>, tensor<16x64xi1, #ttg.blocked<[1, 8], [4, 8], [4, 1], [1, 0]>>) -> ()
    return
  }
}
