//===- SymbolicBundleTest.cpp - Format version 6: symbolic dims in bundles ===//
//
// The `symbol`, `symdim` and `symgrid` records (docs/bundle-format.md, "Symbolic
// dims"): the writer's layout, round trips, the byte-identical output of bundles
// without symbols (versions 4 and 5 as the old writer wrote them), and one test per
// reader and validator rule that breaks it and checks the message. Sessions over
// such bundles are in SymbolicSessionTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include "BundleTestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

using namespace aicc::runtime;
using namespace aicc::runtime::test;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A valid version-6 bundle with two symbols: x f32[batch, 3], y f32[1, 4 x seq, 2] in,
/// z f32[batch, 3] and its alias flat f32[3 x batch] out, a temp, a constant, two
/// launches whose grids shrink with the symbols.
Bundle makeSymbolicBundle() {
  Bundle b;
  b.target = "cpu";
  b.arenaBytes = 1024;
  b.symbols.push_back({"batch", 1, 8, 0});
  b.symbols.push_back({"seq len", 2, 16, 0}); // percent-encoded in the manifest
  b.buffers.push_back({0, DType::f32, BufferKind::input, 96, {8, 3}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::input, 512, {1, 64, 2}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::temp, 96, {24}, 0});
  b.buffers.push_back({3, DType::f32, BufferKind::output, 96, {8, 3}, 0});
  b.buffers.push_back({4, DType::f32, BufferKind::alias, 96, {24}, 3});
  b.buffers.push_back({5, DType::f32, BufferKind::constant, 12, {3}, 0});
  // Out of buffer order: the writer puts each right after its buffer.
  b.symDims.push_back({3, 0, 0, 1, 0});
  b.symDims.push_back({0, 0, 0, 1, 0});
  b.symDims.push_back({1, 1, 1, 4, 0});
  b.symDims.push_back({4, 0, 0, 3, 0});
  b.inputs.push_back({0, 0, "x"});
  b.inputs.push_back({1, 1, "y"});
  b.outputs.push_back({0, 3, "z"});
  b.outputs.push_back({1, 4, "flat"});
  KernelDesc k1{"k1", {8, 2, 1}, {1, 1, 1}, 0, 3};
  k1.params = {{DType::f32, 96}, {DType::f32, 512}, {DType::f32, 96}};
  KernelDesc k2{"k2", {3, 1, 1}, {1, 1, 1}, 0, 3};
  k2.params = {{DType::f32, 96}, {DType::f32, 12}, {DType::f32, 96}};
  b.kernels = {k1, k2};
  b.launches.push_back({"k1", {0, 1, 2}});
  b.launches.push_back({"k2", {2, 5, 3}});
  // At the maxima: 1 x ceil(8 x 1 / 1) = 8, 1 x ceil(8 x 3 / 8) = 3, 2 x ceil(16 / 16) = 2.
  b.symGrids.push_back({0, 0, 0, 1, 1, 1, 0});
  b.symGrids.push_back({1, 0, 0, 3, 8, 1, 0});
  b.symGrids.push_back({0, 1, 1, 1, 16, 2, 0});
  b.code = "ELF";
  b.weights.assign(128, '\x01');
  return b;
}

/// makeSymbolicBundle()'s manifest, as docs/bundle-format.md lays it out (without the
/// checksum record).
const char *const kSymbolicRecords = "aicc-bundle 6\n"
                                     "target cpu\n"
                                     "arena 1024\n"
                                     "symbol 0 batch 1 8\n"
                                     "symbol 1 seq%20len 2 16\n"
                                     "buffer 0 f32 input 96 2 8 3\n"
                                     "symdim 0 0 0 1\n"
                                     "buffer 1 f32 input 512 3 1 64 2\n"
                                     "symdim 1 1 1 4\n"
                                     "buffer 2 f32 temp 96 1 24 0\n"
                                     "buffer 3 f32 output 96 2 8 3\n"
                                     "symdim 3 0 0 1\n"
                                     "buffer 4 f32 alias 96 1 24 3\n"
                                     "symdim 4 0 0 3\n"
                                     "buffer 5 f32 const 12 1 3 0\n"
                                     "input 0 0 x\n"
                                     "input 1 1 y\n"
                                     "output 0 3 z\n"
                                     "output 1 4 flat\n"
                                     "kernel k1 8 2 1 1 1 1 0 3\n"
                                     "param k1 0 f32 96\n"
                                     "param k1 1 f32 512\n"
                                     "param k1 2 f32 96\n"
                                     "kernel k2 3 1 1 1 1 1 0 3\n"
                                     "param k2 0 f32 96\n"
                                     "param k2 1 f32 12\n"
                                     "param k2 2 f32 96\n"
                                     "launch k1 3 0 1 2\n"
                                     "launch k2 3 2 5 3\n"
                                     "symgrid 0 0 0 1 1 1\n"
                                     "symgrid 1 0 0 3 8 1\n"
                                     "symgrid 0 1 1 1 16 2\n";

/// kSymbolicRecords with the first `from` replaced by `to`, sealed (framed with a
/// fresh checksum record), so that the reader reaches the records.
std::string sealedWith(const std::string &from, const std::string &to) {
  std::string m = kSymbolicRecords;
  size_t pos = m.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not found";
  if (pos != std::string::npos)
    m.replace(pos, from.size(), to);
  return sealed(m);
}

void expectParseError(const std::string &bytes, const std::string &expected) {
  Bundle b;
  Status s = parseBundle(bytes, b);
  EXPECT_FALSE(s.ok) << "parsed although '" << expected << "' was expected";
  EXPECT_EQ(s.message, expected);
}

/// validateBundle on makeSymbolicBundle() after `edit` must fail with `expected`.
void expectInvalid(const std::function<void(Bundle &)> &edit, const std::string &expected) {
  Bundle b = makeSymbolicBundle();
  edit(b);
  Status s = validateBundle(b);
  EXPECT_FALSE(s.ok) << "valid although '" << expected << "' was expected";
  EXPECT_EQ(s.message, expected);
}

