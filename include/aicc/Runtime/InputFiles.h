//===- InputFiles.h - aicc-run's --input files ------------------*- C++ -*-===//
//
// What `--input [NAME=]FILE` arguments of aicc-run (and of its reference modes, lib/Reference)
// load and which model input each tensor is for. FILE is an onnx.TensorProto (.pb, and any other suffix), a
// numpy array (.npy) or a numpy archive (.npz: one tensor per member, named after the
// input, or arr_0, arr_1, ... in order as numpy.savez(*arrays) names them).
// MLIR-free (aicc-run builds without LLVM).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_RUNTIME_INPUTFILES_H
#define AICC_RUNTIME_INPUTFILES_H

#include "aicc/Runtime/Session.h"
#include "aicc/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aicc::run {

/// One tensor from the --input arguments, for the model input called `name` or, when
/// `name` is empty, for the one at `position` (the positional arguments count 0, 1, ...
/// in order; an .npz member arr_K is position K).
struct LoadedInput {
  std::string name;
  int position = -1;
  runtime::HostTensor tensor;
  /// Where it came from, for messages: "--input x=a.npy", "--input b.npz (member 'y')".
  std::string source;
};

/// Loads every --input argument: `NAME=FILE` (FILE for the graph input NAME; an argument
/// naming an existing file is always a plain FILE) or `FILE` (the next positional input).
/// Each file is at most `maxBytes`. Errors: unreadable or malformed files (naming them), a
/// NAME=FILE.npz (an archive names its own inputs), a position given twice.
runtime::Status loadInputFiles(const std::vector<std::string> &args, uint64_t maxBytes,
                               std::vector<LoadedInput> &out);

/// True when some loaded tensor is for a named input.
bool anyNamed(const std::vector<LoadedInput> &inputs);

/// Where one loaded input goes: the model input of that index in ONNX order.
/// `modelNames` are the model's inputs in ONNX order (for a bundle, the runtime inputs and
/// the bound ones interleaved as compiled, Bundle::modelInputOrder). `positional` maps a
/// position to a model input index: callers pass the runtime inputs' indices (or every
/// model input's, when the positional files count them all). Errors: an unknown name
/// (listing the model's inputs), a position past the end, one input given twice.
runtime::Status placeInputs(const std::vector<LoadedInput> &inputs,
                            const std::vector<std::string> &modelNames,
                            const std::vector<int> &positional, std::vector<int> &modelIndex);

} // namespace aicc::run

#endif // AICC_RUNTIME_INPUTFILES_H
