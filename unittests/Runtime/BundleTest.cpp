//===- BundleTest.cpp - Bundle reader/writer tests ------------------------===//
//
// Round trips through serializeBundle/parseBundle, the exact byte layout of
// docs/bundle-format.md, and every malformed-bundle error path. Most error
// paths are exercised on a version-1 manifest (readers keep reading it);
// version 3's checksums, parameter records and caps are in
// BundleIntegrityTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include "BundleTestUtil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace aicc::runtime;
using namespace aicc::runtime::test;

namespace {

/// A valid manifest using every record and buffer kind; tests mutate it.
const char *const kValidManifest = "aicc-bundle 1\n"
                                   "target cpu\n"
                                   "buffer 0 f32 input 16 2 2 2\n"
                                   "buffer 1 f32 const 16 1 4 64\n"
                                   "buffer 2 f32 alias 16 1 4 0\n"
                                   "buffer 3 f32 output 16 2 2 2\n"
                                   "buffer 4 f32 temp 8 1 2\n"
                                   "input 0 0 x\n"
                                   "output 0 3 y\n"
                                   "kernel k 1 1 1 1 1 1 0 3\n"
                                   "launch k 3 0 1 3\n";

/// kValidManifest with the first occurrence of `from` replaced by `to`.
std::string mutate(const std::string &from, const std::string &to) {
  std::string m = kValidManifest;
  size_t pos = m.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not found";
  if (pos != std::string::npos)
    m.replace(pos, from.size(), to);
  return m;
}

/// Parses `bytes`, expecting failure with `expected` in the message.
void expectParseError(const std::string &bytes, const std::string &expected) {
  Bundle b;
  Status s = parseBundle(bytes, b);
  EXPECT_FALSE(s.ok) << "parsed although '" << expected << "' was expected";
  EXPECT_NE(s.message.find(expected), std::string::npos)
      << "message: " << s.message << "\nexpected to contain: " << expected;
}

Bundle makeRichBundle() {
  Bundle b;
  b.target = "sm_90a";
  b.buffers.push_back({0, DType::f16, BufferKind::input, 24, {3, 4}, 0});
  b.buffers.push_back({1, DType::bf16, BufferKind::constant, 8, {4}, 0});
  b.buffers.push_back({2, DType::f64, BufferKind::constant, 16, {2}, 64});
  b.buffers.push_back({3, DType::i64, BufferKind::temp, 0, {0, 5}, 0});
  b.buffers.push_back({4, DType::f16, BufferKind::alias, 24, {12}, 0});
  b.buffers.push_back({5, DType::boolean, BufferKind::output, 1, {}, 0});
  b.buffers.push_back({6, DType::u8, BufferKind::output, 6, {2, 3}, 0});
  b.buffers.push_back({7, DType::i8, BufferKind::input, 2, {2}, 0});
  b.buffers.push_back({8, DType::i32, BufferKind::temp, 4, {1}, 0});
  b.inputs.push_back({0, 0, "input with space%and/percent"});
  b.inputs.push_back({1, 7, "caf\xc3\xa9"});
  b.outputs.push_back({0, 5, "out:0"});
  b.outputs.push_back({1, 6, "out-1.y"});
  b.outputs.push_back({2, 0, "passthrough"}); // input copied out
  b.kernels.push_back({"fused_add_0", {7, 2, 1}, {128, 1, 1}, 49152, 3});
  // What the kernel's code takes: both launches below pass buffers that match
  // (the u8 record also takes i8 buffers: integers are signless to kernels).
  b.kernels[0].params = {{DType::f16, 24}, {DType::f16, 24}, {DType::u8, 6}};
  b.kernels.push_back({"reduce", {1, 1, 1}, {32, 4, 2}, 0, 0});
  b.launches.push_back({"fused_add_0", {0, 4, 6}});
  b.launches.push_back({"reduce", {}});
  b.launches.push_back({"fused_add_0", {4, 0, 6}});
  b.code = std::string("\x7f" "ELF\0\0binary\n code", 18);
  b.weights.assign(80, '\0');
  for (size_t i = 0; i < b.weights.size(); ++i)
    b.weights[i] = static_cast<char>(i * 7);
  return b;
}

/// Parses `iters` randomly edited copies of `seed` (bytes flipped, inserted,
/// deleted); every result must be ok and valid, or an error with a message.
/// Returns how many parsed.
int fuzzParse(const std::string &seed, int iters, uint64_t &state) {
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  int parsedOk = 0;
  for (int iter = 0; iter < iters; ++iter) {
    std::string bytes = seed;
    int edits = 1 + next() % 4;
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      size_t pos = next() % bytes.size();
      switch (next() % 3) {
      case 0:
        bytes[pos] = static_cast<char>(next());
        break;
      case 1:
        bytes.insert(pos, 1, " \n%0129"[next() % 7]);
        break;
      default:
        bytes.erase(pos, 1);
        break;
      }
    }
    Bundle b;
    Status s = parseBundle(bytes, b);
    if (s.ok) {
      ++parsedOk;
      EXPECT_TRUE(validateBundle(b).ok);
    } else {
      EXPECT_FALSE(s.message.empty());
    }
  }
  return parsedOk;
}

} // namespace

TEST(DTypeTest, SizesNamesAndParsing) {
  struct Row {
    DType dtype;
    const char *name;
    size_t size;
  };
  const Row rows[] = {{DType::f32, "f32", 4},   {DType::f16, "f16", 2},
                      {DType::bf16, "bf16", 2}, {DType::f64, "f64", 8},
                      {DType::i64, "i64", 8},   {DType::i32, "i32", 4},
                      {DType::i16, "i16", 2},   {DType::i8, "i8", 1},
                      {DType::u64, "u64", 8},   {DType::u32, "u32", 4},
                      {DType::u16, "u16", 2},   {DType::u8, "u8", 1},
                      {DType::boolean, "bool", 1}};
  for (const Row &r : rows) {
    EXPECT_EQ(dtypeSize(r.dtype), r.size) << r.name;
    EXPECT_STREQ(dtypeName(r.dtype), r.name);
    ASSERT_TRUE(parseDType(r.name).has_value()) << r.name;
    EXPECT_EQ(*parseDType(r.name), r.dtype);
  }
  EXPECT_FALSE(parseDType("float"));
  EXPECT_FALSE(parseDType("boolean"));
  EXPECT_FALSE(parseDType(""));
  EXPECT_EQ(formatTensorType(DType::f32, {2, 3}), "f32[2,3]");
  EXPECT_EQ(formatTensorType(DType::boolean, {}), "bool[]");
}

