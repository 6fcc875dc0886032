// RUN: tritonc opt %s --passes thread-locality | filecheck %s
// Row statistics accumulated over a loop (`acc + tl.sum(x, 1)`, `tl.maximum(acc,
// tl.max(x, 1))`) reduce each thread's run of 4 elements inside the loop and carry the
// partials; one reduction after the loop crosses the threads. A column tile converted
// only to be reduced is reduced as it was loaded. Loops whose reduction is used
// otherwise, or that accumulate whole tiles, stay as they are.

// CHECK-LABEL: func.func public @row_sum
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #ttg.slice<2 : i64, #ttg.blocked<[1, 1, 4], [2, 16, 1], [4, 1, 1], [2, 1, 0]>>>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<16x16xf32, #ttg.slice<2 : i64, #ttg.blocked<[1, 1, 4], [2, 16, 1], [4, 1, 1], [2, 1, 0]>>>)
// CHECK: %[[X:.*]] = "tt.load"
// CHECK-NEXT: %[[VIEW:.*]] = "tt.reshape"(%[[X]]) {allow_reorder = false} : (tensor<16x64xf32, #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<16x16x4xf32, #ttg.blocked<[1, 1, 4], [2, 16, 1], [4, 1, 1], [2, 1, 0]>>
// CHECK-NEXT: %[[PART:.*]] = "tt.reduce"(%[[VIEW]]) {axis = 2 : i32, combine = @add
// CHECK-SAME: -> tensor<16x16xf32, #ttg.slice<2 : i64, #ttg.blocked<[1, 1, 4], [2, 16, 1], [4, 1, 1], [2, 1, 0]>>>
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PART]] : tensor<16x16xf32
// CHECK-NEXT: scf.yield %[[NEXT]]
// CHECK: %[[TOTAL:.*]] = "tt.reduce"(%[[LOOP]]) {axis = 1 : i32, combine = @add
// CHECK-SAME: -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
// CHECK-NEXT: "tt.store"(%arg1, %[[TOTAL]])

// CHECK-LABEL: func.func public @row_max_from
// CHECK: %[[INIT:.*]] = "tt.load"(%arg1)
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : tensor<16x16xf32
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[NEG]])
// CHECK: "tt.reduce"{{.*}} {axis = 2 : i32, combine = @max
// CHECK: arith.maxnumf
// CHECK: %[[TOTAL:.*]] = "tt.reduce"(%[[LOOP]]) {axis = 1 : i32, combine = @max
// CHECK-NEXT: %[[OUT:.*]] = arith.maxnumf %[[INIT]], %[[TOTAL]] : tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
// CHECK-NEXT: "tt.store"(%arg1, %[[OUT]])

// CHECK-LABEL: func.func public @column_min
// CHECK: %[[INF:.*]] = arith.constant dense<0x7F800000> : tensor<16x16xf32, #ttg.slice<1 : i64, #ttg.blocked<[1, 4, 1], [16, 1, 2], [1, 1, 4], [1, 0, 2]>>>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INF]])
// CHECK-NOT: "ttg.convert_layout"
// CHECK: "tt.reshape"(%{{.*}}) {allow_reorder = false} : (tensor<64x16xf32, #ttg.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>>) -> tensor<16x4x16xf32, #ttg.blocked<[1, 4, 1], [16, 1, 2], [1, 1, 4], [1, 0, 2]>>
// CHECK: "tt.reduce"{{.*}} {axis = 1 : i32, combine = @min
// CHECK: %[[TOTAL:.*]] = "tt.reduce"{{.*}} {axis = 0 : i32, combine = @min
// CHECK-SAME: -> tensor<16xf32, #ttg.blocked<[1], [32], [4], [0]>>
// CHECK-NEXT: "tt.store"(%arg1, %[[TOTAL]])

// CHECK-LABEL: func.func public @int_sum_from_seven
// CHECK-DAG: %[[SEVEN:.*]] = arith.constant dense<7> : tensor<16xi32
// CHECK-DAG: %[[IZERO:.*]] = arith.constant dense<0> : tensor<16x16xi32
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[IZERO]])
// CHECK: arith.addi {{.*}} : tensor<16x16xi32
// CHECK: %[[TOTAL:.*]] = "tt.reduce"(%[[LOOP]]) {axis = 1 : i32, combine = @iadd
// CHECK-NEXT: arith.addi %[[SEVEN]], %[[TOTAL]] : tensor<16xi32

