// RUN: tritonc opt %s --passes propagate-mma | filecheck %s
// A column-offset tile made from a range (make_range, expand_dims, broadcast) feeds both
// the addresses of a load in a loop and, through sitofp, the sum with the loop's dot
// result after it. The sum takes the mma layout and with it the offsets; the load's
// addresses in the loop get the offsets made again in their blocked layout, not a
// `ttg.convert_layout` of the mma ones (which would keep the software pipeliner from
// copying the tile ahead).

// CHECK-LABEL: func.func public @offsets
// CHECK: "tt.make_range"() {{.*}} -> tensor<32xi32, #ttg.slice<0 : i64, #ttg.mma<[2, 2]>>>
// CHECK: scf.for
// CHECK-NOT: "ttg.convert_layout"
// CHECK: "tt.make_range"() {{.*}} -> tensor<32xi32, #ttg.slice<0 : i64, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>>
// CHECK-NEXT: "tt.expand_dims"
// CHECK-NEXT: %[[COLS:.*]] = "tt.broadcast"{{.*}} -> tensor<32x32xi32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
// CHECK-NEXT: "tt.addptr"(%{{.*}}, %[[COLS]])
// CHECK: "tt.dot"
// CHECK: scf.yield
// CHECK: arith.sitofp {{.*}} : tensor<32x32xi32, #ttg.mma<[2, 2]>> to tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK: arith.addf {{.*}} : tensor<32x32xf32, #ttg.mma<[2, 2]>>
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #ttg.mma<[2, 2]>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @offsets(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %r = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32, #ttg.slice<0 : i64, #b>>
    %e = "tt.expand_dims"(%r) {axis = 0 : i32} : (tensor<32xi32, #ttg.slice<0 : i64, #b>>) -> tensor<1x32xi32, #b>
    %cols = "tt.broadcast"(%e) : (tensor<1x32xi32, #b>) -> tensor<32x32xi32, #b>
    %a = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%sum = %zero) -> (tensor<32x32xf32, #mma>) : i32 {
      %ap = "tt.addptr"(%a, %cols) : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>, tensor<32x32xi32, #b>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>
      %x = "tt.load"(%ap) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<32x32xf16, #b>
      %d = "tt.dot"(%x, %x, %sum) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16, #b>, tensor<32x32xf16, #b>, tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #mma>
      scf.yield %d : tensor<32x32xf32, #mma>
    }
    %cvt = "ttg.convert_layout"(%acc) : (tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #b>
    %cf = arith.sitofp %cols : tensor<32x32xi32, #b> to tensor<32x32xf32, #b>
    %m = arith.addf %cvt, %cf : tensor<32x32xf32, #b>
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %m) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>, tensor<32x32xf32, #b>) -> ()
    return
  }
}
