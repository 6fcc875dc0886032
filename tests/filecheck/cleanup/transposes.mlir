// RUN: passes cleanup
// A transpose of a transpose: when the two cancel, the users take the source; otherwise
// one `tt.trans` with the composed order remains.

// CHECK-LABEL: func.func @cancel
// CHECK-NOT: "tt.trans"
// CHECK: return %arg0
func.func @cancel(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %t = "tt.trans"(%x) {order = array<i32: 1, 0>} : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %u = "tt.trans"(%t) {order = array<i32: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  return %u : tensor<64x32xf32>
}

// CHECK-LABEL: func.func @compose
// CHECK: "tt.trans"(%arg0) {order = array<i32: 2, 1, 0>}
// CHECK-NOT: "tt.trans"
func.func @compose(%x: tensor<2x4x8xf32>) -> tensor<8x4x2xf32> {
  %t = "tt.trans"(%x) {order = array<i32: 1, 2, 0>} : (tensor<2x4x8xf32>) -> tensor<4x8x2xf32>
  %u = "tt.trans"(%t) {order = array<i32: 1, 0, 2>} : (tensor<4x8x2xf32>) -> tensor<8x4x2xf32>
  return %u : tensor<8x4x2xf32>
}
