// RUN: passes cleanup
// Duplicate pure tt ops merge; arith ops that become duplicates merge too (upstream CSE).

// CHECK-LABEL: func.func @splats
// CHECK: %[[S:.*]] = "tt.splat"(%arg0)
// CHECK-NOT: "tt.splat"
// CHECK: %[[R:.*]] = "tt.make_range"()
// CHECK-NOT: "tt.make_range"
// CHECK: %[[A:.*]] = arith.addi %[[S]], %[[R]]
// CHECK-NOT: arith.addi
// CHECK: arith.muli %[[A]], %[[A]]
func.func @splats(%x: i32) -> tensor<128xi32> {
  %a = "tt.splat"(%x) : (i32) -> tensor<128xi32>
  %r1 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
  %b = "tt.splat"(%x) : (i32) -> tensor<128xi32>
  %r2 = "tt.make_range"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
  %s1 = arith.addi %a, %r1 : tensor<128xi32>
  %s2 = arith.addi %b, %r2 : tensor<128xi32>
  %m = arith.muli %s1, %s2 : tensor<128xi32>
  return %m : tensor<128xi32>
}

// Different attributes or result types are different values.
// CHECK-LABEL: func.func @distinct
// CHECK-COUNT-2: "tt.make_range"
// CHECK: "tt.splat"(%arg0) : (i32) -> tensor<64xi32>
// CHECK: "tt.splat"(%arg0) : (i32) -> tensor<128xi32>
func.func @distinct(%x: i32) -> (tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<128xi32>) {
  %r1 = "tt.make_range"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
  %r2 = "tt.make_range"() {end = 128 : i32, start = 64 : i32} : () -> tensor<64xi32>
  %a = "tt.splat"(%x) : (i32) -> tensor<64xi32>
  %b = "tt.splat"(%x) : (i32) -> tensor<128xi32>
  return %r1, %r2, %a, %b : tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<128xi32>
}

// Loads and stores are not pure: two equal loads both stay.
// CHECK-LABEL: func.func @loads
// CHECK-COUNT-2: "tt.load"
// CHECK: "tt.store"
func.func @loads(%p: !tt.ptr<f32, 1 : i32>) {
  %a = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (!tt.ptr<f32, 1 : i32>) -> f32
  %b = "tt.load"(%p) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (!tt.ptr<f32, 1 : i32>) -> f32
  %c = arith.addf %a, %b : f32
  "tt.store"(%p, %c) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<f32, 1 : i32>, f32) -> ()
  return
}

// Layout conversions are pure: the same conversion twice is one.
// CHECK-LABEL: func.func @conversions
// CHECK-COUNT-1: "ttg.convert_layout"
// CHECK-NOT: "ttg.convert_layout"
func.func @conversions(%x: tensor<128xf32, #ttg.blocked<[4], [32], [1], [0]>>) -> tensor<128xf32, #ttg.blocked<[1], [32], [1], [0]>> {
  %a = "ttg.convert_layout"(%x) : (tensor<128xf32, #ttg.blocked<[4], [32], [1], [0]>>) -> tensor<128xf32, #ttg.blocked<[1], [32], [1], [0]>>
  %b = "ttg.convert_layout"(%x) : (tensor<128xf32, #ttg.blocked<[4], [32], [1], [0]>>) -> tensor<128xf32, #ttg.blocked<[1], [32], [1], [0]>>
  %c = arith.addf %a, %b : tensor<128xf32, #ttg.blocked<[1], [32], [1], [0]>>
  return %c : tensor<128xf32, #ttg.blocked<[1], [32], [1], [0]>>
}
