//===- BundleParse.cpp - The .aicc bundle reader --------------------------===//
//
// Implements the reading side of docs/bundle-format.md (versions 1 to 6).
// The reader is strict: every length, id and offset is checked before it is
// used, so malformed input gives an error Status, never an out-of-bounds
// access; version 3 to 6 checksums are verified before any record is parsed; the
// manifest is capped (Limits::maxManifestBytes) and every lookup is hashed, so
// time and memory stay linear in the input.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include "BundleInternal.h"
#include "aicc/Runtime/ReadFile.h"
#include "aicc/Runtime/XXHash64.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <unordered_map>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

namespace {

/// Reads the length-prefixed sections of the file, checking every length.
class SectionReader {
public:
  explicit SectionReader(std::string_view bytes) : bytes(bytes) {}

  Status readSection(const char *what, std::string_view &out) {
    if (bytes.size() - pos < 8)
      return Status::error("truncated bundle: missing the " + std::string(what) + " size at byte " +
                           std::to_string(pos));
    uint64_t size = 0;
    for (int i = 0; i < 8; ++i)
      size |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[pos + i])) << (8 * i);
    pos += 8;
    uint64_t remaining = bytes.size() - pos;
    if (size > remaining)
      return Status::error("truncated bundle: the " + std::string(what) + " section says " +
                           std::to_string(size) + " bytes but only " + std::to_string(remaining) +
                           " remain");
    out = bytes.substr(pos, size);
    pos += size;
    return Status::success();
  }

  size_t remaining() const { return bytes.size() - pos; }
  void skip(size_t n) { pos += n; }

private:
  std::string_view bytes;
  size_t pos = 0;
};

/// Parses a field of 16 lower-case hex digits.
bool parseHex64(std::string_view field, uint64_t &v) {
  if (field.size() != 16)
    return false;
  v = 0;
  for (char c : field) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0)
      return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return true;
}

/// The version on the header line "aicc-bundle N" (the manifest's first
/// line), or 0 when the line is not one this reader knows.
int headerVersion(std::string_view manifest) {
  size_t nl = manifest.find('\n');
  std::string_view line = manifest.substr(0, nl);
  for (int v = kFormatVersionPlain; v <= kFormatVersionNewest; ++v)
    if (line == "aicc-bundle " + std::to_string(v))
      return v;
  return 0;
}