/// The manifest text of a serialized bundle.
std::string manifestOf(const std::string &bytes) {
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  return bytes.substr(16, n);
}

} // namespace

//===----------------------------------------------------------------------===//
// Writer and round trips
//===----------------------------------------------------------------------===//

TEST(SymbolicBundleTest, WriterPutsEveryRecordInItsPlace) {
  Bundle b = makeSymbolicBundle();
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  std::string bytes = serializeBundle(b);
  // The whole file: the records above, checksummed, and the sections.
  EXPECT_EQ(bytes, sealed(kSymbolicRecords));
}

TEST(SymbolicBundleTest, RoundTripPreservesSymbols) {
  Bundle b = makeSymbolicBundle();
  std::string once = serializeBundle(b);
  Bundle back;
  Status s = parseBundle(once, back);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(back.formatVersion, 6);
  EXPECT_EQ(kBundleFormatVersion, 10);
  ASSERT_EQ(back.symbols.size(), 2u);
  EXPECT_EQ(back.symbols[1].name, "seq len");
  EXPECT_EQ(back.symbols[1].min, 2);
  EXPECT_EQ(back.symbols[1].max, 16);
  EXPECT_EQ(back.symbols[1].line, 5u);
  // Read in buffer order (the writer's), each with its line.
  ASSERT_EQ(back.symDims.size(), 4u);
  const int ids[] = {0, 1, 3, 4}, axes[] = {0, 1, 0, 0}, syms[] = {0, 1, 0, 0};
  const int64_t factors[] = {1, 4, 1, 3};
  const size_t lines[] = {7, 9, 12, 14};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back.symDims[i].bufferId, ids[i]) << i;
    EXPECT_EQ(back.symDims[i].axis, axes[i]) << i;
    EXPECT_EQ(back.symDims[i].symbol, syms[i]) << i;
    EXPECT_EQ(back.symDims[i].factor, factors[i]) << i;
    EXPECT_EQ(back.symDims[i].line, lines[i]) << i;
  }
  ASSERT_EQ(back.symGrids.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const SymGridDesc &want = b.symGrids[i], &got = back.symGrids[i];
    EXPECT_EQ(got.launchIndex, want.launchIndex) << i;
    EXPECT_EQ(got.axis, want.axis) << i;
    EXPECT_EQ(got.symbol, want.symbol) << i;
    EXPECT_EQ(got.unit, want.unit) << i;
    EXPECT_EQ(got.per, want.per) << i;
    EXPECT_EQ(got.group, want.group) << i;
  }
  EXPECT_EQ(back.symGrids[2].line, 32u);
  // Written again: the same bytes.
  EXPECT_EQ(serializeBundle(back), once);
}

TEST(SymbolicBundleTest, BundlesWithoutSymbolsKeepTheOldBytes) {
  // A version-4 bundle written by aicc-compile before version 6 (testdata/README.md):
  // read and written again, byte for byte.
  std::string old = readFile(std::string(AICC_RUNTIME_TESTDATA) + "/mlp8-cpu.v4.aicc");
  ASSERT_FALSE(old.empty());
  Bundle b;
  Status s = parseBundle(old, b);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(b.formatVersion, 4);
  EXPECT_EQ(serializeBundle(b), old);

  // A version-5 bundle (an `inplace` record): the bytes the version-5 writer gave for
  // it (checked against that writer, lib/Runtime/Bundle.cpp at commit 62cdc62).
  Bundle v5;
  v5.target = "cpu";
  v5.arenaBytes = 512;
  v5.buffers.push_back({0, DType::f32, BufferKind::input, 64, {4, 4}, 0});
  v5.buffers.push_back({1, DType::f32, BufferKind::temp, 64, {16}, 0});
  v5.buffers.push_back({2, DType::f32, BufferKind::temp, 64, {16}, 0});
  v5.buffers.push_back({3, DType::f32, BufferKind::alias, 64, {2, 8}, 2});
  v5.buffers.push_back({4, DType::f32, BufferKind::constant, 16, {4}, 0});
  v5.buffers.push_back({5, DType::f32, BufferKind::output, 64, {4, 4}, 0});
  v5.inputs.push_back({0, 0, "x y"});
  v5.boundInputs.push_back({1, "k", DType::i64, 8, {1}, 64});
  v5.outputs.push_back({0, 5, "out"});
  KernelDesc k{"ew", {2, 1, 1}, {1, 1, 1}, 0, 2};
  k.params = {{DType::f32, 64}, {DType::f32, 64}};
  k.inPlace.push_back({0, 1});
  v5.kernels.push_back(k);
  v5.launches.push_back({"ew", {0, 1}});
  v5.launches.push_back({"ew", {1, 2}});
  v5.launches.push_back({"ew", {3, 5}});
  v5.code = "code";
  v5.weights.assign(72, '\x05');
  const std::string v5Manifest = "aicc-bundle 5\n"
                                 "target cpu\n"
                                 "arena 512\n"
                                 "buffer 0 f32 input 64 2 4 4\n"
                                 "buffer 1 f32 temp 64 1 16 0\n"
                                 "buffer 2 f32 temp 64 1 16 0\n"
                                 "buffer 3 f32 alias 64 2 2 8 2\n"
                                 "buffer 4 f32 const 16 1 4 0\n"
                                 "buffer 5 f32 output 64 2 4 4\n"
                                 "input 0 0 x%20y\n"
                                 "bound 1 k i64 8 1 1 64\n"
                                 "output 0 5 out\n"
                                 "kernel ew 2 1 1 1 1 1 0 2\n"
                                 "param ew 0 f32 64\n"
                                 "param ew 1 f32 64\n"
                                 "inplace ew 0 1\n"
                                 "launch ew 2 0 1\n"
                                 "launch ew 2 1 2\n"
                                 "launch ew 2 3 5\n"
                                 "checksum xxh64 6fd9dcba80c73ff3 4b4895b998cf1321 "
                                 "35090106d403eddf\n";
  EXPECT_EQ(serializeBundle(v5), frame(v5Manifest, v5.code, v5.weights));
}

