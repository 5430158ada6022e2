//===- BundleValidate.cpp - validateBundle(): every invariant and cap -----===//
//
// Checks a Bundle against docs/bundle-format.md and the caps of Limits before
// the runtime trusts any of its numbers. Every product and sum is computed
// with overflow checks (__builtin_*_overflow); every lookup is by index or
// hash map, so a hostile manifest of a million records validates in linear
// time. Messages start with the record's manifest line when it is known.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/MemoryPlan.h"

#include "BundleInternal.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

namespace {

/// The NN of a target `sm_NN`, `sm_NNa` or `sm_NNf`; 0 for cpu. Requires
/// isValidTarget(target).
int targetSMVersion(std::string_view target) {
  if (target.substr(0, 3) != "sm_")
    return 0;
  int v = 0;
  for (char c : target.substr(3)) {
    if (c < '0' || c > '9')
      break;
    v = v > 100000 ? v : v * 10 + (c - '0');
  }
  return v;
}

/// "kernel 'K': tensor map I (param P, f16 dims [..] ...)", for error messages.
std::string tensorMapLabel(const KernelDesc &k, size_t index) {
  return "kernel '" + k.name + "': tensor map " + std::to_string(index) + " (" +
         formatTensorMap(k.tensorMaps[index]) + ")";
}

/// ", above the limit of N (Limits::FIELD)".
std::string aboveLimit(uint64_t limit, const char *field) {
  return ", above the limit of " + std::to_string(limit) + " (Limits::" + field + ")";
}

/// Checks tensor map `index` of `k` against the parameter limits of
/// cuTensorMapEncodeTiled (CUDA Driver API reference, "Tensor Map Object
/// Management", with CU_TENSOR_MAP_INTERLEAVE_NONE and element strides 1).
Status validateTensorMap(const KernelDesc &k, size_t index) {
  const TensorMapDesc &t = k.tensorMaps[index];
  auto error = [&](const std::string &msg) {
    return Status::error(manifestAt(t.line) + tensorMapLabel(k, index) + ": " + msg);
  };
  if (t.param < 0 || t.param >= k.numParams)
    return error("PARAM " + std::to_string(t.param) + " is not one of the kernel's " +
                 std::to_string(k.numParams) + " buffer parameters");
  const uint64_t elementBytes = dtypeSize(t.dtype);
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 && elementBytes != 8)
    return error("dtype " + std::string(dtypeName(t.dtype)) + " is " +
                 std::to_string(elementBytes) + " bytes; TMA elements are 1, 2, 4 or 8 bytes");
  const size_t rank = t.dims.size();
  if (rank < 1 || rank > 5)
    return error("rank " + std::to_string(rank) + " is not in [1, 5]");
  if (t.strides.size() != rank - 1)
    return error(std::to_string(t.strides.size()) + " strides for rank " + std::to_string(rank) +
                 " (expected " + std::to_string(rank - 1) +
                 ": one per dim but the contiguous innermost one)");
  if (t.box.size() != rank)
    return error("the box has " + std::to_string(t.box.size()) + " dims for rank " +
                 std::to_string(rank));
  for (size_t i = 0; i < rank; ++i)
    if (t.dims[i] < 1 || t.dims[i] > (uint64_t(1) << 32))
      return error("dim " + std::to_string(i) + " = " + std::to_string(t.dims[i]) +
                   " is not in [1, 2^32]");
  for (size_t i = 0; i + 1 < rank; ++i)
    if (t.strides[i] % 16 != 0 || t.strides[i] >= (uint64_t(1) << 40))
      return error("stride " + std::to_string(i) + " = " + std::to_string(t.strides[i]) +
                   " bytes is not a multiple of 16 below 2^40");
  for (size_t i = 0; i < rank; ++i)
    if (t.box[i] < 1 || t.box[i] > 256)
      return error("box dim " + std::to_string(i) + " = " + std::to_string(t.box[i]) +
                   " is not in [1, 256]");
  const uint64_t innerBoxBytes = uint64_t(t.box.back()) * elementBytes;
  if (innerBoxBytes % 16 != 0)
    return error("the box's innermost dim is " + std::to_string(innerBoxBytes) +
                 " bytes, not a multiple of 16");
  if (t.swizzle != 0 && t.swizzle != 32 && t.swizzle != 64 && t.swizzle != 128)
    return error("swizzle " + std::to_string(t.swizzle) + " is not 0, 32, 64 or 128 bytes");
  if (t.swizzle != 0 && innerBoxBytes > t.swizzle)
    return error("the box's innermost dim is " + std::to_string(innerBoxBytes) +
                 " bytes, more than the " + std::to_string(t.swizzle) + "-byte swizzle span");
  return Status::success();
}