/// Version 3: checks the closing `checksum` record against the three
/// sections and sets `records` to the manifest without it. Runs before any
/// other record is parsed.
Status verifyChecksums(std::string_view manifest, std::string_view code, std::string_view weights,
                       std::string_view &records) {
  size_t numLines = 0;
  for (char c : manifest)
    numLines += c == '\n';
  const std::string where = "manifest line " + std::to_string(numLines) + ": ";
  const std::string usage = "'checksum xxh64 CODE WEIGHTS MANIFEST', each 16 lower-case hex "
                            "digits, then a newline";
  if (manifest.empty() || manifest.back() != '\n')
    return Status::error("malformed version-3 manifest: it must end with the checksum "
                         "record " +
                         usage);
  size_t start = manifest.rfind('\n', manifest.size() - 2);
  start = start == std::string_view::npos ? 0 : start + 1;
  std::string_view line = manifest.substr(start, manifest.size() - 1 - start);
  if (line.substr(0, kChecksumRecord.size()) != kChecksumRecord)
    return Status::error(where + "the last record of a version-3 manifest must be " + usage +
                         ", got '" + std::string(line.substr(0, 40)) + "'");
  std::string_view hashes = line.substr(kChecksumRecord.size());
  uint64_t want[3];
  if (hashes.size() != 3 * 16 + 2 || hashes[16] != ' ' || hashes[33] != ' ' ||
      !parseHex64(hashes.substr(0, 16), want[0]) || !parseHex64(hashes.substr(17, 16), want[1]) ||
      !parseHex64(hashes.substr(34, 16), want[2]))
    return Status::error(where + "malformed checksum record (expected " + usage + ")");
  // The manifest's checksum covers every byte before its own field.
  const size_t manifestHashed = start + kChecksumRecord.size() + 34;
  struct Section {
    const char *name;
    std::string_view bytes;
    uint64_t expected;
  } sections[] = {{"manifest", manifest.substr(0, manifestHashed), want[2]},
                  {"code", code, want[0]},
                  {"weights", weights, want[1]}};
  for (const Section &s : sections) {
    uint64_t got = xxHash64(s.bytes);
    if (got != s.expected)
      return Status::error("checksum mismatch in the " + std::string(s.name) + " section: XXH64 " +
                           formatHex64(got) + ", the checksum record says " +
                           formatHex64(s.expected) + " (the bundle is corrupt or was edited)");
  }
  records = manifest.substr(0, start);
  return Status::success();
}

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
  Status parseParam(const std::vector<std::string_view> &fields);
  Status parseBound(const std::vector<std::string_view> &fields);
  Status parseLaunch(const std::vector<std::string_view> &fields);
  Status parseTensorMap(const std::vector<std::string_view> &fields);
  Status parseInPlace(const std::vector<std::string_view> &fields);
  Status parseSymbol(const std::vector<std::string_view> &fields);
  Status parseSymDim(const std::vector<std::string_view> &fields, int previousBuffer);
  Status parseSymGrid(const std::vector<std::string_view> &fields);
  Status parseSymRange(const std::vector<std::string_view> &fields);
  Status parsePlan(const std::vector<std::string_view> &fields);
  /// Fields 1 to 4 of a `symrange` or `plan` record (`rec`): a launch index (named
  /// `launchField` in messages), SYMBOL_INDEX, LO and HI.
  Status parseSymbolRange(const std::vector<std::string_view> &fields, const char *launchField,
                          const char *rec, int &launch, int &symbol, int64_t &lo, int64_t &hi);
  /// Refuses a version-6 record (`what`) in an older bundle.
  Status needSymbolsVersion(const char *what) const;
  Status parseSymValues(const std::vector<std::string_view> &fields);
  /// The kernel named by a `param` or `tensormap` record, which must follow
  /// that kernel's `kernel` record.
  Status findKernelFor(std::string_view field, const char *record, KernelDesc *&k);

  Status parseArena(const std::vector<std::string_view> &fields);
  Status parseU64(std::string_view field, const char *what, uint64_t &v);
  Status parseInt(std::string_view field, const char *what, int64_t max, int64_t &v);
  template <typename T> Status parseIntAs(std::string_view field, const char *what, T &v) {
    int64_t x = 0;
    if (Status s = parseInt(field, what, std::numeric_limits<T>::max(), x); !s.ok)
      return s;
    v = static_cast<T>(x);
    return Status::success();
  }

  std::string_view text;
  Bundle &out;
  bool sawTarget = false;
  /// The header's format version (1 to 6).
  int version = 0;
  /// The id of the buffer whose record (or whose record then `symdim`
  /// records) the previous line held; -1 after any other record.
  int lastBuffer = -1;
  /// A `symvalues` record was read: only `checksum` may follow.
  bool sawSymValues = false;
  /// A `symgrid` record was read: only more of them (then `symrange` records) may follow.
  bool sawSymGrid = false;
  /// A `symrange` record was read: only more of them (then `plan` records) may follow.
  bool sawSymRange = false;
  /// A `plan` record was read: only more of them may follow.
  bool sawPlan = false;
  /// 1-based number of the line being parsed.
  size_t lineNo = 0;
  /// Kernel name -> index into out.kernels.
  std::unordered_map<std::string, size_t> kernelIndex;
};

} // namespace

Status ManifestParser::parseU64(std::string_view field, const char *what, uint64_t &v) {
  const char *end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (field.empty() || field[0] == '-' || field[0] == '+' || ec != std::errc() || ptr != end)
    return Status::error(std::string("bad ") + what + " '" + std::string(field) +
                         "' (expected an unsigned decimal integer)");
  return Status::success();
}