// CHECK-LABEL: func.func public @used_twice
// CHECK-NOT: "tt.reshape"
// CHECK: "tt.reduce"{{.*}} {axis = 1 : i32
// CHECK-NOT: "tt.reduce"
// CHECK-LABEL: func.func public @whole_tiles
// CHECK-NOT: "tt.reshape"
// CHECK: arith.addf {{.*}} : tensor<16x64xf32
// CHECK: "tt.reduce"{{.*}} {axis = 1 : i32
// CHECK-NOT: "tt.reduce"
// CHECK-LABEL: func.func private @add
#b = #ttg.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>
#c = #ttg.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>
#d = #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#r = #ttg.blocked<[1], [32], [4], [0]>
module attributes {"ttg.num-stages" = 3 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @row_sum(%arg0: !tt.ptr<f32, 1 : i32>, %arg1: tensor<16x!tt.ptr<f32, 1 : i32>, #r>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16xf32, #r>
    %ptrs = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16xf32, #r>) : i32 {
      %x = "tt.load"(%ptrs) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>) -> tensor<16x64xf32, #b>
      %s = "tt.reduce"(%x) {axis = 1 : i32, combine = @add, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x64xf32, #b>) -> tensor<16xf32, #r>
      %next = arith.addf %a, %s : tensor<16xf32, #r>
      scf.yield %next : tensor<16xf32, #r>
    }
    "tt.store"(%arg1, %acc) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #r>, tensor<16xf32, #r>) -> ()
    return
  }
  func.func public @row_max_from(%arg0: !tt.ptr<f32, 1 : i32>, %arg1: tensor<16x!tt.ptr<f32, 1 : i32>, #r>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = "tt.load"(%arg1) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x!tt.ptr<f32, 1 : i32>, #r>) -> tensor<16xf32, #r>
    %ptrs = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<16xf32, #r>) : i32 {
      %x = "tt.load"(%ptrs) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>) -> tensor<16x64xf32, #b>
      %s = "tt.reduce"(%x) {axis = 1 : i32, combine = @max, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x64xf32, #b>) -> tensor<16xf32, #r>
      %next = arith.maxnumf %a, %s : tensor<16xf32, #r>
      scf.yield %next : tensor<16xf32, #r>
    }
    "tt.store"(%arg1, %acc) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #r>, tensor<16xf32, #r>) -> ()
    return
  }
  func.func public @column_min(%arg0: !tt.ptr<f32, 1 : i32>, %arg1: tensor<16x!tt.ptr<f32, 1 : i32>, #r>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %inf = arith.constant dense<0x7F800000> : tensor<16xf32, #r>
    %ptrs = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<64x16x!tt.ptr<f32, 1 : i32>, #c>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %inf) -> (tensor<16xf32, #r>) : i32 {
      %x = "tt.load"(%ptrs) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x16x!tt.ptr<f32, 1 : i32>, #c>) -> tensor<64x16xf32, #c>
      %xd = "ttg.convert_layout"(%x) : (tensor<64x16xf32, #c>) -> tensor<64x16xf32, #d>
      %s = "tt.reduce"(%xd) {axis = 0 : i32, combine = @min, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<64x16xf32, #d>) -> tensor<16xf32, #r>
      %next = arith.minnumf %s, %a : tensor<16xf32, #r>
      scf.yield %next : tensor<16xf32, #r>
    }
    "tt.store"(%arg1, %acc) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #r>, tensor<16xf32, #r>) -> ()
    return
  }
  func.func public @int_sum_from_seven(%arg0: !tt.ptr<i32, 1 : i32>, %arg1: tensor<16x!tt.ptr<i32, 1 : i32>, #r>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %seven = arith.constant dense<7> : tensor<16xi32, #r>
    %ptrs = "tt.splat"(%arg0) : (!tt.ptr<i32, 1 : i32>) -> tensor<16x64x!tt.ptr<i32, 1 : i32>, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %seven) -> (tensor<16xi32, #r>) : i32 {
      %x = "tt.load"(%ptrs) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<i32, 1 : i32>, #b>) -> tensor<16x64xi32, #b>
      %s = "tt.reduce"(%x) {axis = 1 : i32, combine = @iadd, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x64xi32, #b>) -> tensor<16xi32, #r>
      %next = arith.addi %a, %s : tensor<16xi32, #r>
      scf.yield %next : tensor<16xi32, #r>
    }
    "tt.store"(%arg1, %acc) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<i32, 1 : i32>, #r>, tensor<16xi32, #r>) -> ()
    return
  }
  func.func public @used_twice(%arg0: !tt.ptr<f32, 1 : i32>, %arg1: tensor<16x!tt.ptr<f32, 1 : i32>, #r>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16xf32, #r>
    %ptrs = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>
    %acc:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %q = %zero) -> (tensor<16xf32, #r>, tensor<16xf32, #r>) : i32 {
      %x = "tt.load"(%ptrs) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>) -> tensor<16x64xf32, #b>
      %s = "tt.reduce"(%x) {axis = 1 : i32, combine = @add, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x64xf32, #b>) -> tensor<16xf32, #r>
      %next = arith.addf %a, %s : tensor<16xf32, #r>
      %sq = arith.mulf %s, %s : tensor<16xf32, #r>
      %nq = arith.addf %q, %sq : tensor<16xf32, #r>
      scf.yield %next, %nq : tensor<16xf32, #r>, tensor<16xf32, #r>
    }
    %out = arith.addf %acc#0, %acc#1 : tensor<16xf32, #r>
    "tt.store"(%arg1, %out) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #r>, tensor<16xf32, #r>) -> ()
    return
  }
  func.func public @whole_tiles(%arg0: !tt.ptr<f32, 1 : i32>, %arg1: tensor<16x!tt.ptr<f32, 1 : i32>, #r>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #b>
    %ptrs = "tt.splat"(%arg0) : (!tt.ptr<f32, 1 : i32>) -> tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x64xf32, #b>) : i32 {
      %x = "tt.load"(%ptrs) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<16x64x!tt.ptr<f32, 1 : i32>, #b>) -> tensor<16x64xf32, #b>
      %next = arith.addf %a, %x : tensor<16x64xf32, #b>
      scf.yield %next : tensor<16x64xf32, #b>
    }
    %s = "tt.reduce"(%acc) {axis = 1 : i32, combine = @add, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<16x64xf32, #b>) -> tensor<16xf32, #r>
    "tt.store"(%arg1, %s) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<16x!tt.ptr<f32, 1 : i32>, #r>, tensor<16xf32, #r>) -> ()
    return
  }
  func.func private @add(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.addf %arg0, %arg1 : f32
    return %0 : f32
  }
  func.func private @max(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.maxnumf %arg0, %arg1 : f32
    return %0 : f32
  }
  func.func private @min(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.minnumf %arg0, %arg1 : f32
    return %0 : f32
  }
  func.func private @iadd(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.addi %arg0, %arg1 : i32
    return %0 : i32
  }
}
