//===- SessionLoadTest.cpp - Loading untrusted bundles into CPU sessions --===//
//
// Regression tests for issue 14 at the session level: the code section never
// leaves a temporary file behind (not even when dlopen crashes), absurd grids
// are refused instead of hanging or crashing, a plan whose buffers disagree
// with the kernels' parameter records is not loaded, and a version-1 bundle
// written by the old compiler still runs and computes the right numbers.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define AICC_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AICC_TEST_UNDER_ASAN 1
#endif
#endif

using namespace aicc::runtime;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string envOr(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v && *v ? v : fallback;
}

/// c = a + b over f32[1000] with `code` as the code section (add_kernel.c's
/// calling convention).
Bundle makeAddBundle(std::string code, std::array<int64_t, 3> grid = {4, 1, 1}) {
  Bundle b;
  b.target = "cpu";
  for (int i = 0; i < 3; ++i)
    b.buffers.push_back(
        {i, DType::f32, i < 2 ? BufferKind::input : BufferKind::output, 4000, {1000}, 0});
  b.inputs.push_back({0, 0, "a"});
  b.inputs.push_back({1, 1, "b"});
  b.outputs.push_back({0, 2, "c"});
  b.kernels.push_back({"add", grid, {1, 1, 1}, 0, 3});
  b.kernels[0].params.assign(3, {DType::f32, 4000});
  b.launches.push_back({"add", {0, 1, 2}});
  b.code = std::move(code);
  return b;
}

/// Names of the entries of `dir` other than . and .., space-separated.
std::string listEntries(const std::string &dir) {
  std::string names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names += std::string(names.empty() ? "" : " ") + e->d_name;
    ::closedir(d);
  }
  return names;
}

/// A fresh, empty $TMPDIR for one test, and the memfd / temporary-file route
/// (AICC_RUNTIME_NO_MEMFD) it asks for; both restored afterwards.
class ScopedTmpDir {
public:
  explicit ScopedTmpDir(bool noMemfd) {
    std::string templ = ::testing::TempDir() + "/aicc-tmpdir-XXXXXX";
    path = ::mkdtemp(templ.data()) ? templ : std::string();
    if (const char *old = std::getenv("TMPDIR"))
      savedTmp = old;
    ::setenv("TMPDIR", path.c_str(), 1);
    if (noMemfd)
      ::setenv("AICC_RUNTIME_NO_MEMFD", "1", 1);
    else
      ::unsetenv("AICC_RUNTIME_NO_MEMFD");
  }
  ~ScopedTmpDir() {
    if (savedTmp.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", savedTmp.c_str(), 1);
    ::unsetenv("AICC_RUNTIME_NO_MEMFD");
    if (DIR *d = ::opendir(path.c_str())) {
      while (dirent *e = ::readdir(d))
        ::unlink((path + "/" + e->d_name).c_str());
      ::closedir(d);
    }
    ::rmdir(path.c_str());
  }
  std::string path;

private:
  std::string savedTmp;
};

} // namespace

class CodeFileTest : public ::testing::TestWithParam<bool> {};

TEST_P(CodeFileTest, NoTemporaryFileIsLeftBehind) {
  // The fuzzer's find: a corrupt code section crashed inside dlopen and left
  // its /tmp/aicc-kernels-* file. GetParam(): the temporary-file fallback.
  ScopedTmpDir tmp(GetParam());
  ASSERT_FALSE(tmp.path.empty());
  const std::string so = readFile(envOr("AICC_TEST_KERNEL_SO", AICC_TEST_KERNEL_SO));
  ASSERT_FALSE(so.empty());
  {
    std::unique_ptr<Session> session;
    Status s = Session::create(makeAddBundle(so), Device::cpu, session);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(listEntries(tmp.path), "") << "a loaded session keeps no file";
    // A second session of the same code gets its own copy of the library.
    std::unique_ptr<Session> again;
    ASSERT_TRUE(Session::create(makeAddBundle(so), Device::cpu, again).ok);
    HostTensor a = HostTensor::zeros(DType::f32, {1000}), b = a;
    a.as<float>()[7] = 2.5f;
    b.as<float>()[7] = 1.0f;
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(again->run({a, b}, outputs).ok);
    EXPECT_EQ(outputs[0].as<float>()[7], 3.5f);
  }
  std::unique_ptr<Session> session;
  Status s = Session::create(makeAddBundle("not an ELF file"), Device::cpu, session);
  EXPECT_NE(s.message.find("cannot load the code section as a shared object"), std::string::npos)
      << s.message;
  EXPECT_EQ(listEntries(tmp.path), "") << "a failed load leaves no file";

  // dlopen itself crashes (the shared object's constructor raises SIGSEGV),
  // in a child process: nothing may be left on disk either.
  const std::string crash = readFile(envOr("AICC_TEST_CRASH_KERNEL_SO", AICC_TEST_CRASH_KERNEL_SO));
  ASSERT_FALSE(crash.empty());
  // "fast": fork without re-running the test, so the child keeps this $TMPDIR
  // (no session, hence no worker thread, is alive here).
  GTEST_FLAG_SET(death_test_style, "fast");
  // Under AddressSanitizer (scripts/fuzz.sh --unit-tests) ASan's SIGSEGV handler reports the
  // crash and exits with status 1 instead of dying by the signal.
  auto crashed = [](int status) {
#ifdef AICC_TEST_UNDER_ASAN
    if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
      return true;
#endif
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
  };
  EXPECT_EXIT(
      {
        std::unique_ptr<Session> doomed;
        Session::create(makeAddBundle(crash), Device::cpu, doomed);
        std::exit(0);
      },
      crashed, "");
  EXPECT_EQ(listEntries(tmp.path), "") << "a crash inside dlopen leaves no file";
}