/// Bytes from the map's global address to one past its last element:
/// dims.back() * element size + sum over the outer dims of (dim - 1) * stride.
/// std::nullopt on overflow. Requires a map that passed validateTensorMap().
std::optional<uint64_t> tensorMapSpanBytes(const TensorMapDesc &t) {
  uint64_t span = t.dims.back() * dtypeSize(t.dtype);
  for (size_t i = 0; i + 1 < t.dims.size(); ++i) {
    uint64_t part = 0;
    if (__builtin_mul_overflow(t.dims[i] - 1, t.strides[i], &part) ||
        __builtin_add_overflow(span, part, &span))
      return std::nullopt;
  }
  return span;
}

/// product(shape) * dtypeSize(dtype); std::nullopt for a negative dimension
/// or an overflow of uint64_t.
std::optional<uint64_t> shapeBytes(DType dtype, const std::vector<int64_t> &shape) {
  std::optional<int64_t> numel = shapeNumElements(shape);
  uint64_t bytes = 0;
  if (!numel || __builtin_mul_overflow(static_cast<uint64_t>(*numel),
                                       static_cast<uint64_t>(dtypeSize(dtype)), &bytes))
    return std::nullopt;
  return bytes;
}

/// "[offset, offset + size)" without wrapping.
std::string byteRange(uint64_t offset, uint64_t size) {
  uint64_t end = 0;
  return "[" + std::to_string(offset) + ", " +
         (__builtin_add_overflow(offset, size, &end) ? std::string("2^64 or more")
                                                     : std::to_string(end)) +
         ")";
}

Status validateBuffers(const Bundle &bundle, const Limits &limits) {
  const int numBuffers = static_cast<int>(bundle.buffers.size());
  uint64_t allocated = bundle.arenaBytes.value_or(0);
  if (allocated > limits.maxBufferBytes)
    return Status::error("the arena of " + std::to_string(allocated) + " bytes is above " +
                         std::to_string(limits.maxBufferBytes) +
                         " bytes (Limits::maxBufferBytes; aicc-run --max-buffer-bytes)");
  for (int i = 0; i < numBuffers; ++i) {
    const BufferDesc &b = bundle.buffers[i];
    const std::string label = manifestAt(b.line) + bufferLabel(i);
    if (b.id != i)
      return Status::error(label + ": id is " + std::to_string(b.id) +
                           " (buffer ids must be 0, 1, 2 ... in order)");
    std::optional<int64_t> numel = shapeNumElements(b.shape);
    if (!numel)
      return Status::error(label + ": invalid shape " + formatTensorType(b.dtype, b.shape) +
                           " (negative dimension or element count overflow)");
    std::optional<uint64_t> expected = shapeBytes(b.dtype, b.shape);
    if (!expected)
      return Status::error(label + ": byte size of " + formatTensorType(b.dtype, b.shape) +
                           " overflows");
    if (*expected != b.sizeBytes)
      return Status::error(label + ": SIZE_BYTES is " + std::to_string(b.sizeBytes) + " but " +
                           formatTensorType(b.dtype, b.shape) + " needs " +
                           std::to_string(*expected) + " bytes");
    if (b.kind != BufferKind::alias && !(b.kind == BufferKind::temp && bundle.arenaBytes)) {
      // What the backends allocate (temps of an arena: the arena, counted
      // first); checked before any allocation.
      if (__builtin_add_overflow(allocated, b.sizeBytes, &allocated) ||
          allocated > limits.maxBufferBytes)
        return Status::error(label + ": SIZE_BYTES " + std::to_string(b.sizeBytes) +
                             " brings the plan's buffers to more than " +
                             std::to_string(limits.maxBufferBytes) +
                             " bytes (Limits::maxBufferBytes; aicc-run --max-buffer-bytes)");
    }
    if (b.kind == BufferKind::constant) {
      if (b.offset % kConstAlignment != 0)
        return Status::error(label + ": const offset " + std::to_string(b.offset) +
                             " is not a multiple of 64");
      uint64_t w = bundle.weights.size();
      if (b.offset > w || b.sizeBytes > w - b.offset)
        return Status::error(label + ": const data " + byteRange(b.offset, b.sizeBytes) +
                             " lies past the end of the weights section (" + std::to_string(w) +
                             " bytes)");
    } else if (b.kind == BufferKind::alias) {
      if (b.offset >= static_cast<uint64_t>(i))
        return Status::error(label + ": alias source " + std::to_string(b.offset) +
                             " must be a buffer declared before it");
      const BufferDesc &src = bundle.buffers[b.offset];
      if (src.sizeBytes < b.sizeBytes)
        return Status::error(label + ": alias of " + std::to_string(b.sizeBytes) +
                             " bytes is larger than its source " + bufferLabel(src.id) + " (" +
                             std::to_string(src.sizeBytes) + " bytes)");
    } else if (b.offset != 0 && !(b.kind == BufferKind::temp && bundle.arenaBytes)) {
      return Status::error(label + ": kind " + bufferKindName(b.kind) + " takes no OFFSET" +
                           (b.kind == BufferKind::temp ? " (no arena record)" : ""));
    }
  }
  return Status::success();
}

