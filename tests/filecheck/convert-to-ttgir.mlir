// RUN: tritonc opt %s --passes 'convert-to-ttgir{num-warps=2 target=cuda:80}' | filecheck %s
// The options become module attributes; every tensor gets the blocked layout of its shape
// (256 elements over 2 warps of 32 threads: 4 per thread, 16 bytes of f32, the pointers
// being 16-byte aligned).

// CHECK: module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32}
// CHECK-LABEL: func.func public @copy
// CHECK: "tt.make_range"() {{.*}} -> tensor<256xi32, #ttg.blocked<[4], [32], [2], [0]>>
// CHECK: "tt.load"({{.*}}) -> tensor<256xf32, #ttg.blocked<[4], [32], [2], [0]>>
// CHECK: "tt.store"({{.*}}tensor<256xf32, #ttg.blocked<[4], [32], [2], [0]>>) -> ()
module {
  func.func public @copy(%x: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32, 1 : i32> {tt.divisibility = 16 : i32}) {
    %r = "tt.make_range"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32>
    %px = "tt.splat"(%x) : (!tt.ptr<f32, 1 : i32>) -> tensor<256x!tt.ptr<f32, 1 : i32>>
    %ax = "tt.addptr"(%px, %r) : (tensor<256x!tt.ptr<f32, 1 : i32>>, tensor<256xi32>) -> tensor<256x!tt.ptr<f32, 1 : i32>>
    %v = "tt.load"(%ax) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<256x!tt.ptr<f32, 1 : i32>>) -> tensor<256xf32>
    %py = "tt.splat"(%y) : (!tt.ptr<f32, 1 : i32>) -> tensor<256x!tt.ptr<f32, 1 : i32>>
    %ay = "tt.addptr"(%py, %r) : (tensor<256x!tt.ptr<f32, 1 : i32>>, tensor<256xi32>) -> tensor<256x!tt.ptr<f32, 1 : i32>>
    "tt.store"(%ay, %v) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<256x!tt.ptr<f32, 1 : i32>>, tensor<256xf32>) -> ()
    return
  }
}