TEST(DTypeTest, ShapeNumElements) {
  EXPECT_EQ(shapeNumElements({}), 1);
  EXPECT_EQ(shapeNumElements({2, 3, 4}), 24);
  EXPECT_EQ(shapeNumElements({5, 0}), 0);
  EXPECT_FALSE(shapeNumElements({-1, 2}));
  EXPECT_FALSE(shapeNumElements({INT64_MAX, 2}));
}

TEST(PercentEncodingTest, EncodesEverythingOutsideTheSafeSet) {
  EXPECT_EQ(percentEncode("Ab9_.:/-"), "Ab9_.:/-");
  EXPECT_EQ(percentEncode("a b"), "a%20b");
  EXPECT_EQ(percentEncode("100%"), "100%25");
  EXPECT_EQ(percentEncode("caf\xc3\xa9"), "caf%C3%A9");
  EXPECT_EQ(percentEncode(std::string("x\0y\n", 4)), "x%00y%0A");
}

TEST(PercentEncodingTest, DecodeRoundTripsAndRejectsBadInput) {
  std::string all;
  for (int c = 0; c < 256; ++c)
    all += static_cast<char>(c);
  std::string decoded;
  ASSERT_TRUE(percentDecode(percentEncode(all), decoded).ok);
  EXPECT_EQ(decoded, all);
  ASSERT_TRUE(percentDecode("a%2fb%2F", decoded).ok); // either hex case
  EXPECT_EQ(decoded, "a/b/");

  EXPECT_FALSE(percentDecode("abc%", decoded).ok);
  EXPECT_FALSE(percentDecode("abc%2", decoded).ok);
  EXPECT_FALSE(percentDecode("%zz", decoded).ok);
  EXPECT_FALSE(percentDecode("a(b", decoded).ok);
  EXPECT_FALSE(percentDecode("a b", decoded).ok);
}

TEST(BundleTest, RoundTripPreservesEverything) {
  Bundle original = makeRichBundle();
  ASSERT_TRUE(validateBundle(original).ok) << validateBundle(original).message;
  std::string bytes = serializeBundle(original);

  Bundle parsed;
  Status s = parseBundle(bytes, parsed);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(parsed.target, original.target);
  ASSERT_EQ(parsed.buffers.size(), original.buffers.size());
  for (size_t i = 0; i < original.buffers.size(); ++i) {
    const BufferDesc &a = original.buffers[i], &b = parsed.buffers[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.dtype, b.dtype) << i;
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.sizeBytes, b.sizeBytes) << i;
    EXPECT_EQ(a.shape, b.shape) << i;
    EXPECT_EQ(a.offset, b.offset) << i;
  }
  auto expectIOEqual = [](const std::vector<IODesc> &a,
                          const std::vector<IODesc> &b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].index, b[i].index);
      EXPECT_EQ(a[i].bufferId, b[i].bufferId);
      EXPECT_EQ(a[i].name, b[i].name);
    }
  };
  expectIOEqual(original.inputs, parsed.inputs);
  expectIOEqual(original.outputs, parsed.outputs);
  ASSERT_EQ(parsed.kernels.size(), original.kernels.size());
  for (size_t i = 0; i < original.kernels.size(); ++i) {
    const KernelDesc &a = original.kernels[i], &b = parsed.kernels[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(a.block, b.block);
    EXPECT_EQ(a.sharedBytes, b.sharedBytes);
    EXPECT_EQ(a.numParams, b.numParams);
    ASSERT_EQ(a.params.size(), b.params.size());
    for (size_t p = 0; p < a.params.size(); ++p) {
      EXPECT_EQ(a.params[p].dtype, b.params[p].dtype);
      EXPECT_EQ(a.params[p].sizeBytes, b.params[p].sizeBytes);
    }
  }
  ASSERT_EQ(parsed.launches.size(), original.launches.size());
  for (size_t i = 0; i < original.launches.size(); ++i) {
    EXPECT_EQ(parsed.launches[i].kernel, original.launches[i].kernel);
    EXPECT_EQ(parsed.launches[i].buffers, original.launches[i].buffers);
  }
  EXPECT_EQ(parsed.code, original.code);
  EXPECT_EQ(parsed.weights, original.weights);

  // Deterministic: writing the parsed bundle gives the same bytes.
  EXPECT_EQ(serializeBundle(parsed), bytes);
}