Status ManifestParser::parseInt(std::string_view field, const char *what, int64_t max, int64_t &v) {
  uint64_t u = 0;
  if (Status s = parseU64(field, what, u); !s.ok)
    return s;
  if (u > static_cast<uint64_t>(max))
    return Status::error(std::string(what) + " " + std::string(field) + " is too large");
  v = static_cast<int64_t>(u);
  return Status::success();
}

static Status expectFieldCount(const std::vector<std::string_view> &fields, size_t n,
                               const char *usage) {
  if (fields.size() != n)
    return Status::error("'" + std::string(fields[0]) + "' record has " +
                         std::to_string(fields.size() - 1) + " fields, expected " +
                         std::to_string(n - 1) + " (" + usage + ")");
  return Status::success();
}

Status ManifestParser::parse() {
  size_t pos = 0;
  std::vector<std::string_view> fields;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineNo;
    auto lineError = [&](const std::string &msg) {
      return Status::error("manifest line " + std::to_string(lineNo) + ": " + msg);
    };
    if (line.empty())
      return lineError("empty line");

    fields.clear();
    size_t start = 0;
    while (true) {
      size_t sp = line.find(' ', start);
      std::string_view f =
          line.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start);
      if (f.empty())
        return lineError("empty field (fields are separated by single spaces)");
      fields.push_back(f);
      if (sp == std::string_view::npos)
        break;
      start = sp + 1;
    }

    if (lineNo == 1) {
      if (fields[0] != "aicc-bundle")
        return lineError("expected the 'aicc-bundle N' header, got '" + std::string(fields[0]) +
                         "'");
      version = headerVersion(text);
      if (version == 0)
        return lineError(
            "unsupported bundle version '" + std::string(line.substr(fields[0].size())) +
            "' (this runtime reads versions 1 to " + std::to_string(kFormatVersionNewest) + ")");
      out.formatVersion = version;
      continue;
    }
    if (Status s = parseLine(fields); !s.ok)
      return lineError(s.message);
  }
  if (lineNo == 0)
    return Status::error("empty manifest (expected the 'aicc-bundle N' header)");
  if (!sawTarget)
    return Status::error("manifest has no 'target' record");
  return Status::success();
}

Status ManifestParser::parseLine(const std::vector<std::string_view> &fields) {
  std::string_view rec = fields[0];
  const int previousBuffer = lastBuffer;
  lastBuffer = -1;
  if (sawSymValues && rec != "checksum")
    return Status::error("'" + std::string(rec) +
                         "' record after the 'symvalues' record (it is the last before "
                         "'checksum')");
  if (sawSymGrid && rec != "symgrid" && rec != "symrange" && rec != "plan" && rec != "symvalues" &&
      rec != "checksum")
    return Status::error("'" + std::string(rec) +
                         "' record after the 'symgrid' records (they follow the last 'launch' "
                         "record, before 'checksum')");
  if (sawSymRange && rec != "symrange" && rec != "plan" && rec != "symvalues" && rec != "checksum")
    return Status::error("'" + std::string(rec) +
                         "' record after the 'symrange' records (they follow the 'launch' and "
                         "'symgrid' records, before 'checksum')");
  if (sawPlan && rec != "plan" && rec != "symvalues" && rec != "checksum")
    return Status::error("'" + std::string(rec) +
                         "' record after the 'plan' records (they follow the 'launch', "
                         "'symgrid' and 'symrange' records, before 'checksum')");
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
  if (rec == "arena")
    return parseArena(fields);
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
  if (rec == "param")
    return parseParam(fields);
  if (rec == "launch")
    return parseLaunch(fields);
  if (rec == "tensormap")
    return parseTensorMap(fields);
  if (rec == "inplace")
    return parseInPlace(fields);
  if (rec == "symbol")
    return parseSymbol(fields);
  if (rec == "symdim")
    return parseSymDim(fields, previousBuffer);
  if (rec == "symvalues")
    return parseSymValues(fields);
  if (rec == "symgrid")
    return parseSymGrid(fields);
  if (rec == "symrange")
    return parseSymRange(fields);
  if (rec == "plan")
    return parsePlan(fields);
  if (rec == "checksum")
    return Status::error(version < kFormatVersionChecksums
                             ? "'checksum' record in a version-" + std::to_string(version) +
                                   " bundle (checksums need the 'aicc-bundle 3' header)"
                             : std::string("'checksum' record before the end of the manifest"));
  return Status::error("unknown record '" + std::string(rec) + "'");
}

