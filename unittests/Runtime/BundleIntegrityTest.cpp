//===- BundleIntegrityTest.cpp - Version 3: checksums, param records, caps ===//
//
// Regression tests for issue 14's fuzzing finds in the bundle reader: a single
// flipped byte anywhere is one clear error naming its section; buffer sizes
// edited consistently (checksums resealed) are caught by the kernels'
// parameter records; a grid of 2^31 and other absurd counts are refused
// against the caps of Limits before anything is allocated; bundles of
// versions 1 and 2 still load.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include "BundleTestUtil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>

using namespace aicc::runtime;
using namespace aicc::runtime::test;

namespace {

/// c = a + b over f32[1000] on the cpu, plus a constant: the version-3
/// bundle the tests edit. The code is a placeholder (nothing is loaded here).
Bundle makeAddBundle() {
  Bundle b;
  b.target = "cpu";
  b.buffers.push_back({0, DType::f32, BufferKind::input, 4000, {1000}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::constant, 4000, {1000}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::output, 4000, {1000}, 0});
  b.inputs.push_back({0, 0, "a"});
  b.outputs.push_back({0, 2, "c"});
  b.kernels.push_back({"add", {4, 1, 1}, {1, 1, 1}, 0, 3});
  b.kernels[0].params.assign(3, {DType::f32, 4000});
  b.launches.push_back({"add", {0, 1, 2}});
  b.code = "\x7f"
           "ELF placeholder code section";
  b.weights.assign(4000, '\x3c');
  return b;
}

/// The manifest records of the serialized add bundle, without the checksum
/// record (so that tests can edit them and reseal).
std::string addRecords() {
  const std::string bytes = serializeBundle(makeAddBundle());
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= uint64_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  std::string manifest = bytes.substr(16, size);
  return manifest.substr(0, manifest.rfind("checksum xxh64 "));
}

/// `addRecords()` with the first `from` replaced by `to`, resealed.
std::string resealedEdit(const std::string &from, const std::string &to) {
  std::string m = addRecords();
  size_t pos = m.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not found";
  if (pos != std::string::npos)
    m.replace(pos, from.size(), to);
  Bundle b = makeAddBundle();
  return sealed(m, b.code, b.weights);
}

Status parse(const std::string &bytes, const Limits &limits = Limits()) {
  Bundle b;
  return parseBundle(bytes, b, limits);
}

void expectError(const Status &s, const std::string &expected) {
  EXPECT_FALSE(s.ok) << "accepted although '" << expected << "' was expected";
  EXPECT_NE(s.message.find(expected), std::string::npos)
      << "message: " << s.message << "\nexpected to contain: " << expected;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

//===----------------------------------------------------------------------===//
// Checksums
//===----------------------------------------------------------------------===//

TEST(BundleChecksumTest, WrittenBundlesVerify) {
  const std::string bytes = serializeBundle(makeAddBundle());
  Bundle b;
  Status s = parseBundle(bytes, b);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(b.formatVersion, 4); // the oldest version that holds it (no inplace records)
  ASSERT_EQ(b.kernels[0].params.size(), 3u);
  EXPECT_EQ(b.kernels[0].params[2].sizeBytes, 4000u);
  EXPECT_EQ(b.kernels[0].params[2].line, 11u);
  // The test's own framing and sealing gives the same bytes.
  EXPECT_EQ(sealed(addRecords(), b.code, b.weights), bytes);
}

TEST(BundleChecksumTest, EveryFlippedBitIsOneErrorNamingItsSection) {
  // The fuzzer's find: one flipped byte of the code section crashed inside
  // dlopen. Now every single-bit flip anywhere in the file is refused, and a
  // flip inside a section names that section.
  const std::string good = serializeBundle(makeAddBundle());
  auto sectionSize = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= uint64_t(static_cast<unsigned char>(good[at + i])) << (8 * i);
    return static_cast<size_t>(v);
  };
  const size_t manifestBegin = 16, manifestEnd = manifestBegin + sectionSize(8);
  const size_t codeBegin = manifestEnd + 8, codeEnd = codeBegin + sectionSize(manifestEnd);
  const size_t weightsBegin = codeEnd + 8;
  int flips = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bytes = good;
      bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
      Status s = parse(bytes);
      ASSERT_FALSE(s.ok) << "byte " << i << " bit " << bit << " flipped and still parsed";
      ++flips;
      const char *section = nullptr;
      if (i >= codeBegin && i < codeEnd)
        section = "checksum mismatch in the code section";
      else if (i >= weightsBegin)
        section = "checksum mismatch in the weights section";
      else if (i >= manifestBegin && i < manifestEnd)
        section = "manifest";
      if (section)
        ASSERT_NE(s.message.find(section), std::string::npos)
            << "byte " << i << " bit " << bit << ": " << s.message;
    }
  }
  EXPECT_EQ(flips, static_cast<int>(good.size()) * 8);
}