TEST(BundleTest, WriterProducesTheDocumentedLayout) {
  Bundle b;
  b.target = "cpu";
  b.buffers.push_back({0, DType::f32, BufferKind::input, 24, {2, 3}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::constant, 12, {3}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::output, 24, {2, 3}, 0});
  b.buffers.push_back({3, DType::f32, BufferKind::alias, 24, {6}, 2});
  b.inputs.push_back({0, 0, "x in"});
  b.outputs.push_back({0, 2, "y"});
  b.kernels.push_back({"k", {2, 1, 1}, {1, 1, 1}, 0, 3});
  b.kernels[0].params = {{DType::f32, 24}, {DType::f32, 12}, {DType::f32, 24}};
  b.launches.push_back({"k", {0, 1, 2}});
  b.code = "CODE";
  b.weights = std::string(12, 'w');
  const std::string records = "aicc-bundle 4\n"
                              "target cpu\n"
                              "buffer 0 f32 input 24 2 2 3\n"
                              "buffer 1 f32 const 12 1 3 0\n"
                              "buffer 2 f32 output 24 2 2 3\n"
                              "buffer 3 f32 alias 24 1 6 2\n"
                              "input 0 0 x%20in\n"
                              "output 0 2 y\n"
                              "kernel k 2 1 1 1 1 1 0 3\n"
                              "param k 0 f32 24\n"
                              "param k 1 f32 12\n"
                              "param k 2 f32 24\n"
                              "launch k 3 0 1 2\n";
  const std::string bytes = serializeBundle(b);
  EXPECT_EQ(bytes, sealed(records, "CODE", std::string(12, 'w')));
  // The checksum record, spelled out: XXH64 of "CODE", of the weights, then
  // of the manifest up to its own field.
  const std::string code = hex64(xxHash64("CODE")), weights = hex64(xxHash64(std::string(12, 'w')));
  const std::string head = records + "checksum xxh64 " + code + " " + weights + " ";
  EXPECT_NE(bytes.find(head + hex64(xxHash64(head)) + "\n"), std::string::npos);
}

TEST(BundleTest, ParsesAValidManifest) {
  Bundle b;
  Status s = parseBundle(frame(kValidManifest), b);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(b.target, "cpu");
  ASSERT_EQ(b.buffers.size(), 5u);
  EXPECT_EQ(b.buffers[1].kind, BufferKind::constant);
  EXPECT_EQ(b.buffers[1].offset, 64u);
  EXPECT_EQ(b.buffers[2].kind, BufferKind::alias);
  EXPECT_EQ(b.buffers[2].offset, 0u);
  EXPECT_EQ(b.inputs[0].name, "x");
  EXPECT_EQ(b.launches[0].buffers, (std::vector<int>{0, 1, 3}));
  // A manifest without the final newline is accepted too.
  std::string m = kValidManifest;
  m.pop_back();
  EXPECT_TRUE(parseBundle(frame(m), b).ok);
}

TEST(BundleTest, RejectsBadFraming) {
  const std::string good = frame(kValidManifest);
  expectParseError("", "too short for the magic");
  expectParseError("AICC", "too short for the magic");
  expectParseError("AICCBND2" + good.substr(8), "bad magic");
  expectParseError("XICCBND1" + good.substr(8), "bad magic");
  expectParseError("AICCBND1", "missing the manifest size");
  expectParseError("AICCBND1" + u64le(1000) + "aicc", "manifest section says 1000");
  expectParseError("AICCBND1" + u64le(UINT64_MAX) + "aicc",
                   "manifest section says");
  std::string m = kValidManifest;
  expectParseError("AICCBND1" + u64le(m.size()) + m, "missing the code size");
  expectParseError("AICCBND1" + u64le(m.size()) + m + u64le(10) + "abc",
                   "code section says 10");
  expectParseError("AICCBND1" + u64le(m.size()) + m + u64le(3) + "ELF",
                   "missing the weights size");
  expectParseError("AICCBND1" + u64le(m.size()) + m + u64le(3) + "ELF" +
                       u64le(128) + "short",
                   "weights section says 128");
  expectParseError(good + "x", "1 trailing bytes");
}

TEST(BundleTest, EveryTruncationFailsCleanly) {
  const std::string good = frame(kValidManifest);
  Bundle b;
  ASSERT_TRUE(parseBundle(good, b).ok);
  for (size_t n = 0; n < good.size(); ++n) {
    Status s = parseBundle(std::string_view(good).substr(0, n), b);
    EXPECT_FALSE(s.ok) << "prefix of " << n << " bytes parsed";
    EXPECT_FALSE(s.message.empty());
  }
}

TEST(BundleTest, RejectsBadHeaderAndRecords) {
  expectParseError(frame(""), "empty manifest");
  expectParseError(frame(mutate("aicc-bundle 1\n", "")), "expected the 'aicc-bundle N' header");
  expectParseError(frame(mutate("aicc-bundle 1", "aicc-bundle 11")), "unsupported bundle version");
  // A version-3 header needs the checksum record at the end.
  expectParseError(frame(mutate("aicc-bundle 1", "aicc-bundle 3")),
                   "manifest line 11: the last record of a version-3 manifest must be "
                   "'checksum xxh64 CODE WEIGHTS MANIFEST'");
  expectParseError(frame(mutate("aicc-bundle 1", "aicc-bundle 0")), "unsupported bundle version");
  expectParseError(frame(mutate("aicc-bundle 1", "aicc-bundle 1 extra")),
                   "unsupported bundle version");
  expectParseError(frame(mutate("target cpu\n", "target cpu\naicc-bundle 1\n")),
                   "line 3: 'aicc-bundle' header repeated");
  expectParseError(frame(mutate("target cpu\n", "")), "no 'target' record");
  expectParseError(frame(mutate("target cpu\n", "target cpu\ntarget cpu\n")),
                   "'target' record repeated");
  expectParseError(frame(mutate("target cpu", "target gpu")),
                   "invalid target 'gpu'");
  expectParseError(frame(mutate("target cpu", "target sm_")),
                   "invalid target 'sm_'");
  expectParseError(frame(mutate("target cpu", "target cpu extra")),
                   "'target' record has 2 fields, expected 1");
  expectParseError(frame(mutate("output 0 3 y\n", "output 0 3 y\nweights 12\n")),
                   "line 10: unknown record 'weights'");
  expectParseError(frame(mutate("output 0 3 y\n", "output 0 3 y\n\n")),
                   "line 10: empty line");
  expectParseError(frame(mutate("input 0 0 x", "input 0  0 x")),
                   "empty field");
  expectParseError(frame(mutate("input 0 0 x", "input 0 0 x ")),
                   "empty field");
  expectParseError(frame(mutate("target cpu", "target cpu\r")),
                   "invalid target");
}