Status ManifestParser::parseArena(const std::vector<std::string_view> &fields) {
  if (Status s = expectFieldCount(fields, 2, "arena SIZE_BYTES"); !s.ok)
    return s;
  if (version < kFormatVersionArena)
    return Status::error("'arena' record in a version-" + std::to_string(version) +
                         " bundle (the memory plan needs the 'aicc-bundle 4' header)");
  if (out.arenaBytes)
    return Status::error("'arena' record repeated");
  if (!out.buffers.empty())
    return Status::error("the 'arena' record must precede the buffer records");
  if (!out.symbols.empty())
    return Status::error("the 'arena' record must precede the symbol records");
  uint64_t bytes = 0;
  if (Status s = parseU64(fields[1], "arena SIZE_BYTES", bytes); !s.ok)
    return s;
  out.arenaBytes = bytes;
  return Status::success();
}

Status ManifestParser::parseBuffer(const std::vector<std::string_view> &fields) {
  static const char *kUsage = "buffer ID DTYPE KIND SIZE_BYTES RANK D0 .. Dn-1 [OFFSET]";
  if (fields.size() < 6)
    return expectFieldCount(fields, 6, kUsage);
  BufferDesc b;
  b.line = lineNo;
  if (Status s = parseIntAs(fields[1], "buffer id", b.id); !s.ok)
    return s;
  if (b.id != static_cast<int>(out.buffers.size()))
    return Status::error("buffer id " + std::to_string(b.id) + " out of order, expected " +
                         std::to_string(out.buffers.size()) + " (ids are 0, 1, 2 ... in order)");
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
  // A temp carries its arena offset when the bundle has an arena (version 4).
  const bool hasOffset = b.kind == BufferKind::constant || b.kind == BufferKind::alias ||
                         (b.kind == BufferKind::temp && out.arenaBytes);
  // Compare against the actual field count before allocating anything.
  if (rank > fields.size())
    return Status::error("RANK " + std::to_string(rank) + " exceeds the number of fields");
  if (Status s = expectFieldCount(fields, 6 + rank + (hasOffset ? 1 : 0), kUsage); !s.ok)
    return s;
  b.shape.resize(rank);
  for (uint64_t i = 0; i < rank; ++i)
    if (Status s =
            parseInt(fields[6 + i], "dimension", std::numeric_limits<int64_t>::max(), b.shape[i]);
        !s.ok)
      return s;
  if (hasOffset) {
    const char *what = b.kind == BufferKind::alias  ? "alias source id"
                       : b.kind == BufferKind::temp ? "arena OFFSET"
                                                    : "OFFSET";
    if (Status s = parseU64(fields[6 + rank], what, b.offset); !s.ok)
      return s;
  }

  // Per-record checks that need no later records; validateBundle() repeats
  // them on the whole bundle.
  std::optional<int64_t> numel = shapeNumElements(b.shape);
  uint64_t expected = 0;
  if (!numel || __builtin_mul_overflow(static_cast<uint64_t>(*numel),
                                       static_cast<uint64_t>(dtypeSize(b.dtype)), &expected))
    return Status::error("buffer " + std::to_string(b.id) +
                         ": element count of the shape overflows");
  if (expected != b.sizeBytes)
    return Status::error("buffer " + std::to_string(b.id) + ": SIZE_BYTES is " +
                         std::to_string(b.sizeBytes) + " but " +
                         formatTensorType(b.dtype, b.shape) + " needs " + std::to_string(expected) +
                         " bytes");
  if (b.kind == BufferKind::alias && b.offset >= static_cast<uint64_t>(b.id))
    return Status::error("buffer " + std::to_string(b.id) + ": alias source " +
                         std::to_string(b.offset) + " must be a buffer declared before it");
  lastBuffer = b.id;
  out.buffers.push_back(std::move(b));
  return Status::success();
}