TEST(BundleChecksumTest, MessagesNameSectionAndValues) {
  Bundle b = makeAddBundle();
  std::string bytes = serializeBundle(b);
  // The last byte of the weights, and a byte in the middle of the code.
  std::string w = bytes;
  w.back() ^= 0x40;
  expectError(parse(w), "checksum mismatch in the weights section: XXH64 ");
  expectError(parse(w), "(the bundle is corrupt or was edited)");
  std::string c = bytes;
  c[c.find("placeholder")] = 'P';
  expectError(parse(c), "checksum mismatch in the code section");
  // An edit of a record without resealing is a manifest mismatch.
  std::string m = bytes;
  m[m.find("buffer 2 f32 output 4000")] = 'B';
  expectError(parse(m), "checksum mismatch in the manifest section");
  // So is a damaged code checksum in the checksum record (the manifest's
  // checksum covers the record's first fields).
  std::string r = bytes;
  size_t field = r.find("checksum xxh64 ") + 15;
  r[field] = r[field] == '0' ? '1' : '0';
  expectError(parse(r), "checksum mismatch in the manifest section");
}

TEST(BundleChecksumTest, TheChecksumRecordIsRequiredAndLast) {
  Bundle b = makeAddBundle();
  const std::string records = addRecords();
  expectError(parse(frame(records, b.code, b.weights)),
              "manifest line 12: the last record of a version-3 manifest must be 'checksum "
              "xxh64 CODE WEIGHTS MANIFEST'");
  std::string sealedManifest = withChecksum(records, b.code, b.weights);
  // Without its newline, with a field short, upper-case hex, or records after it.
  std::string noNewline = sealedManifest.substr(0, sealedManifest.size() - 1);
  expectError(parse(frame(noNewline, b.code, b.weights)), "it must end with the checksum record");
  std::string shortField = sealedManifest;
  shortField.erase(shortField.size() - 2, 1);
  expectError(parse(frame(shortField, b.code, b.weights)),
              "manifest line 13: malformed checksum record");
  std::string upper = sealedManifest;
  for (size_t i = upper.find("checksum xxh64 ") + 15; i < upper.size(); ++i)
    upper[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[i])));
  expectError(parse(frame(upper, b.code, b.weights)), "malformed checksum record");
  expectError(parse(frame(sealedManifest + "launch add 3 0 1 2\n", b.code, b.weights)),
              "the last record of a version-3 manifest must be");
  // A checksum record in an older version, or twice.
  std::string v1 = sealedManifest;
  v1.replace(0, 13, "aicc-bundle 1");
  expectError(parse(frame(v1, b.code, b.weights)), "'param' record in a version-1 bundle");
  expectError(parse(sealed(records + "checksum xxh64 0 0 0\n", b.code, b.weights)),
              "'checksum' record before the end of the manifest");
}

//===----------------------------------------------------------------------===//
// Parameter records
//===----------------------------------------------------------------------===//