TEST(BundleTest, RejectsBadBuffers) {
  expectParseError(frame(mutate("buffer 1 f32 const", "buffer 7 f32 const")),
                   "buffer id 7 out of order, expected 1");
  expectParseError(frame(mutate("buffer 0 f32 input", "buffer 0 f48 input")),
                   "unknown dtype 'f48'");
  expectParseError(frame(mutate("buffer 0 f32 input", "buffer 0 f32 param")),
                   "unknown buffer kind 'param'");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 20 2 2 2")),
                   "buffer 0: SIZE_BYTES is 20 but f32[2,2] needs 16 bytes");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f16 input 16 2 2 2")),
                   "f16[2,2] needs 8 bytes");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 16 3 2 2")),
                   "'buffer' record has 7 fields, expected 8");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 16 99999999 2 2")),
                   "RANK 99999999 exceeds");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 16 2 -2 -2")),
                   "bad dimension '-2'");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 16 2 2 2 0")),
                   "'buffer' record has 8 fields, expected 7");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 99999999999999999999 2 2 2")),
                   "bad SIZE_BYTES");
  expectParseError(
      frame(mutate("buffer 0 f32 input 16 2 2 2",
                   "buffer 0 f32 input 16 2 9223372036854775807 4")),
      "element count of the shape overflows");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input 16 2 2x 2")),
                   "bad dimension '2x'");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2",
                                "buffer 0 f32 input +16 2 2 2")),
                   "bad SIZE_BYTES '+16'");
  expectParseError(frame(mutate("buffer 0 ", "buffer ")),
                   "bad buffer id 'f32'");
  expectParseError(frame(mutate("buffer 0 f32 input 16 2 2 2", "buffer 0 f32")),
                   "'buffer' record has 2 fields, expected 5");
}

TEST(BundleTest, RejectsBadConstAndAlias) {
  expectParseError(frame(mutate("buffer 1 f32 const 16 1 4 64",
                                "buffer 1 f32 const 16 1 4")),
                   "'buffer' record has 6 fields, expected 7");
  expectParseError(frame(mutate("const 16 1 4 64", "const 16 1 4 32")),
                   "buffer 1: const offset 32 is not a multiple of 64");
  expectParseError(frame(mutate("const 16 1 4 64", "const 16 1 4 100")),
                   "is not a multiple of 64");
  expectParseError(frame(kValidManifest, "ELF", std::string(70, 'w')),
                   "buffer 1: const data [64, 80) lies past the end of the "
                   "weights section (70 bytes)");
  expectParseError(frame(mutate("const 16 1 4 64", "const 16 1 4 192")),
                   "past the end of the weights section");
  expectParseError(frame(mutate("const 16 1 4 64",
                                "const 16 1 4 18446744073709551552")),
                   "past the end of the weights section");
  expectParseError(frame(mutate("alias 16 1 4 0", "alias 16 1 4 2")),
                   "buffer 2: alias source 2 must be a buffer declared before");
  expectParseError(frame(mutate("alias 16 1 4 0", "alias 16 1 4 9")),
                   "alias source 9");
  expectParseError(frame(mutate("buffer 2 f32 alias 16 1 4 0",
                                "buffer 2 f32 alias 32 1 8 0")),
                   "alias of 32 bytes is larger than its source buffer 0");
}

TEST(BundleTest, RejectsBadInputsAndOutputs) {
  expectParseError(frame(mutate("input 0 0 x", "input 1 0 x")),
                   "input index 1 out of order, expected 0");
  expectParseError(frame(mutate("input 0 0 x", "input 0 9 x")),
                   "input 0 ('x'): buffer id 9 is out of range (5 buffers)");
  expectParseError(frame(mutate("input 0 0 x", "input 0 3 x")),
                   "input 0 ('x'): buffer 3 has kind output, expected input");
  expectParseError(frame(mutate("input 0 0 x\n", "input 0 0 x\ninput 1 0 x2\n")),
                   "buffer 0 is already bound to input 0");
  expectParseError(frame(mutate("input 0 0 x\n", "")),
                   "buffer 0 has kind input but no input record binds it");
  expectParseError(frame(mutate("input 0 0 x", "input 0 0")),
                   "'input' record has 2 fields, expected 3");
  expectParseError(frame(mutate("input 0 0 x", "input 0 0 x%4")),
                   "bad percent escape");
  expectParseError(frame(mutate("input 0 0 x", "input 0 0 x(1)")),
                   "must be percent-encoded");
  expectParseError(frame(mutate("output 0 3 y", "output 0 5 y")),
                   "output 0 ('y'): buffer id 5 is out of range");
  expectParseError(frame(mutate("output 0 3 y", "output 2 3 y")),
                   "output index 2 out of order, expected 0");
  expectParseError(frame(mutate("output 0 3 y", "output 0 -1 y")),
                   "bad buffer id '-1'");
}

TEST(BundleTest, RejectsBadKernelsAndLaunches) {
  expectParseError(frame(mutate("kernel k 1 1 1 1 1 1 0 3\n",
                                "kernel k 1 1 1 1 1 1 0 3\nkernel k 1 1 1 1 1 1 0 3\n")),
                   "kernel 'k' is declared twice");
  expectParseError(frame(mutate("kernel k 1 1 1 1 1 1 0 3", "kernel k 1 1 1 1 1 0 3")),
                   "'kernel' record has 8 fields, expected 9");
  expectParseError(frame(mutate("kernel k 1 1 1", "kernel k 0 1 1")),
                   "kernel 'k': grid and block sizes must be >= 1");
  expectParseError(frame(mutate("kernel k 1 1 1 1 1 1", "kernel k 1 1 1 32 1 1")),
                   "kernel 'k': block must be 1 1 1 on the cpu target");
  expectParseError(frame(mutate("kernel k 1 1 1", "kernel k 4294967296 4294967296 4294967296")),
                   "manifest line 10: kernel 'k': grid 4294967296x4294967296x4294967296 is "
                   "2^64 or more programs, above the limit of 2147483647 (Limits::maxPrograms)");
  expectParseError(frame(mutate("launch k 3 0 1 3", "launch q 3 0 1 3")),
                   "launch 0 of 'q': no kernel record with that name");
  expectParseError(frame(mutate("launch k 3 0 1 3", "launch k 2 0 1")),
                   "launch 0 of 'k': passes 2 buffers but the kernel takes 3");
  expectParseError(frame(mutate("launch k 3 0 1 3", "launch k 3 0 1 5")),
                   "launch 0 of 'k': buffer id 5 is out of range");
  expectParseError(frame(mutate("launch k 3 0 1 3", "launch k 3 0 1")),
                   "says 3 buffers but lists 2");
  expectParseError(frame(mutate("launch k 3 0 1 3", "launch k 99999999999 0 1")),
                   "says 99999999999 buffers but lists 2");
  expectParseError(frame(mutate("launch k 3 0 1 3", "launch k")),
                   "'launch' record has 1 fields, expected 2");
  expectParseError(frame(kValidManifest, ""),
                   "declares kernels but its code section is empty");
}