Status ManifestParser::needSymbolsVersion(const char *what) const {
  if (version >= kFormatVersionSymbols)
    return Status::success();
  return Status::error("'" + std::string(what) + "' record in a version-" +
                       std::to_string(version) +
                       " bundle (symbolic dims need the 'aicc-bundle 6' header)");
}

Status ManifestParser::parseSymbol(const std::vector<std::string_view> &fields) {
  if (Status s = needSymbolsVersion("symbol"); !s.ok)
    return s;
  if (Status s = expectFieldCount(fields, 5, "symbol INDEX NAME MIN MAX"); !s.ok)
    return s;
  if (!sawTarget)
    return Status::error("the 'symbol' records must follow the 'target' record");
  if (!out.buffers.empty() || !out.inputs.empty() || !out.outputs.empty() ||
      !out.boundInputs.empty() || !out.kernels.empty() || !out.launches.empty())
    return Status::error("the 'symbol' records must precede the buffer records (they follow "
                         "'target' and 'arena')");
  uint64_t index = 0;
  if (Status s = parseU64(fields[1], "symbol INDEX", index); !s.ok)
    return s;
  if (index != out.symbols.size())
    return Status::error("symbol index " + std::to_string(index) + " out of order, expected " +
                         std::to_string(out.symbols.size()) +
                         " (symbols are 0, 1, 2 ... in order)");
  SymbolDesc sym;
  sym.line = lineNo;
  if (Status s = percentDecode(fields[2], sym.name); !s.ok)
    return s;
  if (Status s = parseInt(fields[3], "symbol MIN", std::numeric_limits<int64_t>::max(), sym.min);
      !s.ok)
    return s;
  if (Status s = parseInt(fields[4], "symbol MAX", std::numeric_limits<int64_t>::max(), sym.max);
      !s.ok)
    return s;
  out.symbols.push_back(std::move(sym));
  return Status::success();
}

Status ManifestParser::parseSymDim(const std::vector<std::string_view> &fields,
                                   int previousBuffer) {
  if (Status s = needSymbolsVersion("symdim"); !s.ok)
    return s;
  if (Status s = expectFieldCount(fields, 5, "symdim BUFFER_ID AXIS SYMBOL_INDEX FACTOR"); !s.ok)
    return s;
  SymDimDesc d;
  d.line = lineNo;
  if (Status s = parseIntAs(fields[1], "symdim BUFFER_ID", d.bufferId); !s.ok)
    return s;
  if (d.bufferId != previousBuffer)
    return Status::error("the 'symdim' record of buffer " + std::to_string(d.bufferId) +
                         " must follow right after that buffer's 'buffer' record");
  if (Status s = parseIntAs(fields[2], "symdim AXIS", d.axis); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[3], "symdim SYMBOL_INDEX", d.symbol); !s.ok)
    return s;
  if (Status s =
          parseInt(fields[4], "symdim FACTOR", std::numeric_limits<int64_t>::max(), d.factor);
      !s.ok)
    return s;
  // Further symdims of the same buffer parse too: validateBundle names the
  // duplicate.
  lastBuffer = previousBuffer;
  out.symDims.push_back(d);
  return Status::success();
}