Status validateInputsAndOutputs(const Bundle &bundle) {
  const int numBuffers = static_cast<int>(bundle.buffers.size());
  std::vector<int> inputBinding(numBuffers, -1);
  std::unordered_set<std::string_view> inputNames;
  for (size_t i = 0; i < bundle.inputs.size(); ++i) {
    const IODesc &io = bundle.inputs[i];
    std::string label = manifestAt(io.line) + "input " + std::to_string(i);
    if (io.index != static_cast<int>(i))
      return Status::error(label + ": index is " + std::to_string(io.index) +
                           " (input indices must be 0, 1, 2 ... in order)");
    if (io.name.empty())
      return Status::error(label + ": empty name");
    if (io.bufferId < 0 || io.bufferId >= numBuffers)
      return Status::error(label + " ('" + io.name + "'): buffer id " +
                           std::to_string(io.bufferId) + " is out of range (" +
                           std::to_string(numBuffers) + " buffers)");
    const BufferDesc &b = bundle.buffers[io.bufferId];
    if (b.kind != BufferKind::input)
      return Status::error(label + " ('" + io.name + "'): " + bufferLabel(b.id) + " has kind " +
                           bufferKindName(b.kind) + ", expected input");
    if (inputBinding[io.bufferId] >= 0)
      return Status::error(label + " ('" + io.name + "'): " + bufferLabel(b.id) +
                           " is already bound to input " +
                           std::to_string(inputBinding[io.bufferId]));
    inputBinding[io.bufferId] = static_cast<int>(i);
    inputNames.insert(io.name);
  }
  for (int i = 0; i < numBuffers; ++i)
    if (bundle.buffers[i].kind == BufferKind::input && inputBinding[i] < 0)
      return Status::error(manifestAt(bundle.buffers[i].line) + bufferLabel(i) +
                           " has kind input but no input record binds it");

  const size_t numModelInputs = bundle.inputs.size() + bundle.boundInputs.size();
  for (size_t j = 0; j < bundle.boundInputs.size(); ++j) {
    const BoundInputDesc &bi = bundle.boundInputs[j];
    std::string label =
        manifestAt(bi.line) + "bound input " + std::to_string(j) + " ('" + bi.name + "')";
    if (bi.name.empty())
      return Status::error(manifestAt(bi.line) + "bound input " + std::to_string(j) +
                           ": empty name");
    if (bi.position < 0 || static_cast<size_t>(bi.position) >= numModelInputs)
      return Status::error(label + ": position " + std::to_string(bi.position) +
                           " is out of range (" + std::to_string(numModelInputs) +
                           " model inputs, bound and runtime)");
    if (j > 0 && bi.position <= bundle.boundInputs[j - 1].position)
      return Status::error(label + ": position " + std::to_string(bi.position) +
                           " does not follow " +
                           std::to_string(bundle.boundInputs[j - 1].position) +
                           " (bound inputs are listed by increasing position)");
    if (inputNames.count(bi.name))
      for (const IODesc &io : bundle.inputs)
        if (io.name == bi.name)
          return Status::error(label + ": also named by input " + std::to_string(io.index));
    std::optional<uint64_t> expected = shapeBytes(bi.dtype, bi.shape);
    if (!expected)
      return Status::error(label + ": invalid shape " + formatTensorType(bi.dtype, bi.shape));
    if (*expected != bi.sizeBytes)
      return Status::error(label + ": SIZE_BYTES is " + std::to_string(bi.sizeBytes) + " but " +
                           formatTensorType(bi.dtype, bi.shape) + " needs " +
                           std::to_string(*expected) + " bytes");
    if (bi.offset % kConstAlignment != 0)
      return Status::error(label + ": offset " + std::to_string(bi.offset) +
                           " is not a multiple of 64");
    uint64_t w = bundle.weights.size();
    if (bi.offset > w || bi.sizeBytes > w - bi.offset)
      return Status::error(label + ": value " + byteRange(bi.offset, bi.sizeBytes) +
                           " lies past the end of the weights section (" + std::to_string(w) +
                           " bytes)");
  }

  for (size_t i = 0; i < bundle.outputs.size(); ++i) {
    const IODesc &io = bundle.outputs[i];
    std::string label = manifestAt(io.line) + "output " + std::to_string(i);
    if (io.index != static_cast<int>(i))
      return Status::error(label + ": index is " + std::to_string(io.index) +
                           " (output indices must be 0, 1, 2 ... in order)");
    if (io.name.empty())
      return Status::error(label + ": empty name");
    if (io.bufferId < 0 || io.bufferId >= numBuffers)
      return Status::error(label + " ('" + io.name + "'): buffer id " +
                           std::to_string(io.bufferId) + " is out of range (" +
                           std::to_string(numBuffers) + " buffers)");
  }
  return Status::success();
}

