// RUN: tritonc opt %s --passes software-pipeline | filecheck %s
// A matmul over two host descriptors (64 x 32 fp16 blocks of A and of a column-major B
// taken `.T`, 64-byte rows) on sm_90: each `tt.make_tensor_descriptor` names the kernel
// argument of its CUtensorMap (`tt.tensormap`), so both ring loads copy by TMA.

// CHECK-LABEL: func.func public @matmul_host_descriptor
// CHECK: "tt.make_tensor_descriptor"{{.*}}tt.tensormap = 5 : i32
// CHECK: "tt.make_tensor_descriptor"{{.*}}tt.tensormap = 11 : i32
// CHECK: scf.for
// CHECK: "tt.descriptor_load"{{.*}}ttg.pipelined, ttg.tma}
// CHECK: "tt.descriptor_load"{{.*}}ttg.pipelined, ttg.tma}
// CHECK: "tt.dot"
// CHECK: } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32}

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @matmul_host_descriptor(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: i32, %arg2: i32, %arg3: i64 {tt.divisibility = 16 : i32}, %arg4: i64, %arg5: !tt.ptr<i8, 1 : i32>, %arg6: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg7: i32, %arg8: i32, %arg9: i64 {tt.divisibility = 16 : i32}, %arg10: i64, %arg11: !tt.ptr<i8, 1 : i32>, %arg12: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %arg13: i32, %arg14: i32, %arg15: i32, %arg16: i32 {tt.divisibility = 16 : i32}) {
    %c31_i32 = arith.constant 31 : i32
    %c63_i32 = arith.constant 63 : i32
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #ttg.mma<[4, 1]>>
    %c8_i32 = arith.constant 8 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = "tt.make_tensor_descriptor"(%arg0, %arg1, %arg2, %arg3, %arg4) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero", tt.tensormap = 5 : i32} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
    %1 = "tt.make_tensor_descriptor"(%arg6, %arg7, %arg8, %arg9, %arg10) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero", tt.tensormap = 11 : i32} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x32xf16>>
    %2 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %3 = arith.addi %arg13, %c63_i32 : i32
    %4 = arith.divsi %3, %c64_i32 : i32
    %5 = arith.addi %arg14, %c63_i32 : i32
    %6 = arith.divsi %5, %c64_i32 : i32
    %7 = arith.muli %6, %c8_i32 : i32
    %8 = arith.divsi %2, %7 : i32
    %9 = arith.muli %8, %c8_i32 : i32
    %10 = arith.subi %4, %9 : i32
    %11 = arith.minsi %10, %c8_i32 : i32
    %12 = arith.remsi %2, %7 : i32
    %13 = arith.remsi %12, %11 : i32
    %14 = arith.addi %9, %13 : i32
    %15 = arith.divsi %12, %11 : i32
    %16 = arith.addi %arg15, %c31_i32 : i32
    %17 = arith.divsi %16, %c32_i32 : i32
    %18 = arith.muli %14, %c64_i32 : i32
    %19 = arith.muli %15, %c64_i32 : i32
    %20 = scf.for %arg17 = %c0_i32 to %17 step %c1_i32 iter_args(%arg18 = %cst) -> (tensor<64x64xf32, #ttg.mma<[4, 1]>>)  : i32 {
      %43 = arith.muli %arg17, %c32_i32 : i32
      %44 = "tt.descriptor_load"(%0, %18, %43) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %45 = "tt.descriptor_load"(%1, %19, %43) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
      %46 = "tt.trans"(%45) {order = array<i32: 1, 0>} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>) -> tensor<32x64xf16, #ttg.blocked<[8, 1], [4, 8], [1, 4], [0, 1]>>
      %47 = "tt.dot"(%44, %46, %arg18) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<32x64xf16, #ttg.blocked<[8, 1], [4, 8], [1, 4], [0, 1]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.mma<[4, 1]>>
      scf.yield %47 : tensor<64x64xf32, #ttg.mma<[4, 1]>>
    }
    %21 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %22 = "tt.splat"(%18) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %23 = arith.addi %22, %21 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %24 = "tt.splat"(%19) : (i32) -> tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %25 = arith.addi %24, %21 : tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>
    %26 = "tt.expand_dims"(%23) {axis = 1 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %27 = "tt.splat"(%arg16) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %28 = arith.muli %27, %26 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %29 = "tt.splat"(%arg12) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %30 = "tt.addptr"(%29, %28) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>, tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %31 = "tt.expand_dims"(%25) {axis = 0 : i32} : (tensor<64xi32, #ttg.blocked<[1], [32], [4], [0]>>) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %32 = "tt.broadcast"(%30) : (tensor<64x1x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %33 = "tt.broadcast"(%31) : (tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %34 = "tt.addptr"(%32, %33) : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %35 = "tt.splat"(%arg13) : (i32) -> tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %36 = arith.cmpi slt, %26, %35 : tensor<64x1xi32, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>
    %37 = "tt.splat"(%arg14) : (i32) -> tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %38 = arith.cmpi slt, %31, %37 : tensor<1x64xi32, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>
    %39 = "tt.broadcast"(%36) : (tensor<64x1xi1, #ttg.blocked<[1, 1], [32, 1], [2, 2], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %40 = "tt.broadcast"(%38) : (tensor<1x64xi1, #ttg.blocked<[1, 1], [1, 32], [1, 4], [1, 0]>>) -> tensor<64x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %41 = arith.andi %39, %40 : tensor<64x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    %42 = "ttg.convert_layout"(%20) : (tensor<64x64xf32, #ttg.mma<[4, 1]>>) -> tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
    "tt.store"(%34, %42, %41) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>, tensor<64x64xi1, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> ()
    return
  }
}
