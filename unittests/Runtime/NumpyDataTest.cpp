//===- NumpyDataTest.cpp - .npy / .npz reading and writing -----------------===//
//
// Files numpy wrote (testdata/*.npy, *.npz; testdata/README.md), round trips through
// serializeNpy, and hostile input: every malformed header, truncation and corrupt archive
// must give an error that says what is wrong, never a crash or a read past the end (the
// sanitizer build runs these tests under ASan).
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/NumpyData.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace aicc::runtime;

namespace {

std::string testdata(const std::string &name) {
  return std::string(AICC_RUNTIME_TESTDATA) + "/" + name;
}

std::string readAll(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// An .npy file with `header` as its dict (padded as numpy pads) and `data` after it.
std::string npy(const std::string &header, const std::string &data, int major = 1) {
  std::string h = header;
  size_t prefix = major == 1 ? 10 : 12;
  h.append((64 - (prefix + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  uint32_t n = static_cast<uint32_t>(h.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + h + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.begin(), s.size());
  return s;
}

std::string errorOf(const std::string &bytes) {
  HostTensor t;
  Status s = parseNpy(bytes, t);
  EXPECT_FALSE(s.ok);
  return s.message;
}

void putLE(std::string &s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    s += static_cast<char>((v >> (8 * i)) & 0xff);
}

/// A zip archive of `members` (name, bytes), stored (method 0) or deflated (method 8).
std::string zipOf(const std::vector<std::pair<std::string, std::string>> &members, bool deflated) {
  std::string out, cd;
  for (const auto &[name, bytes] : members) {
    std::string data = bytes;
    if (deflated) {
      z_stream zs{};
      deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
      data.assign(deflateBound(&zs, bytes.size()), '\0');
      zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
      zs.avail_in = bytes.size();
      zs.next_out = reinterpret_cast<Bytef *>(data.data());
      zs.avail_out = data.size();
      EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
      data.resize(zs.total_out);
      deflateEnd(&zs);
    }
    uint32_t crc = crc32(0, reinterpret_cast<const Bytef *>(bytes.data()), bytes.size());
    uint64_t local = out.size();
    putLE(out, 0x04034b50, 4);
    putLE(out, 20, 2);
    putLE(out, 0, 2);
    putLE(out, deflated ? 8 : 0, 2);
    putLE(out, 0, 4);
    putLE(out, crc, 4);
    putLE(out, data.size(), 4);
    putLE(out, bytes.size(), 4);
    putLE(out, name.size(), 2);
    putLE(out, 0, 2);
    out += name + data;
    putLE(cd, 0x02014b50, 4);
    putLE(cd, 20, 2);
    putLE(cd, 20, 2);
    putLE(cd, 0, 2);
    putLE(cd, deflated ? 8 : 0, 2);
    putLE(cd, 0, 4);
    putLE(cd, crc, 4);
    putLE(cd, data.size(), 4);
    putLE(cd, bytes.size(), 4);
    putLE(cd, name.size(), 2);
    putLE(cd, 0, 2);
    putLE(cd, 0, 2);
    putLE(cd, 0, 2);
    putLE(cd, 0, 2);
    putLE(cd, 0, 4);
    putLE(cd, local, 4);
    cd += name;
  }
  uint64_t cdOffset = out.size();
  out += cd;
  putLE(out, 0x06054b50, 4);
  putLE(out, 0, 2);
  putLE(out, 0, 2);
  putLE(out, members.size(), 2);
  putLE(out, members.size(), 2);
  putLE(out, cd.size(), 4);
  putLE(out, cdOffset, 4);
  putLE(out, 0, 2);
  return out;
}

const std::string kX = floats({-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f});

TEST(NumpyData, ReadsEveryFormatVersionNumpyWrites) {
  for (const char *file : {"x_v1.npy", "x_v2.npy", "x_v3.npy"}) {
    HostTensor t;
    Status s = readNpyFile(testdata(file), t);
    ASSERT_TRUE(s.ok) << file << ": " << s.message;
    EXPECT_EQ(t.dtype, DType::f32);
    EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(std::string(t.data.begin(), t.data.end()), kX) << file;
  }
}

TEST(NumpyData, ReadsHalfAndScalars) {
  HostTensor h;
  ASSERT_TRUE(readNpyFile(testdata("half.npy"), h).ok);
  EXPECT_EQ(h.dtype, DType::f16);
  ASSERT_EQ(h.data.size(), 4u);
  EXPECT_EQ(h.data[0] | (h.data[1] << 8), 0x3e00); // 1.5
  HostTensor s;
  ASSERT_TRUE(readNpyFile(testdata("scalar_f64.npy"), s).ok);
  EXPECT_EQ(s.dtype, DType::f64);
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(*s.as<double>(), 0.25);
}

TEST(NumpyData, RefusesBigEndianAndFortranOrderFromNumpy) {
  HostTensor t;
  Status be = readNpyFile(testdata("big_endian.npy"), t);
  ASSERT_FALSE(be.ok);
  EXPECT_NE(be.message.find("big_endian.npy"), std::string::npos) << be.message;
  EXPECT_NE(be.message.find("'>i4' is big-endian"), std::string::npos) << be.message;
  Status fo = readNpyFile(testdata("fortran.npy"), t);
  ASSERT_FALSE(fo.ok);
  EXPECT_NE(fo.message.find("Fortran order"), std::string::npos) << fo.message;
}

TEST(NumpyData, ReadsNumpyArchives) {
  std::vector<NamedTensor> c;
  Status s = readNpzFile(testdata("inputs_compressed.npz"), c);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].name, "x");
  EXPECT_EQ(std::string(c[0].tensor.data.begin(), c[0].tensor.data.end()), kX);
  EXPECT_EQ(c[1].name, "idx");
  EXPECT_EQ(c[1].tensor.dtype, DType::i64);
  EXPECT_EQ(c[1].tensor.as<int64_t>()[1], -1);
  EXPECT_EQ(c[2].name, "flag");
  EXPECT_EQ(c[2].tensor.dtype, DType::boolean);
  EXPECT_EQ(c[2].tensor.data, (std::vector<uint8_t>{1, 0}));
  std::vector<NamedTensor> p;
  ASSERT_TRUE(readNpzFile(testdata("inputs_positional.npz"), p).ok);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].name, "arr_0");
  EXPECT_EQ(p[1].name, "arr_1");
}

TEST(NumpyData, RoundTripsEveryDType) {
  for (DType d : {DType::f32, DType::f16, DType::f64, DType::i64, DType::i32, DType::i8, DType::u8,
                  DType::boolean, DType::i16, DType::u16, DType::u32, DType::u64}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {3}, {2, 0, 4}, {1, 2, 3}}) {
      HostTensor t = HostTensor::zeros(d, shape);
      for (size_t i = 0; i < t.data.size(); ++i)
        t.data[i] = d == DType::boolean ? i % 2 : static_cast<uint8_t>(i * 37 + 1);
      std::string bytes;
      ASSERT_TRUE(serializeNpy(t, bytes).ok);
      EXPECT_EQ((bytes.size() - t.data.size()) % 64, 0u);
      HostTensor back;
      Status s = parseNpy(bytes, back);
      ASSERT_TRUE(s.ok) << dtypeName(d) << ": " << s.message;
      EXPECT_EQ(back.dtype, d);
      EXPECT_EQ(back.shape, shape);
      EXPECT_EQ(back.data, t.data);
    }
  }
}

