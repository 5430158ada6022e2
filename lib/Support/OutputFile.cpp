//===- OutputFile.cpp - write a tool's output file safely -----------------===//
#include "aicc/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
namespace fs = llvm::sys::fs;

namespace {
StringRef describe(fs::file_type t) {
  switch (t) {
  case fs::file_type::directory_file:
    return "it is a directory";
  case fs::file_type::block_file:
    return "it is a block device";
  case fs::file_type::character_file:
    return "it is a character device";
  case fs::file_type::fifo_file:
    return "it is a FIFO (named pipe)";
  case fs::file_type::socket_file:
    return "it is a socket";
  default:
    return "it is not a regular file";
  }
}
} // namespace

Error aicc::writeOutputFile(StringRef path, function_ref<Error(raw_ostream &)> write) {
  if (path == "-") {
    if (Error e = write(outs()))
      return e;
    outs().flush();
    if (outs().has_error())
      return createStringError("cannot write to stdout: " + outs().error().message());
    return Error::success();
  }
  if (path == "/dev/null") {
    raw_null_ostream os;
    return write(os);
  }

  // The file that will be replaced: `path`, or the file a symbolic link leads to.
  SmallString<256> target(path);
  std::string what = "'" + path.str() + "'";
  auto fail = [&](const Twine &why) { return createStringError("cannot write " + what + ": " + why); };
  fs::file_status st;
  std::error_code ec = fs::status(path, st, /*Follow=*/false);
  if (!ec && st.type() == fs::file_type::symlink_file) {
    SmallString<256> real;
    if (std::error_code rec = fs::real_path(path, real, /*expand_tilde=*/false)) {
      if (rec == std::errc::no_such_file_or_directory)
        return fail("it is a dangling symbolic link (the file it points to does not exist); "
                    "not writing through it");
      return fail("cannot resolve the symbolic link: " + rec.message());
    }
    target = real;
    what += " (a symbolic link to '" + std::string(target) + "')";
    ec = fs::status(target, st);
  }
  fs::perms mode = fs::all_read | fs::all_write;
  bool exists = !ec;
  if (ec && ec != std::errc::no_such_file_or_directory)
    return fail(ec.message());
  if (exists) {
    if (st.type() == fs::file_type::directory_file)
      return fail("it is a directory (name a file, e.g. '" + path.rtrim('/') + "/out')");
    if (st.type() != fs::file_type::regular_file)
      return fail(describe(st.type()) + StringRef("; aicc writes regular files ('-' is stdout, "
                                                  "/dev/null discards)"));
    if (fs::access(target, fs::AccessMode::Write))
      return fail("the file is not writable");
    mode = st.permissions();
  }

  Expected<fs::TempFile> tmp = fs::TempFile::create(target + ".tmp-%%%%%%");
  if (!tmp) {
    StringRef dir = sys::path::parent_path(target);
    return fail("cannot create a temporary file in '" + (dir.empty() ? "." : dir) +
                "': " + toString(tmp.takeError()));
  }
  auto discard = [&](Error e) {
    if (Error d = tmp->discard())
      return joinErrors(std::move(e), std::move(d));
    return e;
  };
  if (exists)
    (void)fs::setPermissions(tmp->FD, mode); // best effort: keep the target's mode
  {
    raw_fd_ostream os(tmp->FD, /*shouldClose=*/false);
    if (Error e = write(os)) {
      os.flush();
      os.clear_error();
      return discard(std::move(e));
    }
    os.flush();
    if (os.has_error()) {
      std::error_code wec = os.error();
      os.clear_error();
      return discard(fail(wec.message()));
    }
  }
  if (Error e = tmp->keep(target)) // removes the temporary file when the rename fails
    return fail(toString(std::move(e)));
  return Error::success();
}

Error aicc::writeOutputFile(StringRef path, StringRef contents) {
  return writeOutputFile(path, [&](raw_ostream &os) {
    os << contents;
    return Error::success();
  });
}
