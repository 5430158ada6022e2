//===- Bundle.cpp - The .aicc bundle reader and writer --------------------===//
//
// Implements docs/bundle-format.md (versions 1 and 2). The reader is strict: every
// length, id and offset is checked before it is used, so malformed input gives
// an error Status, never an out-of-bounds access.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

using namespace aicc::runtime;

static constexpr char kMagic[8] = {'A', 'I', 'C', 'C', 'B', 'N', 'D', '1'};
/// Version 1: no tensor maps; version 2 adds the `tensormap` record. The writer
/// emits the lowest version that can hold the bundle.
static constexpr int kFormatVersionPlain = 1;
static constexpr int kFormatVersionTensorMaps = 2;
static constexpr uint64_t kConstAlignment = 64;

//===----------------------------------------------------------------------===//
// DType / BufferKind
//===----------------------------------------------------------------------===//

size_t aicc::runtime::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::f64:
  case DType::i64:
  case DType::u64:
    return 8;
  case DType::f32:
  case DType::i32:
  case DType::u32:
    return 4;
  case DType::f16:
  case DType::bf16:
  case DType::i16:
  case DType::u16:
    return 2;
  case DType::i8:
  case DType::u8:
  case DType::boolean:
    return 1;
  }
  return 0;
}

const char *aicc::runtime::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "f32";
  case DType::f16:
    return "f16";
  case DType::bf16:
    return "bf16";
  case DType::f64:
    return "f64";
  case DType::i64:
    return "i64";
  case DType::i32:
    return "i32";
  case DType::i16:
    return "i16";
  case DType::i8:
    return "i8";
  case DType::u64:
    return "u64";
  case DType::u32:
    return "u32";
  case DType::u16:
    return "u16";
  case DType::u8:
    return "u8";
  case DType::boolean:
    return "bool";
  }
  return "?";
}

std::optional<DType> aicc::runtime::parseDType(std::string_view name) {
  static constexpr DType kAll[] = {
      DType::f32, DType::f16, DType::bf16, DType::f64, DType::i64,
      DType::i32, DType::i16, DType::i8,   DType::u64, DType::u32,
      DType::u16, DType::u8,  DType::boolean};
  for (DType d : kAll)
    if (name == dtypeName(d))
      return d;
  return std::nullopt;
}

std::string aicc::runtime::formatTensorType(DType dtype,
                                            const std::vector<int64_t> &shape) {
  std::string s = dtypeName(dtype);
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

std::optional<int64_t>
aicc::runtime::shapeNumElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  }
  return n;
}

const char *aicc::runtime::bufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::input:
    return "input";
  case BufferKind::output:
    return "output";
  case BufferKind::temp:
    return "temp";
  case BufferKind::constant:
    return "const";
  case BufferKind::alias:
    return "alias";
  }
  return "?";
}

std::optional<BufferKind> aicc::runtime::parseBufferKind(std::string_view name) {
  static constexpr BufferKind kAll[] = {BufferKind::input, BufferKind::output,
                                        BufferKind::temp, BufferKind::constant,
                                        BufferKind::alias};
  for (BufferKind k : kAll)
    if (name == bufferKindName(k))
      return k;
  return std::nullopt;
}