TEST(SymbolicBundleTest, AnySymbolicRecordMakesVersion6) {
  Bundle b = makeSymbolicBundle();
  b.symbols.clear();
  b.symGrids.clear();
  // Invalid (a symdim of no symbol), but written as version 6 so that the reader
  // names the problem instead of refusing the record's version.
  std::string bytes = serializeBundle(b);
  EXPECT_EQ(manifestOf(bytes).substr(0, 14), "aicc-bundle 6\n");
  Bundle back;
  Status s = parseBundle(bytes, back);
  EXPECT_EQ(s.message, "manifest line 5: symdim of buffer 0 f32[8,3]: SYMBOL_INDEX 0 is out of "
                       "range (0 symbols)");
  // A symdim whose buffer does not exist follows the last buffer, where the reader
  // refuses it.
  b = makeSymbolicBundle();
  b.symDims.push_back({9, 0, 0, 1, 0});
  std::string m = manifestOf(serializeBundle(b));
  EXPECT_NE(m.find("buffer 5 f32 const 12 1 3 0\nsymdim 9 0 0 1\ninput 0"), std::string::npos) << m;
  s = parseBundle(serializeBundle(b), back);
  EXPECT_EQ(s.message, "manifest line 16: the 'symdim' record of buffer 9 must follow right after "
                       "that buffer's 'buffer' record");
}

//===----------------------------------------------------------------------===//
// Reader: versions, places and fields
//===----------------------------------------------------------------------===//

TEST(SymbolicBundleTest, RecordsNeedVersion6) {
  std::string m = kSymbolicRecords;
  m.replace(0, 13, "aicc-bundle 5");
  expectParseError(sealed(m), "manifest line 4: 'symbol' record in a version-5 bundle (symbolic "
                              "dims need the 'aicc-bundle 6' header)");
  // Without the symbol records: the symdim is the first to be refused.
  m.erase(m.find("symbol 0"), m.find("buffer 0") - m.find("symbol 0"));
  expectParseError(sealed(m), "manifest line 5: 'symdim' record in a version-5 bundle (symbolic "
                              "dims need the 'aicc-bundle 6' header)");
  // Without symdims: the symgrid.
  for (size_t at; (at = m.find("symdim ")) != std::string::npos;)
    m.erase(at, m.find('\n', at) + 1 - at);
  expectParseError(sealed(m), "manifest line 24: 'symgrid' record in a version-5 bundle "
                              "(symbolic dims need the 'aicc-bundle 6' header)");
  // An in-memory bundle too.
  Bundle b = makeSymbolicBundle();
  b.formatVersion = 5;
  EXPECT_EQ(validateBundle(b).message, "symbolic dims ('symbol', 'symdim' and 'symgrid' records) "
                                       "need format version 6, not 5");
  // Version 11 does not exist yet.
  m = kSymbolicRecords;
  m.replace(0, 13, "aicc-bundle 11");
  Bundle parsed;
  Status s = parseBundle(sealed(m), parsed);
  EXPECT_NE(s.message.find("unsupported bundle version ' 11' (this runtime reads versions 1 to 10)"),
            std::string::npos)
      << s.message;
}

//===----------------------------------------------------------------------===//
// The `symvalues` record (format version 7): the buffer kernels read the run's
// symbol values from
//===----------------------------------------------------------------------===//

namespace {
/// makeSymbolicBundle() with buffer 6, a const i32[2] of the maxima (8, 16) at
/// weights offset 64, as the symvalues buffer.
Bundle withSymValues() {
  Bundle b = makeSymbolicBundle();
  b.buffers.push_back({6, DType::i32, BufferKind::constant, 8, {2}, 64});
  int32_t maxima[2] = {8, 16};
  b.weights.replace(64, 8, reinterpret_cast<const char *>(maxima), 8);
  b.symValuesBuffer = 6;
  return b;
}
} // namespace

TEST(SymbolicBundleTest, SymValuesRoundTripAsVersion7) {
  Bundle b = withSymValues();
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  std::string bytes = serializeBundle(b);
  std::string m = manifestOf(bytes);
  EXPECT_EQ(m.substr(0, 14), "aicc-bundle 7\n");
  EXPECT_NE(m.find("symgrid 0 1 1 1 16 2\nsymvalues 6\nchecksum"), std::string::npos) << m;
  Bundle back;
  Status s = parseBundle(bytes, back);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(back.symValuesBuffer, 6);
  EXPECT_EQ(back.formatVersion, 7);
  // Without the record the bundle stays version 6.
  EXPECT_EQ(manifestOf(serializeBundle(makeSymbolicBundle())).substr(0, 14), "aicc-bundle 6\n");
}

TEST(SymbolicBundleTest, SymValuesRecordPlaceAndVersion) {
  std::string m = manifestOf(serializeBundle(withSymValues()));
  m = m.substr(0, m.find("checksum"));
  std::string v6 = m;
  v6.replace(0, 13, "aicc-bundle 6");
  expectParseError(sealed(v6), "manifest line 34: 'symvalues' record in a version-6 bundle (it "
                               "needs the 'aicc-bundle 7' header)");
  std::string late = m + "symgrid 0 2 0 1 1 1\n";
  expectParseError(sealed(late), "manifest line 35: 'symgrid' record after the 'symvalues' record "
                                 "(it is the last before 'checksum')");
  std::string bad = m;
  bad.replace(bad.find("symvalues 6"), 11, "symvalues x");
  expectParseError(sealed(bad), "manifest line 34: bad symvalues BUFFER_ID 'x' (expected an "
                                "unsigned decimal integer)");
}