TEST(BundleParamTest, ConsistentSizeEditsAreRefused) {
  // The fuzzer's find: buffer sizes edited consistently (shape and SIZE_BYTES
  // together) passed validation, and the kernel, compiled for f32[1000],
  // wrote out of bounds. With the checksums resealed only the parameter
  // records can tell.
  const std::string expected =
      "manifest line 12: launch 0 of 'add': parameter 2 is buffer 2 f32[999] (3996 bytes), but "
      "the kernel's code expects f32 elements, 4000 bytes (its 'param' record at manifest line "
      "11); the manifest's buffers disagree with the kernel";
  expectError(
      parse(resealedEdit("buffer 2 f32 output 4000 1 1000", "buffer 2 f32 output 3996 1 999")),
      expected);
  // A larger buffer, another dtype of the same size, an input.
  expectError(
      parse(resealedEdit("buffer 2 f32 output 4000 1 1000", "buffer 2 f32 output 8000 1 2000")),
      "parameter 2 is buffer 2 f32[2000] (8000 bytes)");
  expectError(
      parse(resealedEdit("buffer 2 f32 output 4000 1 1000", "buffer 2 i32 output 4000 1 1000")),
      "parameter 2 is buffer 2 i32[1000] (4000 bytes), but the kernel's code expects f32");
  expectError(parse(resealedEdit("buffer 0 f32 input 4000 1 1000", "buffer 0 f32 input 40 1 10")),
              "parameter 0 is buffer 0 f32[10] (40 bytes)");
  // Reshapes of the same bytes are what kernels see anyway (flat views).
  Status s =
      parse(resealedEdit("buffer 2 f32 output 4000 1 1000", "buffer 2 f32 output 4000 2 10 100"));
  EXPECT_TRUE(s.ok) << s.message;
  // Editing the param record instead breaks the launch the other way.
  expectError(parse(resealedEdit("param add 0 f32 4000", "param add 0 f32 40")),
              "but the kernel's code expects f32 elements, 40 bytes");

  // The same checks on in-memory bundles (Session::create validates these).
  Bundle b = makeAddBundle();
  b.buffers[2].shape = {999};
  b.buffers[2].sizeBytes = 3996;
  expectError(validateBundle(b), "launch 0 of 'add': parameter 2 is buffer 2 f32[999]");
}

TEST(BundleParamTest, IntegersAreSignlessToKernels) {
  Bundle b = makeAddBundle();
  for (BufferDesc &buf : b.buffers)
    buf.dtype = DType::u32;
  b.kernels[0].params.assign(3, {DType::i32, 4000});
  Status s = validateBundle(b);
  EXPECT_TRUE(s.ok) << s.message;
  b.buffers[1].dtype = DType::f32;
  expectError(validateBundle(b), "parameter 1 is buffer 1 f32[1000]");
  EXPECT_TRUE(paramDTypeAccepts(DType::i8, DType::u8));
  EXPECT_TRUE(paramDTypeAccepts(DType::u64, DType::i64));
  EXPECT_FALSE(paramDTypeAccepts(DType::i8, DType::boolean));
  EXPECT_FALSE(paramDTypeAccepts(DType::f16, DType::bf16));
  EXPECT_FALSE(paramDTypeAccepts(DType::i16, DType::f16));
}

TEST(BundleParamTest, MalformedParamRecords) {
  expectError(parse(resealedEdit("param add 2 f32 4000\n", "")),
              "manifest line 8: kernel 'add': 2 'param' records for NUM_PARAMS 3 (version 3 needs "
              "one per buffer parameter)");
  expectError(parse(resealedEdit("param add 1", "param add 2")),
              "manifest line 10: kernel 'add': parameter index 2 out of order, expected 1");
  expectError(
      parse(resealedEdit("param add 2 f32 4000\n", "param add 2 f32 4000\nparam add 3 f32 4000\n")),
      "manifest line 12: kernel 'add': parameter 3 is past its NUM_PARAMS 3");
  expectError(parse(resealedEdit("param add 0 f32 4000", "param other 0 f32 4000")),
              "'param' record for kernel 'other' before (or without) its 'kernel' record");
  expectError(parse(resealedEdit("param add 0 f32 4000", "param add 0 f33 4000")),
              "unknown dtype 'f33'");
  expectError(parse(resealedEdit("param add 0 f32 4000", "param add 0 f32 4000 1")),
              "'param' record has 5 fields, expected 4 (param KERNEL_NAME INDEX DTYPE SIZE_BYTES)");
  expectError(parse(resealedEdit("param add 0 f32 4000", "param add 0 f32 -4")),
              "bad SIZE_BYTES '-4'");
  expectError(parse(resealedEdit("param add 0 f32 4000", "param add 0 f32 4002")),
              "kernel 'add': parameter 0: SIZE_BYTES 4002 is not a whole number of f32 elements");
  // Version 1 and 2 kernels have none, and may not have any.
  Bundle b = makeAddBundle();
  b.formatVersion = 2;
  expectError(validateBundle(b), "kernel 'add': 'param' records need format version 3, not 2");
  b.kernels[0].params.clear();
  EXPECT_TRUE(validateBundle(b).ok);
  b.formatVersion = 11;
  expectError(validateBundle(b), "unsupported bundle format version 11");
}