Status ManifestParser::parseSymValues(const std::vector<std::string_view> &fields) {
  if (version < kFormatVersionSymValues)
    return Status::error("'symvalues' record in a version-" + std::to_string(version) +
                         " bundle (it needs the 'aicc-bundle 7' header)");
  if (Status s = expectFieldCount(fields, 2, "symvalues BUFFER_ID"); !s.ok)
    return s;
  if (out.launches.empty())
    return Status::error("the 'symvalues' record must follow the 'launch' records");
  sawSymValues = true;
  out.symValuesLine = lineNo;
  return parseIntAs(fields[1], "symvalues BUFFER_ID", out.symValuesBuffer);
}

Status ManifestParser::parseSymGrid(const std::vector<std::string_view> &fields) {
  if (Status s = needSymbolsVersion("symgrid"); !s.ok)
    return s;
  if (Status s =
          expectFieldCount(fields, 7, "symgrid LAUNCH_INDEX AXIS SYMBOL_INDEX UNIT PER GROUP");
      !s.ok)
    return s;
  sawSymGrid = true;
  SymGridDesc g;
  g.line = lineNo;
  if (Status s = parseIntAs(fields[1], "symgrid LAUNCH_INDEX", g.launchIndex); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[2], "symgrid AXIS", g.axis); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[3], "symgrid SYMBOL_INDEX", g.symbol); !s.ok)
    return s;
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  if (Status s = parseInt(fields[4], "symgrid UNIT", kMax, g.unit); !s.ok)
    return s;
  if (Status s = parseInt(fields[5], "symgrid PER", kMax, g.per); !s.ok)
    return s;
  if (Status s = parseInt(fields[6], "symgrid GROUP", kMax, g.group); !s.ok)
    return s;
  out.symGrids.push_back(g);
  return Status::success();
}

Status ManifestParser::parseSymbolRange(const std::vector<std::string_view> &fields,
                                        const char *launchField, const char *rec, int &launch,
                                        int &symbol, int64_t &lo, int64_t &hi) {
  if (Status s = parseIntAs(fields[1], launchField, launch); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[2], (std::string(rec) + " SYMBOL_INDEX").c_str(), symbol);
      !s.ok)
    return s;
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  if (Status s = parseInt(fields[3], (std::string(rec) + " LO").c_str(), kMax, lo); !s.ok)
    return s;
  return parseInt(fields[4], (std::string(rec) + " HI").c_str(), kMax, hi);
}

Status ManifestParser::parseSymRange(const std::vector<std::string_view> &fields) {
  if (version < kFormatVersionSymRanges)
    return Status::error("'symrange' record in a version-" + std::to_string(version) +
                         " bundle (it needs the 'aicc-bundle 9' header)");
  if (Status s = expectFieldCount(fields, 5, "symrange LAUNCH_INDEX SYMBOL_INDEX LO HI"); !s.ok)
    return s;
  if (out.launches.empty())
    return Status::error("the 'symrange' records must follow the 'launch' records");
  sawSymRange = true;
  SymRangeDesc r;
  r.line = lineNo;
  if (Status s = parseSymbolRange(fields, "symrange LAUNCH_INDEX", "symrange", r.launchIndex,
                                  r.symbol, r.lo, r.hi);
      !s.ok)
    return s;
  out.symRanges.push_back(r);
  return Status::success();
}

Status ManifestParser::parsePlan(const std::vector<std::string_view> &fields) {
  if (version < kFormatVersionPlans)
    return Status::error("'plan' record in a version-" + std::to_string(version) +
                         " bundle (it needs the 'aicc-bundle 10' header)");
  if (Status s = expectFieldCount(fields, 6, "plan FIRST_LAUNCH SYMBOL_INDEX LO HI bound|packed");
      !s.ok)
    return s;
  if (out.launches.empty())
    return Status::error("the 'plan' records must follow the 'launch' records");
  sawPlan = true;
  PlanDesc p;
  p.line = lineNo;
  if (Status s = parseSymbolRange(fields, "plan FIRST_LAUNCH", "plan", p.firstLaunch, p.symbol,
                                  p.lo, p.hi);
      !s.ok)
    return s;
  if (fields[5] != "bound" && fields[5] != "packed")
    return Status::error("bad plan LAYOUT '" + std::string(fields[5]) +
                         "' (expected bound or packed)");
  p.packed = fields[5] == "packed";
  out.plans.push_back(p);
  return Status::success();
}

