// RUN: tritonc opt %s --passes assign-layouts | filecheck %s
// The module's ttg.num-warps (8) decides the layouts; a 2-D fp16 tile with 16-byte
// aligned rows gets 8 elements (16 bytes) per thread along its last dimension, and block
// arguments are retyped too. Rows at a runtime stride not known to be a multiple of 16
// can only be accessed element by element: one element per thread, so that the lanes of
// a warp touch consecutive elements.

// CHECK-LABEL: func.func public @tile
// CHECK: "tt.make_range"() {{.*}} -> tensor<64xi32, #ttg.blocked<[1], [32], [8], [0]>>
// CHECK: "tt.load"({{.*}}) -> tensor<64x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf16, #ttg.blocked<[1, 8], [4, 8], [8, 1], [1, 0]>>)
// CHECK-LABEL: func.func public @rows_at_a_stride
// CHECK: "tt.load"({{.*}}) -> tensor<32x64xf16, #ttg.blocked<[1, 1], [1, 32], [4, 2], [1, 0]>>
module attributes {"ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @tile(%x: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant dense<64> : tensor<64x1xi32>
    %r = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %row0 = "tt.expand_dims"(%r) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>
    %row = arith.muli %row0, %c64 : tensor<64x1xi32>
    %col = "tt.expand_dims"(%r) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %rb = "tt.broadcast"(%row) : (tensor<64x1xi32>) -> tensor<64x64xi32>
    %cb = "tt.broadcast"(%col) : (tensor<1x64xi32>) -> tensor<64x64xi32>
    %off = arith.addi %rb, %cb : tensor<64x64xi32>
    %p = "tt.splat"(%x) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>>
    %a = "tt.addptr"(%p, %off) : (tensor<64x64x!tt.ptr<f16, 1 : i32>>, tensor<64x64xi32>) -> tensor<64x64x!tt.ptr<f16, 1 : i32>>
    %v = "tt.load"(%a) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x64x!tt.ptr<f16, 1 : i32>>) -> tensor<64x64xf16>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %v) -> (tensor<64x64xf16>) : i32 {
      %t = arith.addf %acc, %v : tensor<64x64xf16>
      scf.yield %t : tensor<64x64xf16>
    }
    "tt.store"(%a, %s) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x64x!tt.ptr<f16, 1 : i32>>, tensor<64x64xf16>) -> ()
    return
  }
  func.func public @rows_at_a_stride(%x: !tt.ptr<f16, 1 : i32> {tt.divisibility = 16 : i32}, %stride: i32) {
    %rr = "tt.make_range"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %rc = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %row0 = "tt.expand_dims"(%rr) {axis = 1 : i32} : (tensor<32xi32>) -> tensor<32x1xi32>
    %s = "tt.splat"(%stride) : (i32) -> tensor<32x1xi32>
    %row = arith.muli %row0, %s : tensor<32x1xi32>
    %col = "tt.expand_dims"(%rc) {axis = 0 : i32} : (tensor<64xi32>) -> tensor<1x64xi32>
    %rb = "tt.broadcast"(%row) : (tensor<32x1xi32>) -> tensor<32x64xi32>
    %cb = "tt.broadcast"(%col) : (tensor<1x64xi32>) -> tensor<32x64xi32>
    %off = arith.addi %rb, %cb : tensor<32x64xi32>
    %p = "tt.splat"(%x) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>>
    %a = "tt.addptr"(%p, %off) : (tensor<32x64x!tt.ptr<f16, 1 : i32>>, tensor<32x64xi32>) -> tensor<32x64x!tt.ptr<f16, 1 : i32>>
    %v = "tt.load"(%a) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x64x!tt.ptr<f16, 1 : i32>>) -> tensor<32x64xf16>
    "tt.store"(%a, %v) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<32x64x!tt.ptr<f16, 1 : i32>>, tensor<32x64xf16>) -> ()
    return
  }
}
