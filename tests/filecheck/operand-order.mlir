// RUN: tritonc opt %s --passes operand-order | filecheck %s
// A dot's B tile read down its columns (the pointers step by 1 along K, dimension 0):
// the load and its pointers take a layout with dimension 0 fastest, eight elements per
// thread, and the dot reads it with no conversion between them.

// CHECK-LABEL: func.func public @column_major_b
// CHECK: "tt.load"{{.*}} -> tensor<64x32xf16, #ttg.blocked<[8, 1], [8, 4], [1, 4], [0, 1]>>
// CHECK-NOT: ttg.convert_layout
// CHECK: "tt.dot"
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#r = #ttg.slice<1, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
#c = #ttg.slice<0, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @column_major_b(%pa: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #b>
    %k = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #r>
    %n = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #c>
    %k2 = "tt.expand_dims"(%k) {axis = 1 : i32} : (tensor<64xi32, #r>) -> tensor<64x1xi32, #b>
    %n2 = "tt.expand_dims"(%n) {axis = 0 : i32} : (tensor<32xi32, #c>) -> tensor<1x32xi32, #b>
    %c64 = arith.constant dense<64> : tensor<1x32xi32, #b>
    %ns = arith.muli %n2, %c64 : tensor<1x32xi32, #b>
    %kb = "tt.broadcast"(%k2) : (tensor<64x1xi32, #b>) -> tensor<64x32xi32, #b>
    %nb = "tt.broadcast"(%ns) : (tensor<1x32xi32, #b>) -> tensor<64x32xi32, #b>
    %off = arith.addi %kb, %nb : tensor<64x32xi32, #b>
    %bs = "tt.splat"(%pb) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #b>
    %bp = "tt.addptr"(%bs, %off) : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #b>, tensor<64x32xi32, #b>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #b>
    %bt = "tt.load"(%bp) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x32xf16, #b>
    %as = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>, #b>
    %at = "tt.load"(%as) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<32x64xf16, #b>
    %d = "tt.dot"(%at, %bt, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x64xf16, #b>, tensor<64x32xf16, #b>, tensor<32x32xf32, #b>) -> tensor<32x32xf32, #b>
    %cs = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%cs, %d) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>, tensor<32x32xf32, #b>) -> ()
    return
  }
}