Status validateKernel(const Bundle &bundle, const KernelDesc &k, const Limits &limits) {
  const std::string label = manifestAt(k.line) + "kernel '" + k.name + "'";
  const bool isCpu = bundle.target == "cpu";
  uint64_t programs = 1, threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (k.grid[d] < 1 || k.block[d] < 1)
      return Status::error(label + ": grid and block sizes must be >= 1");
    if (__builtin_mul_overflow(programs, static_cast<uint64_t>(k.grid[d]), &programs))
      programs = UINT64_MAX;
    if (__builtin_mul_overflow(threads, static_cast<uint64_t>(k.block[d]), &threads))
      threads = UINT64_MAX;
  }
  auto dims = [](const std::array<int64_t, 3> &a) {
    return std::to_string(a[0]) + "x" + std::to_string(a[1]) + "x" + std::to_string(a[2]);
  };
  auto count = [](uint64_t n) {
    return n == UINT64_MAX ? std::string("2^64 or more") : std::to_string(n);
  };
  if (programs > limits.maxPrograms)
    return Status::error(label + ": grid " + dims(k.grid) + " is " + count(programs) + " programs" +
                         aboveLimit(limits.maxPrograms, "maxPrograms"));
  if (isCpu && threads != 1)
    return Status::error(label + ": block must be 1 1 1 on the cpu target");
  if (threads > limits.maxThreadsPerBlock)
    return Status::error(label + ": block " + dims(k.block) + " is " + count(threads) + " threads" +
                         aboveLimit(limits.maxThreadsPerBlock, "maxThreadsPerBlock"));
  if (k.sharedBytes > limits.maxSharedBytes)
    return Status::error(label + ": SHARED_BYTES " + std::to_string(k.sharedBytes) +
                         aboveLimit(limits.maxSharedBytes, "maxSharedBytes"));
  if (k.numParams < 0)
    return Status::error(label + ": negative parameter count");
  if (static_cast<uint64_t>(k.numParams) > limits.maxKernelParams)
    return Status::error(label + ": NUM_PARAMS " + std::to_string(k.numParams) +
                         aboveLimit(limits.maxKernelParams, "maxKernelParams"));
  if (bundle.formatVersion >= kFormatVersionChecksums) {
    if (k.params.size() != static_cast<size_t>(k.numParams))
      return Status::error(label + ": " + std::to_string(k.params.size()) +
                           " 'param' records for NUM_PARAMS " + std::to_string(k.numParams) +
                           " (version " + std::to_string(kFormatVersionChecksums) +
                           " needs one per buffer parameter)");
  } else if (!k.params.empty()) {
    return Status::error(label + ": 'param' records need format version " +
                         std::to_string(kFormatVersionChecksums) + ", not " +
                         std::to_string(bundle.formatVersion));
  }
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamDesc &p = k.params[i];
    if (p.sizeBytes % dtypeSize(p.dtype) != 0)
      return Status::error(manifestAt(p.line) + "kernel '" + k.name + "': parameter " +
                           std::to_string(i) + ": SIZE_BYTES " + std::to_string(p.sizeBytes) +
                           " is not a whole number of " + dtypeName(p.dtype) + " elements");
  }
  if (!k.inPlace.empty() && bundle.formatVersion < kFormatVersionInPlace)
    return Status::error(label + ": 'inplace' records need format version " +
                         std::to_string(kFormatVersionInPlace) + ", not " +
                         std::to_string(bundle.formatVersion));
  std::vector<bool> inPairs(k.inPlace.empty() ? 0 : static_cast<size_t>(k.numParams), false);
  for (const InPlaceDesc &d : k.inPlace) {
    const std::string what = manifestAt(d.line) + "kernel '" + k.name + "': in-place pair (input " +
                             std::to_string(d.input) + ", output " + std::to_string(d.output) + ")";
    if (d.input < 0 || d.output < 0 || d.input >= k.numParams || d.output >= k.numParams)
      return Status::error(what + ": a parameter index outside 0.." +
                           std::to_string(k.numParams - 1));
    if (d.input == d.output)
      return Status::error(what + ": the same parameter twice");
    // Each parameter in one pair at most (so a kernel has at most numParams / 2 records,
    // and the memory plan's handoffs stay linear in the manifest).
    if (inPairs[d.input] || inPairs[d.output])
      return Status::error(what + ": parameter " +
                           std::to_string(inPairs[d.input] ? d.input : d.output) +
                           " is already in another in-place pair");
    inPairs[d.input] = inPairs[d.output] = true;
    // One bytes-per-element and one size: the output's element i lies where the
    // input's element i was (params has numParams entries from version 3).
    const ParamDesc &in = k.params[d.input], &out = k.params[d.output];
    if (dtypeSize(in.dtype) != dtypeSize(out.dtype) || in.sizeBytes != out.sizeBytes)
      return Status::error(what + ": the parameters differ in element size or bytes (" +
                           dtypeName(in.dtype) + ", " + std::to_string(in.sizeBytes) +
                           " bytes against " + dtypeName(out.dtype) + ", " +
                           std::to_string(out.sizeBytes) + ")");
  }
  if (!k.tensorMaps.empty() && bundle.formatVersion < kFormatVersionTensorMaps)
    return Status::error(label + ": tensor maps need format version 2 or newer, not " +
                         std::to_string(bundle.formatVersion));
  if (!k.tensorMaps.empty() && targetSMVersion(bundle.target) < 90)
    return Status::error(label + ": tensor maps (TMA) need a GPU target sm_90 or newer, not '" +
                         bundle.target + "'");
  for (size_t t = 0; t < k.tensorMaps.size(); ++t)
    if (Status s = validateTensorMap(k, t); !s.ok)
      return s;
  return Status::success();
}

