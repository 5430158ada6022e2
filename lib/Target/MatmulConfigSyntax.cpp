//===- MatmulConfigSyntax.cpp - the --matmul-config value -----------------===//
#include "aicc/Target/MatmulConfigSyntax.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace aicc;

llvm::Expected<MatmulConfigOverride> aicc::parseMatmulConfig(llvm::StringRef text) {
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError("--matmul-config '" + text + "': " + why +
                                   " (expected BMxBNxBK[xSTAGES[xSPLIT_K]], e.g. 128x128x64x4)");
  };
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  if (parts.size() < 3 || parts.size() > 5)
    return error(llvm::Twine(parts.size()) + " field(s), not 3 to 5");
  static const char *const names[] = {"BM", "BN", "BK", "STAGES", "SPLIT_K"};
  static const int64_t bounds[] = {kMaxMatmulConfigBlock, kMaxMatmulConfigBlock,
                                   kMaxMatmulConfigBlock, kMaxMatmulConfigStages,
                                   kMaxMatmulConfigSplitK};
  llvm::SmallVector<int64_t, 5> v;
  for (auto [i, p] : llvm::enumerate(parts)) {
    // Digits only: getAsInteger alone would take "+4" and "0x40".
    uint64_t x;
    if (p.empty() || !llvm::all_of(p, llvm::isDigit))
      return error(llvm::Twine(names[i]) + " is '" + p + "', not a positive integer");
    if (p.getAsInteger(10, x) || x < 1 || x > static_cast<uint64_t>(bounds[i]))
      return error(llvm::Twine(names[i]) + " is " + p + ", outside [1, " + llvm::Twine(bounds[i]) +
                   "]");
    v.push_back(static_cast<int64_t>(x));
  }
  MatmulConfigOverride c;
  c.blockM = v[0];
  c.blockN = v[1];
  c.blockK = v[2];
  if (v.size() >= 4)
    c.numStages = v[3];
  if (v.size() == 5)
    c.splitK = v[4];
  return c;
}
