// RUN: tritonc opt %s --passes combine | filecheck %s
// `acc += tl.dot(a, b)`: the sum of the accumulator and a product accumulated from zero
// is the product accumulated into it, in either operand order and for integer dots; a
// product accumulated from something else, or read twice, stays a sum.

// CHECK-LABEL: func.func public @sums
// CHECK: %[[D1:.*]] = "tt.dot"(%arg0, %arg1, %arg2) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32}
// CHECK: %[[D2:.*]] = "tt.dot"(%arg0, %arg1, %[[D1]])
// CHECK: %[[D3:.*]] = "tt.dot"(%arg0, %arg1, %arg2)
// CHECK: arith.addf %[[D2]], %[[D3]]
// CHECK: %[[D4:.*]] = "tt.dot"(%arg0, %arg1, %cst)
// CHECK: %[[S4:.*]] = arith.addf %[[D3]], %[[D4]]
// CHECK: arith.mulf %[[D4]], %[[S4]]
// CHECK: "tt.dot"(%arg3, %arg4, %arg5) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32>)
// CHECK-NOT: arith.addi
module {
  func.func public @sums(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>, %p: tensor<16x32xi8>, %q: tensor<32x16xi8>, %iacc: tensor<16x16xi32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xi32>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %izero = arith.constant dense<0> : tensor<16x16xi32>
    %d1 = "tt.dot"(%a, %b, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %s1 = arith.addf %acc, %d1 : tensor<16x16xf32>
    %d2 = "tt.dot"(%a, %b, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %s2 = arith.addf %d2, %s1 : tensor<16x16xf32>
    %d3 = "tt.dot"(%a, %b, %acc) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %s3 = arith.addf %s2, %d3 : tensor<16x16xf32>
    %d4 = "tt.dot"(%a, %b, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %s4 = arith.addf %d3, %d4 : tensor<16x16xf32>
    %m4 = arith.mulf %d4, %s4 : tensor<16x16xf32>
    %i1 = "tt.dot"(%p, %q, %izero) {input_precision = "ieee", max_num_imprecise_acc = 0 : i32} : (tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32>) -> tensor<16x16xi32>
    %is = arith.addi %iacc, %i1 : tensor<16x16xi32>
    return %s3, %m4, %is : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xi32>
  }
}