INSTANTIATE_TEST_SUITE_P(MemfdAndTemporaryFile, CodeFileTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? std::string("TemporaryFile") : std::string("Memfd");
                         });

TEST(SessionLoadTest, AbsurdGridsAreRefusedBeforeLoading) {
  const std::string so = readFile(envOr("AICC_TEST_KERNEL_SO", AICC_TEST_KERNEL_SO));
  std::unique_ptr<Session> session;
  // Before: 2^31 programs of add ran for minutes (real kernels wrote out of
  // bounds at once).
  Status s = Session::create(makeAddBundle(so, {int64_t(1) << 31, 1, 1}), Device::cpu, session);
  EXPECT_EQ(s.message, "invalid bundle: kernel 'add': grid 2147483648x1x1 is 2147483648 "
                       "programs, above the limit of 2147483647 (Limits::maxPrograms)");
  EXPECT_EQ(session, nullptr);
  Limits small;
  small.maxBufferBytes = 11999;
  s = Session::create(makeAddBundle(so), Device::cpu, session, small);
  EXPECT_NE(s.message.find("buffer 2: SIZE_BYTES 4000 brings the plan's buffers to more than "
                           "11999 bytes"),
            std::string::npos)
      << s.message;
}

TEST(SessionLoadTest, BuffersThatDisagreeWithTheKernelAreNotLoaded) {
  const std::string so = readFile(envOr("AICC_TEST_KERNEL_SO", AICC_TEST_KERNEL_SO));
  Bundle bundle = makeAddBundle(so);
  bundle.buffers[2].shape = {10};
  bundle.buffers[2].sizeBytes = 40; // add writes 4000 bytes there
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  EXPECT_EQ(s.message, "invalid bundle: launch 0 of 'add': parameter 2 is buffer 2 f32[10] (40 "
                       "bytes), but the kernel's code expects f32 elements, 4000 bytes (its "
                       "'param' record); the manifest's buffers disagree with the kernel");
}

/// Runs testdata/FILE, y = softmax(relu(x @ w + b)) of test/Tools/Inputs/mlp.mlir written by an
/// older compiler, and checks the format version and the result.
static void expectOldMlpBundleRuns(const char *file, int version) {
  Bundle bundle;
  Status s = readBundleFile(envOr("AICC_RUNTIME_TESTDATA", AICC_RUNTIME_TESTDATA) +
                                std::string("/") + file,
                            bundle);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(bundle.formatVersion, version);
  // No memory plan before version 4: every temp has its own allocation.
  EXPECT_FALSE(bundle.arenaBytes.has_value());
  std::unique_ptr<Session> session;
  s = Session::create(bundle, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  const double w[4][3] = {
      {0.5, -1.0, 0.25}, {1.5, 0.75, -0.5}, {-0.25, 1.0, 2.0}, {0.125, -0.375, 1.25}};
  const double bias[3] = {0.1, -0.2, 0.3};
  HostTensor x = HostTensor::zeros(DType::f32, {2, 4});
  const float xs[8] = {0.5f, -1.25f, 2.0f, 0.75f, -0.5f, 1.5f, 0.25f, -2.0f};
  for (int i = 0; i < 8; ++i)
    x.as<float>()[i] = xs[i];
  std::vector<HostTensor> outputs;
  s = session->run({x}, outputs);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 3}));
  for (int r = 0; r < 2; ++r) {
    double h[3], sum = 0;
    for (int c = 0; c < 3; ++c) {
      h[c] = bias[c];
      for (int k = 0; k < 4; ++k)
        h[c] += double(xs[r * 4 + k]) * w[k][c];
      h[c] = std::exp(std::max(h[c], 0.0));
      sum += h[c];
    }
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(outputs[0].as<float>()[r * 3 + c], h[c] / sum, 1e-6) << r << "," << c;
  }
}

TEST(SessionLoadTest, VersionOneBundleFromTheOldCompilerRuns) {
  expectOldMlpBundleRuns("mlp-cpu.v1.aicc", 1);
}

TEST(SessionLoadTest, VersionThreeBundleFromTheOldCompilerRuns) {
  expectOldMlpBundleRuns("mlp-cpu.v3.aicc", 3);
}
