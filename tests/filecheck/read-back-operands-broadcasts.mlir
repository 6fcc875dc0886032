// RUN: tritonc opt %s --passes read-back-operands | filecheck %s
// 4-bit weights packed eight down K into int32 words, unpacked on their way to an
// mma.sync dot with a shift per row and each column's zero point and scale (16 x 32 x 32,
// 4 warps, sm_90: the corpus kernel dequant_nibbles_dot). The conversions read other
// tensors than constants: the shifts (a row broadcast along the columns, made outside the
// loop from a range) and the zero points and scales (rows loaded in the loop, broadcast
// down K). They all compute in the dot operand's layout: the packed tile is converted to
// it right after its load (read from the ring into those registers), the broadcasts take
// it, the shifts are made again from their range in its slice, and the loaded rows are
// converted to its slice (rematerialize-loads then loads them there).

// CHECK-LABEL: func.func public @dequant_nibbles_dot
// CHECK: "tt.make_range"() {{.*}} -> tensor<32xi32, #ttg.slice<1 : i64, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>>
// CHECK: scf.for
// CHECK: %[[W:.*]] = "tt.load"({{.*}}ttg.read_back{{.*}} -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
// CHECK: %[[SH:.*]] = "tt.broadcast"({{.*}}) : (tensor<32x1xi32, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>) -> tensor<32x32xi32, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>
// CHECK: %[[R:.*]] = "ttg.convert_layout"(%[[W]]) : {{.*}} -> tensor<32x32xi32, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>
// CHECK: arith.shrsi %[[R]], %[[SH]] : tensor<32x32xi32, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>
// CHECK: %[[Z:.*]] = "ttg.convert_layout"({{.*}}) : (tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32xf16, #ttg.slice<0 : i64, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>>
// CHECK: "tt.expand_dims"(%[[Z]]) {axis = 0 : i32}
// CHECK: arith.subf {{.*}} : tensor<32x32xf16, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>
// CHECK: %[[S:.*]] = arith.mulf {{.*}} : tensor<32x32xf16, #ttg.dot_op<1 : i64, #ttg.mma<[2, 2]>>>
// CHECK: "tt.dot"({{.*}}, %[[S]], {{.*}})

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @dequant_nibbles_dot(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i32, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg4: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg5: i32, %arg6: i32, %arg7: i32 {tt.divisibility = 16 : i32}) {
    %c4_i32 = arith.constant 4 : i32
    %cst = arith.constant dense<32> : tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %cst_0 = arith.constant dense<15> : tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %cst_1 = arith.constant dense<0> : tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<16x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<16x32xf32, #ttg.mma<[2, 2]>>
    %cst_5 = arith.constant dense<4> : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_6 = arith.constant dense<8> : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %cst_7 = arith.constant dense<8> : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %c32_i32 = arith.constant 32 : i32
    %c16_i32 = arith.constant 16 : i32
    %0 = "tt.get_program_id"() {axis = 1 : i32} : () -> i32
    %1 = arith.muli %0, %c16_i32 : i32
    %2 = "tt.make_range"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %3 = "tt.splat"(%1) : (i32) -> tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %4 = arith.addi %3, %2 : tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %5 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %6 = arith.muli %5, %c32_i32 : i32
    %7 = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %8 = "tt.splat"(%6) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %9 = arith.addi %8, %7 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %10 = "tt.expand_dims"(%4) {axis = 1 : i32} : (tensor<16xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %11 = "tt.splat"(%arg7) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %12 = arith.muli %10, %11 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %13 = "tt.splat"(%arg0) : (!tt.ptr<f16, 1 : i32>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %14 = "tt.addptr"(%13, %12) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %15 = "tt.expand_dims"(%7) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %16 = "tt.broadcast"(%14) : (tensor<16x1x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %17 = "tt.broadcast"(%15) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %18 = "tt.addptr"(%16, %17) : (tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %19 = "tt.expand_dims"(%7) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %20 = arith.divsi %19, %cst_7 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %21 = "tt.splat"(%arg6) : (i32) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %22 = arith.muli %20, %21 : tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %23 = "tt.splat"(%arg1) : (!tt.ptr<i32, 1 : i32>) -> tensor<32x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %24 = "tt.addptr"(%23, %22) : (tensor<32x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>, tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
    %25 = "tt.expand_dims"(%9) {axis = 0 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %26 = "tt.broadcast"(%24) : (tensor<32x1x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %27 = "tt.broadcast"(%25) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %28 = "tt.addptr"(%26, %27) : (tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %29 = arith.remsi %7, %cst_6 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %30 = arith.muli %29, %cst_5 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %31 = arith.divsi %arg7, %c32_i32 : i32
    %32 = arith.muli %arg6, %c4_i32 : i32
    %33:3 = scf.for %arg8 = %c0_i32 to %31 step %c1_i32 iter_args(%arg9 = %cst_4, %arg10 = %18, %arg11 = %28) -> (tensor<16x32xf32, #ttg.mma<[2, 2]>>, tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>)  : i32 {
      %51 = arith.muli %arg8, %c32_i32 : i32
      %52 = arith.divsi %51, %c32_i32 : i32
      %53 = arith.muli %52, %arg6 : i32
      %54 = "tt.addptr"(%arg2, %53) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %55 = "tt.splat"(%54) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %56 = "tt.addptr"(%55, %9) : (tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %57 = "tt.splat"(%arg6) : (i32) -> tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %58 = arith.cmpi slt, %9, %57 : tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>
      %59 = "tt.load"(%56, %58, %cst_3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi1, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>
      %60 = "tt.addptr"(%arg3, %53) : (!tt.ptr<f16, 1 : i32>, i32) -> !tt.ptr<f16, 1 : i32>
      %61 = "tt.splat"(%60) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %62 = "tt.addptr"(%61, %9) : (tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>
      %63 = "tt.load"(%62, %58, %cst_3) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = ""} : (tensor<32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xi1, #ttg.blocked<[1], [32], [4], [0]>>, tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>
      %64 = "tt.splat"(%arg5) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %65 = arith.cmpi slt, %10, %64 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
      %66 = "tt.broadcast"(%65) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %67 = "tt.load"(%arg10, %66, %cst_2) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = "", ttg.pipelined} : (tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %68 = "tt.splat"(%arg6) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %69 = arith.cmpi slt, %25, %68 : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %70 = "tt.broadcast"(%69) : (tensor<1x32xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %71 = "tt.load"(%arg11, %70, %cst_1) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 1>, padding = "", ttg.pipelined, ttg.read_back} : (tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %72 = "tt.expand_dims"(%30) {axis = 1 : i32} : (tensor<32xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>
      %73 = "tt.broadcast"(%72) : (tensor<32x1xi32, #ttg.blocked<[1, 1], [32, 1], [1, 4], [1, 0]>>) -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %74 = arith.shrsi %71, %73 : tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %75 = arith.andi %74, %cst_0 : tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %76 = arith.sitofp %75 : tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>> to tensor<32x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %77 = "tt.expand_dims"(%63) {axis = 0 : i32} : (tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %78 = "tt.broadcast"(%77) : (tensor<1x32xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %79 = arith.subf %76, %78 : tensor<32x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %80 = "tt.expand_dims"(%59) {axis = 0 : i32} : (tensor<32xf16, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x32xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
      %81 = "tt.broadcast"(%80) : (tensor<1x32xf16, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<32x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %82 = arith.mulf %79, %81 : tensor<32x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %83 = "tt.dot"(%67, %82, %arg9) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xf16, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xf32, #ttg.mma<[2, 2]>>) -> tensor<16x32xf32, #ttg.mma<[2, 2]>>
      %84 = "tt.addptr"(%arg10, %cst) : (tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %85 = "tt.splat"(%32) : (i32) -> tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      %86 = "tt.addptr"(%arg11, %85) : (tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
      scf.yield %83, %84, %86 : tensor<16x32xf32, #ttg.mma<[2, 2]>>, tensor<16x32x!tt.ptr<f16, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<32x32x!tt.ptr<i32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    } {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}
    %34 = "tt.splat"(%arg6) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %35 = arith.muli %10, %34 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %36 = "tt.splat"(%arg4) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %37 = "tt.addptr"(%36, %35) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>, tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %38 = "tt.broadcast"(%37) : (tensor<16x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %39 = "tt.broadcast"(%25) : (tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %40 = "tt.addptr"(%38, %39) : (tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>, tensor<16x32xi32, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %41 = "tt.splat"(%arg5) : (i32) -> tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %42 = arith.cmpi slt, %10, %41 : tensor<16x1xi32, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>
    %43 = "tt.splat"(%arg6) : (i32) -> tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %44 = arith.cmpi slt, %25, %43 : tensor<1x32xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %45 = "tt.broadcast"(%42) : (tensor<16x1xi1, #ttg.blocked<[1, 1], [16, 2], [1, 4], [1, 0]>>) -> tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %46 = "tt.broadcast"(%44) : (tensor<1x32xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %47 = arith.andi %45, %46 : tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>
    %48 = "ttg.convert_layout"(%40) : (tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>
    %49 = "ttg.convert_layout"(%33#0) : (tensor<16x32xf32, #ttg.mma<[2, 2]>>) -> tensor<16x32xf32, #ttg.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>
    %50 = "ttg.convert_layout"(%47) : (tensor<16x32xi1, #ttg.blocked<[1, 4], [4, 8], [4, 1], [1, 0]>>) -> tensor<16x32xi1, #ttg.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>
    "tt.store"(%48, %49, %50) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<16x32x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>, tensor<16x32xf32, #ttg.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>, tensor<16x32xi1, #ttg.blocked<[1, 1], [1, 32], [4, 1], [1, 0]>>) -> ()
    return
  }
}

