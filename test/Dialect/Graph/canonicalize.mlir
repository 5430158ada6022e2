// Folders of the graph dialect: reshape (same type, of a reshape, of a dense constant),
// transpose (identity perm, of a transpose, of a dense constant), concat (empty inputs) and
// constant, pad (of a constant, with a size cap); gather of one constant index becomes a slice.
// RUN: aicc-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>
// CHECK-NOT:     graph.reshape
// CHECK:         return %[[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A reshape of a reshape reads the first one's input.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = graph.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = graph.reshape %0 : (tensor<6x4xf32>) -> tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// ... and disappears when the pair is an identity.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK-NOT:     graph.reshape
// CHECK:         return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = graph.reshape %0 : (tensor<24xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// The intermediate reshape stays when it has another user.
// CHECK-LABEL: func.func @reshape_of_reshape_shared
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK-DAG:     %[[A:.*]] = graph.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-DAG:     %[[B:.*]] = graph.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK:         return %[[A]], %[[B]]
func.func @reshape_of_reshape_shared(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<24xf32>) {
  %0 = graph.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = graph.reshape %0 : (tensor<6x4xf32>) -> tensor<24xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<24xf32>
}

// -----

// A reshape of a dense constant is a constant of the new shape.
// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_of_constant() -> tensor<3x2xf32> {
  %c = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = graph.reshape %c : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A splat stays a splat.
