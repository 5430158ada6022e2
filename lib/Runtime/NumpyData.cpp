//===- NumpyData.cpp - numpy .npy / .npz files <-> HostTensor -------------===//
//
// See include/aicc/Runtime/NumpyData.h. Every read goes through a bounds check
// against the input's size; every product of sizes is overflow-checked.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/NumpyData.h"
#include "aicc/Runtime/ReadFile.h"

#include <zlib.h>

#include <cstring>
#include <limits>
#include <optional>
#include <set>

using namespace aicc::runtime;

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicSize = 6;

std::string at(size_t offset) { return "at byte " + std::to_string(offset); }

/// The dict of an .npy header, e.g.
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// (Python literal syntax: single- or double-quoted strings, True/False, tuples of
/// non-negative integers, trailing commas; spaces, then a newline, pad it).
class HeaderParser {
public:
  HeaderParser(std::string_view text, size_t base) : text(text), base(base) {}

  Status parse(std::string &descr, bool &fortranOrder, std::vector<int64_t> &shape) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!eat('{'))
      return error("expected '{' (the header is a Python dict literal)");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (Status s = parseString(key); !s.ok)
        return s;
      skipSpace();
      if (!eat(':'))
        return error("expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (haveDescr)
          return error("key 'descr' given twice");
        haveDescr = true;
        if (pos < text.size() && text[pos] == '[')
          return error("structured dtypes (a list of fields) are not supported");
        if (Status s = parseString(descr); !s.ok)
          return s;
      } else if (key == "fortran_order") {
        if (haveOrder)
          return error("key 'fortran_order' given twice");
        haveOrder = true;
        if (text.substr(pos, 4) == "True") {
          fortranOrder = true;
          pos += 4;
        } else if (text.substr(pos, 5) == "False") {
          fortranOrder = false;
          pos += 5;
        } else {
          return error("expected True or False for 'fortran_order'");
        }
      } else if (key == "shape") {
        if (haveShape)
          return error("key 'shape' given twice");
        haveShape = true;
        if (Status s = parseShape(shape); !s.ok)
          return s;
      } else {
        return error("unexpected key '" + key +
                     "' (an .npy header has 'descr', 'fortran_order' and 'shape')");
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return error("expected ',' or '}'");
    }
    skipSpace();
    if (pos != text.size())
      return error("unexpected text after the header's dict");
    if (!haveDescr || !haveOrder || !haveShape)
      return error(std::string("the header lacks key '") +
                   (!haveDescr   ? "descr"
                    : !haveOrder ? "fortran_order"
                                 : "shape") +
                   "'");
    return Status::success();
  }

private:
  Status error(const std::string &what) const {
    return Status::error("malformed .npy header " + at(base + pos) + ": " + what);
  }
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool eat(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  Status parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return error("expected a quoted string");
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string_view::npos)
      return error("unterminated string");
    out.assign(text.substr(pos, end - pos));
    if (out.find('\\') != std::string::npos)
      return error("escapes in strings are not supported");
    pos = end + 1;
    return Status::success();
  }
  Status parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!eat('('))
      return error("expected '(' for 'shape' (a tuple of integers)");
    while (true) {
      skipSpace();
      if (eat(')'))
        return Status::success();
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        return error("expected a non-negative integer dimension");
      uint64_t v = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        v = v * 10 + static_cast<uint64_t>(text[pos++] - '0');
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 10))
          return error("dimension too large");
      }
      // Python 2 numpy wrote long integers as 3L.
      if (pos < text.size() && text[pos] == 'L')
        ++pos;
      if (shape.size() == kMaxNpyRank)
        return error("more than " + std::to_string(kMaxNpyRank) + " dimensions");
      shape.push_back(static_cast<int64_t>(v));
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat(')'))
        return Status::success();
      return error("expected ',' or ')' in 'shape'");
    }
  }

  std::string_view text;
  size_t base; // offset of `text` in the file, for messages
  size_t pos = 0;
};