TEST(NumpyData, AcceptsHeaderVariants) {
  HostTensor t;
  // Keys in another order, double quotes, no trailing comma, '=' byte order, 1-tuples.
  EXPECT_TRUE(
      parseNpy(npy("{\"shape\": (6,), \"fortran_order\": False, \"descr\": \"=f4\"}", kX), t).ok);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{6}));
  // A 1-D array is the same in either order.
  EXPECT_TRUE(parseNpy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (6,), }", kX), t).ok);
  EXPECT_TRUE(
      parseNpy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", kX, 2), t).ok);
}

TEST(NumpyData, RefusesMalformedHeadersWithTheirOffset) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_NE(errorOf("").find("not an .npy file"), std::string::npos);
  EXPECT_NE(errorOf("\x93NUMPZ\x01\x00").find("not an .npy file"), std::string::npos);
  EXPECT_NE(errorOf(std::string("\x93NUMPY\x04\x00", 8)).find("version 4.0"), std::string::npos);
  EXPECT_NE(errorOf(std::string("\x93NUMPY\x01\x00\x05", 9)).find("inside the header length"),
            std::string::npos);
  // A header length past the end of the file.
  std::string truncated = npy(good, kX);
  truncated.resize(40);
  EXPECT_NE(errorOf(truncated).find("truncated .npy file"), std::string::npos);
  EXPECT_NE(errorOf(npy("['descr']", kX)).find("at byte 10: expected '{'"), std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr' '<f4'}", kX)).find("at byte 19: expected ':'"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4, }", kX)).find("unterminated string"), std::string::npos);
  EXPECT_NE(
      errorOf(npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}", kX)).find("True or False"),
      std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", kX))
                .find("non-negative integer"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': [6]}", kX))
                .find("expected '('"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6 }", kX))
                .find("expected ',' or ')'"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False}", kX)).find("lacks key 'shape'"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'descr': '<f4'}", kX)).find("given twice"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", kX))
                .find("unexpected key 'x'"),
            std::string::npos);
  EXPECT_NE(errorOf(npy(good + " junk", kX)).find("unexpected text after"), std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}", kX))
                .find("structured dtypes"),
            std::string::npos);
  std::string nul = npy(good, kX);
  nul[20] = '\0';
  EXPECT_NE(errorOf(nul).find("at byte 20: a byte that is not text"), std::string::npos);
  // 2^64 elements, and a dim that does not fit int64.
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
                        "4294967296)}",
                        kX))
                .find("overflows"),
            std::string::npos);
  EXPECT_NE(errorOf(npy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(99999999999999999999,)}",
                        kX))
                .find("dimension too large"),
            std::string::npos);
  std::string deep = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i)
    deep += "1,";
  EXPECT_NE(errorOf(npy(deep + ")}", floats({1}))).find("more than 64 dimensions"),
            std::string::npos);
}