TEST(BundleTest, ValidateCatchesInMemoryMistakes) {
  Bundle b = makeRichBundle();
  b.buffers[3].id = 4;
  EXPECT_FALSE(validateBundle(b).ok);
  b = makeRichBundle();
  b.buffers[0].sizeBytes = 23;
  EXPECT_NE(validateBundle(b).message.find("SIZE_BYTES is 23"),
            std::string::npos);
  b = makeRichBundle();
  b.buffers[3].offset = 64; // temp with an OFFSET
  EXPECT_NE(validateBundle(b).message.find("takes no OFFSET"),
            std::string::npos);
  b = makeRichBundle();
  b.inputs[0].name.clear();
  EXPECT_NE(validateBundle(b).message.find("empty name"), std::string::npos);
  b = makeRichBundle();
  b.target = "SM_90";
  EXPECT_FALSE(validateBundle(b).ok);
  // An invalid bundle written and read back is rejected by the reader too.
  b = makeRichBundle();
  b.launches[1].buffers.push_back(0);
  EXPECT_FALSE(parseBundle(serializeBundle(b), b).ok);
}

TEST(BundleTest, ReadBundleFileReportsMissingFiles) {
  Bundle b;
  Status s = readBundleFile("/nonexistent/dir/model.aicc", b);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("/nonexistent/dir/model.aicc"), std::string::npos);
  EXPECT_NE(s.message.find("No such file"), std::string::npos) << s.message;
}

TEST(BundleTest, ReadBundleFileRoundTrip) {
  std::string path = ::testing::TempDir() + "/bundle-test.aicc";
  std::string bytes = serializeBundle(makeRichBundle());
  FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  Bundle b;
  Status s = readBundleFile(path, b);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(serializeBundle(b), bytes);
  std::remove(path.c_str());
}

TEST(BundleTest, RandomCorruptionNeverCrashes) {
  // Flip, insert and delete bytes of valid bundles; the reader must return
  // (ok or error) without undefined behaviour (run under ASan/UBSan too).
  uint64_t state = 12345;
  int parsedOk = fuzzParse(frame(kValidManifest), 3000, state) +
                 fuzzParse(serializeBundle(makeRichBundle()), 3000, state);
  // Most edits must be caught; some (e.g. inside code/weights) are harmless.
  EXPECT_LT(parsedOk, 6000);
}