Status ManifestParser::parseIO(const std::vector<std::string_view> &fields, bool isInput) {
  if (Status s = expectFieldCount(
          fields, 4, isInput ? "input INDEX BUFFER_ID NAME" : "output INDEX BUFFER_ID NAME");
      !s.ok)
    return s;
  std::vector<IODesc> &list = isInput ? out.inputs : out.outputs;
  IODesc io;
  io.line = lineNo;
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
  bi.line = lineNo;
  if (Status s = parseIntAs(fields[1], "position", bi.position); !s.ok)
    return s;
  if (Status s = percentDecode(fields[2], bi.name); !s.ok)
    return s;
  std::optional<DType> dtype = parseDType(fields[3]);
  if (!dtype)
    return Status::error("unknown dtype '" + std::string(fields[3]) +
                         "' (expected f32 f16 bf16 f64 i64 i32 i16 i8 u64 u32 u16 u8 bool)");
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
  if (Status s =
          expectFieldCount(fields, 10, "kernel NAME GX GY GZ BX BY BZ SHARED_BYTES NUM_PARAMS");
      !s.ok)
    return s;
  KernelDesc k;
  k.line = lineNo;
  if (Status s = percentDecode(fields[1], k.name); !s.ok)
    return s;
  for (int d = 0; d < 3; ++d) {
    if (Status s =
            parseInt(fields[2 + d], "grid size", std::numeric_limits<int64_t>::max(), k.grid[d]);
        !s.ok)
      return s;
    if (Status s =
            parseInt(fields[5 + d], "block size", std::numeric_limits<int64_t>::max(), k.block[d]);
        !s.ok)
      return s;
  }
  if (Status s = parseU64(fields[8], "SHARED_BYTES", k.sharedBytes); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[9], "NUM_PARAMS", k.numParams); !s.ok)
    return s;
  if (!kernelIndex.emplace(k.name, out.kernels.size()).second)
    return Status::error("kernel '" + k.name + "' is declared twice");
  out.kernels.push_back(std::move(k));
  return Status::success();
}

Status ManifestParser::findKernelFor(std::string_view field, const char *record, KernelDesc *&k) {
  std::string name;
  if (Status s = percentDecode(field, name); !s.ok)
    return s;
  auto it = kernelIndex.find(name);
  if (it == kernelIndex.end())
    return Status::error("'" + std::string(record) + "' record for kernel '" + name +
                         "' before (or without) its 'kernel' record");
  k = &out.kernels[it->second];
  return Status::success();
}

Status ManifestParser::parseParam(const std::vector<std::string_view> &fields) {
  if (version < kFormatVersionChecksums)
    return Status::error("'param' record in a version-" + std::to_string(version) +
                         " bundle (parameter records need the 'aicc-bundle 3' header)");
  if (Status s = expectFieldCount(fields, 5, "param KERNEL_NAME INDEX DTYPE SIZE_BYTES"); !s.ok)
    return s;
  KernelDesc *k = nullptr;
  if (Status s = findKernelFor(fields[1], "param", k); !s.ok)
    return s;
  uint64_t index = 0;
  if (Status s = parseU64(fields[2], "parameter INDEX", index); !s.ok)
    return s;
  if (index != k->params.size())
    return Status::error("kernel '" + k->name + "': parameter index " + std::to_string(index) +
                         " out of order, expected " + std::to_string(k->params.size()) +
                         " (a kernel's param records are 0, 1, 2 ... in order)");
  if (index >= static_cast<uint64_t>(std::max(k->numParams, 0)))
    return Status::error("kernel '" + k->name + "': parameter " + std::to_string(index) +
                         " is past its NUM_PARAMS " + std::to_string(k->numParams));
  ParamDesc p;
  p.line = lineNo;
  std::optional<DType> dtype = parseDType(fields[3]);
  if (!dtype)
    return Status::error("unknown dtype '" + std::string(fields[3]) +
                         "' (expected f32 f16 bf16 f64 i64 i32 i16 i8 u64 u32 u16 u8 bool)");
  p.dtype = *dtype;
  if (Status s = parseU64(fields[4], "SIZE_BYTES", p.sizeBytes); !s.ok)
    return s;
  k->params.push_back(p);
  return Status::success();
}

