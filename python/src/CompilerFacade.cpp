//===- CompilerFacade.cpp - aicc::compileModel in plain C++ types ---------===//
//
// Built with the project's flags (no -frtti added): the only translation unit of the
// Python extension that includes LLVM headers. See CompilerFacade.h.
//
//===----------------------------------------------------------------------===//
#include "CompilerFacade.h"

#include "aicc/Compiler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>
#include <optional>
#include <type_traits>

using namespace aicc;
using namespace aicc::python;

namespace {

std::optional<EmitKind> parseEmit(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<EmitKind>>(name)
      .Case("bundle", EmitKind::Bundle)
      .Case("cubin", EmitKind::Cubin)
      .Case("ptx", EmitKind::PTX)
      .Case("onnx", EmitKind::Import)
      .Case("graph", EmitKind::Graph)
      .Case("fused", EmitKind::Fused)
      .Case("tile", EmitKind::Tile)
      .Case("lowered", EmitKind::Lowered)
      .Case("llvm", EmitKind::LLVM)
      .Case("dot", EmitKind::Dot)
      .Case("fusion-report", EmitKind::FusionReport)
      .Case("memory-report", EmitKind::MemoryReport)
      .Default(std::nullopt);
}

/// Parses `text` into `field` by the field's type; false when it does not parse.
bool parseValue(llvm::StringRef text, bool &field) {
  if (text == "true" || text == "1") {
    field = true;
    return true;
  }
  if (text == "false" || text == "0") {
    field = false;
    return true;
  }
  return false;
}
template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
bool parseValue(llvm::StringRef text, Int &field) {
  long long v;
  if (text.getAsInteger(10, v) || v < (long long)std::numeric_limits<Int>::min() ||
      v > (long long)std::numeric_limits<Int>::max())
    return false;
  field = static_cast<Int>(v);
  return true;
}
bool parseValue(llvm::StringRef text, std::string &field) {
  field = text.str();
  return true;
}

template <typename T> const char *typeName() {
  if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_integral_v<T>)
    return "int";
  else
    return "string";
}

/// Sets the knob whose flag is `flag`; false with `error` set otherwise.
bool setOption(PipelineConfig &config, const std::string &flag, const std::string &value,
               std::string &error) {
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                              \
  if (flag == FLAG) {                                                                              \
    if (parseValue(value, config.FIELD))                                                           \
      return true;                                                                                 \
    error = std::string("option '") + FLAG + "' takes a " + typeName<TYPE>() + ", got '" + value + \
            "'";                                                                                   \
    return false;                                                                                  \
  }
#include "aicc/Pipelines/PipelineOptions.def"
  error = "unknown option '" + flag + "' (aicc.pipeline_options() lists them)";
  return false;
}

template <typename T> std::string defaultText(const T &value) {
  if constexpr (std::is_same_v<T, bool>)
    return value ? "true" : "false";
  else if constexpr (std::is_integral_v<T>)
    return std::to_string(value);
  else
    return std::string(value);
}

} // namespace

bool aicc::python::compile(const CompileRequest &request, std::string &out, std::string &error) {
  auto target = parseTarget(request.target);
  if (!target) {
    error = llvm::toString(target.takeError());
    return false;
  }
  std::optional<EmitKind> emit = parseEmit(request.emit);
  if (!emit) {
    error = "unknown emit kind '" + request.emit +
            "' (bundle, cubin, ptx, onnx, graph, fused, tile, lowered, llvm, dot, "
            "fusion-report or memory-report)";
    return false;
  }
  CompileOptions options;
  options.target = *target;
  for (const auto &[flag, value] : request.options)
    if (!setOption(options, flag, value, error))
      return false;
  for (const auto &[name, path] : request.bindInputs)
    options.bindInputs.push_back({name, path});
  options.inputShapes = request.inputShapes;
  for (const CompileRequest::Dim &dim : request.dims) {
    if (dim.symbolic)
      options.symbolicDims.push_back({dim.name, dim.min, dim.max});
    else
      options.dimParams.push_back({dim.name, dim.min});
  }
  options.specializations = request.specializations;
  options.cudaPath = request.cudaPath;
  if (request.maxTensorBytes)
    options.maxTensorBytes = request.maxTensorBytes;
  auto bytes = compileModel(request.model, request.bufferName,
                            request.isMLIR ? InputKind::MLIR : InputKind::ONNX, *emit, options);
  if (!bytes) {
    error = llvm::toString(bytes.takeError());
    return false;
  }
  out = std::move(*bytes);
  return true;
}

std::vector<OptionInfo> aicc::python::pipelineOptions() {
  std::vector<OptionInfo> infos;
  PipelineConfig defaults;
  (void)defaults;
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                              \
  infos.push_back({FLAG, typeName<TYPE>(), defaultText(defaults.FIELD), DESCRIPTION});
#include "aicc/Pipelines/PipelineOptions.def"
  return infos;
}
