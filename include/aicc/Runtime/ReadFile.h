//===- ReadFile.h - Read an untrusted regular file, with a cap --*- C++ -*-===//
//
// The one way the runtime and aicc-run read a file the user names (a bundle, a
// TensorProto): only that path, only a regular file, only up to a size cap.
// Directories, FIFOs, sockets and devices are refused before they are opened
// for reading, so nothing blocks on a pipe, drains /dev/zero or reads what the
// user did not name.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_READFILE_H
#define AICC_RUNTIME_READFILE_H

#include "aicc/Runtime/Status.h"

#include <cstdint>
#include <sys/types.h>
#include <string>
#include <string_view>

namespace aicc::runtime {

/// Reads the whole regular file at `path` (symlinks followed) into `out`,
/// which holds exactly its bytes on success. The file is stat'ed first and
/// refused unless it is a regular file of at most `maxBytes` bytes; it is then
/// opened non-blocking and checked again on the descriptor (the same file,
/// still regular), and exactly st_size bytes are read (a file that shrinks
/// meanwhile is an error; bytes appended meanwhile are not read). `what` names
/// the file in messages ("bundle" gives "cannot open bundle 'x.aicc': No such
/// file or directory"; empty gives "cannot open 'x.pb': ..."). Errors: missing
/// or unreadable file, not a regular file ("'d' is a directory, not a regular
/// file"), above the cap ("'x' is N bytes, above the limit of M bytes"), read
/// errors. `out` is unspecified on error. Memory: one allocation of the file's
/// size.
Status readRegularFile(const std::string &path, uint64_t maxBytes, std::string &out,
                       std::string_view what = {});

/// What a file that is not a regular one is, for messages: "a directory", "a FIFO (named
/// pipe)", "a character device", "a block device", "a socket" or "not a plain file", from
/// its st_mode.
const char *nonRegularFileKind(mode_t mode);

} // namespace aicc::runtime

#endif // AICC_RUNTIME_READFILE_H