TEST(BundleTest, BoundInputsRoundTripAndOrder) {
  // Model inputs: x (runtime 0), k (bound, position 1), z (runtime 1), s (bound, 3).
  Bundle b;
  b.target = "cpu";
  b.buffers.push_back({0, DType::f32, BufferKind::input, 8, {2}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::input, 8, {2}, 0});
  b.inputs.push_back({0, 0, "x"});
  b.inputs.push_back({1, 1, "z"});
  b.boundInputs.push_back({1, "k k", DType::i64, 8, {}, 0});
  b.boundInputs.push_back({3, "s", DType::i32, 8, {2}, 64});
  b.outputs.push_back({0, 1, "y"});
  b.weights.assign(72, '\x05');
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  std::string bytes = serializeBundle(b);
  EXPECT_NE(bytes.find("bound 1 k%20k i64 8 0 0\nbound 3 s i32 8 1 2 64\n"), std::string::npos);
  Bundle back;
  Status s = parseBundle(bytes, back);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(back.boundInputs.size(), 2u);
  EXPECT_EQ(back.boundInputs[0].name, "k k");
  EXPECT_EQ(back.boundInputs[1].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(back.boundInputs[1].offset, 64u);
  EXPECT_EQ(back.modelInputOrder(), (std::vector<int>{0, -1, 1, -2}));
}

TEST(BundleTest, RejectsBadBoundInputs) {
  auto withBound = [](const std::string &rec) { return frame(mutate("output 0", rec + "output 0")); };
  expectParseError(withBound("bound 2 k i64 8 0 0\n"),
                   "bound input 0 ('k'): position 2 is out of range (2 model inputs");
  expectParseError(withBound("bound 0 k i64 8 0 0\nbound 0 j i64 8 0 0\n"),
                   "position 0 does not follow 0");
  expectParseError(withBound("bound 0 x i64 8 0 0\n"), "also named by input 0");
  expectParseError(withBound("bound 0 k i64 16 0 0\n"), "SIZE_BYTES is 16 but i64[] needs 8");
  expectParseError(withBound("bound 0 k i64 8 0 8\n"), "offset 8 is not a multiple of 64");
  expectParseError(withBound("bound 0 k i64 8 0 128\n"),
                   "value [128, 136) lies past the end of the weights section (128 bytes)");
  expectParseError(withBound("bound 0 k i64 8 1 0\n"), "'bound' record has 6 fields, expected 7");
  expectParseError(withBound("bound 0 k q64 8 0 0\n"), "unknown dtype 'q64'");
}

//===----------------------------------------------------------------------===//
// Tensor maps (format version 2)
//===----------------------------------------------------------------------===//

namespace {

/// c = a @ b on sm_90a with a TMA map over each operand: a f16[512, 256] in
/// 64x64 boxes with a 128-byte swizzle, b f16[256, 256] likewise, plus a rank-3
/// f32 map over c without swizzle.
const char *const kTensorMapManifest = "aicc-bundle 2\n"
                                       "target sm_90a\n"
                                       "buffer 0 f16 input 262144 2 512 256\n"
                                       "buffer 1 f16 input 131072 2 256 256\n"
                                       "buffer 2 f32 output 524288 2 512 256\n"
                                       "input 0 0 a\n"
                                       "input 1 1 b\n"
                                       "output 0 2 c\n"
                                       "kernel gemm 4 2 1 128 1 1 0 3\n"
                                       "tensormap gemm 0 f16 2 512 256 512 64 64 128\n"
                                       "tensormap gemm 1 f16 2 256 256 512 64 64 128\n"
                                       "tensormap gemm 2 f32 3 2 256 256 262144 1024 1 8 32 0\n"
                                       "launch gemm 3 0 1 2\n";

std::string mutateTM(const std::string &from, const std::string &to) {
  std::string m = kTensorMapManifest;
  size_t pos = m.find(from);
  EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not found";
  if (pos != std::string::npos)
    m.replace(pos, from.size(), to);
  return m;
}

/// The bundle kTensorMapManifest describes.
Bundle makeTensorMapBundle() {
  Bundle b;
  b.target = "sm_90a";
  b.buffers.push_back({0, DType::f16, BufferKind::input, 262144, {512, 256}, 0});
  b.buffers.push_back({1, DType::f16, BufferKind::input, 131072, {256, 256}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::output, 524288, {512, 256}, 0});
  b.inputs.push_back({0, 0, "a"});
  b.inputs.push_back({1, 1, "b"});
  b.outputs.push_back({0, 2, "c"});
  KernelDesc k{"gemm", {4, 2, 1}, {128, 1, 1}, 0, 3};
  k.params = {{DType::f16, 262144}, {DType::f16, 131072}, {DType::f32, 524288}};
  k.tensorMaps.push_back({0, DType::f16, {512, 256}, {512}, {64, 64}, 128});
  k.tensorMaps.push_back({1, DType::f16, {256, 256}, {512}, {64, 64}, 128});
  k.tensorMaps.push_back({2, DType::f32, {2, 256, 256}, {262144, 1024}, {1, 8, 32}, 0});
  b.kernels.push_back(std::move(k));
  b.launches.push_back({"gemm", {0, 1, 2}});
  b.code = "CUBIN";
  return b;
}

void expectTensorMapsEqual(const std::vector<TensorMapDesc> &a,
                           const std::vector<TensorMapDesc> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].param, b[i].param) << i;
    EXPECT_EQ(a[i].dtype, b[i].dtype) << i;
    EXPECT_EQ(a[i].dims, b[i].dims) << i;
    EXPECT_EQ(a[i].strides, b[i].strides) << i;
    EXPECT_EQ(a[i].box, b[i].box) << i;
    EXPECT_EQ(a[i].swizzle, b[i].swizzle) << i;
  }
}

/// validateBundle(b) fails with `expected` in the message.
void expectInvalid(const Bundle &b, const std::string &expected) {
  Status s = validateBundle(b);
  EXPECT_FALSE(s.ok) << "valid although '" << expected << "' was expected";
  EXPECT_NE(s.message.find(expected), std::string::npos)
      << "message: " << s.message << "\nexpected to contain: " << expected;
}

} // namespace

TEST(TensorMapBundleTest, WriterProducesVersion4WithTheDocumentedRecords) {
  Bundle b = makeTensorMapBundle();
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  // The version-2 manifest with the new header, param records after the
  // kernel record (before its maps) and the checksum record.
  std::string records = kTensorMapManifest;
  records.replace(0, 13, "aicc-bundle 4");
  records.replace(records.find("tensormap gemm 0"), 0,
                  "param gemm 0 f16 262144\nparam gemm 1 f16 131072\nparam gemm 2 f32 524288\n");
  EXPECT_EQ(serializeBundle(b), sealed(records, "CUBIN", ""));
}

TEST(TensorMapBundleTest, RoundTripPreservesTensorMaps) {
  Bundle original = makeTensorMapBundle();
  // A second kernel without maps, and a percent-encoded kernel name with maps.
  original.kernels.push_back({"copy", {1, 1, 1}, {32, 1, 1}, 0, 1});
  original.kernels.back().params = {{DType::f32, 524288}};
  KernelDesc odd{"odd name%", {2, 1, 1}, {64, 1, 1}, 4096, 2};
  odd.params = {{DType::f32, 524288}, {DType::f16, 262144}};
  odd.tensorMaps.push_back({1, DType::bf16, {2000, 48}, {112}, {256, 8}, 0});
  odd.tensorMaps.push_back({0, DType::u8, {4096}, {}, {16}, 0});
  odd.tensorMaps.push_back(
      {0, DType::f64, {2, 3, 4, 5, 16}, {3840, 1280, 320, 128}, {1, 2, 3, 4, 2}, 32});
  original.kernels.push_back(std::move(odd));
  original.launches.push_back({"copy", {2}});
  original.launches.push_back({"odd name%", {2, 0}});
  ASSERT_TRUE(validateBundle(original).ok) << validateBundle(original).message;
  std::string bytes = serializeBundle(original);
  EXPECT_NE(
      bytes.find("kernel copy 1 1 1 32 1 1 0 1\nparam copy 0 f32 524288\nkernel odd%20name%25 "),
      std::string::npos);
  EXPECT_NE(bytes.find("param odd%20name%25 1 f16 262144\ntensormap odd%20name%25 1 bf16"),
            std::string::npos);
  EXPECT_NE(bytes.find("tensormap odd%20name%25 1 bf16 2 2000 48 112 256 8 0\n"),
            std::string::npos);

  Bundle parsed;
  Status s = parseBundle(bytes, parsed);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(parsed.kernels.size(), original.kernels.size());
  for (size_t k = 0; k < original.kernels.size(); ++k) {
    EXPECT_EQ(parsed.kernels[k].name, original.kernels[k].name);
    EXPECT_EQ(parsed.kernels[k].numParams, original.kernels[k].numParams);
    expectTensorMapsEqual(original.kernels[k].tensorMaps, parsed.kernels[k].tensorMaps);
  }
  EXPECT_EQ(serializeBundle(parsed), bytes);
}

