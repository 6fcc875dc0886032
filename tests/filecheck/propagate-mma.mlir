// RUN: tritonc opt %s --passes propagate-mma | filecheck %s
// The scaling of a dot's result computes in the mma layout; the splat it multiplies by
// is made again in that layout, and only the stored value is converted.

// CHECK-LABEL: func.func public @scaled
// CHECK: "tt.dot"({{.*}}) -> tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK: "tt.splat"(%arg2) : (f32) -> tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK: arith.mulf {{.*}} : tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK: "ttg.convert_layout"({{.*}}) : (tensor<32x32xf32, #ttg.mma<[2, 2]>>) -> tensor<32x32xf32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
// CHECK-NEXT: "tt.store"
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #ttg.mma<[2, 2]>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @scaled(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>, %s: f32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %a = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>
    %x = "tt.load"(%a) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<32x32xf16, #b>
    %d = "tt.dot"(%x, %x, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16, #b>, tensor<32x32xf16, #b>, tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #mma>
    %cvt = "ttg.convert_layout"(%d) : (tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #b>
    %sb = "tt.splat"(%s) : (f32) -> tensor<32x32xf32, #b>
    %m = arith.mulf %cvt, %sb : tensor<32x32xf32, #b>
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %m) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>, tensor<32x32xf32, #b>) -> ()
    return
  }
}