TEST(NumpyData, RefusesUnsupportedDTypesAndWrongSizes) {
  auto with = [](const std::string &descr, const std::string &data, const std::string &shape) {
    return npy("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + "}", data);
  };
  EXPECT_NE(errorOf(with("<c8", kX, "(3,)")).find("(complex)"), std::string::npos);
  EXPECT_NE(errorOf(with("|O", kX, "(3,)")).find("object arrays"), std::string::npos);
  EXPECT_NE(errorOf(with("<U4", kX, "(1,)")).find("(strings)"), std::string::npos);
  EXPECT_NE(errorOf(with("|V2", kX, "(12,)")).find("bfloat16"), std::string::npos);
  EXPECT_NE(errorOf(with("|f4", kX, "(6,)")).find("no byte order"), std::string::npos);
  EXPECT_NE(errorOf(with(">f8", kX, "(3,)")).find("big-endian"), std::string::npos);
  EXPECT_NE(errorOf(with("<f4", kX, "(7,)")).find("needs 28 data bytes, the file has 24"),
            std::string::npos);
  EXPECT_NE(errorOf(with("<f4", kX, "(5,)")).find("needs 20 data bytes, the file has 24"),
            std::string::npos);
  EXPECT_NE(errorOf(with("|b1", std::string("\x01\x02", 2), "(2,)")).find("bool element 1 is 2"),
            std::string::npos);
  HostTensor t;
  Status capped = parseNpy(with("<f4", kX, "(6,)"), t, /*maxBytes=*/16);
  ASSERT_FALSE(capped.ok);
  EXPECT_NE(capped.message.find("above the limit of 16 bytes"), std::string::npos);
}