TEST(TensorMapBundleTest, WriterAlwaysWritesVersion4) {
  // With or without tensor maps: the writer has one version.
  EXPECT_EQ(serializeBundle(makeRichBundle()).substr(16, 14), "aicc-bundle 4\n");
  Bundle b = makeTensorMapBundle();
  for (KernelDesc &k : b.kernels)
    k.tensorMaps.clear();
  EXPECT_EQ(serializeBundle(b).substr(16, 14), "aicc-bundle 4\n");
  // A version-2 header without tensor maps is read (as version 2) ...
  Bundle parsed;
  Status s = parseBundle(frame(mutate("aicc-bundle 1", "aicc-bundle 2")), parsed);
  EXPECT_TRUE(s.ok) << s.message;
  EXPECT_EQ(parsed.formatVersion, 2);
  // ... and a version-1 bundle as version 1.
  ASSERT_TRUE(parseBundle(frame(kValidManifest), parsed).ok);
  EXPECT_EQ(parsed.formatVersion, 1);
}

TEST(TensorMapBundleTest, ParsesTheDocumentedManifest) {
  Bundle b;
  Status s = parseBundle(frame(kTensorMapManifest, "CUBIN", ""), b);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(b.kernels.size(), 1u);
  expectTensorMapsEqual(b.kernels[0].tensorMaps, makeTensorMapBundle().kernels[0].tensorMaps);
}

TEST(TensorMapBundleTest, RejectsMalformedRecords) {
  auto bytes = [](const std::string &manifest) { return frame(manifest, "CUBIN", ""); };
  expectParseError(bytes(mutateTM("aicc-bundle 2", "aicc-bundle 1")),
                   "line 10: 'tensormap' record in a version-1 bundle (tensor maps need the "
                   "'aicc-bundle 2' header)");
  // Version 2 has no param records.
  expectParseError(bytes(mutateTM("tensormap gemm 0", "param gemm 0 f16 262144\ntensormap gemm 0")),
                   "line 10: 'param' record in a version-2 bundle (parameter records need the "
                   "'aicc-bundle 3' header)");
  // Wrong field counts: one box dim short, one extra field, a bare record.
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128",
                                  "tensormap gemm 0 f16 2 512 256 512 64 128")),
                   "line 10: 'tensormap' record has 9 fields, expected 10");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128",
                                  "tensormap gemm 0 f16 2 512 256 512 64 64 128 0")),
                   "'tensormap' record has 11 fields, expected 10");
  expectParseError(
      bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128", "tensormap gemm")),
      "'tensormap' record has 1 fields, expected 7");
  expectParseError(
      bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128", "tensormap gemm 0 f16 0 128")),
      "tensor map RANK 0 is not in [1, 5]");
  expectParseError(
      bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128",
                     "tensormap gemm 0 f16 6 1 1 1 1 1 1 16 16 16 16 16 1 1 1 1 1 8 0")),
      "tensor map RANK 6 is not in [1, 5]");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2", "tensormap gemm 0 f17 2")),
                   "line 10: unknown dtype 'f17'");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2", "tensormap gemm 0 bool8 2")),
                   "unknown dtype 'bool8'");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2", "tensormap gemm -1 f16 2")),
                   "bad tensor map PARAM '-1'");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128",
                                  "tensormap gemm 0 f16 2 512 256 512 64 4294967296 128")),
                   "tensor map box dim 4294967296 is too large");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128",
                                  "tensormap gemm 0 f16 2 512 256 5x2 64 64 128")),
                   "bad tensor map stride '5x2'");
  expectParseError(bytes(mutateTM("tensormap gemm 0 f16 2 512 256 512 64 64 128",
                                  "tensormap gemm 0 f16 2 512 256 512 64 64 none")),
                   "bad SWIZZLE 'none'");
  // Maps follow the record of the kernel they belong to.
  expectParseError(bytes(mutateTM("tensormap gemm 0", "tensormap other 0")),
                   "'tensormap' record for kernel 'other' before (or without) its 'kernel' record");
  expectParseError(
      bytes(mutateTM(
          "kernel gemm 4 2 1 128 1 1 0 3\ntensormap gemm 0 f16 2 512 256 512 64 64 128\n",
          "tensormap gemm 0 f16 2 512 256 512 64 64 128\nkernel gemm 4 2 1 128 1 1 0 3\n")),
      "line 9: 'tensormap' record for kernel 'gemm' before");
  // Limits are checked on the parsed bundle too (validateBundle).
  expectParseError(bytes(mutateTM("512 256 512 64 64 128", "512 256 512 64 64 96")),
                   "kernel 'gemm': tensor map 0 (param 0, f16 dims [512,256] strides [512] box "
                   "[64,64] swizzle 96): swizzle 96 is not 0, 32, 64 or 128 bytes");
}

