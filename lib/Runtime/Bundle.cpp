//===- Bundle.cpp - Bundle data model helpers and the writer --------------===//
//
// Element types, percent-encoding and serializeBundle(), the writer of
// docs/bundle-format.md (versions 4 to 6). The validator is BundleValidate.cpp, the
// reader BundleParse.cpp.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include "BundleInternal.h"
#include "aicc/Runtime/XXHash64.h"

#include <algorithm>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

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
  static constexpr DType kAll[] = {DType::f32, DType::f16, DType::bf16,   DType::f64, DType::i64,
                                   DType::i32, DType::i16, DType::i8,     DType::u64, DType::u32,
                                   DType::u16, DType::u8,  DType::boolean};
  for (DType d : kAll)
    if (name == dtypeName(d))
      return d;
  return std::nullopt;
}

std::string aicc::runtime::formatTensorType(DType dtype, const std::vector<int64_t> &shape) {
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

std::optional<int64_t> aicc::runtime::shapeNumElements(const std::vector<int64_t> &shape) {
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
  static constexpr BufferKind kAll[] = {BufferKind::input, BufferKind::output, BufferKind::temp,
                                        BufferKind::constant, BufferKind::alias};
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
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '/' || c == '-';
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
        return Status::error("bad percent escape in name '" + std::string(field) +
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
// Shared helpers
//===----------------------------------------------------------------------===//

bool aicc::runtime::detail::isValidTarget(std::string_view t) {
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

std::string aicc::runtime::detail::formatHex64(uint64_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4)
    s[i] = kHex[v & 15];
  return s;
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

/// The signless class of an integer dtype (iN for uN); other dtypes unchanged.
static DType signless(DType d) {
  switch (d) {
  case DType::u8:
    return DType::i8;
  case DType::u16:
    return DType::i16;
  case DType::u32:
    return DType::i32;
  case DType::u64:
    return DType::i64;
  default:
    return d;
  }
}

bool aicc::runtime::paramDTypeAccepts(DType param, DType buffer) {
  return signless(param) == signless(buffer);
}

std::optional<int64_t> aicc::runtime::detail::symGridPrograms(const SymGridDesc &g, int64_t value) {
  if (value < 0 || g.unit < 1 || g.per < 1 || g.group < 1)
    return std::nullopt;
  int64_t rows = 0, programs = 0;
  if (__builtin_mul_overflow(value, g.unit, &rows))
    return std::nullopt;
  // ceil(rows / per) without forming rows + per - 1.
  const int64_t blocks = rows / g.per + (rows % g.per != 0 ? 1 : 0);
  if (__builtin_mul_overflow(g.group, blocks, &programs))
    return std::nullopt;
  return programs;
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

static void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((v >> (8 * i)) & 0xff);
}

static std::string symDimRecord(const SymDimDesc &d) {
  return "symdim " + std::to_string(d.bufferId) + " " + std::to_string(d.axis) + " " +
         std::to_string(d.symbol) + " " + std::to_string(d.factor) + "\n";
}

std::vector<int> aicc::runtime::detail::launchPlans(const Bundle &bundle) {
  std::vector<int> planOf(bundle.launches.size(), -1);
  for (size_t p = 0; p < bundle.plans.size(); ++p)
    for (size_t i = std::max(bundle.plans[p].firstLaunch, 0); i < planOf.size(); ++i)
      planOf[i] = static_cast<int>(p);
  return planOf;
}

std::string aicc::runtime::serializeBundle(const Bundle &bundle) {
  std::string m;
  // The oldest version that holds the bundle, so that older runtimes read what
  // needs no newer record.
  const bool inPlace = std::any_of(bundle.kernels.begin(), bundle.kernels.end(),
                                   [](const KernelDesc &k) { return !k.inPlace.empty(); });
  const bool symbolic =
      !bundle.symbols.empty() || !bundle.symDims.empty() || !bundle.symGrids.empty();
  // A symbolic dim after a non-unit dim: the tensor at a smaller value is rows of its buffer.
  const bool pitched =
      std::any_of(bundle.symDims.begin(), bundle.symDims.end(), [&](const SymDimDesc &d) {
        if (d.bufferId < 0 || static_cast<size_t>(d.bufferId) >= bundle.buffers.size())
          return false;
        const std::vector<int64_t> &shape = bundle.buffers[d.bufferId].shape;
        return std::any_of(shape.begin(), shape.begin() + std::min<size_t>(d.axis, shape.size()),
                           [](int64_t n) { return n != 1; });
      });
  const int version = !bundle.plans.empty()         ? kFormatVersionPlans
                      : !bundle.symRanges.empty()   ? kFormatVersionSymRanges
                      : pitched                     ? kFormatVersionPitchedSymDims
                      : bundle.symValuesBuffer >= 0 ? kFormatVersionSymValues
                      : symbolic                    ? kFormatVersionSymbols
                      : inPlace                     ? kFormatVersionInPlace
                                                    : kFormatVersionArena;
  m += "aicc-bundle " + std::to_string(version) + "\n";
  m += "target " + bundle.target + "\n";
  if (bundle.arenaBytes)
    m += "arena " + std::to_string(*bundle.arenaBytes) + "\n";
  for (size_t i = 0; i < bundle.symbols.size(); ++i) {
    const SymbolDesc &sym = bundle.symbols[i];
    m += "symbol " + std::to_string(i) + " " + percentEncode(sym.name) + " " +
         std::to_string(sym.min) + " " + std::to_string(sym.max) + "\n";
  }
  // Each buffer's symdim right after its record (vector order among one
  // buffer's); ids out of range after the last buffer, where the reader refuses
  // them.
  std::vector<std::vector<const SymDimDesc *>> symDimsOf(
      bundle.symDims.empty() ? 0 : bundle.buffers.size());
  std::vector<const SymDimDesc *> strayDims;
  for (const SymDimDesc &d : bundle.symDims) {
    if (d.bufferId >= 0 && static_cast<size_t>(d.bufferId) < symDimsOf.size())
      symDimsOf[d.bufferId].push_back(&d);
    else
      strayDims.push_back(&d);
  }
  for (size_t i = 0; i < bundle.buffers.size(); ++i) {
    const BufferDesc &b = bundle.buffers[i];
    m += "buffer " + std::to_string(b.id) + " " + dtypeName(b.dtype) + " " +
         bufferKindName(b.kind) + " " + std::to_string(b.sizeBytes) + " " +
         std::to_string(b.shape.size());
    for (int64_t d : b.shape)
      m += " " + std::to_string(d);
    if (b.kind == BufferKind::constant || b.kind == BufferKind::alias ||
        (b.kind == BufferKind::temp && bundle.arenaBytes))
      m += " " + std::to_string(b.offset);
    m += "\n";
    if (i < symDimsOf.size())
      for (const SymDimDesc *d : symDimsOf[i])
        m += symDimRecord(*d);
  }
  for (const SymDimDesc *d : strayDims)
    m += symDimRecord(*d);
  for (const IODesc &io : bundle.inputs)
    m += "input " + std::to_string(io.index) + " " + std::to_string(io.bufferId) + " " +
         percentEncode(io.name) + "\n";
  for (const BoundInputDesc &bi : bundle.boundInputs) {
    m += "bound " + std::to_string(bi.position) + " " + percentEncode(bi.name) + " " +
         dtypeName(bi.dtype) + " " + std::to_string(bi.sizeBytes) + " " +
         std::to_string(bi.shape.size());
    for (int64_t d : bi.shape)
      m += " " + std::to_string(d);
    m += " " + std::to_string(bi.offset) + "\n";
  }
  for (const IODesc &io : bundle.outputs)
    m += "output " + std::to_string(io.index) + " " + std::to_string(io.bufferId) + " " +
         percentEncode(io.name) + "\n";
  for (const KernelDesc &k : bundle.kernels) {
    const std::string name = percentEncode(k.name);
    m += "kernel " + name;
    for (int64_t g : k.grid)
      m += " " + std::to_string(g);
    for (int64_t b : k.block)
      m += " " + std::to_string(b);
    m += " " + std::to_string(k.sharedBytes) + " " + std::to_string(k.numParams) + "\n";
    for (size_t i = 0; i < k.params.size(); ++i)
      m += "param " + name + " " + std::to_string(i) + " " + dtypeName(k.params[i].dtype) + " " +
           std::to_string(k.params[i].sizeBytes) + "\n";
    for (const InPlaceDesc &d : k.inPlace)
      m +=
          "inplace " + name + " " + std::to_string(d.input) + " " + std::to_string(d.output) + "\n";
    for (const TensorMapDesc &t : k.tensorMaps) {
      m += "tensormap " + name + " " + std::to_string(t.param) + " " + dtypeName(t.dtype) + " " +
           std::to_string(t.dims.size());
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
    m += "launch " + percentEncode(l.kernel) + " " + std::to_string(l.buffers.size());
    for (int id : l.buffers)
      m += " " + std::to_string(id);
    m += "\n";
  }
  for (const SymGridDesc &g : bundle.symGrids)
    m += "symgrid " + std::to_string(g.launchIndex) + " " + std::to_string(g.axis) + " " +
         std::to_string(g.symbol) + " " + std::to_string(g.unit) + " " + std::to_string(g.per) +
         " " + std::to_string(g.group) + "\n";
  for (const SymRangeDesc &r : bundle.symRanges)
    m += "symrange " + std::to_string(r.launchIndex) + " " + std::to_string(r.symbol) + " " +
         std::to_string(r.lo) + " " + std::to_string(r.hi) + "\n";
  for (const PlanDesc &p : bundle.plans)
    m += "plan " + std::to_string(p.firstLaunch) + " " + std::to_string(p.symbol) + " " +
         std::to_string(p.lo) + " " + std::to_string(p.hi) + (p.packed ? " packed" : " bound") +
         "\n";
  if (bundle.symValuesBuffer >= 0)
    m += "symvalues " + std::to_string(bundle.symValuesBuffer) + "\n";
  // The closing record: the code and weights checksums, then the manifest's
  // own, over every manifest byte before it (this record's first fields
  // included, so a damaged code or weights checksum reads as a damaged
  // manifest).
  m += std::string(kChecksumRecord) + formatHex64(xxHash64(bundle.code)) + " " +
       formatHex64(xxHash64(bundle.weights)) + " ";
  m += formatHex64(xxHash64(m)) + "\n";

  std::string out;
  out.reserve(sizeof(kMagic) + 24 + m.size() + bundle.code.size() + bundle.weights.size());
  out.append(kMagic, sizeof(kMagic));
  appendU64(out, m.size());
  out += m;
  appendU64(out, bundle.code.size());
  out += bundle.code;
  appendU64(out, bundle.weights.size());
  out += bundle.weights;
  return out;
}
