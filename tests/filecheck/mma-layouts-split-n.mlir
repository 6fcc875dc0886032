// RUN: tritonc opt %s --passes mma-layouts | filecheck %s
// Dots on sm_90 with 8 warps (two warpgroups). 128 rows are a 64-row tile for each
// warpgroup: the warps go along M. 64 rows are one tile: the warpgroups split N, each an
// m64n64 wgmma per K step over its 64 columns. 64 x 64 would give each warpgroup 32
// columns, half of a 128-byte block of a row-major fp16 B: mma.sync's split then.

// CHECK-LABEL: func.func public @tall
// CHECK: "tt.dot"{{.*}} -> tensor<128x128xf32, #ttg.mma<[8, 1]>>
// CHECK-LABEL: func.func public @short
// CHECK: "tt.dot"{{.*}} -> tensor<64x128xf32, #ttg.mma<[4, 2]>>
// CHECK-LABEL: func.func public @narrow
// CHECK: "tt.dot"{{.*}} -> tensor<64x64xf32, #ttg.mma<[2, 4]>>
#b = #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>
module attributes {"ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @tall(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #b>
    %pt = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<128x64x!tt.ptr<f16, 1 : i32>, #b>
    %a = "tt.load"(%pt) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<128x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<128x64xf16, #b>
    %pb = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x128x!tt.ptr<f16, 1 : i32>, #b>
    %x = "tt.load"(%pb) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x128x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x128xf16, #b>
    %d = "tt.dot"(%a, %x, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf16, #b>, tensor<64x128xf16, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<128x128x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %d) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x128x!tt.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
  func.func public @short(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #b>
    %pt = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>
    %a = "tt.load"(%pt) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
    %pb = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x128x!tt.ptr<f16, 1 : i32>, #b>
    %x = "tt.load"(%pb) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x128x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x128xf16, #b>
    %d = "tt.dot"(%a, %x, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x128xf16, #b>, tensor<64x128xf32, #b>) -> tensor<64x128xf32, #b>
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x128x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %d) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x128x!tt.ptr<f32, 1 : i32>, #b>, tensor<64x128xf32, #b>) -> ()
    return
  }
  func.func public @narrow(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
    %pt = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>
    %a = "tt.load"(%pt) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
    %d = "tt.dot"(%a, %a, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %d) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #b>, tensor<64x64xf32, #b>) -> ()
    return
  }
}
