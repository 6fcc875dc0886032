// RUN: tritonc opt %s --passes mma-layouts | filecheck %s
// An fp16 dot with an f32 accumulator on sm_80 with 4 warps: the accumulator (here a
// zero constant, made again in place) and the result take the mma layout, 2 x 2 warps;
// the store, which still wants the blocked layout, reads it through one convert_layout.

// CHECK-LABEL: func.func public @dot
// CHECK: arith.constant dense<0.000000e+00> : tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK: "tt.dot"({{.*}}) -> tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK-NEXT: "ttg.convert_layout"({{.*}}) : (tensor<32x32xf32, #ttg.mma<[2, 2]>>) -> tensor<32x32xf32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
// CHECK: "tt.store"
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @dot(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #b>
    %a = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>
    %x = "tt.load"(%a) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<32x32xf16, #b>
    %d = "tt.dot"(%x, %x, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16, #b>, tensor<32x32xf16, #b>, tensor<32x32xf32, #b>) -> tensor<32x32xf32, #b>
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %d) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>, tensor<32x32xf32, #b>) -> ()
    return
  }
}
