// RUN: tritonc opt %s --passes 'convert-to-ttgir{num-warps=4 target=cuda:90}' | filecheck %s
// A loop asking for warp specialization multiplies 128 x 128 tiles copied through tensor
// descriptors, on one warpgroup: the kernel runs two consumer warpgroups of 64 rows each
// (8 warps) beside the producer, so the layouts are those of 8 warps.

// CHECK: "ttg.num-warps" = 8 : i32
// CHECK: "tt.dot"{{.*}} -> tensor<128x128xf32, #ttg.blocked<{{.*}}, [8, 1], [1, 0]>>
// CHECK: tt.warp_specialize
module {
  func.func public @tiles(%a: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %m: i32, %k: i32 {tt.divisibility = 16 : i32}, %steps: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %s = arith.extsi %k : i32 to i64
    %da = "tt.make_tensor_descriptor"(%a, %m, %k, %s, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<128x64xf16>>
    %db = "tt.make_tensor_descriptor"(%a, %k, %m, %s, %c1_i64) {operandSegmentSizes = array<i32: 1, 2, 2>, padding = "zero"} : (!tt.ptr<f16, 1 : i32>, i32, i32, i64, i64) -> !tt.tensordesc<tensor<64x128xf16>>
    %r = scf.for %i = %c0_i32 to %steps step %c1_i32 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %off = arith.muli %i, %c64_i32 : i32
      %x = "tt.descriptor_load"(%da, %c0_i32, %off) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<128x64xf16>>, i32, i32) -> tensor<128x64xf16>
      %y = "tt.descriptor_load"(%db, %off, %c0_i32) {operandSegmentSizes = array<i32: 1, 2>} : (!tt.tensordesc<tensor<64x128xf16>>, i32, i32) -> tensor<64x128xf16>
      %d = "tt.dot"(%x, %y, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>) -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    } {tt.warp_specialize}
    return
  }
}
