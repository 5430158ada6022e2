//===- ParserGuard.h - refuse MLIR text the upstream parser crashes on -*- C++ -*-===//
//
// aicc cannot fix the MLIR parser it links (Debian's MLIR 22), but it can refuse, before
// parsing, the constructs known to crash it, with a located error instead of a segfault.
// aicc-opt, aicc-compile (.mlir input, --compile-from, --plan) and the MLIR fuzzer call
// this on every buffer they parse.
//
// Known hazards (upstream MLIR 22.1, built without assertions):
//   - `array<index ...>`, a DenseArrayAttr of `index`: the parser asks `index` for its bit
//     width (Type::getIntOrFloatBitWidth) and dereferences a bad pointer.
//     llvm/llvm-project#179045, fixed upstream by #179075 (the parser then diagnoses it);
//     write `array<i64: ...>` instead.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_PARSERGUARD_H
#define AICC_SUPPORT_PARSERGUARD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace aicc {

/// A construct of MLIR assembly that crashes the upstream parser.
struct ParserHazard {
  size_t offset;       // byte offset of the construct in the text
  std::string message; // what it is and what to write instead (no location, no prefix)
};

/// The first hazard in `text` (MLIR assembly), or nullopt. Tokens inside `//` comments and
/// string literals ("...", with backslash escapes) are not hazards. Linear in the text.
std::optional<ParserHazard> findParserHazard(llvm::StringRef text);

/// Checks `buffer` and, on a hazard, prints "NAME:LINE:COL: error: MESSAGE" with the source
/// line and a caret (llvm::SourceMgr's format, NAME the buffer's identifier) to `os`.
/// Returns true when the buffer may be parsed.
bool checkParserHazards(const llvm::MemoryBuffer &buffer, llvm::raw_ostream &os);

} // namespace aicc

#endif // AICC_SUPPORT_PARSERGUARD_H
