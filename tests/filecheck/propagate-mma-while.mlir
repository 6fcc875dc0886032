// RUN: tritonc opt %s --passes propagate-mma | filecheck %s
// A dot accumulating through an scf.while (`while k < K: acc = tl.dot(a, b, acc)`): the
// accumulator the loop carries takes the mma layout in both regions (the condition's
// argument, the body's argument and yield, the init and the result), so the body converts
// nothing and only the stored result is converted, once, after the loop.

// CHECK-LABEL: func.func public @while_k
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #ttg.mma<[2, 2]>>
// CHECK: %[[R:.*]]:2 = scf.while (%[[ACC:.*]] = %[[ZERO]], %{{.*}} = %{{.*}}) : (tensor<32x32xf32, #ttg.mma<[2, 2]>>, i32) -> (tensor<32x32xf32, #ttg.mma<[2, 2]>>, i32)
// CHECK: scf.condition(%{{.*}}) %[[ACC]], %{{.*}} : tensor<32x32xf32, #ttg.mma<[2, 2]>>, i32
// CHECK: ^bb0(%[[BODY:.*]]: tensor<32x32xf32, #ttg.mma<[2, 2]>>, %{{.*}}: i32):
// CHECK-NOT: ttg.convert_layout
// CHECK: %[[D:.*]] = "tt.dot"(%{{.*}}, %{{.*}}, %[[BODY]])
// CHECK-NOT: ttg.convert_layout
// CHECK: scf.yield %[[D]], %{{.*}} : tensor<32x32xf32, #ttg.mma<[2, 2]>>, i32
// CHECK: %[[C:.*]] = "ttg.convert_layout"(%[[R]]#0) : (tensor<32x32xf32, #ttg.mma<[2, 2]>>) -> tensor<32x32xf32, #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>>
// CHECK-NEXT: "tt.store"(%{{.*}}, %[[C]])
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#mma = #ttg.mma<[2, 2]>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @while_k(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f32, 1 : i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #b>
    %a = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>
    %r:2 = scf.while (%acc = %zero, %k = %c0) : (tensor<32x32xf32, #b>, i32) -> (tensor<32x32xf32, #b>, i32) {
      %more = arith.cmpi slt, %k, %n : i32
      scf.condition(%more) %acc, %k : tensor<32x32xf32, #b>, i32
    } do {
    ^bb0(%acc: tensor<32x32xf32, #b>, %k: i32):
      %x = "tt.load"(%a) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<32x32xf16, #b>
      %in = "ttg.convert_layout"(%acc) : (tensor<32x32xf32, #b>) -> tensor<32x32xf32, #mma>
      %d = "tt.dot"(%x, %x, %in) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<32x32xf16, #b>, tensor<32x32xf16, #b>, tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #mma>
      %out = "ttg.convert_layout"(%d) : (tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #b>
      %next = arith.addi %k, %c32 : i32
      scf.yield %out, %next : tensor<32x32xf32, #b>, i32
    }
    %c = "tt.splat"(%pc) : (!tt.ptr<f32, 1 : i32>) -> tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%c, %r#0) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x32x!tt.ptr<f32, 1 : i32>, #b>, tensor<32x32xf32, #b>) -> ()
    return
  }
}
