// RUN: tritonc opt %s --passes mma-layouts | filecheck %s
// Dots in a loop on sm_90, 4 warps, 64 x 64 x 64 (one m64n64k16 wgmma per K step). The
// A loaded before the loop keeps its blocked layout (the lowering stores it in shared
// memory once, before the loop); the A computed in the loop (scaled there) moves to
// registers, `#ttg.dot_op<0, mma>`, where it is computed.

// CHECK-LABEL: func.func public @invariant
// CHECK-NOT: #ttg.dot_op
// CHECK: "tt.dot"{{.*}} : (tensor<64x64xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xf16, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>, tensor<64x64xf32, #ttg.mma<[4, 1]>>)
// CHECK-LABEL: func.func public @computed
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK-NEXT: "ttg.convert_layout"{{.*}} -> tensor<64x64xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>
// CHECK: "tt.dot"{{.*}} : (tensor<64x64xf16, #ttg.dot_op<0 : i64, #ttg.mma<[4, 1]>>>
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @invariant(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
    %p = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>
    %q = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<64x64xf32, #b>) : i32 {
      %k = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
      %d = "tt.dot"(%q, %k, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
      scf.yield %d : tensor<64x64xf32, #b>
    }
    %o = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%o, %acc) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #b>, tensor<64x64xf32, #b>) -> ()
    return
  }
  func.func public @computed(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #b>
    %two = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #b>
    %p = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>
    %q = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<64x64xf32, #b>) : i32 {
      %k = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x64xf16, #b>
      %a = arith.mulf %q, %two : tensor<64x64xf16, #b>
      %d = "tt.dot"(%a, %k, %c) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x64xf16, #b>, tensor<64x64xf16, #b>, tensor<64x64xf32, #b>) -> tensor<64x64xf32, #b>
      scf.yield %d : tensor<64x64xf32, #b>
    }
    %o = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x64x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%o, %acc) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f32, 1 : i32>, #b>, tensor<64x64xf32, #b>) -> ()
    return
  }
}
