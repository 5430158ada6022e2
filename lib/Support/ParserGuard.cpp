//===- ParserGuard.cpp - refuse MLIR text the upstream parser crashes on --===//
#include "aicc/Support/ParserGuard.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace {
bool isIdentifierChar(char c) {
  return isAlnum(c) || c == '_' || c == '$' || c == '.';
}

size_t skipSpace(StringRef text, size_t i) {
  while (i < text.size() && isSpace(text[i]))
    ++i;
  return i;
}

/// The bare identifier starting at `i` (empty if none).
StringRef identifierAt(StringRef text, size_t i) {
  size_t end = i;
  if (end < text.size() && (isAlpha(text[end]) || text[end] == '_'))
    while (end < text.size() && isIdentifierChar(text[end]))
      ++end;
  return text.slice(i, end);
}
} // namespace

std::optional<aicc::ParserHazard> aicc::findParserHazard(StringRef text) {
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') { // comment to the end of the line
      size_t eol = text.find('\n', i);
      i = eol == StringRef::npos ? n : eol + 1;
      continue;
    }
    if (c == '"') { // string literal
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    // A keyword starts where no identifier, SSA name (%), symbol (@), block (^), alias
    // (#, !) or dialect prefix (a.b) continues.
    if ((isAlpha(c) || c == '_') &&
        (i == 0 || !(isIdentifierChar(text[i - 1]) || StringRef("%@^#!").contains(text[i - 1])))) {
      StringRef word = identifierAt(text, i);
      if (word == "array") {
        size_t j = skipSpace(text, i + word.size());
        if (j < n && text[j] == '<' && identifierAt(text, skipSpace(text, j + 1)) == "index")
          return ParserHazard{i, "a dense array of 'index' (array<index ...>) is refused: "
                                 "MLIR 22's parser crashes on it (llvm/llvm-project#179045); "
                                 "write array<i64: ...>"};
      }
      i += word.size();
      continue;
    }
    ++i;
  }
  return std::nullopt;
}

bool aicc::checkParserHazards(const MemoryBuffer &buffer, raw_ostream &os) {
  std::optional<ParserHazard> hazard = findParserHazard(buffer.getBuffer());
  if (!hazard)
    return true;
  SourceMgr sm;
  sm.AddNewSourceBuffer(MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                                   /*RequiresNullTerminator=*/false),
                        SMLoc());
  sm.PrintMessage(os, SMLoc::getFromPointer(buffer.getBufferStart() + hazard->offset),
                  SourceMgr::DK_Error, hazard->message);
  return false;
}
