//===- ReadFile.cpp - Read an untrusted regular file, with a cap ----------===//

#include "aicc/Runtime/ReadFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aicc::runtime;

const char *aicc::runtime::nonRegularFileKind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO (named pipe)";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a plain file";
}

Status aicc::runtime::readRegularFile(const std::string &path, uint64_t maxBytes, std::string &out,
                                      std::string_view what) {
  const std::string label =
      (what.empty() ? std::string() : std::string(what) + " ") + "'" + path + "'";
  auto sizeError = [&](uint64_t size) {
    return Status::error(label + " is " + std::to_string(size) + " bytes, above the limit of " +
                         std::to_string(maxBytes) +
                         " bytes (Limits::maxFileBytes; aicc-run --max-file-bytes)");
  };
  struct stat before;
  if (::stat(path.c_str(), &before) != 0)
    return Status::error("cannot open " + label + ": " + std::strerror(errno));
  if (!S_ISREG(before.st_mode))
    return Status::error("cannot read " + label + ": it is " + nonRegularFileKind(before.st_mode) +
                         ", not a regular file");
  if (static_cast<uint64_t>(before.st_size) > maxBytes)
    return sizeError(static_cast<uint64_t>(before.st_size));

  // O_NONBLOCK: should the path have been replaced by a FIFO since the stat,
  // open must not wait for a writer; the fstat below then refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return Status::error("cannot open " + label + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != before.st_dev ||
      st.st_ino != before.st_ino) {
    ::close(fd);
    return Status::error("cannot read " + label + ": it was replaced while being opened");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > maxBytes) {
    ::close(fd);
    return sizeError(size);
  }
  out.assign(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : 0;
      ::close(fd);
      return Status::error("cannot read " + label + ": " +
                           (err ? std::strerror(err)
                                : "the file shrank while being read (" + std::to_string(done) +
                                      " of " + std::to_string(size) + " bytes)"));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return Status::success();
}