Status ManifestParser::parseInPlace(const std::vector<std::string_view> &fields) {
  if (version < kFormatVersionInPlace)
    return Status::error("'inplace' record in a version-" + std::to_string(version) +
                         " bundle (in-place records need the 'aicc-bundle 5' header)");
  if (Status s = expectFieldCount(fields, 4, "inplace KERNEL_NAME INPUT_PARAM OUTPUT_PARAM"); !s.ok)
    return s;
  KernelDesc *k = nullptr;
  if (Status s = findKernelFor(fields[1], "inplace", k); !s.ok)
    return s;
  InPlaceDesc d;
  d.line = lineNo;
  if (Status s = parseIntAs(fields[2], "INPUT_PARAM", d.input); !s.ok)
    return s;
  if (Status s = parseIntAs(fields[3], "OUTPUT_PARAM", d.output); !s.ok)
    return s;
  k->inPlace.push_back(d);
  return Status::success();
}

Status ManifestParser::parseLaunch(const std::vector<std::string_view> &fields) {
  static const char *kUsage = "launch KERNEL_NAME N BUF_ID_0 .. BUF_ID_N-1";
  if (fields.size() < 3)
    return expectFieldCount(fields, 3, kUsage);
  LaunchDesc l;
  l.line = lineNo;
  if (Status s = percentDecode(fields[1], l.kernel); !s.ok)
    return s;
  uint64_t n = 0;
  if (Status s = parseU64(fields[2], "buffer count", n); !s.ok)
    return s;
  if (n != fields.size() - 3)
    return Status::error("launch of '" + l.kernel + "' says " + std::to_string(n) +
                         " buffers but lists " + std::to_string(fields.size() - 3));
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
  KernelDesc *k = nullptr;
  if (Status s = findKernelFor(fields[1], "tensormap", k); !s.ok)
    return s;
  TensorMapDesc t;
  t.line = lineNo;
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

Status aicc::runtime::parseBundle(std::string_view bytes, Bundle &out, const Limits &limits) {
  out = Bundle();
  if (bytes.size() < sizeof(kMagic))
    return Status::error("not an aicc bundle: file is " + std::to_string(bytes.size()) +
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
    return Status::error("malformed bundle: " + std::to_string(reader.remaining()) +
                         " trailing bytes after the weights section");
  if (manifest.size() > limits.maxManifestBytes)
    return Status::error("the manifest section is " + std::to_string(manifest.size()) +
                         " bytes, above the limit of " + std::to_string(limits.maxManifestBytes) +
                         " (Limits::maxManifestBytes)");

  // Integrity first: nothing of a version-3 to -6 bundle is interpreted before its
  // three sections match their checksums.
  std::string_view records = manifest;
  if (headerVersion(manifest) >= kFormatVersionChecksums)
    if (Status s = verifyChecksums(manifest, code, weights, records); !s.ok)
      return s;
  if (Status s = ManifestParser(records, out).parse(); !s.ok)
    return s;
  out.code = std::string(code);
  out.weights = std::string(weights);
  return validateBundle(out, limits);
}

Status aicc::runtime::readBundleFile(const std::string &path, Bundle &out, const Limits &limits) {
  std::string bytes;
  if (Status s = readRegularFile(path, limits.maxFileBytes, bytes, "bundle"); !s.ok)
    return s;
  return parseBundle(bytes, out, limits).withContext(path);
}