//===----------------------------------------------------------------------===//
// Caps (Limits)
//===----------------------------------------------------------------------===//

TEST(BundleLimitsTest, GridOfTwoToTheThirtyOneIsRefused) {
  // The fuzzer's find: a grid of 2^31 segfaulted or hung aicc-run.
  expectError(parse(resealedEdit("kernel add 4 1 1", "kernel add 2147483648 1 1")),
              "manifest line 8: kernel 'add': grid 2147483648x1x1 is 2147483648 programs, above "
              "the limit of 2147483647 (Limits::maxPrograms)");
  expectError(parse(resealedEdit("kernel add 4 1 1", "kernel add 65536 32768 1")),
              "grid 65536x32768x1 is 2147483648 programs");
  expectError(parse(resealedEdit("kernel add 4 1 1",
                                 "kernel add 9223372036854775807 9223372036854775807 2")),
              "is 2^64 or more programs");
  Status s = parse(resealedEdit("kernel add 4 1 1", "kernel add 2147483647 1 1"));
  EXPECT_TRUE(s.ok) << s.message;
  // The cap is configurable.
  Limits small;
  small.maxPrograms = 3;
  expectError(parse(serializeBundle(makeAddBundle()), small),
              "grid 4x1x1 is 4 programs, above the limit of 3 (Limits::maxPrograms)");
}

TEST(BundleLimitsTest, BlockSharedMemoryAndParameterCaps) {
  Bundle b = makeAddBundle();
  b.target = "sm_90";
  b.kernels[0].block = {32, 32, 2};
  expectError(validateBundle(b),
              "kernel 'add': block 32x32x2 is 2048 threads, above the limit of 1024 "
              "(Limits::maxThreadsPerBlock)");
  b.kernels[0].block = {1024, 1, 1};
  EXPECT_TRUE(validateBundle(b).ok);
  b.kernels[0].sharedBytes = 262145;
  expectError(validateBundle(b), "kernel 'add': SHARED_BYTES 262145, above the limit of 262144 "
                                 "(Limits::maxSharedBytes)");
  b = makeAddBundle();
  b.kernels[0].numParams = 4096;
  expectError(validateBundle(b), "kernel 'add': NUM_PARAMS 4096, above the limit of 4095 "
                                 "(Limits::maxKernelParams)");
}

TEST(BundleLimitsTest, BufferBytesAndTheirSumAreCapped) {
  // One buffer of 2^62 bytes, and two of 40 GiB whose sum is above 64 GiB.
  Bundle b = makeAddBundle();
  b.buffers.push_back({3, DType::f32, BufferKind::temp, uint64_t(1) << 62, {int64_t(1) << 60}, 0});
  expectError(validateBundle(b), "buffer 3: SIZE_BYTES 4611686018427387904 brings the plan's "
                                 "buffers to more than 68719476736 bytes "
                                 "(Limits::maxBufferBytes; aicc-run --max-buffer-bytes)");
  b = makeAddBundle();
  const int64_t n40G = int64_t(10) << 30; // f32 elements of 40 GiB
  b.buffers.push_back({3, DType::f32, BufferKind::temp, uint64_t(40) << 30, {n40G}, 0});
  EXPECT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  b.buffers.push_back({4, DType::f32, BufferKind::temp, uint64_t(40) << 30, {n40G}, 0});
  expectError(validateBundle(b), "buffer 4: SIZE_BYTES 42949672960 brings the plan's buffers to "
                                 "more than 68719476736 bytes");
  // Aliases take no memory of their own.
  b.buffers.pop_back();
  b.buffers.push_back({4, DType::f32, BufferKind::alias, uint64_t(40) << 30, {n40G}, 3});
  EXPECT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  // Sums that would wrap around 2^64 are caught too.
  Limits unlimited;
  unlimited.maxBufferBytes = UINT64_MAX;
  b = makeAddBundle();
  for (int i = 0; i < 2; ++i)
    b.buffers.push_back(
        {3 + i, DType::i16, BufferKind::temp, uint64_t(1) << 63, {int64_t(1) << 62}, 0});
  expectError(validateBundle(b, unlimited), "buffer 4: SIZE_BYTES 9223372036854775808 brings "
                                            "the plan's buffers to more than "
                                            "18446744073709551615 bytes");
}

