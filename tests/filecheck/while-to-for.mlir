// RUN: tritonc opt %s --passes while-to-for | filecheck %s
// A while loop counting up to a bound by a positive constant becomes an scf.for: the
// counter is the induction variable in the body and stays an iteration argument for the
// result; `bound > k` counts as `k < bound`; a bound computed in the condition region from
// values made outside the loop is computed before it. Loops of another form stay while
// loops.

// CHECK-LABEL: func.func public @counted
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[STEP:.*]] = arith.constant 64 : i32
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %[[C0]] to %arg1 step %[[STEP]] iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %[[C0]]) -> (f32, i32)  : i32 {
// CHECK-NEXT: %[[P:.*]] = "tt.addptr"(%arg0, %[[I]])
// CHECK-NEXT: %[[X:.*]] = "tt.load"(%[[P]])
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK: %[[N:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[S]], %[[N]] : f32, i32
// CHECK: "tt.store"(%arg2, %[[R]]#1)
// CHECK-NOT: scf.while
func.func public @counted(%p: !tt.ptr<f32, 1 : i32>, %n: i32, %out: !tt.ptr<i32, 1 : i32>) -> f32 {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.while (%acc = %zero, %k = %c0) : (f32, i32) -> (f32, i32) {
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %acc, %k : f32, i32
  } do {
  ^bb0(%acc: f32, %k: i32):
    %q = "tt.addptr"(%p, %k) : (!tt.ptr<f32, 1 : i32>, i32) -> !tt.ptr<f32, 1 : i32>
    %x = "tt.load"(%q) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (!tt.ptr<f32, 1 : i32>) -> f32
    %s = arith.addf %acc, %x : f32
    %c64 = arith.constant 64 : i32
    %next = arith.addi %k, %c64 : i32
    scf.yield %s, %next : f32, i32
  }
  "tt.store"(%out, %r#1) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<i32, 1 : i32>, i32) -> ()
  return %r#0 : f32
}

// CHECK-LABEL: func.func public @bound_first
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg0 step
// CHECK-NOT: scf.while
func.func public @bound_first(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %r = scf.while (%k = %c1) : (i32) -> i32 {
    %more = arith.cmpi sgt, %n, %k : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %c2, %k : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func public @step_at_run_time
// CHECK: scf.while
func.func public @step_at_run_time(%n: i32, %step: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %step : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func public @up_to_and_including
// CHECK: scf.while
func.func public @up_to_and_including(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %more = arith.cmpi sle, %k, %n : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func public @counting_down
// CHECK: scf.while
func.func public @counting_down(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %m1 = arith.constant -1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %m1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func public @work_in_the_condition
// CHECK: scf.while
func.func public @work_in_the_condition(%n: i32, %p: !tt.ptr<i32, 1 : i32>) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    "tt.store"(%p, %k) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tt.ptr<i32, 1 : i32>, i32) -> ()
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func public @licm_disabled
// CHECK: scf.while
func.func public @licm_disabled(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  } attributes {loop_annotation = #llvm.loop_annotation<licm = #llvm.loop_licm<disable = true>>}
  return %r : i32
}

// CHECK-LABEL: func.func public @bound_in_the_condition
// CHECK: %[[B:.*]] = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[B]], %arg1 : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[Q]] step
// CHECK-NOT: scf.while
func.func public @bound_in_the_condition(%n: i32, %m: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %b = arith.subi %n, %m : i32
    %q = arith.divsi %b, %m : i32
    %more = arith.cmpi slt, %k, %q : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func public @bound_from_the_counter
// CHECK: scf.while
func.func public @bound_from_the_counter(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %b = arith.subi %n, %k : i32
    %more = arith.cmpi slt, %k, %b : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k: i32):
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}
