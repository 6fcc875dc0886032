// RUN: tritonc opt %s --passes propagate-mma | filecheck %s
// An accumulator stored in two halves (reshape to M x 2 x N/2, permute, split): the view
// ops take the linear layouts under which no data moves (view_layouts.py), so the dot's
// registers reach the two stores with no conversion before them but each half's own.

// CHECK-LABEL: func.func public @halves
// CHECK: %[[D:.*]] = "tt.dot"
// CHECK-NOT: ttg.convert_layout
// CHECK: "tt.reshape"(%[[D]]) {{.*}} : (tensor<64x32xf32, #ttg.mma<[4, 1]>>) -> tensor<64x2x16xf32, #ttg.linear<{{.}}[0, 0, 1], [8, 0, 0], [0, 0, 8], [0, 1, 0]{{.}}, {{.}}[0, 0, 2], [0, 0, 4], [1, 0, 0], [2, 0, 0], [4, 0, 0]{{.}}, {{.}}[16, 0, 0], [32, 0, 0]{{.}}, []>>
// CHECK: "tt.trans"{{.*}} -> tensor<64x16x2xf32, #ttg.linear<{{.}}[0, 1, 0], [8, 0, 0], [0, 8, 0], [0, 0, 1]{{.}}, {{.}}[0, 2, 0], [0, 4, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0]{{.}}, {{.}}[16, 0, 0], [32, 0, 0]{{.}}, []>>
// CHECK: %[[H:.*]]:2 = "tt.split"{{.*}} -> (tensor<64x16xf32, #ttg.linear<{{.}}[0, 1], [8, 0], [0, 8]{{.}}, {{.}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]{{.}}, {{.}}[16, 0], [32, 0]{{.}}, []>>, tensor<64x16xf32, #ttg.linear<{{.}}[0, 1], [8, 0], [0, 8]{{.}}, {{.}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]{{.}}, {{.}}[16, 0], [32, 0]{{.}}, []>>)
// CHECK: %[[LO:.*]] = arith.truncf %[[H]]#0 : tensor<64x16xf32, #ttg.linear<{{.}}[0, 1], [8, 0], [0, 8]{{.}}, {{.}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]{{.}}, {{.}}[16, 0], [32, 0]{{.}}, []>> to tensor<64x16xf16, #ttg.linear<{{.}}[0, 1], [8, 0], [0, 8]{{.}}, {{.}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]{{.}}, {{.}}[16, 0], [32, 0]{{.}}, []>>
// CHECK: %[[HI:.*]] = arith.truncf %[[H]]#1
// CHECK: %[[C0:.*]] = "ttg.convert_layout"(%[[LO]]) : (tensor<64x16xf16, #ttg.linear<{{.}}[0, 1], [8, 0], [0, 8]{{.}}, {{.}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]{{.}}, {{.}}[16, 0], [32, 0]{{.}}, []>>) -> tensor<64x16xf16, #ttg.blocked
// CHECK-NEXT: "tt.store"({{.*}}, %[[C0]])
// CHECK: "ttg.convert_layout"(%[[HI]])
// CHECK-NEXT: "tt.store"
#b = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#bk = #ttg.blocked<[1, 8], [8, 4], [4, 1], [1, 0]>
#b3 = #ttg.blocked<[1, 1, 4], [1, 2, 16], [4, 1, 1], [2, 1, 0]>
#b3t = #ttg.blocked<[1, 4, 2], [2, 4, 4], [4, 1, 1], [2, 1, 0]>
#b2 = #ttg.blocked<[1, 4], [8, 4], [4, 1], [1, 0]>
#mma = #ttg.mma<[4, 1]>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  func.func public @halves(%pa: !tt.ptr<f16, 1 : i32>, %pc: !tt.ptr<f16, 1 : i32>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %a = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x32x!tt.ptr<f16, 1 : i32>, #b>
    %x = "tt.load"(%a) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<64x32x!tt.ptr<f16, 1 : i32>, #b>) -> tensor<64x32xf16, #b>
    %bp = "tt.splat"(%pa) : (!tt.ptr<f16, 1 : i32>) -> tensor<32x32x!tt.ptr<f16, 1 : i32>, #bk>
    %y = "tt.load"(%bp) {boundary_check = array<i32>, cache = "", evict = "", is_volatile = false, operandSegmentSizes = array<i32: 1, 0, 0>, padding = ""} : (tensor<32x32x!tt.ptr<f16, 1 : i32>, #bk>) -> tensor<32x32xf16, #bk>
    %d = "tt.dot"(%x, %y, %zero) {input_precision = "tf32", max_num_imprecise_acc = 0 : i32} : (tensor<64x32xf16, #b>, tensor<32x32xf16, #bk>, tensor<64x32xf32, #mma>) -> tensor<64x32xf32, #mma>
    %cvt = "ttg.convert_layout"(%d) : (tensor<64x32xf32, #mma>) -> tensor<64x32xf32, #b>
    %r = "tt.reshape"(%cvt) {allow_reorder = false} : (tensor<64x32xf32, #b>) -> tensor<64x2x16xf32, #b3>
    %t = "tt.trans"(%r) {order = array<i32: 0, 2, 1>} : (tensor<64x2x16xf32, #b3>) -> tensor<64x16x2xf32, #b3t>
    %h:2 = "tt.split"(%t) : (tensor<64x16x2xf32, #b3t>) -> (tensor<64x16xf32, #b2>, tensor<64x16xf32, #b2>)
    %lo = arith.truncf %h#0 : tensor<64x16xf32, #b2> to tensor<64x16xf16, #b2>
    %hi = arith.truncf %h#1 : tensor<64x16xf32, #b2> to tensor<64x16xf16, #b2>
    %c = "tt.splat"(%pc) : (!tt.ptr<f16, 1 : i32>) -> tensor<64x16x!tt.ptr<f16, 1 : i32>, #b2>
    "tt.store"(%c, %lo) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tt.ptr<f16, 1 : i32>, #b2>, tensor<64x16xf16, #b2>) -> ()
    "tt.store"(%c, %hi) {boundary_check = array<i32>, cache = "", evict = "", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<64x16x!tt.ptr<f16, 1 : i32>, #b2>, tensor<64x16xf16, #b2>) -> ()
    return
  }
}