Status validateLaunch(const Bundle &bundle, size_t index, const KernelDesc *k) {
  const LaunchDesc &l = bundle.launches[index];
  const int numBuffers = static_cast<int>(bundle.buffers.size());
  const std::string label =
      manifestAt(l.line) + "launch " + std::to_string(index) + " of '" + l.kernel + "'";
  if (!k)
    return Status::error(label + ": no kernel record with that name");
  if (l.buffers.size() != static_cast<size_t>(k->numParams))
    return Status::error(label + ": passes " + std::to_string(l.buffers.size()) +
                         " buffers but the kernel takes " + std::to_string(k->numParams));
  for (int id : l.buffers)
    if (id < 0 || id >= numBuffers)
      return Status::error(label + ": buffer id " + std::to_string(id) + " is out of range (" +
                           std::to_string(numBuffers) + " buffers)");
  // What the kernel's code expects (its `param` records) against what the plan
  // passes: a mismatch means the kernel would read or write outside a buffer.
  for (size_t i = 0; i < k->params.size(); ++i) {
    const ParamDesc &p = k->params[i];
    const BufferDesc &b = bundle.buffers[l.buffers[i]];
    if (!paramDTypeAccepts(p.dtype, b.dtype) || p.sizeBytes != b.sizeBytes)
      return Status::error(
          label + ": parameter " + std::to_string(i) + " is " + bufferLabel(b.id) + " " +
          formatTensorType(b.dtype, b.shape) + " (" + std::to_string(b.sizeBytes) +
          " bytes), but the kernel's code expects " + dtypeName(p.dtype) + " elements, " +
          std::to_string(p.sizeBytes) + " bytes (its 'param' record" +
          (p.line ? " at manifest line " + std::to_string(p.line) : std::string()) +
          "); the manifest's buffers disagree with the kernel");
  }
  // TMA reads (and writes) every in-bounds element of a map: it must lie
  // inside the buffer whose address it starts at.
  for (size_t t = 0; t < k->tensorMaps.size(); ++t) {
    const TensorMapDesc &tm = k->tensorMaps[t];
    const BufferDesc &b = bundle.buffers[l.buffers[tm.param]];
    std::optional<uint64_t> span = tensorMapSpanBytes(tm);
    if (!span || *span > b.sizeBytes)
      return Status::error(label + ": " + tensorMapLabel(*k, t) + " spans " +
                           (span ? std::to_string(*span) : std::string("more than 2^64")) +
                           " bytes but its " + bufferLabel(b.id) + " " +
                           formatTensorType(b.dtype, b.shape) + " holds " +
                           std::to_string(b.sizeBytes));
  }
  return Status::success();
}

} // namespace

