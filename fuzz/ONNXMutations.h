//===- ONNXMutations.h - ONNX knowledge for the protobuf mutator -*- C++ -*-===//
//
// Dictionaries and hooks that make ProtoMutator's edits of onnx.ModelProto / TensorProto
// meaningful, taken from libonnx's operator schemas (onnx::OpSchemaRegistry):
//
//  - onnx.NodeProto: op_type among the default domain's ops; an attribute of the op's schema
//    set to a value of its declared type (one time in eight a random type, since mistyped
//    attributes must be refused too);
//  - onnx.TensorProto: another data_type, or raw_data resized to dims x element size so the
//    tensor passes the size checks and reaches the ops;
//  - onnx.TypeProto.Tensor: another elem_type;
//  - strings for external-data entries (location, offset, length) and opset domains.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_FUZZ_ONNXMUTATIONS_H
#define AICC_FUZZ_ONNXMUTATIONS_H

#include "ProtoMutator.h"

namespace aicc::fuzz {

/// Installs the ONNX dictionaries and hooks in `mutator`. Call once (reads the schema
/// registry).
void addONNXMutations(ProtoMutator &mutator);

} // namespace aicc::fuzz

#endif // AICC_FUZZ_ONNXMUTATIONS_H
