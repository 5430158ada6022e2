//===- InputFile.h - reading the compiler's input files ---------*- C++ -*-===//
//
// The one way the compiler front end reads a file named on its command line
// (the model, --bind-input tensors): only regular files (after symbolic links
// are followed) are read, and only up to a cap, so that a character device
// (/dev/zero), a FIFO or a directory is a clear error instead of endless
// memory growth or an opaque read failure (issue 14).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_INPUTFILE_H
#define AICC_SUPPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace aicc {

/// The cap on an MLIR (or other textual stage) input file: 16 GiB, far above any
/// module the compiler can process in memory, but finite for stdin.
constexpr uint64_t kMaxMLIRFileBytes = uint64_t(1) << 34;

/// Reads `path` whole (memory-mapped when large; not null-terminated).
///
/// `path` must name a regular file of at most `maxBytes` bytes; "-" reads
/// standard input when `allowStdin`, failing as soon as more than `maxBytes`
/// bytes arrive. `what` names the file in messages ("model", "bound input
/// tensor"). Errors (the message names `what`, the path and the reason): a
/// missing or unreadable file, a directory / device / FIFO / socket, a file
/// (or stdin) above the cap.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path, uint64_t maxBytes, llvm::StringRef what,
              bool allowStdin = false);

} // namespace aicc

#endif // AICC_SUPPORT_INPUTFILE_H