const KernelDesc *Bundle::findKernel(std::string_view name) const {
  for (const KernelDesc &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::vector<int> Bundle::modelInputOrder() const {
  std::vector<int> order(inputs.size() + boundInputs.size(), 0);
  std::vector<bool> isBound(order.size(), false);
  for (size_t j = 0; j < boundInputs.size(); ++j) {
    size_t pos = static_cast<size_t>(boundInputs[j].position);
    if (pos < order.size()) {
      order[pos] = -1 - static_cast<int>(j);
      isBound[pos] = true;
    }
  }
  int next = 0;
  for (size_t k = 0; k < order.size(); ++k)
    if (!isBound[k])
      order[k] = next++;
  return order;
}

//===----------------------------------------------------------------------===//
// Percent-encoding
//===----------------------------------------------------------------------===//

static bool isPlainNameByte(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
         c == '/' || c == '-';
}

static int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

std::string aicc::runtime::percentEncode(std::string_view name) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (isPlainNameByte(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Status aicc::runtime::percentDecode(std::string_view field, std::string &out) {
  out.clear();
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    auto c = static_cast<unsigned char>(field[i]);
    if (c == '%') {
      int hi = i + 1 < field.size() ? hexValue(field[i + 1]) : -1;
      int lo = i + 2 < field.size() ? hexValue(field[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return Status::error("bad percent escape in name '" +
                             std::string(field) +
                             "' ('%' must be followed by two hex digits)");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
      continue;
    }
    if (!isPlainNameByte(c))
      return Status::error("name '" + std::string(field) +
                           "' holds a byte that must be percent-encoded (" +
                           percentEncode(std::string_view(&field[i], 1)) + ")");
    out += field[i];
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

static bool isValidTarget(std::string_view t) {
  if (t == "cpu")
    return true;
  if (t.size() < 4 || t.substr(0, 3) != "sm_")
    return false;
  std::string_view rest = t.substr(3);
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f'))
    rest.remove_suffix(1);
  if (rest.empty())
    return false;
  for (char c : rest)
    if (c < '0' || c > '9')
      return false;
  return true;
}

static std::string bufferLabel(int id) {
  return "buffer " + std::to_string(id);
}

/// The NN of a target `sm_NN`, `sm_NNa` or `sm_NNf`; 0 for cpu. Requires
/// isValidTarget(target).
static int targetSMVersion(std::string_view target) {
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

template <typename T> static std::string formatList(const std::vector<T> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? "," : "") + std::to_string(values[i]);
  return s + "]";
}

std::string aicc::runtime::formatTensorMap(const TensorMapDesc &t) {
  return "param " + std::to_string(t.param) + ", " + dtypeName(t.dtype) + " dims " +
         formatList(t.dims) + " strides " + formatList(t.strides) + " box " + formatList(t.box) +
         " swizzle " + std::to_string(t.swizzle);
}

/// "kernel 'K': tensor map I (param P, f16 dims [..] ...)", for error messages.
static std::string tensorMapLabel(const KernelDesc &k, size_t index) {
  return "kernel '" + k.name + "': tensor map " + std::to_string(index) + " (" +
         formatTensorMap(k.tensorMaps[index]) + ")";
}

/// Checks tensor map `index` of `k` against the parameter limits of
/// cuTensorMapEncodeTiled (CUDA Driver API reference, "Tensor Map Object
/// Management", with CU_TENSOR_MAP_INTERLEAVE_NONE and element strides 1).
static Status validateTensorMap(const KernelDesc &k, size_t index) {
  const TensorMapDesc &t = k.tensorMaps[index];
  auto error = [&](const std::string &msg) {
    return Status::error(tensorMapLabel(k, index) + ": " + msg);
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
static std::optional<uint64_t> tensorMapSpanBytes(const TensorMapDesc &t) {
  uint64_t span = t.dims.back() * dtypeSize(t.dtype);
  for (size_t i = 0; i + 1 < t.dims.size(); ++i) {
    uint64_t part = 0;
    if (__builtin_mul_overflow(t.dims[i] - 1, t.strides[i], &part) ||
        __builtin_add_overflow(span, part, &span))
      return std::nullopt;
  }
  return span;
}

Status aicc::runtime::validateBundle(const Bundle &bundle) {
  if (!isValidTarget(bundle.target))
    return Status::error("invalid target '" + bundle.target +
                         "' (expected cpu or sm_NN, e.g. sm_90a)");
  const bool isCpu = bundle.target == "cpu";
  const int numBuffers = static_cast<int>(bundle.buffers.size());
  if (bundle.buffers.size() >
      static_cast<size_t>(std::numeric_limits<int>::max()))
    return Status::error("too many buffers");

  for (int i = 0; i < numBuffers; ++i) {
    const BufferDesc &b = bundle.buffers[i];
    std::string label = bufferLabel(i);
    if (b.id != i)
      return Status::error(label + ": id is " + std::to_string(b.id) +
                           " (buffer ids must be 0, 1, 2 ... in order)");
    std::optional<int64_t> numel = shapeNumElements(b.shape);
    if (!numel)
      return Status::error(label + ": invalid shape " +
                           formatTensorType(b.dtype, b.shape) +
                           " (negative dimension or element count overflow)");
    uint64_t expected = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(*numel),
                               static_cast<uint64_t>(dtypeSize(b.dtype)),
                               &expected))
      return Status::error(label + ": byte size of " +
                           formatTensorType(b.dtype, b.shape) + " overflows");
    if (expected != b.sizeBytes)
      return Status::error(label + ": SIZE_BYTES is " +
                           std::to_string(b.sizeBytes) + " but " +
                           formatTensorType(b.dtype, b.shape) + " needs " +
                           std::to_string(expected) + " bytes");
    if (b.kind == BufferKind::constant) {
      if (b.offset % kConstAlignment != 0)
        return Status::error(label + ": const offset " +
                             std::to_string(b.offset) +
                             " is not a multiple of 64");
      uint64_t w = bundle.weights.size();
      if (b.offset > w || b.sizeBytes > w - b.offset)
        return Status::error(label + ": const data [" +
                             std::to_string(b.offset) + ", " +
                             std::to_string(b.offset + b.sizeBytes) +
                             ") lies past the end of the weights section (" +
                             std::to_string(w) + " bytes)");
    } else if (b.kind == BufferKind::alias) {
      if (b.offset >= static_cast<uint64_t>(i))
        return Status::error(label + ": alias source " +
                             std::to_string(b.offset) +
                             " must be a buffer declared before it");
      const BufferDesc &src = bundle.buffers[b.offset];
      if (src.sizeBytes < b.sizeBytes)
        return Status::error(label + ": alias of " + std::to_string(b.sizeBytes) +
                             " bytes is larger than its source " +
                             bufferLabel(src.id) + " (" +
                             std::to_string(src.sizeBytes) + " bytes)");
    } else if (b.offset != 0) {
      return Status::error(label + ": kind " + bufferKindName(b.kind) +
                           " takes no OFFSET");
    }
  }

  std::vector<int> inputBinding(numBuffers, -1);
  for (size_t i = 0; i < bundle.inputs.size(); ++i) {
    const IODesc &io = bundle.inputs[i];
    std::string label = "input " + std::to_string(i);
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
      return Status::error(label + " ('" + io.name + "'): " +
                           bufferLabel(b.id) + " has kind " +
                           bufferKindName(b.kind) + ", expected input");
    if (inputBinding[io.bufferId] >= 0)
      return Status::error(label + " ('" + io.name + "'): " +
                           bufferLabel(b.id) + " is already bound to input " +
                           std::to_string(inputBinding[io.bufferId]));
    inputBinding[io.bufferId] = static_cast<int>(i);
  }
  for (int i = 0; i < numBuffers; ++i)
    if (bundle.buffers[i].kind == BufferKind::input && inputBinding[i] < 0)
      return Status::error(bufferLabel(i) +
                           " has kind input but no input record binds it");

  const size_t numModelInputs = bundle.inputs.size() + bundle.boundInputs.size();
  for (size_t j = 0; j < bundle.boundInputs.size(); ++j) {
    const BoundInputDesc &bi = bundle.boundInputs[j];
    std::string label = "bound input " + std::to_string(j) + " ('" + bi.name + "')";
    if (bi.name.empty())
      return Status::error("bound input " + std::to_string(j) + ": empty name");
    if (bi.position < 0 || static_cast<size_t>(bi.position) >= numModelInputs)
      return Status::error(label + ": position " + std::to_string(bi.position) +
                           " is out of range (" + std::to_string(numModelInputs) +
                           " model inputs, bound and runtime)");
    if (j > 0 && bi.position <= bundle.boundInputs[j - 1].position)
      return Status::error(label + ": position " + std::to_string(bi.position) +
                           " does not follow " +
                           std::to_string(bundle.boundInputs[j - 1].position) +
                           " (bound inputs are listed by increasing position)");
    for (const IODesc &io : bundle.inputs)
      if (io.name == bi.name)
        return Status::error(label + ": also named by input " + std::to_string(io.index));
    std::optional<int64_t> numel = shapeNumElements(bi.shape);
    uint64_t expected = 0;
    if (!numel || __builtin_mul_overflow(static_cast<uint64_t>(*numel),
                                         static_cast<uint64_t>(dtypeSize(bi.dtype)), &expected))
      return Status::error(label + ": invalid shape " + formatTensorType(bi.dtype, bi.shape));
    if (expected != bi.sizeBytes)
      return Status::error(label + ": SIZE_BYTES is " + std::to_string(bi.sizeBytes) + " but " +
                           formatTensorType(bi.dtype, bi.shape) + " needs " +
                           std::to_string(expected) + " bytes");
    if (bi.offset % kConstAlignment != 0)
      return Status::error(label + ": offset " + std::to_string(bi.offset) +
                           " is not a multiple of 64");
    uint64_t w = bundle.weights.size();
    if (bi.offset > w || bi.sizeBytes > w - bi.offset)
      return Status::error(label + ": value [" + std::to_string(bi.offset) + ", " +
                           std::to_string(bi.offset + bi.sizeBytes) +
                           ") lies past the end of the weights section (" + std::to_string(w) +
                           " bytes)");
  }

  for (size_t i = 0; i < bundle.outputs.size(); ++i) {
    const IODesc &io = bundle.outputs[i];
    std::string label = "output " + std::to_string(i);
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

  std::set<std::string_view> kernelNames;
  for (const KernelDesc &k : bundle.kernels) {
    std::string label = "kernel '" + k.name + "'";
    if (k.name.empty())
      return Status::error("kernel with an empty name");
    if (!kernelNames.insert(k.name).second)
      return Status::error(label + " is declared twice");
    int64_t programs = 1;
    for (int d = 0; d < 3; ++d) {
      if (k.grid[d] < 1 || k.block[d] < 1)
        return Status::error(label + ": grid and block sizes must be >= 1");
      if (__builtin_mul_overflow(programs, k.grid[d], &programs))
        return Status::error(label + ": grid size overflows");
    }
    if (isCpu && (k.block[0] != 1 || k.block[1] != 1 || k.block[2] != 1))
      return Status::error(label + ": block must be 1 1 1 on the cpu target");
    if (k.numParams < 0)
      return Status::error(label + ": negative parameter count");
    if (!k.tensorMaps.empty() && targetSMVersion(bundle.target) < 90)
      return Status::error(label + ": tensor maps (TMA) need a GPU target sm_90 or newer, not '" +
                           bundle.target + "'");
    for (size_t t = 0; t < k.tensorMaps.size(); ++t)
      if (Status s = validateTensorMap(k, t); !s.ok)
        return s;
  }
  if (!bundle.kernels.empty() && bundle.code.empty())
    return Status::error("the bundle declares kernels but its code section is "
                         "empty");

  for (size_t i = 0; i < bundle.launches.size(); ++i) {
    const LaunchDesc &l = bundle.launches[i];
    std::string label = "launch " + std::to_string(i) + " of '" + l.kernel + "'";
    const KernelDesc *k = bundle.findKernel(l.kernel);
    if (!k)
      return Status::error(label + ": no kernel record with that name");
    if (l.buffers.size() != static_cast<size_t>(k->numParams))
      return Status::error(label + ": passes " +
                           std::to_string(l.buffers.size()) +
                           " buffers but the kernel takes " +
                           std::to_string(k->numParams));
    for (int id : l.buffers)
      if (id < 0 || id >= numBuffers)
        return Status::error(label + ": buffer id " + std::to_string(id) +
                             " is out of range (" + std::to_string(numBuffers) +
                             " buffers)");
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
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

static void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string aicc::runtime::serializeBundle(const Bundle &bundle) {
  bool anyTensorMaps = false;
  for (const KernelDesc &k : bundle.kernels)
    anyTensorMaps |= !k.tensorMaps.empty();
  std::string m;
  m += "aicc-bundle " +
       std::to_string(anyTensorMaps ? kFormatVersionTensorMaps : kFormatVersionPlain) + "\n";
  m += "target " + bundle.target + "\n";
  for (const BufferDesc &b : bundle.buffers) {
    m += "buffer " + std::to_string(b.id) + " " + dtypeName(b.dtype) + " " +
         bufferKindName(b.kind) + " " + std::to_string(b.sizeBytes) + " " +
         std::to_string(b.shape.size());
    for (int64_t d : b.shape)
      m += " " + std::to_string(d);
    if (b.kind == BufferKind::constant || b.kind == BufferKind::alias)
      m += " " + std::to_string(b.offset);
    m += "\n";
  }
  for (const IODesc &io : bundle.inputs)
    m += "input " + std::to_string(io.index) + " " +
         std::to_string(io.bufferId) + " " + percentEncode(io.name) + "\n";
  for (const BoundInputDesc &bi : bundle.boundInputs) {
    m += "bound " + std::to_string(bi.position) + " " + percentEncode(bi.name) + " " +
         dtypeName(bi.dtype) + " " + std::to_string(bi.sizeBytes) + " " +
         std::to_string(bi.shape.size());
    for (int64_t d : bi.shape)
      m += " " + std::to_string(d);
    m += " " + std::to_string(bi.offset) + "\n";
  }
  for (const IODesc &io : bundle.outputs)
    m += "output " + std::to_string(io.index) + " " +
         std::to_string(io.bufferId) + " " + percentEncode(io.name) + "\n";
  for (const KernelDesc &k : bundle.kernels) {
    m += "kernel " + percentEncode(k.name);
    for (int64_t g : k.grid)
      m += " " + std::to_string(g);
    for (int64_t b : k.block)
      m += " " + std::to_string(b);
    m += " " + std::to_string(k.sharedBytes) + " " +
         std::to_string(k.numParams) + "\n";
    for (const TensorMapDesc &t : k.tensorMaps) {
      m += "tensormap " + percentEncode(k.name) + " " + std::to_string(t.param) + " " +
           dtypeName(t.dtype) + " " + std::to_string(t.dims.size());
      for (uint64_t d : t.dims)
        m += " " + std::to_string(d);
      for (uint64_t st : t.strides)
        m += " " + std::to_string(st);
      for (uint32_t b : t.box)
        m += " " + std::to_string(b);
      m += " " + std::to_string(t.swizzle) + "\n";
    }
  }
  for (const LaunchDesc &l : bundle.launches) {
    m += "launch " + percentEncode(l.kernel) + " " +
         std::to_string(l.buffers.size());
    for (int id : l.buffers)
      m += " " + std::to_string(id);
    m += "\n";
  }

  std::string out;
  out.reserve(sizeof(kMagic) + 24 + m.size() + bundle.code.size() +
              bundle.weights.size());
  out.append(kMagic, sizeof(kMagic));
  appendU64(out, m.size());
  out += m;
  appendU64(out, bundle.code.size());
  out += bundle.code;
  appendU64(out, bundle.weights.size());
  out += bundle.weights;
  return out;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {

/// Reads the length-prefixed sections of the file, checking every length.
class SectionReader {
public:
  explicit SectionReader(std::string_view bytes) : bytes(bytes) {}

  Status readSection(const char *what, std::string_view &out) {
    if (bytes.size() - pos < 8)
      return Status::error("truncated bundle: missing the " + std::string(what) +
                           " size at byte " + std::to_string(pos));
    uint64_t size = 0;
    for (int i = 0; i < 8; ++i)
      size |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[pos + i]))
              << (8 * i);
    pos += 8;
    uint64_t remaining = bytes.size() - pos;
    if (size > remaining)
      return Status::error("truncated bundle: the " + std::string(what) +
                           " section says " + std::to_string(size) +
                           " bytes but only " + std::to_string(remaining) +
                           " remain");
    out = bytes.substr(pos, size);
    pos += size;
    return Status::success();
  }

  size_t remaining() const { return bytes.size() - pos; }
  size_t position() const { return pos; }
  void skip(size_t n) { pos += n; }

private:
  std::string_view bytes;
  size_t pos = 0;
};

/// Parses the manifest text into a Bundle's records.
class ManifestParser {
public:
  ManifestParser(std::string_view text, Bundle &out) : text(text), out(out) {}

  Status parse();

private:
  Status parseLine(const std::vector<std::string_view> &fields);
  Status parseBuffer(const std::vector<std::string_view> &fields);
  Status parseIO(const std::vector<std::string_view> &fields, bool isInput);
  Status parseKernel(const std::vector<std::string_view> &fields);
  Status parseBound(const std::vector<std::string_view> &fields);
  Status parseLaunch(const std::vector<std::string_view> &fields);
  Status parseTensorMap(const std::vector<std::string_view> &fields);

  Status parseU64(std::string_view field, const char *what, uint64_t &v);
  Status parseInt(std::string_view field, const char *what, int64_t max,
                  int64_t &v);
  template <typename T>
  Status parseIntAs(std::string_view field, const char *what, T &v) {
    int64_t x = 0;
    if (Status s = parseInt(field, what, std::numeric_limits<T>::max(), x);
        !s.ok)
      return s;
    v = static_cast<T>(x);
    return Status::success();
  }

  std::string_view text;
  Bundle &out;
  bool sawTarget = false;
  /// The header's format version (1 or 2).
  int version = 0;
};

} // namespace

Status ManifestParser::parseU64(std::string_view field, const char *what,
                                uint64_t &v) {
  const char *end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (field.empty() || field[0] == '-' || field[0] == '+' || ec != std::errc() ||
      ptr != end)
    return Status::error(std::string("bad ") + what + " '" + std::string(field) +
                         "' (expected an unsigned decimal integer)");
  return Status::success();
}

Status ManifestParser::parseInt(std::string_view field, const char *what,
                                int64_t max, int64_t &v) {
  uint64_t u = 0;
  if (Status s = parseU64(field, what, u); !s.ok)
    return s;
  if (u > static_cast<uint64_t>(max))
    return Status::error(std::string(what) + " " + std::string(field) +
                         " is too large");
  v = static_cast<int64_t>(u);
  return Status::success();
}

static Status expectFieldCount(const std::vector<std::string_view> &fields,
                               size_t n, const char *usage) {
  if (fields.size() != n)
    return Status::error("'" + std::string(fields[0]) + "' record has " +
                         std::to_string(fields.size() - 1) +
                         " fields, expected " + std::to_string(n - 1) + " (" +
                         usage + ")");
  return Status::success();
}

Status ManifestParser::parse() {
  size_t lineNo = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos
                                                      : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineNo;
    auto lineError = [&](const std::string &msg) {
      return Status::error("manifest line " + std::to_string(lineNo) + ": " +
                           msg);
    };
    if (line.empty())
      return lineError("empty line");

    std::vector<std::string_view> fields;
    size_t start = 0;
    while (true) {
      size_t sp = line.find(' ', start);
      std::string_view f = line.substr(
          start, sp == std::string_view::npos ? std::string_view::npos
                                              : sp - start);
      if (f.empty())
        return lineError("empty field (fields are separated by single spaces)");
      fields.push_back(f);
      if (sp == std::string_view::npos)
        break;
      start = sp + 1;
    }

    if (lineNo == 1) {
      if (fields[0] != "aicc-bundle")
        return lineError("expected the 'aicc-bundle 1' header, got '" +
                         std::string(fields[0]) + "'");
      if (fields.size() == 2 && fields[1] == std::to_string(kFormatVersionPlain))
        version = kFormatVersionPlain;
      else if (fields.size() == 2 && fields[1] == std::to_string(kFormatVersionTensorMaps))
        version = kFormatVersionTensorMaps;
      else
        return lineError("unsupported bundle version '" +
                         std::string(line.substr(fields[0].size())) +
                         "' (this runtime reads versions 1 and 2)");
      continue;
    }
    if (Status s = parseLine(fields); !s.ok)
      return lineError(s.message);
  }
  if (lineNo == 0)
    return Status::error("empty manifest (expected the 'aicc-bundle 1' header)");
  if (!sawTarget)
    return Status::error("manifest has no 'target' record");
  return Status::success();
}

Status ManifestParser::parseLine(const std::vector<std::string_view> &fields) {
  std::string_view rec = fields[0];
  if (rec == "aicc-bundle")
    return Status::error("'aicc-bundle' header repeated");
  if (rec == "target") {
    if (Status s = expectFieldCount(fields, 2, "target NAME"); !s.ok)
      return s;
    if (sawTarget)
      return Status::error("'target' record repeated");
    sawTarget = true;
    out.target = std::string(fields[1]);
    if (!isValidTarget(out.target))
      return Status::error("invalid target '" + out.target +
                           "' (expected cpu or sm_NN, e.g. sm_90a)");
    return Status::success();
  }
  if (rec == "buffer")
    return parseBuffer(fields);
  if (rec == "input")
    return parseIO(fields, /*isInput=*/true);
  if (rec == "output")
    return parseIO(fields, /*isInput=*/false);
  if (rec == "bound")
    return parseBound(fields);
  if (rec == "kernel")
    return parseKernel(fields);
  if (rec == "launch")
    return parseLaunch(fields);
  if (rec == "tensormap")
    return parseTensorMap(fields);
  return Status::error("unknown record '" + std::string(rec) + "'");
}

Status ManifestParser::parseBuffer(const std::vector<std::string_view> &fields) {
  static const char *kUsage = "buffer ID DTYPE KIND SIZE_BYTES RANK D0 .. Dn-1 "
                              "[OFFSET]";
  if (fields.size() < 6)
    return expectFieldCount(fields, 6, kUsage);
  BufferDesc b;
  if (Status s = parseIntAs(fields[1], "buffer id", b.id); !s.ok)
    return s;
  if (b.id != static_cast<int>(out.buffers.size()))
    return Status::error("buffer id " + std::to_string(b.id) +
                         " out of order, expected " +
                         std::to_string(out.buffers.size()) +
                         " (ids are 0, 1, 2 ... in order)");
  std::optional<DType> dtype = parseDType(fields[2]);
  if (!dtype)
    return Status::error("unknown dtype '" + std::string(fields[2]) +
                         "' (expected f32 f16 bf16 f64 i64 i32 i16 i8 u64 u32 u16 u8 bool)");
  b.dtype = *dtype;
  std::optional<BufferKind> kind = parseBufferKind(fields[3]);
  if (!kind)
    return Status::error("unknown buffer kind '" + std::string(fields[3]) +
                         "' (expected input output temp const alias)");
  b.kind = *kind;
  if (Status s = parseU64(fields[4], "SIZE_BYTES", b.sizeBytes); !s.ok)
    return s;
  uint64_t rank = 0;
  if (Status s = parseU64(fields[5], "RANK", rank); !s.ok)
    return s;
  const bool hasOffset =
      b.kind == BufferKind::constant || b.kind == BufferKind::alias;
  // Compare against the actual field count before allocating anything.
  if (rank > fields.size())
    return Status::error("RANK " + std::to_string(rank) +
                         " exceeds the number of fields");
  if (Status s = expectFieldCount(fields, 6 + rank + (hasOffset ? 1 : 0),
                                  kUsage);
      !s.ok)
    return s;
  b.shape.resize(rank);
  for (uint64_t i = 0; i < rank; ++i)
    if (Status s = parseInt(fields[6 + i], "dimension",
                            std::numeric_limits<int64_t>::max(), b.shape[i]);
        !s.ok)
      return s;
  if (hasOffset) {
    const char *what = b.kind == BufferKind::alias ? "alias source id" : "OFFSET";
    if (Status s = parseU64(fields[6 + rank], what, b.offset); !s.ok)
      return s;
  }

  // Per-record checks that need no later records; validateBundle() repeats
  // them on the whole bundle.
  std::optional<int64_t> numel = shapeNumElements(b.shape);
  uint64_t expected = 0;
  if (!numel || __builtin_mul_overflow(static_cast<uint64_t>(*numel),
                                       static_cast<uint64_t>(dtypeSize(b.dtype)),
                                       &expected))
    return Status::error("buffer " + std::to_string(b.id) +
                         ": element count of the shape overflows");
  if (expected != b.sizeBytes)
    return Status::error("buffer " + std::to_string(b.id) + ": SIZE_BYTES is " +
                         std::to_string(b.sizeBytes) + " but " +
                         formatTensorType(b.dtype, b.shape) + " needs " +
                         std::to_string(expected) + " bytes");
  if (b.kind == BufferKind::alias && b.offset >= static_cast<uint64_t>(b.id))
    return Status::error("buffer " + std::to_string(b.id) + ": alias source " +
                         std::to_string(b.offset) +
                         " must be a buffer declared before it");
  out.buffers.push_back(std::move(b));
  return Status::success();
}

Status ManifestParser::parseIO(const std::vector<std::string_view> &fields,
                               bool isInput) {
  if (Status s = expectFieldCount(fields, 4, isInput
                                                 ? "input INDEX BUFFER_ID NAME"
                                                 : "output INDEX BUFFER_ID NAME");
      !s.ok)
    return s;
  std::vector<IODesc> &list = isInput ? out.inputs : out.outputs;
  IODesc io;
  if (Status s = parseIntAs(fields[1], "index", io.index); !s.ok)
    return s;
  if (io.index != static_cast<int>(list.size()))
    return Status::error(std::string(isInput ? "input" : "output") + " index " +
                         std::to_string(io.index) + " out of order, expected " +
                         std::to_string(list.size()));
  if (Status s = parseIntAs(fields[2], "buffer id", io.bufferId); !s.ok)
    return s;
  if (Status s = percentDecode(fields[3], io.name); !s.ok)
    return s;
  list.push_back(std::move(io));
  return Status::success();
}

Status ManifestParser::parseBound(const std::vector<std::string_view> &fields) {
  static const char *kUsage = "bound POSITION NAME DTYPE SIZE_BYTES RANK D0 .. Dn-1 OFFSET";
  if (fields.size() < 7)
    return expectFieldCount(fields, 7, kUsage);
  BoundInputDesc bi;
  if (Status s = parseIntAs(fields[1], "position", bi.position); !s.ok)
    return s;
  if (Status s = percentDecode(fields[2], bi.name); !s.ok)
    return s;
  std::optional<DType> dtype = parseDType(fields[3]);
  if (!dtype)
    return Status::error("unknown dtype '" + std::string(fields[3]) +
                         "' (expected f32 f16 bf16 f64 i64 i32 i8 u8 bool)");
  bi.dtype = *dtype;
  if (Status s = parseU64(fields[4], "SIZE_BYTES", bi.sizeBytes); !s.ok)
    return s;
  uint64_t rank = 0;
  if (Status s = parseU64(fields[5], "RANK", rank); !s.ok)
    return s;
  if (rank > fields.size())
    return Status::error("RANK " + std::to_string(rank) + " exceeds the number of fields");
  if (Status s = expectFieldCount(fields, 7 + rank, kUsage); !s.ok)
    return s;
  bi.shape.resize(rank);
  for (uint64_t i = 0; i < rank; ++i)
    if (Status s =
            parseInt(fields[6 + i], "dimension", std::numeric_limits<int64_t>::max(), bi.shape[i]);
        !s.ok)
      return s;
  if (Status s = parseU64(fields[6 + rank], "OFFSET", bi.offset); !s.ok)
    return s;
  out.boundInputs.push_back(std::move(bi));
  return Status::success();
}

Status ManifestParser::parseKernel(const std::vector<std::string_view> &fields) {
  if (Status s = expectFieldCount(
          fields, 10, "kernel NAME GX GY GZ BX BY BZ SHARED_BYTES NUM_PARAMS");
      !s.ok)
    return s;
  KernelDesc k;
  if (Status s = percentDecode(fields[1], k.name); !s.ok)
    return s;
  for (int d = 0; d < 3; ++d) {
    if (Status s = parseInt(fields[2 + d], "grid size",
                            std::numeric_limits<int64_t>::max(), k.grid[d]);
        !s.ok)
      return s;
    if (Status s = parseInt(fields[5 + d], "block size",
                            std::numeric_limits<int64_t>::max(), k.block[d]);
        !s.ok)
      return s;
  }
  if (Status s = parseU64(fields[8], "SHARED_BYTES", k.sharedBytes); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[9], "NUM_PARAMS", k.numParams); !s.ok)
    return s;
  if (out.findKernel(k.name))
    return Status::error("kernel '" + k.name + "' is declared twice");
  out.kernels.push_back(std::move(k));
  return Status::success();
}

Status ManifestParser::parseLaunch(const std::vector<std::string_view> &fields) {
  static const char *kUsage = "launch KERNEL_NAME N BUF_ID_0 .. BUF_ID_N-1";
  if (fields.size() < 3)
    return expectFieldCount(fields, 3, kUsage);
  LaunchDesc l;
  if (Status s = percentDecode(fields[1], l.kernel); !s.ok)
    return s;
  uint64_t n = 0;
  if (Status s = parseU64(fields[2], "buffer count", n); !s.ok)
    return s;
  if (n != fields.size() - 3)
    return Status::error("launch of '" + l.kernel + "' says " +
                         std::to_string(n) + " buffers but lists " +
                         std::to_string(fields.size() - 3));
  l.buffers.resize(n);
  for (uint64_t i = 0; i < n; ++i)
    if (Status s = parseIntAs(fields[3 + i], "buffer id", l.buffers[i]); !s.ok)
      return s;
  out.launches.push_back(std::move(l));
  return Status::success();
}

Status ManifestParser::parseTensorMap(const std::vector<std::string_view> &fields) {
  static const char *kUsage = "tensormap KERNEL_NAME PARAM DTYPE RANK D_0 .. D_R-1 "
                              "S_0 .. S_R-2 B_0 .. B_R-1 SWIZZLE";
  if (version < kFormatVersionTensorMaps)
    return Status::error("'tensormap' record in a version-" + std::to_string(version) +
                         " bundle (tensor maps need the 'aicc-bundle 2' header)");
  if (fields.size() < 5)
    return expectFieldCount(fields, 8, kUsage);
  std::string kernel;
  if (Status s = percentDecode(fields[1], kernel); !s.ok)
    return s;
  KernelDesc *k = nullptr;
  for (KernelDesc &kd : out.kernels)
    if (kd.name == kernel)
      k = &kd;
  if (!k)
    return Status::error("'tensormap' record for kernel '" + kernel +
                         "' before (or without) its 'kernel' record");
  TensorMapDesc t;
  if (Status s = parseIntAs(fields[2], "tensor map PARAM", t.param); !s.ok)
    return s;
  std::optional<DType> dtype = parseDType(fields[3]);
  if (!dtype)
    return Status::error("unknown dtype '" + std::string(fields[3]) +
                         "' (expected f32 f16 bf16 f64 i64 i32 i16 i8 u64 u32 u16 u8 bool)");
  t.dtype = *dtype;
  uint64_t rank = 0;
  if (Status s = parseU64(fields[4], "RANK", rank); !s.ok)
    return s;
  // Rank 0 would make the field count formula meaningless; check it here.
  if (rank < 1 || rank > 5)
    return Status::error("tensor map RANK " + std::to_string(rank) + " is not in [1, 5]");
  if (Status s = expectFieldCount(fields, 5 + 3 * rank, kUsage); !s.ok)
    return s;
  t.dims.resize(rank);
  t.strides.resize(rank - 1);
  t.box.resize(rank);
  size_t f = 5;
  for (uint64_t &d : t.dims)
    if (Status s = parseU64(fields[f++], "tensor map dim", d); !s.ok)
      return s;
  for (uint64_t &st : t.strides)
    if (Status s = parseU64(fields[f++], "tensor map stride", st); !s.ok)
      return s;
  for (uint32_t &b : t.box)
    if (Status s = parseIntAs(fields[f++], "tensor map box dim", b); !s.ok)
      return s;
  if (Status s = parseIntAs(fields[f], "SWIZZLE", t.swizzle); !s.ok)
    return s;
  k->tensorMaps.push_back(std::move(t));
  return Status::success();
}

Status aicc::runtime::parseBundle(std::string_view bytes, Bundle &out) {
  out = Bundle();
  if (bytes.size() < sizeof(kMagic))
    return Status::error("not an aicc bundle: file is " +
                         std::to_string(bytes.size()) +
                         " bytes, too short for the magic");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return Status::error("not an aicc bundle: bad magic (expected 'AICCBND1')");
  SectionReader reader(bytes);
  reader.skip(sizeof(kMagic));
  std::string_view manifest, code, weights;
  if (Status s = reader.readSection("manifest", manifest); !s.ok)
    return s;
  if (Status s = reader.readSection("code", code); !s.ok)
    return s;
  if (Status s = reader.readSection("weights", weights); !s.ok)
    return s;
  if (reader.remaining() != 0)
    return Status::error("malformed bundle: " +
                         std::to_string(reader.remaining()) +
                         " trailing bytes after the weights section");

  if (Status s = ManifestParser(manifest, out).parse(); !s.ok)
    return s;
  out.code = std::string(code);
  out.weights = std::string(weights);
  return validateBundle(out);
}

Status aicc::runtime::readBundleFile(const std::string &path, Bundle &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open bundle '" + path +
                         "': " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0)
    return Status::error("cannot read bundle '" + path + "'");
  in.seekg(0, std::ios::beg);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (size > 0 && !in.read(bytes.data(), size))
    return Status::error("cannot read bundle '" + path + "'");
  return parseBundle(bytes, out).withContext(path);
}
