// RUN: tritonc opt %s --passes reduce-to-dot | filecheck %s
// `tl.sum(a[:, :, None] * b[None, :, :], axis=1)` is a @ b: a dot accumulated from zero
// with IEEE input precision, the product's chain gone; the product's operands in either
// order, and a unit dimension inserted by reshape as well as by expand_dims. A sum along
// another axis, a maximum, a product read twice, fp16 terms or a side below 16 stay.

// CHECK-LABEL: func.func public @products
// CHECK: %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
// CHECK: %[[D1:.*]] = "tt.dot"(%arg0, %arg1, %[[Z1]]) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<64x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
// CHECK-NOT: tt.reshape
// CHECK: %[[Z2:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
// CHECK: %[[D2:.*]] = "tt.dot"(%arg0, %arg1, %[[Z2]])
// CHECK-NOT: "tt.dot"
// CHECK: "tt.reduce"{{.*}}axis = 2
// CHECK: "tt.reduce"{{.*}}combine = @max
// CHECK: "tt.reduce"{{.*}}axis = 1
// CHECK: "tt.reduce"{{.*}}tensor<64x16x32xf16>
// CHECK: "tt.reduce"{{.*}}tensor<8x16x32xf32>
// CHECK: return %[[D1]], %[[D2]]
module {
  func.func public @products(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>, %h: tensor<64x16xf16>, %g: tensor<16x32xf16>, %s: tensor<8x16xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x16xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x16x32xf32>, tensor<64x32xf16>, tensor<8x32xf32>) {
    %ea = "tt.expand_dims"(%a) {axis = 2 : i32} : (tensor<64x16xf32>) -> tensor<64x16x1xf32>
    %eb = "tt.expand_dims"(%b) {axis = 0 : i32} : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
    %ba = "tt.broadcast"(%ea) : (tensor<64x16x1xf32>) -> tensor<64x16x32xf32>
    %bb = "tt.broadcast"(%eb) : (tensor<1x16x32xf32>) -> tensor<64x16x32xf32>
    %p1 = arith.mulf %ba, %bb : tensor<64x16x32xf32>
    %d1 = "tt.reduce"(%p1) {axis = 1 : i32, combine = @sum, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16x32xf32>) -> tensor<64x32xf32>
    %ra = "tt.reshape"(%a) {allow_reorder = false} : (tensor<64x16xf32>) -> tensor<64x16x1xf32>
    %ra2 = "tt.broadcast"(%ra) : (tensor<64x16x1xf32>) -> tensor<64x16x32xf32>
    %eb2 = "tt.expand_dims"(%b) {axis = 0 : i32} : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
    %bb2 = "tt.broadcast"(%eb2) : (tensor<1x16x32xf32>) -> tensor<64x16x32xf32>
    %p2 = arith.mulf %bb2, %ra2 : tensor<64x16x32xf32>
    %d2 = "tt.reduce"(%p2) {axis = 1 : i32, combine = @sum, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16x32xf32>) -> tensor<64x32xf32>
    %p3 = arith.mulf %ba, %bb : tensor<64x16x32xf32>
    %r3 = "tt.reduce"(%p3) {axis = 2 : i32, combine = @sum, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16x32xf32>) -> tensor<64x16xf32>
    %p4 = arith.mulf %ba, %bb : tensor<64x16x32xf32>
    %r4 = "tt.reduce"(%p4) {axis = 1 : i32, combine = @max, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16x32xf32>) -> tensor<64x32xf32>
    %p5 = arith.mulf %ba, %bb : tensor<64x16x32xf32>
    %r5 = "tt.reduce"(%p5) {axis = 1 : i32, combine = @sum, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16x32xf32>) -> tensor<64x32xf32>
    %q5 = arith.mulf %p5, %p5 : tensor<64x16x32xf32>
    %eh = "tt.expand_dims"(%h) {axis = 2 : i32} : (tensor<64x16xf16>) -> tensor<64x16x1xf16>
    %eg = "tt.expand_dims"(%g) {axis = 0 : i32} : (tensor<16x32xf16>) -> tensor<1x16x32xf16>
    %bh = "tt.broadcast"(%eh) : (tensor<64x16x1xf16>) -> tensor<64x16x32xf16>
    %bg = "tt.broadcast"(%eg) : (tensor<1x16x32xf16>) -> tensor<64x16x32xf16>
    %p6 = arith.mulf %bh, %bg : tensor<64x16x32xf16>
    %r6 = "tt.reduce"(%p6) {axis = 1 : i32, combine = @sum16, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16x32xf16>) -> tensor<64x32xf16>
    %es = "tt.expand_dims"(%s) {axis = 2 : i32} : (tensor<8x16xf32>) -> tensor<8x16x1xf32>
    %bs = "tt.broadcast"(%es) : (tensor<8x16x1xf32>) -> tensor<8x16x32xf32>
    %eb7 = "tt.expand_dims"(%b) {axis = 0 : i32} : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
    %bb7 = "tt.broadcast"(%eb7) : (tensor<1x16x32xf32>) -> tensor<8x16x32xf32>
    %p7 = arith.mulf %bs, %bb7 : tensor<8x16x32xf32>
    %r7 = "tt.reduce"(%p7) {axis = 1 : i32, combine = @sum, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x16x32xf32>) -> tensor<8x32xf32>
    return %d1, %d2, %r3, %r4, %r5, %q5, %r6, %r7 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x16xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x16x32xf32>, tensor<64x32xf16>, tensor<8x32xf32>
  }
  func.func private @sum(%x: f32, %y: f32) -> f32 {
    %0 = arith.addf %x, %y : f32
    return %0 : f32
  }
  func.func private @max(%x: f32, %y: f32) -> f32 {
    %0 = arith.maximumf %x, %y : f32
    return %0 : f32
  }
  func.func private @sum16(%x: f16, %y: f16) -> f16 {
    %0 = arith.addf %x, %y : f16
    return %0 : f16
  }
}
