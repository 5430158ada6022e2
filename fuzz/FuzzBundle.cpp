//===- FuzzBundle.cpp - libFuzzer target: the .aicc bundle reader and loader ---===//
//
// aicc-fuzz-bundle: each input is a bundle file (docs/bundle-format.md) given to
// aicc::runtime::parseBundle, which parses and validates it (include/aicc/Runtime/Bundle.h).
//
// Oracles beyond "no crash":
//  - an accepted bundle survives serializeBundle -> parseBundle, and serializing the result
//    gives the same bytes again (writer and reader agree);
//  - an accepted cpu bundle goes on to Session::create on the CPU backend (buffer allocation,
//    constant copies, aliases, kernel symbol lookup) -- but with its code section replaced by
//    a trusted shared object built with the fuzzer (from unittests/Runtime/testdata/
//    add_kernel.c, the runtime tests' kernels `add` and `mul_rows`). Fuzzed bytes are never dlopen'ed: a bundle is code (docs/bundle-format.md,
//    trust model), and nothing is run. Bundles declaring more than 256 MiB of buffers in all
//    skip this step (a limit of the harness, so that a legal but large bundle is no finding;
//    the temps' arena counts too: a 2 GiB `arena` record on a tiny bundle was libFuzzer's
//    out-of-memory on malloc(2147483648), CI of 2026-12-02).
//
// The custom mutator keeps the file's framing intact: it splits the magic and the three
// length-prefixed sections, mutates one section (the manifest mostly: line edits -- delete,
// duplicate, swap, a numeric field replaced by an interesting value -- or libFuzzer's byte
// mutations with fuzz/bundle.dict's keywords), writes the lengths back and, for format
// version 3, recomputes the checksum record (most of the time) so that mutations get past it.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "ValueMutations.h"

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Session.h"
// Format version 3 (docs/bundle-format.md) checksums every section; the mutator reseals.
#if __has_include("aicc/Runtime/XXHash64.h")
#include "aicc/Runtime/XXHash64.h"
#define AICC_FUZZ_BUNDLE_RESEAL 1
#endif

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

using namespace aicc::fuzz;
using namespace aicc::runtime;

namespace {
/// Inputs above this size are rejected at once (libFuzzer's -max_len should be lower).
constexpr size_t kMaxInputBytes = 1 << 20;
/// Session::create is skipped above this many bytes of buffers (sum over non-alias buffers).
constexpr uint64_t kMaxSessionBytes = 256ull << 20;
constexpr size_t kMagicBytes = 8;

const std::string &trustedCode() {
  static const std::string *code = [] {
    auto *s = new std::string();
    std::ifstream in(AICC_FUZZ_KERNEL_SO, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    *s = ss.str();
    if (s->empty())
      std::fprintf(stderr,
                   "aicc-fuzz-bundle: cannot read the trusted kernels '%s'; Session::create "
                   "is not exercised\n",
                   AICC_FUZZ_KERNEL_SO);
    return s;
  }();
  return *code;
}

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "aicc-fuzz-bundle: %s: %s\n", what, detail.c_str());
  std::abort();
}

/// The framing of a bundle file: magic, three length-prefixed sections, anything after.
struct Framing {
  std::string magic;
  std::string sections[3]; // manifest, code, weights
  std::string trailer;
};

