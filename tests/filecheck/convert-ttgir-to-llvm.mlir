// RUN: tritonc opt %s --passes convert-ttgir-to-llvm | filecheck %s
// TTGIR -> per-thread code in a gpu.module: 2 warps (ttg.num-warps) make a 64-thread
// block; each thread holds 4 consecutive f32 of the 256, loaded as one predicated
// 128-bit access.

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @kernels
// CHECK: gpu.func @copy(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>, %arg2: i32) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>, nvvm.reqntid = array<i32: 64, 1, 1>}
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
// CHECK: gpu.return
#b = #ttg.blocked<[4], [32], [2], [0]>
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @copy(%x: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %r = "tt.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32, #b>
    %nb = "tt.splat"(%n) : (i32) -> tensor<256xi32, #b>
    %mask = arith.cmpi slt, %r, %nb : tensor<256xi32, #b>
    %px = "tt.splat"(%x) : (!tt.ptr<f32, 1 : i32>) -> tensor<256x!tt.ptr<f32, 1 : i32>, #b>
    %ax = "tt.addptr"(%px, %r) : (tensor<256x!tt.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tt.ptr<f32, 1 : i32>, #b>
    %v = "tt.load"(%ax, %mask) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 1, 0>, padding = ""} : (tensor<256x!tt.ptr<f32, 1 : i32>, #b>, tensor<256xi1, #b>) -> tensor<256xf32, #b>
    %py = "tt.splat"(%y) : (!tt.ptr<f32, 1 : i32>) -> tensor<256x!tt.ptr<f32, 1 : i32>, #b>
    %ay = "tt.addptr"(%py, %r) : (tensor<256x!tt.ptr<f32, 1 : i32>, #b>, tensor<256xi32, #b>) -> tensor<256x!tt.ptr<f32, 1 : i32>, #b>
    "tt.store"(%ay, %v, %mask) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<256x!tt.ptr<f32, 1 : i32>, #b>, tensor<256xf32, #b>, tensor<256xi1, #b>) -> ()
    return
  }
}