/// The runtime dtype of an .npy descr ("<f4", "|b1", ...).
Status dtypeOfDescr(const std::string &descr, DType &out) {
  if (descr.size() < 2)
    return Status::error("unsupported dtype '" + descr + "'");
  char order = descr[0];
  std::string kind = descr.substr(1);
  if (order == '>')
    return Status::error("dtype '" + descr +
                         "' is big-endian; save the array little-endian "
                         "(numpy: a.astype(a.dtype.newbyteorder('<')))");
  if (order != '<' && order != '|' && order != '=')
    return Status::error("unsupported dtype '" + descr + "'");
  static const std::pair<const char *, DType> table[] = {
      {"f2", DType::f16}, {"f4", DType::f32}, {"f8", DType::f64}, {"i1", DType::i8},
      {"i2", DType::i16}, {"i4", DType::i32}, {"i8", DType::i64}, {"u1", DType::u8},
      {"u2", DType::u16}, {"u4", DType::u32}, {"u8", DType::u64}, {"b1", DType::boolean}};
  for (const auto &[name, dtype] : table)
    if (kind == name) {
      // A multi-byte type needs a byte order; '|' is numpy's mark for none.
      if (order == '|' && dtypeSize(dtype) > 1)
        return Status::error("dtype '" + descr + "' has no byte order");
      out = dtype;
      return Status::success();
    }
  const char *why = "";
  switch (kind[0]) {
  case 'c':
    why = " (complex)";
    break;
  case 'O':
    why = " (object arrays are pickled Python objects)";
    break;
  case 'S':
  case 'U':
  case 'a':
    why = " (strings)";
    break;
  case 'V':
    why = " (raw bytes; give a bfloat16 input as uint16 bit patterns)";
    break;
  case 'M':
  case 'm':
    why = " (dates and times)";
    break;
  default:
    break;
  }
  return Status::error("unsupported dtype '" + descr + "'" + why +
                       "; supported: float16/32/64, int8/16/32/64, uint8/16/32/64, bool");
}

uint32_t readLE32(const char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

uint16_t readLE16(const char *p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | (static_cast<uint8_t>(p[1]) << 8));
}

/// A bounds-checked view of the zip archive's bytes.
class ZipReader {
public:
  explicit ZipReader(std::string_view bytes) : bytes(bytes) {}
  bool has(uint64_t offset, uint64_t size) const {
    return offset <= bytes.size() && size <= bytes.size() - offset;
  }
  uint16_t u16(uint64_t offset) const { return readLE16(bytes.data() + offset); }
  uint32_t u32(uint64_t offset) const { return readLE32(bytes.data() + offset); }
  std::string_view slice(uint64_t offset, uint64_t size) const {
    return bytes.substr(offset, size);
  }
  uint64_t size() const { return bytes.size(); }

private:
  std::string_view bytes;
};

constexpr uint32_t kEndOfCentralDirSig = 0x06054b50;
constexpr uint32_t kCentralDirSig = 0x02014b50;
constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint64_t kEndOfCentralDirSize = 22;
constexpr uint64_t kCentralDirEntrySize = 46;
constexpr uint64_t kLocalHeaderSize = 30;

/// Inflates a raw deflate stream (zip method 8) of exactly `size` bytes.
Status inflateMember(std::string_view compressed, uint64_t size, std::string &out) {
  if (size > std::numeric_limits<uInt>::max() ||
      compressed.size() > std::numeric_limits<uInt>::max())
    return Status::error("member too large to inflate in one piece");
  out.assign(size, '\0');
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
    return Status::error("cannot initialize zlib");
  zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  zs.next_out = reinterpret_cast<Bytef *>(out.data());
  zs.avail_out = static_cast<uInt>(size);
  int rc = inflate(&zs, Z_FINISH);
  uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    if (rc == Z_BUF_ERROR && zs.avail_out == 0)
      return Status::error("the deflated data is longer than the recorded size of " +
                           std::to_string(size) + " bytes");
    return Status::error(std::string("corrupt deflate data (zlib: ") +
                         (zs.msg ? zs.msg : "truncated stream") + ")");
  }
  if (produced != size)
    return Status::error("inflates to " + std::to_string(produced) +
                         " bytes, the archive records " + std::to_string(size));
  return Status::success();
}

} // namespace