bool split(const uint8_t *data, size_t size, Framing &f) {
  if (size < kMagicBytes)
    return false;
  f.magic.assign(reinterpret_cast<const char *>(data), kMagicBytes);
  size_t pos = kMagicBytes;
  for (std::string &s : f.sections) {
    if (size - pos < 8)
      return false;
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
      n |= static_cast<uint64_t>(data[pos + i]) << (8 * i);
    pos += 8;
    if (n > size - pos)
      return false;
    s.assign(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
  }
  f.trailer.assign(reinterpret_cast<const char *>(data + pos), size - pos);
  return true;
}

std::string join(const Framing &f) {
  std::string out = f.magic;
  for (const std::string &s : f.sections) {
    for (int i = 0; i < 8; ++i)
      out += static_cast<char>((static_cast<uint64_t>(s.size()) >> (8 * i)) & 0xff);
    out += s;
  }
  return out + f.trailer;
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

/// One line-level edit of the manifest text.
std::string mutateManifest(const std::string &text, Rng &rng) {
  std::vector<std::string> ls = lines(text);
  if (ls.empty() || rng() % 3 == 0)
    return mutateBytes(text, text.size() + 64);
  size_t i = rng() % ls.size();
  switch (rng() % 5) {
  case 0:
    ls.erase(ls.begin() + i);
    break;
  case 1:
    ls.insert(ls.begin() + i, ls[i]);
    break;
  case 2:
    std::swap(ls[i], ls[rng() % ls.size()]);
    break;
  default: { // a numeric field of line i becomes an interesting value
    std::vector<std::string> fields;
    std::istringstream in(ls[i]);
    for (std::string f; std::getline(in, f, ' ');)
      fields.push_back(f);
    std::vector<size_t> numeric;
    for (size_t k = 0; k < fields.size(); ++k)
      if (!fields[k].empty() && fields[k].find_first_not_of("0123456789") == std::string::npos)
        numeric.push_back(k);
    if (numeric.empty())
      return mutateBytes(text, text.size() + 64);
    std::string &f = fields[numeric[rng() % numeric.size()]];
    int64_t old = static_cast<int64_t>(std::strtoull(f.c_str(), nullptr, 10));
    f = std::to_string(static_cast<uint64_t>(mutateInt(old, rng)));
    std::string line;
    for (size_t k = 0; k < fields.size(); ++k)
      line += (k ? " " : "") + fields[k];
    ls[i] = line;
  }
  }
  std::string out;
  for (const std::string &l : ls)
    out += l + "\n";
  return out;
}

/// Rewrites a version-3 checksum record (the last manifest line, "checksum xxh64 CODE WEIGHTS
/// MANIFEST", MANIFEST hashing the manifest up to and including the space before it) to
/// match the sections, so that mutations reach the records behind the checksums.
void reseal(Framing &f) {
#ifdef AICC_FUZZ_BUNDLE_RESEAL
  std::string &m = f.sections[0];
  size_t at = m.rfind("checksum xxh64 ");
  if (at == std::string::npos)
    return;
  char hex[64];
  std::snprintf(hex, sizeof(hex), "%016llx %016llx ",
                static_cast<unsigned long long>(aicc::runtime::xxHash64(f.sections[1])),
                static_cast<unsigned long long>(aicc::runtime::xxHash64(f.sections[2])));
  m = m.substr(0, at) + "checksum xxh64 " + hex;
  std::snprintf(hex, sizeof(hex), "%016llx\n",
                static_cast<unsigned long long>(aicc::runtime::xxHash64(m)));
  m += hex;
#else
  (void)f;
#endif
}

/// What Session::create would allocate: every non-alias buffer plus the temps' arena
/// (format 4). A temp inside the arena is counted twice here, which only makes the cap stricter.
uint64_t totalBufferBytes(const Bundle &b) {
  uint64_t total = b.arenaBytes.value_or(0);
  for (const BufferDesc &d : b.buffers)
    if (d.kind != BufferKind::alias && __builtin_add_overflow(total, d.sizeBytes, &total))
      return UINT64_MAX;
  return total;
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)trustedCode();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  Bundle bundle;
  if (!parseBundle(bytes, bundle).ok)
    return 0;

  // serializeBundle always writes version 3, which needs each kernel's 'param' records; a
  // version 1/2 bundle has none (Bundle.h), so only version 3 bundles must round-trip.
  if (bundle.formatVersion == 3) { // the version serializeBundle writes
    std::string once = serializeBundle(bundle);
    Bundle back;
    if (Status s = parseBundle(once, back); !s.ok)
      fail("an accepted bundle, serialized again, does not parse", s.message);
    if (serializeBundle(back) != once)
      fail("serialize(parse(serialize(b))) differs from serialize(b)", "");
  }

  if (bundle.target != "cpu" || trustedCode().empty() ||
      totalBufferBytes(bundle) > kMaxSessionBytes)
    return 0;
  if (!bundle.kernels.empty())
    bundle.code = trustedCode();
  std::unique_ptr<Session> session;
  (void)Session::create(bundle, Device::cpu, session);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  Rng rng(seed);
  Framing f;
  if (rng() % 8 != 0 && split(data, size, f)) {
    unsigned which = rng() % 16;
    std::string &s = f.sections[which < 12 ? 0 : which < 15 ? 2 : 1];
    s = which < 12 ? mutateManifest(s, rng) : mutateBytes(s, s.size() + 64);
    // One mutation in sixteen keeps the stale checksums: the check itself is fuzzed too.
    if (rng() % 16 != 0)
      reseal(f);
    std::string out = join(f);
    if (out.size() <= maxSize) {
      std::memcpy(data, out.data(), out.size());
      return out.size();
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}
