// RUN: roundtrip
// The shared-memory ops and the memory-descriptor type parse, verify and print back.

#blocked = #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
#shared = #ttg.swizzled_shared<4 : i32, 1 : i32, 8 : i32, [1, 0]>
#nvmma = #ttg.nvmma_shared<128 : i32, 16 : i32, false>

// CHECK-LABEL: func.func @stage
// CHECK: %[[BUF:.*]] = "ttg.local_alloc"() {{.*}} -> !ttg.memdesc<tensor<64x64xf16>, #ttg.swizzled_shared<4 : i32, 1 : i32, 8 : i32, [1, 0]>, "mutable">
// CHECK: "ttg.local_store"(%arg0, %[[BUF]])
// CHECK: %[[V:.*]] = "ttg.local_load"(%[[BUF]])
// CHECK-SAME: -> tensor<64x64xf16, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
// CHECK: "ttg.local_dealloc"(%[[BUF]])
// CHECK: return %[[V]]
func.func @stage(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
  %b = "ttg.local_alloc"() {operandSegmentSizes = array<i32: 0>} : () -> !ttg.memdesc<tensor<64x64xf16>, #shared, "mutable">
  "ttg.local_store"(%x, %b) : (tensor<64x64xf16, #blocked>, !ttg.memdesc<tensor<64x64xf16>, #shared, "mutable">) -> ()
  %v = "ttg.local_load"(%b) {operandSegmentSizes = array<i32: 1, 0>} : (!ttg.memdesc<tensor<64x64xf16>, #shared, "mutable">) -> tensor<64x64xf16, #blocked>
  "ttg.local_dealloc"(%b) : (!ttg.memdesc<tensor<64x64xf16>, #shared, "mutable">) -> ()
  return %v : tensor<64x64xf16, #blocked>
}

// CHECK-LABEL: func.func @initialised
// CHECK: "ttg.local_alloc"(%arg0) {{.*}} -> !ttg.memdesc<tensor<64x64xf16>, {{.*}}, "immutable">
func.func @initialised(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
  %b = "ttg.local_alloc"(%x) {operandSegmentSizes = array<i32: 1>} : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<tensor<64x64xf16>, #shared, "immutable">
  %v = "ttg.local_load"(%b) {operandSegmentSizes = array<i32: 1, 0>} : (!ttg.memdesc<tensor<64x64xf16>, #shared, "immutable">) -> tensor<64x64xf16, #blocked>
  return %v : tensor<64x64xf16, #blocked>
}

// CHECK-LABEL: func.func @ring
// CHECK: %[[RING:.*]] = "ttg.local_alloc"() {{.*}} -> !ttg.memdesc<tensor<3x64x64xf16>, #ttg.nvmma_shared<128 : i32, 16 : i32, false>, "mutable">
// CHECK: %[[SLOT:.*]] = "ttg.memdesc_index"(%[[RING]], %arg1)
// CHECK: %[[TOK:.*]] = "ttg.async_copy_global_to_local"(%arg0, %[[SLOT]]) {{.*}} -> !ttg.async_token
// CHECK: %[[G:.*]] = "ttg.async_commit_group"(%[[TOK]])
// CHECK: %[[W:.*]] = "ttg.async_wait"(%[[G]]) {num = 0 : i32
// CHECK: "ttg.local_load"(%[[SLOT]], %[[W]])
func.func @ring(%p: tensor<64x64x!tt.ptr<f16, 1 : i32>, #blocked>, %i: i32) -> tensor<64x64xf16, #blocked> {
  %r = "ttg.local_alloc"() {operandSegmentSizes = array<i32: 0>} : () -> !ttg.memdesc<tensor<3x64x64xf16>, #nvmma, "mutable">
  %s = "ttg.memdesc_index"(%r, %i) : (!ttg.memdesc<tensor<3x64x64xf16>, #nvmma, "mutable">, i32) -> !ttg.memdesc<tensor<64x64xf16>, #nvmma, "mutable">
  %t = "ttg.async_copy_global_to_local"(%p, %s) {cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<64x64x!tt.ptr<f16, 1 : i32>, #blocked>, !ttg.memdesc<tensor<64x64xf16>, #nvmma, "mutable">) -> !ttg.async_token
  %g = "ttg.async_commit_group"(%t) {operandSegmentSizes = array<i32: 1>} : (!ttg.async_token) -> !ttg.async_token
  %w = "ttg.async_wait"(%g) {num = 0 : i32, operandSegmentSizes = array<i32: 1>} : (!ttg.async_token) -> !ttg.async_token
  %v = "ttg.local_load"(%s, %w) {operandSegmentSizes = array<i32: 1, 1>} : (!ttg.memdesc<tensor<64x64xf16>, #nvmma, "mutable">, !ttg.async_token) -> tensor<64x64xf16, #blocked>
  "ttg.local_dealloc"(%r) : (!ttg.memdesc<tensor<3x64x64xf16>, #nvmma, "mutable">) -> ()
  return %v : tensor<64x64xf16, #blocked>
}