// CHECK-LABEL: func.func @reshape_of_splat
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<2.500000e+00> : tensor<6xf32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_of_splat() -> tensor<6xf32> {
  %c = graph.constant dense<2.5> : tensor<2x3xf32>
  %0 = graph.reshape %c : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Resource constants are not DenseElementsAttr: the reshape stays (no copy of the blob).
// CHECK-LABEL: func.func @reshape_of_resource
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense_resource<blob1> : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[C]] : (tensor<2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_of_resource() -> tensor<1x2xf32> {
  %c = graph.constant dense_resource<blob1> : tensor<2xf32>
  %0 = graph.reshape %c : (tensor<2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK-NOT:     graph.transpose
// CHECK:         return %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.transpose %x, [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_not_identity
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x2xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]], [1, 0]
// CHECK-NEXT:    return %[[T]]
func.func @transpose_not_identity(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = graph.transpose %x, [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Constants fold to their value: identical ones are deduplicated, unused ones erased.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[C]], %[[C]]
// CHECK-NEXT:    return %[[A]]
func.func @constants() -> tensor<2xf32> {
  %a = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %unused = graph.constant dense<3.0> : tensor<4xf32>
  %0 = graph.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Empty concat inputs are dropped; with one input left, the concat is that input.
// CHECK-LABEL: func.func @concat_empty
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<2x0xf32>, %[[Z:[^:]*]]: tensor<2x1xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.concat %[[X]], %[[Z]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    return %[[X]], %[[C]]
func.func @concat_empty(%x: tensor<2x3xf32>, %y: tensor<2x0xf32>, %z: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>) {
  %0 = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>) -> tensor<2x3xf32>
  %1 = graph.concat %x, %y, %z {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x4xf32>
}

// -----

// transpose(transpose(x, p), q) with p[q[i]] = i is x (NCHW -> NHWC -> NCHW).
// CHECK-LABEL: func.func @transpose_pair_cancels
// CHECK-SAME:      %[[X:[^:]*]]: tensor<1x2x3x4xf32>
// CHECK-NOT:     graph.transpose
// CHECK:         return %[[X]]
func.func @transpose_pair_cancels(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = graph.transpose %x, [0, 2, 3, 1] : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %1 = graph.transpose %0, [0, 3, 1, 2] : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  return %1 : tensor<1x2x3x4xf32>
}

// -----

// Otherwise the pair composes into one transpose of x: r[i] = p[q[i]].
// CHECK-LABEL: func.func @transpose_pair_composes
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]], [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT:    return %[[T]]
func.func @transpose_pair_composes(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = graph.transpose %x, [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = graph.transpose %0, [1, 0, 2] : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// A transpose of a constant is the transposed constant (an OIHW weight -> OHWI).
// CHECK-LABEL: func.func @transpose_constant
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]], {{\[}}[5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]]> : tensor<2x2x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @transpose_constant() -> tensor<2x2x2xf32> {
  %c = graph.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %0 = graph.transpose %c, [0, 2, 1] : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// -----

// A splat constant: the splat in the new shape.
// CHECK-LABEL: func.func @transpose_splat_constant
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<5.000000e-01> : tensor<4x3x3x2xf16>
// CHECK-NEXT:    return %[[C]]
func.func @transpose_splat_constant() -> tensor<4x3x3x2xf16> {
  %c = graph.constant dense<0.5> : tensor<4x2x3x3xf16>
  %0 = graph.transpose %c, [0, 2, 3, 1] : (tensor<4x2x3x3xf16>) -> tensor<4x3x3x2xf16>
  return %0 : tensor<4x3x3x2xf16>
}

// -----

// i1 is bit-packed in dense: not folded.
// CHECK-LABEL: func.func @transpose_bool_constant_stays
// CHECK:         graph.transpose
func.func @transpose_bool_constant_stays() -> tensor<3x2xi1> {
  %c = graph.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %0 = graph.transpose %c, [1, 0] : (tensor<2x3xi1>) -> tensor<3x2xi1>
  return %0 : tensor<3x2xi1>
}

// -----

// torch's select (q, k, v = qkv[0], qkv[1], qkv[2]): a gather of one constant index is a
// one-element slice along the axis, reshaped to drop it (rank-0 index); a negative index
// counts from the end; a one-element 1-D index keeps the axis (no reshape).
// CHECK-LABEL: func.func @gather_constant_index
// CHECK-SAME:      %[[X:[^:]*]]: tensor<3x4x8xf16>
// CHECK:         %[[S:.*]] = graph.slice %[[X]] {starts = array<i64: 1, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<3x4x8xf16> -> tensor<1x4x8xf16>
// CHECK:         %[[R:.*]] = graph.reshape %[[S]] : (tensor<1x4x8xf16>) -> tensor<4x8xf16>
// CHECK:         %[[N:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0, 7>, steps = array<i64: 1, 1, 1>} : tensor<3x4x8xf16> -> tensor<3x4x1xf16>
// CHECK-NOT:     graph.gather
// CHECK:         return %[[R]], %[[N]]
func.func @gather_constant_index(%x: tensor<3x4x8xf16>) -> (tensor<4x8xf16>, tensor<3x4x1xf16>) {
  %i = graph.constant dense<1> : tensor<i64>
  %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4x8xf16>, tensor<i64>) -> tensor<4x8xf16>
  %j = graph.constant dense<[-1]> : tensor<1xi64>
  %1 = graph.gather %x, %j {axis = 2 : i64} : (tensor<3x4x8xf16>, tensor<1xi64>) -> tensor<3x4x1xf16>
  return %0, %1 : tensor<4x8xf16>, tensor<3x4x1xf16>
}

// -----

// Left as gathers: an index out of range (undefined in ONNX), several indices, an index
// computed at run time.
// CHECK-LABEL: func.func @gather_not_one_constant
// CHECK-COUNT-3: graph.gather
// CHECK-NOT:     graph.slice
func.func @gather_not_one_constant(%x: tensor<3x4xf32>, %k: tensor<i64>) -> (tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) {
  %i = graph.constant dense<3> : tensor<i64>
  %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<i64>) -> tensor<4xf32>
  %j = graph.constant dense<[0, 2]> : tensor<2xi64>
  %1 = graph.gather %x, %j {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %2 = graph.gather %x, %k {axis = 0 : i64} : (tensor<3x4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>
}

// -----

// An unsigned index is read zero-extended (150 in ui8 is row 150, not -106).
// CHECK-LABEL: func.func @gather_unsigned_index
// CHECK:         graph.slice %{{.*}} {starts = array<i64: 150, 0>
func.func @gather_unsigned_index(%x: tensor<200x4xf32>) -> tensor<4xf32> {
  %i = graph.constant dense<150> : tensor<ui8>
  %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<200x4xf32>, tensor<ui8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A constant-mode pad of a constant folds: the input's rows at their padded positions
// (low pads too), the pad value elsewhere; an integer pad value is saturated to the type.
// CHECK-LABEL: func.func @pad_constant
// CHECK-DAG:     graph.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 2.000000e+00, 0.000000e+00], [0.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00]]> : tensor<3x4xf32>
// CHECK-DAG:     graph.constant dense<[-128, 5, 6, -128]> : tensor<4xi8>
// CHECK-NOT:     graph.pad
func.func @pad_constant() -> (tensor<3x4xf32>, tensor<4xi8>) {
  %c = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %p = graph.pad %c {low = array<i64: 1, 1>, high = array<i64: 0, 1>} : tensor<2x2xf32> -> tensor<3x4xf32>
  %i = graph.constant dense<[5, 6]> : tensor<2xi8>
  %q = graph.pad %i {low = array<i64: 1>, high = array<i64: 1>, value = -1.0e+03 : f64} : tensor<2xi8> -> tensor<4xi8>
  return %p, %q : tensor<3x4xf32>, tensor<4xi8>
}

// -----

// Not folded: a padded size whose element count overflows (a hostile type), and a pad that
// would grow the constant more than 8x.
// CHECK-LABEL: func.func @pad_not_folded
// CHECK-COUNT-2: graph.pad
func.func @pad_not_folded() -> (tensor<4611686018427387904xf32>, tensor<32xf32>) {
  %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %p = graph.pad %c {low = array<i64: 0>, high = array<i64: 4611686018427387902>} : tensor<2xf32> -> tensor<4611686018427387904xf32>
  %q = graph.pad %c {low = array<i64: 0>, high = array<i64: 30>} : tensor<2xf32> -> tensor<32xf32>
  return %p, %q : tensor<4611686018427387904xf32>, tensor<32xf32>
}