TEST(SymbolicBundleTest, SymValuesRules) {
  auto expectBad = [](const std::function<void(Bundle &)> &edit, const std::string &expected) {
    Bundle b = withSymValues();
    edit(b);
    EXPECT_EQ(validateBundle(b).message, expected);
  };
  expectBad([](Bundle &b) { b.symValuesBuffer = 7; },
            "symvalues 7: BUFFER_ID is out of range (7 buffers)");
  expectBad([](Bundle &b) { b.symValuesBuffer = 5; },
            "symvalues 5: the buffer must be a const i32[2] (one element per symbol)");
  expectBad([](Bundle &b) { b.buffers[6].dtype = DType::f32; },
            "symvalues 6: the buffer must be a const i32[2] (one element per symbol)");
  expectBad([](Bundle &b) { b.weights[64] = 7; },
            "symvalues 6: element 0 is 7, not the max 8 of 'batch'");
  expectBad([](Bundle &b) { b.formatVersion = 6; },
            "the 'symvalues' record needs format version 7, not 6");
}

//===----------------------------------------------------------------------===//
// The `symrange` records (format version 9): launches of one shape bucket
//===----------------------------------------------------------------------===//

namespace {
/// makeSymbolicBundle() with k2's launch in two shape buckets of 'batch': launch 1 at
/// 1..4, launch 2 (k2 again, the same buffers) at 5..8.
Bundle withSymRanges() {
  Bundle b = makeSymbolicBundle();
  b.launches.push_back({"k2", {2, 5, 3}});
  b.symRanges.push_back({1, 0, 1, 4, 0});
  b.symRanges.push_back({2, 0, 5, 8, 0});
  return b;
}
} // namespace