Status aicc::runtime::validateBundle(const Bundle &bundle, const Limits &limits) {
  if (bundle.formatVersion < kFormatVersionPlain || bundle.formatVersion > kFormatVersionNewest)
    return Status::error("unsupported bundle format version " +
                         std::to_string(bundle.formatVersion) + " (this runtime reads 1 to " +
                         std::to_string(kFormatVersionNewest) + ")");
  if (bundle.arenaBytes && bundle.formatVersion < kFormatVersionArena)
    return Status::error("an arena (memory plan) needs format version " +
                         std::to_string(kFormatVersionArena) + ", not " +
                         std::to_string(bundle.formatVersion));
  const bool symbolic =
      !bundle.symbols.empty() || !bundle.symDims.empty() || !bundle.symGrids.empty();
  if (symbolic && bundle.formatVersion < kFormatVersionSymbols)
    return Status::error("symbolic dims ('symbol', 'symdim' and 'symgrid' records) need format "
                         "version " +
                         std::to_string(kFormatVersionSymbols) + ", not " +
                         std::to_string(bundle.formatVersion));
  if (!isValidTarget(bundle.target))
    return Status::error("invalid target '" + bundle.target +
                         "' (expected cpu or sm_NN, e.g. sm_90a)");
  if (bundle.buffers.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return Status::error("too many buffers");
  if (Status s = validateBuffers(bundle, limits); !s.ok)
    return s;
  if (Status s = validateInputsAndOutputs(bundle); !s.ok)
    return s;

  std::unordered_map<std::string_view, const KernelDesc *> kernels;
  for (const KernelDesc &k : bundle.kernels) {
    if (k.name.empty())
      return Status::error(manifestAt(k.line) + "kernel with an empty name");
    if (!kernels.emplace(k.name, &k).second)
      return Status::error(manifestAt(k.line) + "kernel '" + k.name + "' is declared twice");
    if (Status s = validateKernel(bundle, k, limits); !s.ok)
      return s;
  }
  if (!bundle.kernels.empty() && bundle.code.empty())
    return Status::error("the bundle declares kernels but its code section is empty");

  for (size_t i = 0; i < bundle.launches.size(); ++i) {
    auto it = kernels.find(bundle.launches[i].kernel);
    if (Status s = validateLaunch(bundle, i, it == kernels.end() ? nullptr : it->second); !s.ok)
      return s;
  }
  if (Status s = validateSymbolicRecords(bundle, kernels); !s.ok)
    return s;
  // Last: it needs valid launch buffer ids and alias order.
  if (Status s = checkMemoryPlan(bundle); !s.ok)
    return s.withContext("memory plan");
  return Status::success();
}
