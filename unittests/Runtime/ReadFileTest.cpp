//===- ReadFileTest.cpp - Only regular files, only up to the cap ---------===//
//
// Regression tests for issue 14: a directory given to aicc-run as the bundle
// or as --input aborted with an uncaught std::length_error /
// std::__ios_failure; a FIFO would block and /dev/zero never ends. Every
// reader (readRegularFile, readBundleFile, readTensorProtoFile) refuses them
// up front, and caps the size it reads.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/ReadFile.h"
#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/ONNXData.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace aicc::runtime;

namespace {

class ReadFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "/aicc-readfile-XXXXXX";
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir = templ;
    file = dir + "/data.bin";
    std::ofstream(file, std::ios::binary) << std::string(100, 'x');
    fifo = dir + "/fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ASSERT_EQ(::symlink(file.c_str(), (dir + "/link-to-file").c_str()), 0);
    ASSERT_EQ(::symlink(dir.c_str(), (dir + "/link-to-dir").c_str()), 0);
  }
  void TearDown() override {
    for (const char *name : {"/data.bin", "/fifo", "/link-to-file", "/link-to-dir"})
      ::unlink((dir + name).c_str());
    ::rmdir(dir.c_str());
  }

  std::string dir, file, fifo;
};

void expectError(const Status &s, const std::string &expected) {
  EXPECT_FALSE(s.ok) << "succeeded although '" << expected << "' was expected";
  EXPECT_NE(s.message.find(expected), std::string::npos)
      << "message: " << s.message << "\nexpected to contain: " << expected;
}

} // namespace

TEST_F(ReadFileTest, ReadsRegularFilesUpToTheCap) {
  std::string bytes;
  Status s = readRegularFile(file, 100, bytes);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(bytes, std::string(100, 'x'));
  ASSERT_TRUE(readRegularFile(dir + "/link-to-file", 1000, bytes).ok);
  EXPECT_EQ(bytes.size(), 100u);
  expectError(readRegularFile(file, 99, bytes, "bundle"),
              "bundle '" + file +
                  "' is 100 bytes, above the limit of 99 bytes "
                  "(Limits::maxFileBytes; aicc-run --max-file-bytes)");
  expectError(readRegularFile(dir + "/missing", 100, bytes),
              "cannot open '" + dir + "/missing': No such file or directory");
}

TEST_F(ReadFileTest, RefusesDirectoriesFifosAndDevices) {
  std::string bytes;
  expectError(readRegularFile(dir, 1000, bytes),
              "cannot read '" + dir + "': it is a directory, not a regular file");
  expectError(readRegularFile(dir + "/link-to-dir", 1000, bytes), "it is a directory");
  // No writer on the FIFO: opening it for reading would block forever.
  expectError(readRegularFile(fifo, 1000, bytes), "it is a FIFO (named pipe), not a regular file");
  expectError(readRegularFile("/dev/zero", UINT64_MAX, bytes),
              "cannot read '/dev/zero': it is a character device, not a regular file");
  expectError(readRegularFile("/dev/null", 1000, bytes), "it is a character device");
}

TEST_F(ReadFileTest, BundleReaderRefusesThem) {
  // Before: std::length_error (a directory's tellg) or a blocked open (FIFO).
  Bundle b;
  expectError(readBundleFile(dir, b),
              "cannot read bundle '" + dir + "': it is a directory, not a regular file");
  expectError(readBundleFile(fifo, b), "cannot read bundle '" + fifo + "': it is a FIFO");
  expectError(readBundleFile("/dev/zero", b),
              "cannot read bundle '/dev/zero': it is a character device");
  expectError(readBundleFile(file, b), file + ": not an aicc bundle: bad magic");
  Limits small;
  small.maxFileBytes = 10;
  expectError(readBundleFile(file, b, small),
              "bundle '" + file + "' is 100 bytes, above the limit of 10 bytes");
}

TEST_F(ReadFileTest, TensorProtoReaderRefusesThem) {
  // Before: an uncaught std::__ios_failure for a directory.
  HostTensor t;
  expectError(readTensorProtoFile(dir, t),
              "cannot read '" + dir + "': it is a directory, not a regular file");
  expectError(readTensorProtoFile(fifo, t), "it is a FIFO (named pipe)");
  expectError(readTensorProtoFile("/dev/zero", t), "it is a character device");
  expectError(readTensorProtoFile(file, t, nullptr, 50),
              "is 100 bytes, above the limit of 50 bytes");
  // 100 bytes of 'x' are read and parsed (as unknown fields: no data type).
  expectError(readTensorProtoFile(file, t), file + ": unsupported TensorProto data type");
}
