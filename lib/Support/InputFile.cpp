//===- InputFile.cpp - reading the compiler's input files -----------------===//
#include "aicc/Support/InputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

Expected<std::unique_ptr<MemoryBuffer>> aicc::readInputFile(StringRef path, uint64_t maxBytes,
                                                            StringRef what, bool allowStdin) {
  auto fail = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "cannot read the " + what + " '" + path + "': " + why);
  };
  if (path == "-") {
    if (!allowStdin)
      return fail("standard input is not accepted here");
    // Chunked, so that an endless stream stops at the cap.
    SmallVector<char, 0> data;
    sys::fs::file_t in = sys::fs::getStdinHandle();
    constexpr size_t kChunk = 1 << 16;
    while (true) {
      size_t have = data.size();
      data.resize_for_overwrite(have + kChunk);
      Expected<size_t> n = sys::fs::readNativeFile(in, MutableArrayRef<char>(data).drop_front(have));
      if (!n)
        return fail(toString(n.takeError()));
      data.truncate(have + *n);
      if (*n == 0)
        break;
      if (data.size() > maxBytes)
        return fail("standard input holds more than " + Twine(maxBytes) + " bytes");
    }
    return MemoryBuffer::getMemBufferCopy(StringRef(data.data(), data.size()), "<stdin>");
  }
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(path, status))
    return fail(ec.message());
  if (status.type() == sys::fs::file_type::directory_file)
    return fail("is a directory");
  if (status.type() != sys::fs::file_type::regular_file)
    return fail("not a regular file (a device, FIFO or socket)");
  if (status.getSize() > maxBytes)
    return fail("the file has " + Twine(status.getSize()) + " bytes, more than the limit of " +
                Twine(maxBytes));
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return fail(buf.getError().message());
  return std::move(*buf);
}