TEST(BundleLimitsTest, ManifestSizeIsCapped) {
  Limits small;
  small.maxManifestBytes = 100;
  const Bundle b = makeAddBundle();
  const size_t size = withChecksum(addRecords(), b.code, b.weights).size();
  expectError(parse(serializeBundle(b), small),
              "the manifest section is " + std::to_string(size) +
                  " bytes, above the limit of 100 (Limits::maxManifestBytes)");
  small.maxManifestBytes = size;
  EXPECT_TRUE(parse(serializeBundle(b), small).ok);
}

TEST(BundleLimitsTest, ManyRecordsParseInLinearTime) {
  // 50,000 kernels and as many launches: name lookups are hashed (the
  // quadratic scan took seconds on manifests this size; a fuzzer times out).
  std::string m = "aicc-bundle 3\ntarget cpu\nbuffer 0 f32 temp 4 1 1\n";
  const int n = 50000;
  for (int i = 0; i < n; ++i)
    m += "kernel k" + std::to_string(i) + " 1 1 1 1 1 1 0 1\nparam k" + std::to_string(i) +
         " 0 f32 4\n";
  for (int i = 0; i < n; ++i)
    m += "launch k" + std::to_string(n - 1 - i) + " 1 0\n";
  auto start = std::chrono::steady_clock::now();
  Bundle b;
  Status s = parseBundle(sealed(m, "code", ""), b);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(b.launches.size(), static_cast<size_t>(n));
  EXPECT_LT(seconds, 5.0);
}

//===----------------------------------------------------------------------===//
// Versions 1, 2 and 3 still load
//===----------------------------------------------------------------------===//

TEST(BundleVersionTest, OldBundlesInTestdataStillLoad) {
  // Written by aicc-compile before version 3 (testdata/README.md says how).
  Bundle v1;
  Status s = readBundleFile(std::string(AICC_RUNTIME_TESTDATA) + "/mlp-cpu.v1.aicc", v1);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(v1.formatVersion, 1);
  EXPECT_EQ(v1.target, "cpu");
  ASSERT_EQ(v1.kernels.size(), 2u);
  EXPECT_TRUE(v1.kernels[0].params.empty());

  Bundle v2;
  s = readBundleFile(std::string(AICC_RUNTIME_TESTDATA) + "/matmul-f16-bias-relu-sm_90a.v2.aicc",
                     v2);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(v2.formatVersion, 2);
  EXPECT_EQ(v2.target, "sm_90a");
  ASSERT_EQ(v2.kernels.size(), 1u);
  EXPECT_EQ(v2.kernels[0].tensorMaps.size(), 3u);

  // Written again, they become version 4 once they have their param records.
  for (KernelDesc &k : v1.kernels)
    for (const LaunchDesc &l : v1.launches)
      if (l.kernel == k.name && k.params.empty())
        for (int id : l.buffers)
          k.params.push_back({v1.buffers[id].dtype, v1.buffers[id].sizeBytes});
  Bundle v3;
  s = parseBundle(serializeBundle(v1), v3);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(v3.formatVersion, 4);
  EXPECT_EQ(v3.code, v1.code);
  EXPECT_FALSE(v3.arenaBytes.has_value()); // no plan asked for: temps allocated one by one

  Bundle old3;
  s = readBundleFile(std::string(AICC_RUNTIME_TESTDATA) + "/mlp-cpu.v3.aicc", old3);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(old3.formatVersion, 3);
  EXPECT_FALSE(old3.arenaBytes.has_value());
}

TEST(BundleVersionTest, OldBundleBytesAreUnchanged) {
  // The committed files are the old writer's bytes: version header, no param
  // or checksum records.
  std::string bytes = readFile(std::string(AICC_RUNTIME_TESTDATA) + "/mlp-cpu.v1.aicc");
  ASSERT_GT(bytes.size(), 30u);
  EXPECT_EQ(bytes.substr(16, 14), "aicc-bundle 1\n");
  EXPECT_EQ(bytes.find("\nparam "), std::string::npos);
  EXPECT_EQ(bytes.find("\nchecksum "), std::string::npos);
}