Status aicc::runtime::parseNpy(std::string_view bytes, HostTensor &out, uint64_t maxBytes) {
  if (bytes.size() < kNpyMagicSize + 2 || std::memcmp(bytes.data(), kNpyMagic, kNpyMagicSize) != 0)
    return Status::error("not an .npy file (it does not start with \"\\x93NUMPY\")");
  const int major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return Status::error("unsupported .npy format version " + std::to_string(major) + "." +
                         std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  const size_t lenSize = major == 1 ? 2 : 4;
  const size_t headerStart = 8 + lenSize;
  if (bytes.size() < headerStart)
    return Status::error("truncated .npy file: " + std::to_string(bytes.size()) +
                         " bytes end inside the header length");
  const uint64_t headerLen = major == 1 ? readLE16(bytes.data() + 8) : readLE32(bytes.data() + 8);
  if (headerLen > bytes.size() - headerStart)
    return Status::error("truncated .npy file: the header is " + std::to_string(headerLen) +
                         " bytes but only " + std::to_string(bytes.size() - headerStart) +
                         " follow " + at(headerStart));
  std::string_view header = bytes.substr(headerStart, headerLen);
  // Versions 1 and 2 are latin-1 text; numpy only ever writes ASCII there.
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == '\0' || (major < 3 && static_cast<uint8_t>(header[i]) >= 0x80))
      return Status::error("malformed .npy header " + at(headerStart + i) +
                           ": a byte that is not text");
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  if (Status s = HeaderParser(header, headerStart).parse(descr, fortranOrder, shape); !s.ok)
    return s;
  DType dtype;
  if (Status s = dtypeOfDescr(descr, dtype); !s.ok)
    return s;
  uint64_t elements = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements))
      return Status::error("the shape's element count overflows 64 bits");
  if (fortranOrder && shape.size() > 1 && elements > 1)
    return Status::error("the array is in Fortran order; save it in C order "
                         "(numpy: np.ascontiguousarray(a))");
  uint64_t dataBytes;
  if (__builtin_mul_overflow(elements, static_cast<uint64_t>(dtypeSize(dtype)), &dataBytes))
    return Status::error("the array's byte size overflows 64 bits");
  if (dataBytes > maxBytes)
    return Status::error("the array is " + std::to_string(dataBytes) +
                         " bytes, above the limit of " + std::to_string(maxBytes) + " bytes");
  const uint64_t dataStart = headerStart + headerLen;
  const uint64_t have = bytes.size() - dataStart;
  if (have != dataBytes)
    return Status::error("the shape (" + formatTensorType(dtype, shape) + ") needs " +
                         std::to_string(dataBytes) + " data bytes, the file has " +
                         std::to_string(have) + " after the header " + at(dataStart));
  out.dtype = dtype;
  out.shape = std::move(shape);
  out.data.assign(reinterpret_cast<const uint8_t *>(bytes.data() + dataStart),
                  reinterpret_cast<const uint8_t *>(bytes.data() + dataStart + dataBytes));
  if (dtype == DType::boolean)
    for (size_t i = 0; i < out.data.size(); ++i)
      if (out.data[i] > 1)
        return Status::error("bool element " + std::to_string(i) + " is " +
                             std::to_string(out.data[i]) + ", not 0 or 1");
  return Status::success();
}

