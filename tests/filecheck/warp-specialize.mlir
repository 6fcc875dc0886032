// RUN: tritonc opt %s --passes warp-specialize | filecheck %s
// A persistent matmul through descriptors made from kernel arguments (sm_90, 8 warps,
// 3 stages), after software-pipeline: its K loop has a TMA ring of 4 buffers (a spare
// one for the wgmma left in flight). In @persistent the tile loop asks for warp
// specialization: the kernel gets a producer warpgroup and the ring loop drops the spare
// buffer and, with two consumer warpgroups, the dot in flight; software-pipeline's plan
// stays in the attribute, for a lowering that finds the ring does not fit beside the
// scratch area. @unrequested, the same kernel without the request, is left as it is.

// CHECK-LABEL: func.func public @persistent
// CHECK-SAME: ttg.producer_warps = 4 : i32
// CHECK: } {ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 3 : i32, ttg.warp_specialized = {ttg.async_dot = 0 : i32, ttg.ring_buffers = 4 : i32}}
// CHECK: } {tt.flatten, tt.warp_specialize}

// CHECK-LABEL: func.func public @unrequested
// CHECK-NOT: ttg.producer_warps
// CHECK: } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 4 : i32}{{$}}

module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @persistent(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: !tt.ptr<i8, 1 : i32>, %arg7: !tt.ptr<i8, 1 : i32>) attributes {tt.tensormaps = [{base = 0 : i32, block = array<i32: 128, 64>, element_bytes = 2 : i32, map = 6 : i32, shape = ["%3", "%5"], strides = ["%5", "1"]}, {base = 1 : i32, block = array<i32: 256, 64>, element_bytes = 2 : i32, map = 7 : i32, shape = ["%4", "%5"], strides = ["%5", "1"]}]} {
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c127_i32 = arith.constant 127 : i32
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #ttg.mma<[8, 1]>>
    %c132_i32 = arith.constant 132 : i32
    %c8_i32 = arith.constant 8 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = arith.extsi %arg5 : i32 to i64
    %1 = "tt.make_tensor_descriptor"(%arg0, %arg3, %arg5, %0, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero", tt.tensormap = 6 : i32} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<128x64xf16>>
    %2 = "tt.make_tensor_descriptor"(%arg1, %arg4, %arg5, %0, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero", tt.tensormap = 7 : i32} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<256x64xf16>>
    %3 = arith.extsi %arg4 : i32 to i64
    %4 = "tt.make_tensor_descriptor"(%arg2, %arg3, %arg4, %3, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<128x256xf16>>
    %5 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %6 = arith.addi %arg3, %c127_i32 : i32
    %7 = arith.divsi %6, %c128_i32 : i32
    %8 = arith.addi %arg4, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %10 = arith.addi %arg5, %c63_i32 : i32
    %11 = arith.divsi %10, %c64_i32 : i32
    %12 = arith.muli %7, %9 : i32
    %13 = arith.muli %9, %c8_i32 : i32
    scf.for %arg8 = %5 to %12 step %c132_i32  : i32 {
      %14 = arith.divsi %arg8, %13 : i32
      %15 = arith.muli %14, %c8_i32 : i32
      %16 = arith.subi %7, %15 : i32
      %17 = arith.minsi %16, %c8_i32 : i32
      %18 = arith.remsi %arg8, %17 : i32
      %19 = arith.addi %15, %18 : i32
      %20 = arith.remsi %arg8, %13 : i32
      %21 = arith.divsi %20, %17 : i32
      %22 = arith.muli %19, %c128_i32 : i32
      %23 = arith.muli %21, %c256_i32 : i32
      %24 = scf.for %arg9 = %c0_i32 to %11 step %c1_i32 iter_args(%arg10 = %cst) -> (tensor<128x256xf32, #ttg.mma<[8, 1]>>)  : i32 {
        %27 = arith.muli %arg9, %c64_i32 : i32
        %28 = "tt.descriptor_load"(%1, %22, %27) {operandSegmentSizes = array<i32: 1, 2>, ttg.pipelined, ttg.tma} : (!tt.tensordesc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
        %29 = "tt.descriptor_load"(%2, %23, %27) {operandSegmentSizes = array<i32: 1, 2>, ttg.pipelined, ttg.tma} : (!tt.tensordesc<tensor<256x64xf16>>, i32, i32) -> tensor<256x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
        %30 = "tt.trans"(%29) {order = array<i32: 1, 0>} : (tensor<256x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>) -> tensor<64x256xf16, #ttg.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>>
        %31 = "tt.dot"(%28, %30, %arg10) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<64x256xf16, #ttg.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>>, tensor<128x256xf32, #ttg.mma<[8, 1]>>) -> tensor<128x256xf32, #ttg.mma<[8, 1]>>
        scf.yield %31 : tensor<128x256xf32, #ttg.mma<[8, 1]>>
      } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 4 : i32}
      %25 = arith.truncf %24 : tensor<128x256xf32, #ttg.mma<[8, 1]>> to tensor<128x256xf16, #ttg.mma<[8, 1]>>
      %26 = "ttg.convert_layout"(%25) : (tensor<128x256xf16, #ttg.mma<[8, 1]>>) -> tensor<128x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
      "tt.descriptor_store"(%4, %26, %22, %23) {operandSegmentSizes = array<i32: 1, 1, 2>} : (!tt.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, i32, i32) -> ()
    } {tt.flatten, tt.warp_specialize}
    return
  }
  func.func public @unrequested(%arg0: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %arg3: i32 {tt.divisibility = 16 : i32}, %arg4: i32 {tt.divisibility = 16 : i32}, %arg5: i32 {tt.divisibility = 16 : i32}, %arg6: !tt.ptr<i8, 1 : i32>, %arg7: !tt.ptr<i8, 1 : i32>) attributes {tt.tensormaps = [{base = 0 : i32, block = array<i32: 128, 64>, element_bytes = 2 : i32, map = 6 : i32, shape = ["%3", "%5"], strides = ["%5", "1"]}, {base = 1 : i32, block = array<i32: 256, 64>, element_bytes = 2 : i32, map = 7 : i32, shape = ["%4", "%5"], strides = ["%5", "1"]}]} {
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c127_i32 = arith.constant 127 : i32
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #ttg.mma<[8, 1]>>
    %c132_i32 = arith.constant 132 : i32
    %c8_i32 = arith.constant 8 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = arith.extsi %arg5 : i32 to i64
    %1 = "tt.make_tensor_descriptor"(%arg0, %arg3, %arg5, %0, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero", tt.tensormap = 6 : i32} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<128x64xf16>>
    %2 = "tt.make_tensor_descriptor"(%arg1, %arg4, %arg5, %0, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero", tt.tensormap = 7 : i32} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<256x64xf16>>
    %3 = arith.extsi %arg4 : i32 to i64
    %4 = "tt.make_tensor_descriptor"(%arg2, %arg3, %arg4, %3, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<128x256xf16>>
    %5 = "tt.get_program_id"() {axis = 0 : i32} : () -> i32
    %6 = arith.addi %arg3, %c127_i32 : i32
    %7 = arith.divsi %6, %c128_i32 : i32
    %8 = arith.addi %arg4, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %10 = arith.addi %arg5, %c63_i32 : i32
    %11 = arith.divsi %10, %c64_i32 : i32
    %12 = arith.muli %7, %9 : i32
    %13 = arith.muli %9, %c8_i32 : i32
    scf.for %arg8 = %5 to %12 step %c132_i32  : i32 {
      %14 = arith.divsi %arg8, %13 : i32
      %15 = arith.muli %14, %c8_i32 : i32
      %16 = arith.subi %7, %15 : i32
      %17 = arith.minsi %16, %c8_i32 : i32
      %18 = arith.remsi %arg8, %17 : i32
      %19 = arith.addi %15, %18 : i32
      %20 = arith.remsi %arg8, %13 : i32
      %21 = arith.divsi %20, %17 : i32
      %22 = arith.muli %19, %c128_i32 : i32
      %23 = arith.muli %21, %c256_i32 : i32
      %24 = scf.for %arg9 = %c0_i32 to %11 step %c1_i32 iter_args(%arg10 = %cst) -> (tensor<128x256xf32, #ttg.mma<[8, 1]>>)  : i32 {
        %27 = arith.muli %arg9, %c64_i32 : i32
        %28 = "tt.descriptor_load"(%1, %22, %27) {operandSegmentSizes = array<i32: 1, 2>, ttg.pipelined, ttg.tma} : (!tt.tensordesc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
        %29 = "tt.descriptor_load"(%2, %23, %27) {operandSegmentSizes = array<i32: 1, 2>, ttg.pipelined, ttg.tma} : (!tt.tensordesc<tensor<256x64xf16>>, i32, i32) -> tensor<256x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
        %30 = "tt.trans"(%29) {order = array<i32: 1, 0>} : (tensor<256x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>) -> tensor<64x256xf16, #ttg.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>>
        %31 = "tt.dot"(%28, %30, %arg10) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>, tensor<64x256xf16, #ttg.blocked<[8, 1], [8, 4], [1, 8], [0, 1]>>, tensor<128x256xf32, #ttg.mma<[8, 1]>>) -> tensor<128x256xf32, #ttg.mma<[8, 1]>>
        scf.yield %31 : tensor<128x256xf32, #ttg.mma<[8, 1]>>
      } {ttg.async_dot = 0 : i32, ttg.pipeline_stages = 3 : i32, ttg.ring_buffers = 4 : i32}
      %25 = arith.truncf %24 : tensor<128x256xf32, #ttg.mma<[8, 1]>> to tensor<128x256xf16, #ttg.mma<[8, 1]>>
      %26 = "ttg.convert_layout"(%25) : (tensor<128x256xf16, #ttg.mma<[8, 1]>>) -> tensor<128x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>
      "tt.descriptor_store"(%4, %26, %22, %23) {operandSegmentSizes = array<i32: 1, 1, 2>} : (!tt.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #ttg.blocked<[1, 8], [1, 32], [8, 1], [1, 0]>>, i32, i32) -> ()
    } {tt.flatten}
    return
  }
}