TEST(NumpyData, ReadsArchivesItBuilds) {
  std::string a = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", kX);
  for (bool deflated : {false, true}) {
    std::vector<NamedTensor> out;
    Status s = parseNpz(zipOf({{"a.npy", a}, {"dir/b.npy", a}}, deflated), out);
    ASSERT_TRUE(s.ok) << s.message;
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].name, "dir/b");
  }
}

TEST(NumpyData, RefusesCorruptArchives) {
  std::string a = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", kX);
  auto errorOfZip = [](const std::string &bytes, uint64_t maxBytes = UINT64_MAX) {
    std::vector<NamedTensor> out;
    Status s = parseNpz(bytes, out, maxBytes);
    EXPECT_FALSE(s.ok);
    return s.message;
  };
  EXPECT_NE(errorOfZip("PK").find("too short"), std::string::npos);
  EXPECT_NE(errorOfZip(a).find("no zip end-of-central-directory"), std::string::npos);
  EXPECT_NE(errorOfZip(zipOf({{"a.txt", a}}, false)).find("is not an .npy file"),
            std::string::npos);
  EXPECT_NE(errorOfZip(zipOf({{"a.npy", a}, {"a.npy", a}}, false)).find("appears twice"),
            std::string::npos);
  EXPECT_NE(errorOfZip(zipOf({{"a.npy", "not npy"}}, false))
                .find("member 'a.npy' of the .npz: "
                      "not an .npy file"),
            std::string::npos);
  EXPECT_NE(errorOfZip(zipOf({{"a.npy", a}}, true), 64).find("uncompressed, above the limit"),
            std::string::npos);
  // Flip a data byte: the CRC catches it (stored), or inflate / the CRC does (deflated).
  for (bool deflated : {false, true}) {
    std::string z = zipOf({{"a.npy", a}}, deflated);
    z[30 + 5 + (deflated ? 10 : 70)] ^= 0x55;
    EXPECT_NE(errorOfZip(z).find("a.npy"), std::string::npos);
  }
  // Every truncation of a valid archive is refused without reading past the end.
  std::string z = zipOf({{"a.npy", a}, {"b.npy", a}}, true);
  for (size_t n = 0; n < z.size(); ++n) {
    std::vector<NamedTensor> out;
    EXPECT_FALSE(parseNpz(std::string_view(z).substr(0, n), out).ok) << n;
  }
  // The central directory's offset pointed past the end; a local header offset likewise.
  std::string badCd = zipOf({{"a.npy", a}}, false);
  badCd[badCd.size() - 5] = '\x7f';
  EXPECT_NE(errorOfZip(badCd).find("outside the archive"), std::string::npos);
  std::string badLocal = zipOf({{"a.npy", a}}, false);
  size_t cd = badLocal.find("PK\x01\x02");
  badLocal[cd + 42] = '\x70';
  EXPECT_NE(errorOfZip(badLocal).find("no local header"), std::string::npos);
  // Method 12 (bzip2) and the encryption flag.
  std::string bzip = zipOf({{"a.npy", a}}, false);
  bzip[bzip.find("PK\x01\x02") + 10] = 12;
  EXPECT_NE(errorOfZip(bzip).find("compression method 12"), std::string::npos);
  std::string enc = zipOf({{"a.npy", a}}, false);
  enc[enc.find("PK\x01\x02") + 8] = 1;
  EXPECT_NE(errorOfZip(enc).find("encrypted"), std::string::npos);
}

} // namespace
