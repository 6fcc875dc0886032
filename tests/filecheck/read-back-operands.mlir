// RUN: tritonc opt %s --passes read-back-operands | filecheck %s
// A weight-only int8 matmul for decoding (16 x 128 fp16 activations, 128 x 64 int8
// weights converted to fp16, the product scaled after the loop; mma.sync, 4 warps, sm_90),
// as software-pipeline leaves it: the weights' tile is read back from the ring. Its one
// conversion takes nothing else, so it computes in the B operand's register layout, the
// tile converted to it right after its load (the lowering reads that straight from the
// ring); the fp16 tile the dot reads from the ring itself is left alone.

// CHECK-LABEL: func.func public @dequant_matmul
// CHECK: scf.for
// CHECK: %[[A:.*]] = "tt.load"{{.*}}ttg.pipelined}
// CHECK: %[[B:.*]] = "tt.load"{{.*}}ttg.pipelined, ttg.read_back}
// CHECK-SAME: -> tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
// CHECK-NEXT: %[[R:.*]] = "ttg.convert_layout"(%[[B]]) {{.*}} -> tensor<128x64xi8, #ttg.dot_op<1 : i64, #ttg.mma<[1, 4]>>>
// CHECK-NEXT: %[[H:.*]] = arith.sitofp %[[R]] : tensor<128x64xi8, #ttg.dot_op<1 : i64, #ttg.mma<[1, 4]>>> to tensor<128x64xf16, #ttg.dot_op<1 : i64, #ttg.mma<[1, 4]>>>
// CHECK-NEXT: "tt.dot"(%[[A]], %[[H]], %{{.*}}) {{.*}} tensor<128x64xf16, #ttg.dot_op<1 : i64, #ttg.mma<[1, 4]>>>

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
      %57 = arith.muli %arg10, %c128_i32 : i32
      %58 = arith.subi %arg6, %57 : i32
      %59 = "tt.splat"(%arg4) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %60 = arith.cmpi slt, %11, %59 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %61 = "tt.splat"(%58) : (i32) -> tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %62 = arith.cmpi slt, %16, %61 : tensor<1x128xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %63 = "tt.broadcast"(%60) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %64 = "tt.broadcast"(%62) : (tensor<1x128xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %65 = arith.andi %63, %64 : tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %66 = "tt.load"(%arg12, %65, %cst_1) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = "", ttg.pipelined} : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi1, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %67 = "tt.splat"(%58) : (i32) -> tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %68 = arith.cmpi slt, %20, %67 : tensor<128x1xi32, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>
      %69 = "tt.splat"(%arg5) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %70 = arith.cmpi slt, %25, %69 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %71 = "tt.broadcast"(%68) : (tensor<128x1xi1, #ttg.blocked<[1, 1], [32, 1], [4, 1], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %72 = "tt.broadcast"(%70) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %73 = arith.andi %71, %72 : tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %74 = "tt.load"(%arg13, %73, %cst_0) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = "", ttg.pipelined, ttg.read_back} : (tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi1, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %75 = arith.sitofp %74 : tensor<128x64xi8, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>> to tensor<128x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %76 = "tt.dot"(%66, %75, %arg11) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x128xf16, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64xf16, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.mma<[1, 4]>>
      %77 = "tt.addptr"(%arg12, %cst) : (tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<16x128xi32, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>
      %78 = arith.muli %arg8, %c128_i32 : i32
      %79 = "tt.splat"(%78) : (i32) -> tensor<128x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      %80 = "tt.addptr"(%arg13, %79) : (tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>, tensor<128x64xi32, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>) -> tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
      scf.yield %76, %77, %80 : tensor<16x64xf32, #ttg.mma<[1, 4]>>, tensor<16x128x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 8], [2, 16], [4, 1], [1, 0]>>, tensor<128x64x!tt.ptr<i8, 1 : i32>, #ttg.blocked<[1, 16], [8, 4], [4, 1], [1, 0]>>
    } {ttg.pipeline_stages = 4 : i32, ttg.ring_buffers = 3 : i32}
    %37 = "ttg.convert_layout"(%33) : (tensor<64xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64xf16, #ttg.slice<0 : i64, #ttg.mma<[1, 4]>>>
    %38 = "tt.expand_dims"(%37) {axis = 0 : i32} : (tensor<64xf16, #ttg.slice<0 : i64, #ttg.mma<[1, 4]>>>) -> tensor<1x64xf16, #ttg.mma<[1, 4]>>
    %39 = arith.extf %38 : tensor<1x64xf16, #ttg.mma<[1, 4]>> to tensor<1x64xf32, #ttg.mma<[1, 4]>>
    %40 = "tt.broadcast"(%39) : (tensor<1x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.mma<[1, 4]>>
    %41 = arith.mulf %36#0, %40 : tensor<16x64xf32, #ttg.mma<[1, 4]>>
    %42 = "tt.splat"(%arg9) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %43 = arith.muli %11, %42 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %44 = "tt.splat"(%arg3) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %45 = "tt.addptr"(%44, %43) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %46 = "tt.broadcast"(%45) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %47 = "tt.broadcast"(%25) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %48 = "tt.addptr"(%46, %47) : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %49 = "tt.splat"(%arg4) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %50 = arith.cmpi slt, %11, %49 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %51 = "tt.splat"(%arg5) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %52 = arith.cmpi slt, %25, %51 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %53 = "tt.broadcast"(%50) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %54 = "tt.broadcast"(%52) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %55 = arith.andi %53, %54 : tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %56 = "ttg.convert_layout"(%41) : (tensor<16x64xf32, #ttg.mma<[1, 4]>>) -> tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%48, %56, %55) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<16x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
}
