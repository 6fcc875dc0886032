// RUN: tritonc opt %s --passes operand-order | filecheck %s
// The fp8 tiles of operand-order-k-run.mlir on 2 warps: wgmma needs a warpgroup, so the
// dot runs on mma.sync, which reads its copies as they are; A loads along M with no run
// along K, B keeps its layout.

// CHECK-LABEL: func.func public @fp8_a_column_b_row
// CHECK: "tt.load"{{.*}} -> tensor<64x128xf8E4M3FN, #ttg.blocked<[1, 8], [8, 4], [2, 1], [1, 0]>>
// CHECK: "tt.load"{{.*}} -> tensor<128x64xf8E4M3FN, #ttg.blocked<[16, 1], [8, 4], [1, 2], [0, 1]>>
// CHECK: "tt.dot"
#b = #ttg.blocked<[1, 8], [8, 4], [2, 1], [1, 0]>
#r = #ttg.slice<1, #ttg.blocked<[1, 8], [8, 4], [2, 1], [1, 0]>>
#c = #ttg.slice<0, #ttg.blocked<[1, 8], [8, 4], [2, 1], [1, 0]>>
module attributes {"ttg.num-warps" = 2 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @fp8_a_column_b_row(%pa: !tt.ptr<f8E4M3FN, 1 : i32> {tt.divisibility = 16 : i32}, %pb: !tt.ptr<f8E4M3FN, 1 : i32> {tt.divisibility = 16 : i32}, %pc: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #b>
    %c128 = arith.constant dense<128> : tensor<64x1xi32, #b>
    %kr = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #r>
    %nc = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #c>
    %k2 = "tt.expand_dims"(%kr) {axis = 1 : i32} : (tensor<64xi32, #r>) -> tensor<64x1xi32, #b>
    %n2 = "tt.expand_dims"(%nc) {axis = 0 : i32} : (tensor<128xi32, #c>) -> tensor<1x128xi32, #b>
    %ks = arith.muli %k2, %c128 : tensor<64x1xi32, #b>
    %kb = "tt.broadcast"(%ks) : (tensor<64x1xi32, #b>) -> tensor<64x128xi32, #b>
    %nb = "tt.broadcast"(%n2) : (tensor<1x128xi32, #b>) -> tensor<64x128xi32, #b>
    %boff = arith.addi %kb, %nb : tensor<64x128xi32, #b>
    %bs = "tt.splat"(%pb) : (!tt.ptr<f8E4M3FN, 1 : i32>) -> tensor<64x128x!tt.ptr<f8E4M3FN, 1 : i32>, #b>
    %bp = "tt.addptr"(%bs, %boff) : (tensor<64x128x!tt.ptr<f8E4M3FN, 1 : i32>, #b>, tensor<64x128xi32, #b>) -> tensor<64x128x!tt.ptr<f8E4M3FN, 1 : i32>, #b>
    %bt = "tt.load"(%bp) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x128x!tt.ptr<f8E4M3FN, 1 : i32>, #b>) -> tensor<64x128xf8E4M3FN, #b>
    %mr = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32, #r>
    %kc = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32, #c>
    %m2 = "tt.expand_dims"(%mr) {axis = 1 : i32} : (tensor<128xi32, #r>) -> tensor<128x1xi32, #b>
    %k3 = "tt.expand_dims"(%kc) {axis = 0 : i32} : (tensor<64xi32, #c>) -> tensor<1x64xi32, #b>
    %c128k = arith.constant dense<128> : tensor<1x64xi32, #b>
    %kt = arith.muli %k3, %c128k : tensor<1x64xi32, #b>
    %mb = "tt.broadcast"(%m2) : (tensor<128x1xi32, #b>) -> tensor<128x64xi32, #b>
    %kb2 = "tt.broadcast"(%kt) : (tensor<1x64xi32, #b>) -> tensor<128x64xi32, #b>
    %aoff = arith.addi %mb, %kb2 : tensor<128x64xi32, #b>
    %as = "tt.splat"(%pa) : (!tt.ptr<f8E4M3FN, 1 : i32>) -> tensor<128x64x!tt.ptr<f8E4M3FN, 1 : i32>, #b>
    %ap = "tt.addptr"(%as, %aoff) : (tensor<128x64x!tt.ptr<f8E4M3FN, 1 : i32>, #b>, tensor<128x64xi32, #b>) -> tensor<128x64x!tt.ptr<f8E4M3FN, 1 : i32>, #b>
    %at = "tt.load"(%ap) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<128x64x!tt.ptr<f8E4M3FN, 1 : i32>, #b>) -> tensor<128x64xf8E4M3FN, #b>
    %d = "tt.dot"(%at, %bt, %zero) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<128x64xf8E4M3FN, #b>, tensor<64x128xf8E4M3FN, #b>, tensor<128x128xf32, #b>) -> tensor<128x128xf32, #b>
    %cs = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<128x128x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%cs, %d) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<128x128x!tt.ptr<f32, 1 : i32>, #b>, tensor<128x128xf32, #b>) -> ()
    return
  }
}
