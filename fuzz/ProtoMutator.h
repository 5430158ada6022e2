//===- ProtoMutator.h - Structure-aware mutation of protobuf messages -*- C++ -*-===//
//
// A small protobuf-reflection mutator for libFuzzer's LLVMFuzzerCustomMutator /
// LLVMFuzzerCustomCrossOver. The idea is libprotobuf-mutator's
// (https://github.com/google/libprotobuf-mutator, src/mutator.cc: pick one field of the
// message tree uniformly at random and add, delete, copy or change it); Debian packages no
// libprotobuf-mutator, so this is a much smaller reimplementation over protobuf's own
// reflection API (google::protobuf::Reflection), with two additions that matter for ONNX:
//
//  - string fields take values seen elsewhere in the same message (a node input becomes the
//    name of another value) and per-field dictionaries (op_type among the schema's ops);
//  - per-message-type hooks for domain-specific edits (an attribute of the op's schema with
//    the right type, a TensorProto's raw_data resized to match its dims and data_type).
//
// Nothing here knows ONNX; fuzz/FuzzONNX.cpp installs the ONNX dictionaries and hooks.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_FUZZ_PROTOMUTATOR_H
#define AICC_FUZZ_PROTOMUTATOR_H

#include "ValueMutations.h"

#include <google/protobuf/message.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace aicc::fuzz {

class ProtoMutator {
public:
  /// A domain-specific mutation of one message of a given type; returns false when it did
  /// nothing (the mutator then falls back to a generic edit).
  using Hook = std::function<bool(google::protobuf::Message &msg, Rng &rng)>;

  /// String values to try for the field `fieldFullName` (e.g. "onnx.NodeProto.op_type").
  void addStrings(const std::string &fieldFullName, std::vector<std::string> values);
  /// Installs `hook` for messages of type `messageFullName` (e.g. "onnx.NodeProto"); it is
  /// chosen like four more fields of each such message.
  void addHook(const std::string &messageFullName, Hook hook);

  /// Applies one random edit to `msg` (in place). Messages nested deeper than 32 levels are
  /// left alone.
  void mutate(google::protobuf::Message &msg, Rng &rng) const;
  /// Crossover: copies one sub-message of `other` into `msg`, replacing a sub-message of the
  /// same type or appending it to a repeated field of that type.
  void crossOver(const google::protobuf::Message &other, google::protobuf::Message &msg,
                 Rng &rng) const;

  /// Every string value of non-bytes string fields in `msg`'s tree (used for names).
  static void collectStrings(const google::protobuf::Message &msg,
                             std::vector<std::string> &out);

private:
  struct Site;
  void collectSites(google::protobuf::Message &msg, int depth, std::vector<Site> &out) const;
  void mutateSite(const Site &site, google::protobuf::Message &root, Rng &rng) const;
  void setRandomValue(google::protobuf::Message &msg, const google::protobuf::FieldDescriptor *f,
                      int index, bool add, google::protobuf::Message &root, Rng &rng) const;
  std::string randomString(const google::protobuf::FieldDescriptor *f, const std::string &old,
                           google::protobuf::Message &root, Rng &rng) const;

  std::map<std::string, std::vector<std::string>> strings;
  std::map<std::string, Hook> hooks;
};

/// The body of LLVMFuzzerCustomMutator for inputs that serialize a message of `prototype`'s
/// type: parses data[0, size), applies `mutator`, and serializes the result into `data` when
/// it fits in `maxSize` bytes. Inputs that do not parse, results that do not fit, and one call
/// in eight use LLVMFuzzerMutate on the bytes instead. Returns the new size.
size_t mutateSerialized(const google::protobuf::Message &prototype, const ProtoMutator &mutator,
                        uint8_t *data, size_t size, size_t maxSize, unsigned seed);

/// The body of LLVMFuzzerCustomCrossOver for the same inputs: ProtoMutator::crossOver of the
/// two parsed messages, serialized into `out` when it fits in `maxOutSize`; 0 when either
/// does not parse or the result does not fit (libFuzzer then skips the crossover).
size_t crossOverSerialized(const google::protobuf::Message &prototype,
                           const ProtoMutator &mutator, const uint8_t *data1, size_t size1,
                           const uint8_t *data2, size_t size2, uint8_t *out, size_t maxOutSize,
                           unsigned seed);

} // namespace aicc::fuzz

#endif // AICC_FUZZ_PROTOMUTATOR_H