TEST(SymbolicBundleTest, SymRangesRoundTripAsVersion9) {
  Bundle b = withSymRanges();
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  std::string m = manifestOf(serializeBundle(b));
  EXPECT_EQ(m.substr(0, 14), "aicc-bundle 9\n");
  EXPECT_NE(m.find("launch k2 3 2 5 3\nlaunch k2 3 2 5 3\nsymgrid 0 0 0 1 1 1\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("symgrid 0 1 1 1 16 2\nsymrange 1 0 1 4\nsymrange 2 0 5 8\nchecksum"),
            std::string::npos)
      << m;
  Bundle back;
  Status s = parseBundle(serializeBundle(b), back);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(back.formatVersion, 9);
  ASSERT_EQ(back.symRanges.size(), 2u);
  EXPECT_EQ(back.symRanges[1].launchIndex, 2);
  EXPECT_EQ(back.symRanges[1].symbol, 0);
  EXPECT_EQ(back.symRanges[1].lo, 5);
  EXPECT_EQ(back.symRanges[1].hi, 8);
  EXPECT_EQ(back.symRanges[1].line, 35u);
  // With the symvalues record: the ranges precede it.
  b.buffers.push_back({6, DType::i32, BufferKind::constant, 8, {2}, 64});
  int32_t maxima[2] = {8, 16};
  b.weights.replace(64, 8, reinterpret_cast<const char *>(maxima), 8);
  b.symValuesBuffer = 6;
  m = manifestOf(serializeBundle(b));
  EXPECT_NE(m.find("symrange 2 0 5 8\nsymvalues 6\nchecksum"), std::string::npos) << m;
  ASSERT_TRUE(parseBundle(serializeBundle(b), back).ok);
}

TEST(SymbolicBundleTest, SymRangeRecordPlaceAndVersion) {
  std::string m = manifestOf(serializeBundle(withSymRanges()));
  m = m.substr(0, m.find("checksum"));
  std::string v8 = m;
  v8.replace(0, 13, "aicc-bundle 8");
  expectParseError(sealed(v8), "manifest line 34: 'symrange' record in a version-8 bundle (it "
                               "needs the 'aicc-bundle 9' header)");
  expectParseError(sealed(m + "symgrid 0 2 0 1 1 1\n"),
                   "manifest line 36: 'symgrid' record after the 'symrange' records (they follow "
                   "the 'launch' and 'symgrid' records, before 'checksum')");
  expectParseError(sealed(m + "launch k1 3 0 1 2\n"),
                   "manifest line 36: 'launch' record after the 'symgrid' records (they follow "
                   "the last 'launch' record, before 'checksum')");
  std::string bad = m;
  bad.replace(bad.find("symrange 2 0 5 8"), 16, "symrange 2 0 5");
  expectParseError(sealed(bad), "manifest line 35: 'symrange' record has 3 fields, expected 4 "
                                "(symrange LAUNCH_INDEX SYMBOL_INDEX LO HI)");
  bad = m;
  bad.replace(bad.find("symrange 2 0 5 8"), 16, "symrange 2 0 -5 8");
  expectParseError(sealed(bad), "manifest line 35: bad symrange LO '-5' (expected an unsigned "
                                "decimal integer)");
}

TEST(SymbolicBundleTest, SymRangeRules) {
  auto expectBad = [](const std::function<void(Bundle &)> &edit, const std::string &expected) {
    Bundle b = withSymRanges();
    edit(b);
    EXPECT_EQ(validateBundle(b).message, expected);
  };
  expectBad([](Bundle &b) { b.symRanges[1].launchIndex = 3; },
            "symrange: LAUNCH_INDEX 3 is out of range (3 launches)");
  expectBad([](Bundle &b) { b.symRanges[1].launchIndex = 1; },
            "symrange of launch 1 of 'k2': the launch already has a symrange; at most one per "
            "launch");
  expectBad([](Bundle &b) { b.symRanges[0].symbol = 2; },
            "symrange of launch 1 of 'k2': SYMBOL_INDEX 2 is out of range (2 symbols)");
  expectBad([](Bundle &b) { b.symRanges[0].lo = 0; },
            "symrange of launch 1 of 'k2': [LO, HI] = [0, 4] is not a range inside [1, 8] of "
            "'batch'");
  expectBad([](Bundle &b) { b.symRanges[1].hi = 9; },
            "symrange of launch 2 of 'k2': [LO, HI] = [5, 9] is not a range inside [1, 8] of "
            "'batch'");
  expectBad([](Bundle &b) { b.symRanges[1].lo = 9; },
            "symrange of launch 2 of 'k2': [LO, HI] = [9, 8] is not a range inside [1, 8] of "
            "'batch'");
  expectBad([](Bundle &b) { b.formatVersion = 8; },
            "'symrange' records need format version 9, not 8");
  // Coverage: consecutive launches' buckets go from MIN to MAX in order.
  expectBad([](Bundle &b) { b.symRanges[1].lo = 6; },
            "launch 2 of 'k2': its symrange [6, 8] does not continue them: the shape buckets of "
            "'batch' from launch 1 cover [1, 4] and must go on in order to MAX 8 (a run at 5 "
            "would run none of them)");
  expectBad([](Bundle &b) { b.symRanges[0].lo = 2; },
            "symrange of launch 1 of 'k2': [LO, HI] = [2, 4] starts shape buckets of 'batch' but "
            "not at MIN 1 (a run at 1 would run none of them)");
  expectBad([](Bundle &b) { b.symRanges[1].hi = 7; },
            "launch 2 of 'k2' (the last): the shape buckets of 'batch' from launch 1 cover [1, 7] "
            "and must go on in order to MAX 8 (a run at 8 would run none of them)");
  expectBad([](Bundle &b) { b.symRanges.pop_back(); },
            "launch 2 of 'k2' has no symrange: the shape buckets of 'batch' from launch 1 cover "
            "[1, 4] and must go on in order to MAX 8 (a run at 5 would run none of them)");
  // A bucket of two launches (split-K: partials, then sum), and a second run of buckets.
  Bundle two = withSymRanges();
  two.launches.push_back({"k2", {2, 5, 3}});
  two.symRanges.push_back({3, 0, 5, 8, 0});
  two.launches.push_back({"k1", {0, 1, 2}});
  two.symRanges.push_back({4, 1, 2, 16, 0});
  EXPECT_TRUE(validateBundle(two).ok) << validateBundle(two).message;
  // From a manifest: the record's line, and the first record's for a second one.
  std::string m = manifestOf(serializeBundle(withSymRanges()));
  m = m.substr(0, m.find("checksum"));
  m.replace(m.find("symrange 2 0 5 8"), 16, "symrange 1 0 5 8");
  expectParseError(sealed(m), "manifest line 35: symrange of launch 1 of 'k2': the launch "
                              "already has a symrange (manifest line 34); at most one per launch");
}

TEST(SymbolicBundleTest, SymbolRecordsFollowTargetAndArenaAndPrecedeBuffers) {
  expectParseError(
      sealedWith("symbol 1 seq%20len 2 16\nbuffer 0 f32 input 96 2 8 3\nsymdim 0 0 0 1\n",
                 "buffer 0 f32 input 96 2 8 3\nsymdim 0 0 0 1\nsymbol 1 seq%20len 2 16\n"),
      "manifest line 7: the 'symbol' records must precede the buffer records (they "
      "follow 'target' and 'arena')");
  expectParseError(
      sealedWith("arena 1024\nsymbol 0 batch 1 8\n", "symbol 0 batch 1 8\narena 1024\n"),
      "manifest line 4: the 'arena' record must precede the symbol records");
  expectParseError(sealedWith("target cpu\narena 1024\nsymbol 0 batch 1 8\n",
                              "symbol 0 batch 1 8\ntarget cpu\narena 1024\n"),
                   "manifest line 2: the 'symbol' records must follow the 'target' record");
}

TEST(SymbolicBundleTest, MalformedSymbolRecords) {
  expectParseError(sealedWith("symbol 0 batch", "symbol 1 batch"),
                   "manifest line 4: symbol index 1 out of order, expected 0 (symbols are 0, 1, "
                   "2 ... in order)");
  expectParseError(sealedWith("symbol 0 batch 1 8", "symbol 0 batch 8"),
                   "manifest line 4: 'symbol' record has 3 fields, expected 4 (symbol INDEX NAME "
                   "MIN MAX)");
  expectParseError(sealedWith("symbol 0 batch 1 8", "symbol 0 batch -1 8"),
                   "manifest line 4: bad symbol MIN '-1' (expected an unsigned decimal integer)");
  expectParseError(sealedWith("symbol 0 batch 1 8", "symbol 0 batch 1 x"),
                   "manifest line 4: bad symbol MAX 'x' (expected an unsigned decimal integer)");
  expectParseError(sealedWith("symbol 0 batch", "symbol 0 ba%zzch"),
                   "manifest line 4: bad percent escape in name 'ba%zzch' ('%' must be followed "
                   "by two hex digits)");
}

TEST(SymbolicBundleTest, SymDimRecordsFollowTheirBuffer) {
  // After another buffer, after the buffer's own successor, after an input record.
  expectParseError(sealedWith("symdim 0 0 0 1\nbuffer 1 f32 input 512 3 1 64 2\n",
                              "buffer 1 f32 input 512 3 1 64 2\nsymdim 0 0 0 1\n"),
                   "manifest line 8: the 'symdim' record of buffer 0 must follow right after "
                   "that buffer's 'buffer' record");
  expectParseError(sealedWith("symdim 0 0 0 1\n", "symdim 0 0 0 1\nsymdim 1 1 1 4\n"),
                   "manifest line 8: the 'symdim' record of buffer 1 must follow right after "
                   "that buffer's 'buffer' record");
  expectParseError(sealedWith("input 0 0 x\n", "input 0 0 x\nsymdim 0 0 0 1\n"),
                   "manifest line 17: the 'symdim' record of buffer 0 must follow right after "
                   "that buffer's 'buffer' record");
  expectParseError(sealedWith("symdim 0 0 0 1", "symdim 0 0 0"),
                   "manifest line 7: 'symdim' record has 3 fields, expected 4 (symdim BUFFER_ID "
                   "AXIS SYMBOL_INDEX FACTOR)");
  expectParseError(sealedWith("symdim 0 0 0 1", "symdim 0 0 0 -4"),
                   "manifest line 7: bad symdim FACTOR '-4' (expected an unsigned decimal "
                   "integer)");
  expectParseError(sealedWith("symdim 0 0 0 1", "symdim 0 99999999999 0 1"),
                   "manifest line 7: symdim AXIS 99999999999 is too large");
}

TEST(SymbolicBundleTest, SymGridRecordsFollowTheLastLaunch) {
  expectParseError(sealedWith("launch k2 3 2 5 3\nsymgrid 0 0 0 1 1 1\n",
                              "symgrid 0 0 0 1 1 1\nlaunch k2 3 2 5 3\n"),
                   "manifest line 30: 'launch' record after the 'symgrid' records (they follow "
                   "the last 'launch' record, before 'checksum')");
  expectParseError(sealedWith("symgrid 0 0 0 1 1 1", "symgrid 0 0 0 1 1"),
                   "manifest line 30: 'symgrid' record has 5 fields, expected 6 (symgrid "
                   "LAUNCH_INDEX AXIS SYMBOL_INDEX UNIT PER GROUP)");
  expectParseError(sealedWith("symgrid 0 0 0 1 1 1", "symgrid 0 0 0 1 1 2x"),
                   "manifest line 30: bad symgrid GROUP '2x' (expected an unsigned decimal "
                   "integer)");
}

//===----------------------------------------------------------------------===//
// Validator: one test per rule
//===----------------------------------------------------------------------===//

TEST(SymbolicBundleTest, SymbolRules) {
  expectInvalid([](Bundle &b) { b.symbols[0].name.clear(); }, "symbol 0: empty name");
  expectInvalid([](Bundle &b) { b.symbols[1].name = "batch"; },
                "symbol 1 ('batch'): also the name of symbol 0 (symbol names are unique)");
  expectInvalid([](Bundle &b) { b.symbols[0].min = 0; }, "symbol 0 ('batch'): MIN 0 is below 1");
  expectInvalid([](Bundle &b) { b.symbols[0].min = 9; },
                "symbol 0 ('batch'): MIN 9 is above MAX 8");
  expectInvalid([](Bundle &b) { b.symbols[1].max = 2147483648; },
                "symbol 1 ('seq len'): MAX 2147483648 is above the limit of 2147483647 "
                "(2^31 - 1)");
  // Every symbol must be a dim of a model input: an output's symdim cannot bind it.
  expectInvalid(
      [](Bundle &b) {
        b.symDims.erase(b.symDims.begin() + 1); // buffer 0's
      },
      "symbol 0 ('batch') is a dim of no model input (no 'symdim' record of an input buffer "
      "names it): a run could never bind it");
  // From a manifest: the record's line.
  expectParseError(sealedWith("symbol 1 seq%20len 2 16", "symbol 1 seq%20len 2 1"),
                   "manifest line 5: symbol 1 ('seq len'): MIN 2 is above MAX 1");
}

TEST(SymbolicBundleTest, SymDimRules) {
  expectInvalid([](Bundle &b) { b.symDims[0].bufferId = 9; },
                "symdim: BUFFER_ID 9 is out of range (6 buffers)");
  expectInvalid(
      [](Bundle &b) {
        b.symDims.push_back({2, 0, 0, 3, 0});
      },
      "symdim of buffer 2 f32[24]: the buffer has kind temp; only input, output and "
      "alias buffers carry a symbolic dim");
  expectInvalid(
      [](Bundle &b) {
        b.symDims.push_back({5, 0, 0, 1, 0});
      },
      "symdim of buffer 5 f32[3]: the buffer has kind const; only input, output and "
      "alias buffers carry a symbolic dim");
  expectInvalid(
      [](Bundle &b) {
        b.symDims.push_back({0, 0, 0, 1, 0});
      },
      "symdim of buffer 0 f32[8,3]: the buffer already has a symdim; at most one per "
      "buffer");
  expectInvalid([](Bundle &b) { b.symDims[1].symbol = 2; },
                "symdim of buffer 0 f32[8,3]: SYMBOL_INDEX 2 is out of range (2 symbols)");
  expectInvalid([](Bundle &b) { b.symDims[1].axis = 2; },
                "symdim of buffer 0 f32[8,3]: AXIS 2 is not below the buffer's rank 2");
  expectInvalid([](Bundle &b) { b.symDims[1].axis = -1; },
                "symdim of buffer 0 f32[8,3]: AXIS -1 is not below the buffer's rank 2");
  expectInvalid([](Bundle &b) { b.symDims[1].factor = 0; },
                "symdim of buffer 0 f32[8,3]: FACTOR 0 is below 1");
  expectInvalid([](Bundle &b) { b.symDims[1].factor = 2; },
                "symdim of buffer 0 f32[8,3]: dim 0 is 8, but FACTOR 2 x MAX 8 of 'batch' is "
                "16 (the buffer holds the tensor at the bound)");
  expectInvalid([](Bundle &b) { b.symDims[1].factor = int64_t(1) << 61; },
                "symdim of buffer 0 f32[8,3]: FACTOR 2305843009213693952 x MAX 8 of 'batch' "
                "overflows int64");
  // Buffer 1 as f32[2, 32, 2] (the same bytes) with dim 1 = 2 x seq: dim 0 is not 1, which
  // version 7 refuses and version 8 takes (the tensor is 2 rows of the buffer).
  auto rows = [](Bundle &b) {
    b.buffers[1].shape = {2, 32, 2};
    b.symDims[2].factor = 2;
  };
  expectInvalid(
      [&](Bundle &b) {
        rows(b);
        b.formatVersion = 7;
      },
      "symdim of buffer 1 f32[2,32,2]: dim 0 is 2, not 1 (the dims before the symbolic dim 1 "
      "must be 1 before format version 8: the tensor at a smaller value is then a prefix of "
      "the buffer)");
  {
    Bundle b = makeSymbolicBundle();
    rows(b);
    Status s = validateBundle(b);
    EXPECT_TRUE(s.ok) << s.message;
    // The writer marks it version 8; the reader takes it back.
    Bundle back;
    s = parseBundle(serializeBundle(b), back);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(back.formatVersion, 8);
  }
  expectInvalid(
      [](Bundle &b) {
        b.buffers.push_back({6, DType::f32, BufferKind::output, 0, {8, 0}, 0});
        b.symDims.push_back({6, 0, 0, 1, 0});
      },
      "symdim of buffer 6 f32[8,0]: the tensor has no elements, so its size cannot carry "
      "'batch'");
  // From a manifest: the record's line (and the first symdim's, for a second one).
  expectParseError(sealedWith("symdim 0 0 0 1", "symdim 0 0 0 2"),
                   "manifest line 7: symdim of buffer 0 f32[8,3]: dim 0 is 8, but FACTOR 2 x MAX "
                   "8 of 'batch' is 16 (the buffer holds the tensor at the bound)");
  expectParseError(sealedWith("symdim 0 0 0 1\n", "symdim 0 0 0 1\nsymdim 0 1 0 1\n"),
                   "manifest line 8: symdim of buffer 0 f32[8,3]: the buffer already has a "
                   "symdim (manifest line 7); at most one per buffer");
}

TEST(SymbolicBundleTest, SymGridRules) {
  expectInvalid([](Bundle &b) { b.symGrids[0].launchIndex = 2; },
                "symgrid: LAUNCH_INDEX 2 is out of range (2 launches)");
  expectInvalid([](Bundle &b) { b.symGrids[0].axis = 3; },
                "symgrid of launch 0 of 'k1': AXIS 3 is not 0, 1 or 2 (grid x, y, z)");
  expectInvalid(
      [](Bundle &b) {
        b.symGrids.push_back({0, 0, 0, 1, 2, 1, 0});
      },
      "symgrid of launch 0 of 'k1', grid x: the launch already has a symgrid on that "
      "axis; at most one per launch and axis");
  expectInvalid([](Bundle &b) { b.symGrids[0].symbol = 2; },
                "symgrid of launch 0 of 'k1', grid x: SYMBOL_INDEX 2 is out of range (2 "
                "symbols)");
  expectInvalid([](Bundle &b) { b.symGrids[0].unit = 0; },
                "symgrid of launch 0 of 'k1', grid x: UNIT 0 is below 1");
  expectInvalid([](Bundle &b) { b.symGrids[0].per = 0; },
                "symgrid of launch 0 of 'k1', grid x: PER 0 is below 1");
  expectInvalid([](Bundle &b) { b.symGrids[2].group = 0; },
                "symgrid of launch 0 of 'k1', grid y: GROUP 0 is below 1");
  // More programs at the bound than the kernel's recorded grid.
  expectInvalid([](Bundle &b) { b.symGrids[0].group = 2; },
                "symgrid of launch 0 of 'k1', grid x: at MAX 8 of 'batch' it runs GROUP 2 x "
                "ceil(8 x UNIT 1 / PER 1) = 16 programs, more than the kernel's recorded grid x "
                "= 8");
  expectInvalid([](Bundle &b) { b.symGrids[1].per = 7; },
                "symgrid of launch 1 of 'k2', grid x: at MAX 8 of 'batch' it runs GROUP 1 x "
                "ceil(8 x UNIT 3 / PER 7) = 4 programs, more than the kernel's recorded grid x = "
                "3");
  // Overflow of MAX x UNIT, and of GROUP x the blocks.
  expectInvalid([](Bundle &b) { b.symGrids[0].unit = int64_t(1) << 62; },
                "symgrid of launch 0 of 'k1', grid x: at MAX 8 of 'batch' it runs GROUP 1 x "
                "ceil(8 x UNIT 4611686018427387904 / PER 1) = more than 2^63 programs, more "
                "than the kernel's recorded grid x = 8");
  expectInvalid([](Bundle &b) { b.symGrids[0].group = int64_t(1) << 62; },
                "symgrid of launch 0 of 'k1', grid x: at MAX 8 of 'batch' it runs GROUP "
                "4611686018427387904 x ceil(8 x UNIT 1 / PER 1) = more than 2^63 programs, more "
                "than the kernel's recorded grid x = 8");
  // A smaller count than the grid is fine (the recorded grid is never smaller).
  Bundle b = makeSymbolicBundle();
  b.symGrids[0].per = 2;
  EXPECT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  // From a manifest: the record's line, and the first record's for a second one.
  expectParseError(sealedWith("symgrid 1 0 0 3 8 1", "symgrid 1 0 0 3 8 2"),
                   "manifest line 31: symgrid of launch 1 of 'k2', grid x: at MAX 8 of 'batch' it "
                   "runs GROUP 2 x ceil(8 x UNIT 3 / PER 8) = 6 programs, more than the kernel's "
                   "recorded grid x = 3");
  expectParseError(sealedWith("symgrid 0 1 1 1 16 2", "symgrid 0 0 1 1 16 2"),
                   "manifest line 32: symgrid of launch 0 of 'k1', grid x: the launch already "
                   "has a symgrid on that axis (manifest line 30); at most one per launch and "
                   "axis");
}

//===----------------------------------------------------------------------===//
// The `plan` records (format version 10): whole launch plans per range of a symbol
//===----------------------------------------------------------------------===//

namespace {
/// withSymRanges() as the plan of 'batch' in [2, 8] (its buckets [2, 4] and [5, 8]) and a
/// packed plan for batch 1 (launch 3, k1 again).
Bundle withPlans() {
  Bundle b = withSymRanges();
  b.symRanges[0].lo = 2;
  b.launches.push_back({"k1", {0, 1, 2}});
  b.plans.push_back({0, 0, 2, 8, false, 0});
  b.plans.push_back({3, 0, 1, 1, true, 0});
  return b;
}
} // namespace

TEST(SymbolicBundleTest, PlansRoundTripAsVersion10) {
  Bundle b = withPlans();
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  std::string m = manifestOf(serializeBundle(b));
  EXPECT_EQ(m.substr(0, 15), "aicc-bundle 10\n");
  EXPECT_NE(m.find("symrange 2 0 5 8\nplan 0 0 2 8 bound\nplan 3 0 1 1 packed\nchecksum"),
            std::string::npos)
      << m;
  Bundle back;
  Status s = parseBundle(serializeBundle(b), back);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(back.formatVersion, 10);
  ASSERT_EQ(back.plans.size(), 2u);
  EXPECT_EQ(back.plans[1].firstLaunch, 3);
  EXPECT_EQ(back.plans[1].symbol, 0);
  EXPECT_EQ(back.plans[1].lo, 1);
  EXPECT_EQ(back.plans[1].hi, 1);
  EXPECT_TRUE(back.plans[1].packed);
  EXPECT_FALSE(back.plans[0].packed);
  EXPECT_EQ(back.plans[1].line, 38u);
}

TEST(SymbolicBundleTest, PlanRecordPlaceAndVersion) {
  std::string m = manifestOf(serializeBundle(withPlans()));
  m = m.substr(0, m.find("checksum"));
  std::string v9 = m;
  v9.replace(0, 14, "aicc-bundle 9");
  expectParseError(sealed(v9), "manifest line 37: 'plan' record in a version-9 bundle (it needs "
                               "the 'aicc-bundle 10' header)");
  expectParseError(sealed(m + "symrange 3 1 2 16\n"),
                   "manifest line 39: 'symrange' record after the 'plan' records (they follow "
                   "the 'launch', 'symgrid' and 'symrange' records, before 'checksum')");
  std::string bad = m;
  bad.replace(bad.find("plan 3 0 1 1 packed"), 19, "plan 3 0 1 1 compact");
  expectParseError(sealed(bad),
                   "manifest line 38: bad plan LAYOUT 'compact' (expected bound or packed)");
  bad = m;
  bad.replace(bad.find("plan 3 0 1 1 packed"), 19, "plan 3 0 1 1");
  expectParseError(sealed(bad), "manifest line 38: 'plan' record has 4 fields, expected 5 (plan "
                                "FIRST_LAUNCH SYMBOL_INDEX LO HI bound|packed)");
}

TEST(SymbolicBundleTest, PlanRules) {
  auto expectBad = [](const std::function<void(Bundle &)> &edit, const std::string &expected) {
    Bundle b = withPlans();
    edit(b);
    EXPECT_EQ(validateBundle(b).message, expected);
  };
  expectBad([](Bundle &b) { b.formatVersion = 9; }, "'plan' records need format version 10, not 9");
  expectBad([](Bundle &b) { b.plans[0].firstLaunch = 1; },
            "plan 0: FIRST_LAUNCH is 1, not 0 (the first plan starts at the first launch)");
  expectBad([](Bundle &b) { b.plans[1].firstLaunch = 0; },
            "plan 1: FIRST_LAUNCH 0 is not in [1, 4) (plans ascend by first launch, each at "
            "least one launch)");
  expectBad([](Bundle &b) { b.plans[1].firstLaunch = 4; },
            "plan 1: FIRST_LAUNCH 4 is not in [1, 4) (plans ascend by first launch, each at "
            "least one launch)");
  expectBad([](Bundle &b) { b.plans[1].symbol = 2; },
            "plan 1: SYMBOL_INDEX 2 is out of range (2 symbols)");
  expectBad([](Bundle &b) { b.plans[1].symbol = 1; },
            "plan 1: SYMBOL_INDEX 1 differs from plan 0's 0 (the plans divide one symbol's "
            "values)");
  expectBad([](Bundle &b) { b.plans[1].hi = 9; },
            "plan 1: [LO, HI] = [1, 9] is not a range inside [1, 8] of 'batch'");
  // The ranges partition [MIN, MAX].
  expectBad([](Bundle &b) { b.plans[1].hi = 2; },
            "plan ranges of 'batch' must partition [1, 8]: [2, 8] overlaps another plan's range");
  expectBad([](Bundle &b) { b.plans[0].hi = 7; },
            "plan ranges of 'batch' must partition [1, 8]: no plan runs at 8");
  expectBad([](Bundle &b) { b.plans[1].lo = b.plans[1].hi = 8; },
            "plan ranges of 'batch' must partition [1, 8]: no plan runs at 1");
  // Shape buckets go from their plan's LO to its HI.
  expectBad([](Bundle &b) { b.symRanges[0].lo = 1; },
            "symrange of launch 1 of 'k2': [LO, HI] = [1, 4] starts shape buckets of 'batch' but "
            "not at its plan's LO 2 (a run at 2 would run none of them)");
  expectBad([](Bundle &b) { b.symRanges[1].hi = 7; },
            "launch 3 of 'k1' starts another plan: the shape buckets of 'batch' from launch 1 "
            "cover [2, 7] and must go on in order to the plan's HI 8 (a run at 8 would run none "
            "of them)");
  expectBad([](Bundle &b) { b.symRanges[0].hi = 9; },
            "symrange of launch 1 of 'k2': [LO, HI] = [2, 9] is not a range inside [1, 8] of "
            "'batch'");
  // The first plan up to 7, the second at 8, a third from launch 4 (the bucket checks of
  // the first plan's launches fail before the plans' partition is checked).
  auto threePlans = [](Bundle &b) {
    b.plans[0].hi = 7;
    b.plans[1].lo = b.plans[1].hi = 8;
    b.plans.push_back({4, 0, 1, 1, true, 0});
    b.launches.push_back({"k1", {0, 1, 2}});
  };
  expectBad(
      [&](Bundle &b) { threePlans(b); },
      "launch 2 of 'k2': its symrange [5, 8] does not continue them: the shape buckets of "
      "'batch' from launch 1 cover [2, 4] and must go on in order to the plan's HI 7 (a run at "
      "5 would run none of them)");
  expectBad(
      [&](Bundle &b) {
        threePlans(b);
        b.symRanges[0].hi = 8;
      },
      "symrange of launch 1 of 'k2': [LO, HI] = [2, 8] passes its plan's HI 7 (the plan does "
      "not run there)");
  // Buckets of another symbol cover its whole range inside a plan.
  Bundle other = withPlans();
  other.launches.insert(other.launches.begin() + 3, {"k1", {0, 1, 2}});
  other.plans[1].firstLaunch = 4;
  other.symRanges.push_back({3, 1, 2, 16, 0});
  EXPECT_TRUE(validateBundle(other).ok) << validateBundle(other).message;
}