TEST(TensorMapBundleTest, ValidateChecksEveryLimit) {
  Bundle good = makeTensorMapBundle();
  ASSERT_TRUE(validateBundle(good).ok) << validateBundle(good).message;
  auto with = [&](auto edit) {
    Bundle b = good;
    edit(b.kernels[0].tensorMaps[0]);
    return b;
  };
  const std::string label = "kernel 'gemm': tensor map 0 (param ";
  expectInvalid(with([](TensorMapDesc &t) { t.param = 3; }),
                label + "3, f16 dims [512,256] strides [512] box [64,64] swizzle 128): PARAM 3 "
                        "is not one of the kernel's 3 buffer parameters");
  expectInvalid(with([](TensorMapDesc &t) { t.param = -1; }), "PARAM -1 is not one of");
  expectInvalid(with([](TensorMapDesc &t) {
                  t.dims.clear();
                  t.strides.clear();
                  t.box.clear();
                }),
                "rank 0 is not in [1, 5]");
  expectInvalid(with([](TensorMapDesc &t) {
                  t.dims.assign(6, 1);
                  t.strides.assign(5, 16);
                  t.box.assign(6, 8);
                }),
                "rank 6 is not in [1, 5]");
  expectInvalid(with([](TensorMapDesc &t) { t.strides.push_back(16); }),
                "2 strides for rank 2 (expected 1: one per dim but the contiguous innermost one)");
  expectInvalid(with([](TensorMapDesc &t) { t.box.push_back(1); }),
                "the box has 3 dims for rank 2");
  expectInvalid(with([](TensorMapDesc &t) { t.dims[0] = 0; }), "dim 0 = 0 is not in [1, 2^32]");
  expectInvalid(with([](TensorMapDesc &t) { t.dims[1] = (uint64_t(1) << 32) + 1; }),
                "dim 1 = 4294967297 is not in [1, 2^32]");
  expectInvalid(with([](TensorMapDesc &t) { t.strides[0] = 520; }),
                "stride 0 = 520 bytes is not a multiple of 16 below 2^40");
  expectInvalid(with([](TensorMapDesc &t) { t.strides[0] = uint64_t(1) << 40; }),
                "stride 0 = 1099511627776 bytes is not a multiple of 16 below 2^40");
  expectInvalid(with([](TensorMapDesc &t) { t.box[0] = 0; }), "box dim 0 = 0 is not in [1, 256]");
  expectInvalid(with([](TensorMapDesc &t) { t.box[0] = 257; }),
                "box dim 0 = 257 is not in [1, 256]");
  expectInvalid(with([](TensorMapDesc &t) { t.box[1] = 4; }),
                "the box's innermost dim is 8 bytes, not a multiple of 16");
  expectInvalid(with([](TensorMapDesc &t) { t.swizzle = 16; }),
                "swizzle 16 is not 0, 32, 64 or 128 bytes");
  expectInvalid(with([](TensorMapDesc &t) { t.swizzle = 64; }),
                "the box's innermost dim is 128 bytes, more than the 64-byte swizzle span");
  // Without a swizzle the same box is fine; a box larger than the dims too (zero fill).
  EXPECT_TRUE(validateBundle(with([](TensorMapDesc &t) { t.swizzle = 0; })).ok);
  EXPECT_TRUE(validateBundle(with([](TensorMapDesc &t) { t.box = {256, 64}; })).ok);
  // Every dtype has a TMA element size.
  for (DType d : {DType::u8, DType::boolean, DType::i16, DType::i32, DType::u64}) {
    Bundle b = with([d](TensorMapDesc &t) {
      t.dtype = d;
      t.dims = {16, 16};
      t.box = {16, 16};
      t.swizzle = 0;
    });
    EXPECT_TRUE(validateBundle(b).ok) << dtypeName(d) << ": " << validateBundle(b).message;
  }

  // The map must fit in each launch's buffer.
  expectInvalid(with([](TensorMapDesc &t) { t.dims[0] = 513; }),
                "launch 0 of 'gemm': kernel 'gemm': tensor map 0 (param 0, f16 dims [513,256] "
                "strides [512] box [64,64] swizzle 128) spans 262656 bytes but its buffer 0 "
                "f16[512,256] holds 262144");
  expectInvalid(with([](TensorMapDesc &t) { t.strides[0] = 1024; }),
                "spans 523776 bytes but its buffer 0");
  expectInvalid(with([](TensorMapDesc &t) {
                  t.dims = {uint64_t(1) << 32, uint64_t(1) << 32, 8};
                  t.strides = {(uint64_t(1) << 40) - 16, (uint64_t(1) << 40) - 16};
                  t.box = {1, 1, 8};
                }),
                "spans more than 2^64 bytes");
  {
    // Narrower or strided views of a buffer are fine: the first 64 columns.
    Bundle b = with([](TensorMapDesc &t) { t.dims = {512, 64}; });
    EXPECT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
    // Another launch of the kernel with a smaller buffer is checked too (in a
    // version-2 bundle, without the param records that would refuse it first).
    b = good;
    b.formatVersion = 2;
    b.kernels[0].params.clear();
    b.buffers.push_back({3, DType::f16, BufferKind::temp, 128, {64}, 0});
    b.launches.push_back({"gemm", {3, 1, 2}});
    expectInvalid(b, "launch 1 of 'gemm': kernel 'gemm': tensor map 0");
  }

  // Tensor maps are GPU-only, sm_90 and newer.
  Bundle b = good;
  b.target = "sm_80";
  expectInvalid(b,
                "kernel 'gemm': tensor maps (TMA) need a GPU target sm_90 or newer, not 'sm_80'");
  b.target = "cpu";
  b.kernels[0].block = {1, 1, 1};
  expectInvalid(b, "kernel 'gemm': tensor maps (TMA) need a GPU target sm_90 or newer, not 'cpu'");
  for (const char *target : {"sm_90", "sm_90a", "sm_100a", "sm_120"}) {
    b = good;
    b.target = target;
    EXPECT_TRUE(validateBundle(b).ok) << target;
  }
}

TEST(TensorMapBundleTest, RandomCorruptionNeverCrashes) {
  uint64_t state = 777;
  int parsedOk = fuzzParse(frame(kTensorMapManifest, "CUBIN", ""), 4000, state);
  EXPECT_LT(parsedOk, 4000);
}
