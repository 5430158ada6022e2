//===- OutputFile.h - write a tool's output file safely ---------*- C++ -*-===//
//
// How aicc's tools write an output named on the command line (aicc-compile -o, aicc-opt
// -o, step and kernel dumps):
//   - "-" is stdout; "/dev/null" discards (nothing is created or removed).
//   - Otherwise the output goes to a temporary file in the target's directory (same file
//     system) that is renamed over the target only when everything was written; on every
//     failure (the writer's error, a write error such as a full disk, a failed rename) the
//     temporary file is removed and the target is untouched.
//   - A symbolic link is written through, as cp and shell redirection do: the file it
//     points to is replaced and the link stays (a careful user naming a link expects its
//     target to be updated, not the link silently turned into a regular file). A dangling
//     link is refused, as cp refuses it: where the file would land is not what was named.
//   - A directory, a device, a FIFO or a socket is refused with an error naming the path
//     and what it is: renaming over it would replace the node (a device) or the reader
//     would see a half-written stream; write to stdout ("-") to feed a pipe.
//   - An existing target keeps its permission bits; a read-only one is refused. Renaming
//     gives the target a new inode: other hard links to it keep the old contents.
// The checks and the rename are not atomic against a concurrent change of the path.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_OUTPUTFILE_H
#define AICC_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace aicc {

/// Writes what `write` streams to the file `path` under the rules above. Errors name the
/// path and the reason ("cannot write 'out': it is a directory").
llvm::Error writeOutputFile(llvm::StringRef path,
                            llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

/// writeOutputFile with fixed contents.
llvm::Error writeOutputFile(llvm::StringRef path, llvm::StringRef contents);

} // namespace aicc

#endif // AICC_SUPPORT_OUTPUTFILE_H