Status aicc::runtime::parseNpz(std::string_view bytes, std::vector<NamedTensor> &out,
                               uint64_t maxBytes) {
  out.clear();
  ZipReader zip(bytes);
  // The end-of-central-directory record: the last 22 bytes, or up to 64 KiB earlier when
  // the archive has a comment.
  if (zip.size() < kEndOfCentralDirSize)
    return Status::error("not an .npz file (too short for a zip archive)");
  std::optional<uint64_t> eocd;
  uint64_t lowest =
      zip.size() > kEndOfCentralDirSize + 0xffff ? zip.size() - kEndOfCentralDirSize - 0xffff : 0;
  for (uint64_t p = zip.size() - kEndOfCentralDirSize + 1; p-- > lowest;)
    if (zip.u32(p) == kEndOfCentralDirSig &&
        p + kEndOfCentralDirSize + zip.u16(p + 20) == zip.size()) {
      eocd = p;
      break;
    }
  if (!eocd)
    return Status::error("not an .npz file (no zip end-of-central-directory record)");
  const uint64_t entries = zip.u16(*eocd + 10);
  const uint64_t cdSize = zip.u32(*eocd + 12), cdOffset = zip.u32(*eocd + 16);
  if (zip.u16(*eocd + 4) != 0 || zip.u16(*eocd + 6) != 0 || zip.u16(*eocd + 8) != entries)
    return Status::error("multi-disk zip archives are not supported");
  if (entries == 0xffff || cdSize == 0xffffffff || cdOffset == 0xffffffff)
    return Status::error("ZIP64 archives (over 65535 members or 4 GiB) are not supported");
  if (!zip.has(cdOffset, cdSize) || cdOffset + cdSize > *eocd)
    return Status::error("corrupt .npz: the central directory (" + std::to_string(cdSize) +
                         " bytes " + at(cdOffset) + ") lies outside the archive");
  std::set<std::string> names;
  uint64_t p = cdOffset;
  for (uint64_t i = 0; i < entries; ++i) {
    const std::string entry = "corrupt .npz: central directory entry " + std::to_string(i);
    if (!zip.has(p, kCentralDirEntrySize) || p + kCentralDirEntrySize > cdOffset + cdSize ||
        zip.u32(p) != kCentralDirSig)
      return Status::error(entry + " " + at(p) + " is truncated or has a bad signature");
    const uint16_t flags = zip.u16(p + 8), method = zip.u16(p + 10);
    const uint32_t crc = zip.u32(p + 16);
    const uint64_t compSize = zip.u32(p + 20), size = zip.u32(p + 24);
    const uint64_t nameLen = zip.u16(p + 28), extraLen = zip.u16(p + 30),
                   commentLen = zip.u16(p + 32), localOffset = zip.u32(p + 42);
    const uint64_t entryEnd = p + kCentralDirEntrySize + nameLen + extraLen + commentLen;
    if (entryEnd > cdOffset + cdSize)
      return Status::error(entry + " " + at(p) + " runs past the central directory");
    std::string file(zip.slice(p + kCentralDirEntrySize, nameLen));
    p = entryEnd;
    const std::string member = "member '" + file + "' of the .npz";
    if (compSize == 0xffffffff || size == 0xffffffff || localOffset == 0xffffffff)
      return Status::error(member + ": ZIP64 members (over 4 GiB) are not supported");
    if (flags & 1)
      return Status::error(member + " is encrypted");
    if (method != 0 && method != 8)
      return Status::error(member + " uses compression method " + std::to_string(method) +
                           " (supported: 0 stored, 8 deflate)");
    constexpr std::string_view kSuffix = ".npy";
    if (file.size() <= kSuffix.size() ||
        file.compare(file.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      return Status::error(member + " is not an .npy file (NAME.npy)");
    std::string name = file.substr(0, file.size() - kSuffix.size());
    if (!names.insert(name).second)
      return Status::error(member + " appears twice");
    if (size > maxBytes)
      return Status::error(member + " is " + std::to_string(size) +
                           " bytes uncompressed, above the limit of " + std::to_string(maxBytes) +
                           " bytes");
    // The local header repeats the name; its own extra field may differ in length.
    if (!zip.has(localOffset, kLocalHeaderSize) || zip.u32(localOffset) != kLocalHeaderSig)
      return Status::error("corrupt .npz: " + member + ": no local header " + at(localOffset));
    const uint64_t dataOffset =
        localOffset + kLocalHeaderSize + zip.u16(localOffset + 26) + zip.u16(localOffset + 28);
    if (!zip.has(dataOffset, compSize))
      return Status::error("corrupt .npz: " + member + ": its " + std::to_string(compSize) +
                           " bytes " + at(dataOffset) + " run past the end of the archive");
    std::string_view stored = zip.slice(dataOffset, compSize);
    std::string inflated;
    if (method == 8) {
      if (Status s = inflateMember(stored, size, inflated); !s.ok)
        return s.withContext(member);
      stored = inflated;
    } else if (compSize != size) {
      return Status::error("corrupt .npz: " + member + " is stored with " +
                           std::to_string(compSize) + " bytes but records " + std::to_string(size));
    }
    uLong actual = crc32(0L, Z_NULL, 0);
    // zlib's crc32 takes uInt lengths: feed it in pieces.
    for (size_t off = 0; off < stored.size();) {
      size_t n = std::min<size_t>(stored.size() - off, 1u << 30);
      actual =
          crc32(actual, reinterpret_cast<const Bytef *>(stored.data() + off), static_cast<uInt>(n));
      off += n;
    }
    if (actual != crc)
      return Status::error("corrupt .npz: " + member + ": CRC-32 mismatch");
    NamedTensor t;
    t.name = std::move(name);
    if (Status s = parseNpy(stored, t.tensor, maxBytes); !s.ok)
      return s.withContext(member);
    out.push_back(std::move(t));
  }
  return Status::success();
}

Status aicc::runtime::readNpyFile(const std::string &path, HostTensor &out, uint64_t maxBytes) {
  std::string bytes;
  if (Status s = readRegularFile(path, maxBytes, bytes); !s.ok)
    return s;
  return parseNpy(bytes, out, maxBytes).withContext("'" + path + "'");
}

Status aicc::runtime::readNpzFile(const std::string &path, std::vector<NamedTensor> &out,
                                  uint64_t maxBytes) {
  std::string bytes;
  if (Status s = readRegularFile(path, maxBytes, bytes); !s.ok)
    return s;
  return parseNpz(bytes, out, maxBytes).withContext("'" + path + "'");
}

Status aicc::runtime::serializeNpy(const HostTensor &tensor, std::string &out) {
  const char *descr = nullptr;
  switch (tensor.dtype) {
  case DType::f16:
    descr = "<f2";
    break;
  case DType::f32:
    descr = "<f4";
    break;
  case DType::f64:
    descr = "<f8";
    break;
  case DType::bf16:
  case DType::u16:
    descr = "<u2";
    break;
  case DType::i8:
    descr = "|i1";
    break;
  case DType::i16:
    descr = "<i2";
    break;
  case DType::i32:
    descr = "<i4";
    break;
  case DType::i64:
    descr = "<i8";
    break;
  case DType::u8:
    descr = "|u1";
    break;
  case DType::u32:
    descr = "<u4";
    break;
  case DType::u64:
    descr = "<u8";
    break;
  case DType::boolean:
    descr = "|b1";
    break;
  }
  int64_t n = tensor.numElements();
  if (n < 0 || tensor.data.size() != static_cast<uint64_t>(n) * dtypeSize(tensor.dtype))
    return Status::error("tensor " + formatTensorType(tensor.dtype, tensor.shape) + " has " +
                         std::to_string(tensor.data.size()) + " data bytes");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += std::to_string(tensor.shape[i]) +
             (tensor.shape.size() == 1 || i + 1 < tensor.shape.size() ? "," : "");
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic, version and length take 10 bytes; the header ends in '\n' and pads the total to
  // a multiple of 64 bytes (numpy's alignment).
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff)
    return Status::error("the .npy header is too long for format 1.0");
  out.assign(kNpyMagic, kNpyMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char *>(tensor.data.data()), tensor.data.size());
  return Status::success();
}
