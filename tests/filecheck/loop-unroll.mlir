// RUN: tritonc opt %s --passes loop-unroll | filecheck %s
// A loop marked `tt.loop_unroll_factor = 2` steps by 2 with two copies of its body, then
// a loop runs the iteration left over; its upper bound is first raised to its lower
// bound (the unroller counts trips unsigned). The unmarked loop and the factor-1 loop
// keep their one body; no loop keeps the attribute.

// CHECK-LABEL: func.func public @k
// CHECK: %[[UB:.*]] = arith.maxsi %arg1, %c0_i32
// CHECK: scf.for {{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-2: "tt.atomic_rmw"
// CHECK: scf.yield
// CHECK: scf.for {{.*}} to %[[UB]] step %c1_i32
// CHECK-COUNT-1: "tt.atomic_rmw"
// CHECK: scf.yield
// CHECK: scf.for
// CHECK-COUNT-1: "tt.atomic_rmw"
// CHECK: scf.yield
// CHECK-NOT: loop_unroll_factor
module {
  func.func public @k(%p: !tt.ptr<i32, 1 : i32>, %n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %r = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc = %c0_i32) -> (i32) : i32 {
      %v = "tt.atomic_rmw"(%p, %i) {kind = "add", operandSegmentSizes = array<i32: 1, 1, 0>, scope = "gpu", sem = "acq_rel"} : (!tt.ptr<i32, 1 : i32>, i32) -> i32
      %t = arith.addi %acc, %v : i32
      scf.yield %t : i32
    } {tt.loop_unroll_factor = 2 : i32}
    %s = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc = %r) -> (i32) : i32 {
      %v = "tt.atomic_rmw"(%p, %i) {kind = "add", operandSegmentSizes = array<i32: 1, 1, 0>, scope = "gpu", sem = "acq_rel"} : (!tt.ptr<i32, 1 : i32>, i32) -> i32
      %t = arith.addi %acc, %v : i32
      scf.yield %t : i32
    } {tt.loop_unroll_factor = 1 : i32}
    "tt.store"(%p, %s) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<i32, 1 : i32>, i32) -> ()
    return
  }
}
