// Verifier errors of the integer graph ops, in generic form so the verifier reports them.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

func.func @bit_shift_direction(%x: tensor<3xui8>) -> tensor<3xui8> {
  // expected-error @+1 {{'graph.bit_shift' op direction must be "left" or "right", got "up"}}
  %0 = "graph.bit_shift"(%x, %x) <{direction = "up"}> : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

func.func @bit_shift_signless(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{'graph.bit_shift' op operands must be unsigned integer tensors (ONNX BitShift), got 'i32'}}
  %0 = "graph.bit_shift"(%x, %x) <{direction = "left"}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @bit_shift_mixed(%x: tensor<3xui8>, %y: tensor<3xui16>) -> tensor<3xui8> {
  // expected-error @+1 {{'graph.bit_shift' op operand element types differ: 'ui8' vs 'ui16'}}
  %0 = "graph.bit_shift"(%x, %y) <{direction = "left"}> : (tensor<3xui8>, tensor<3xui16>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

func.func @bit_shift_shapes(%x: tensor<3xui8>, %y: tensor<2xui8>) -> tensor<3xui8> {
  // expected-error @+1 {{'graph.bit_shift' op operand shapes [3] and [2] do not broadcast}}
  %0 = "graph.bit_shift"(%x, %y) <{direction = "left"}> : (tensor<3xui8>, tensor<2xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

func.func @bit_shift_result(%x: tensor<3xui8>) -> tensor<3xui16> {
  // expected-error @+1 {{'graph.bit_shift' op result type 'tensor<3xui16>' is not the broadcast type}}
  %0 = "graph.bit_shift"(%x, %x) <{direction = "left"}> : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui16>
  return %0 : tensor<3xui16>
}
