//===- CPUBackend.cpp - Run a cpu bundle's shared object on host threads --===//
//
// The code section is an ELF shared object exporting, for each kernel NAME,
//   void NAME_entry(void **args, const int64_t *pid, const int64_t *grid);
// (docs/bundle-format.md, "Kernel calling conventions"). It is written to an
// anonymous memory file (memfd_create) and dlopen'ed as /proc/self/fd/N, so no
// file ever appears on disk; without memfd_create a private temporary file is
// used, unlinked before dlopen when /proc is there, right after otherwise, and
// on every error path. The code and the constants live in a CPUModel, shared by
// every session of one Model; each session (CPUBackend) owns its inputs,
// outputs, arena and worker threads. Each launch calls the entry once per program id;
// programs are independent, so they are spread over a pool of worker threads
// that claim chunks of program ids. A launch with `symgrid` records (bounded
// symbolic dims) runs the grid of the current symbol values, and its kernel's
// `grid` argument is that grid, as gridDim is on the GPU.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include "aicc/Runtime/MemoryPlan.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

namespace {

using EntryFn = void (*)(void **args, const int64_t *pid, const int64_t *grid);

/// Alignment of every buffer the CPU backend allocates, in bytes.
constexpr size_t kBufferAlignment = 64;

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
using AlignedMemory = std::unique_ptr<uint8_t, FreeDeleter>;

/// A fixed set of worker threads that run index ranges of one job at a time.
/// The calling thread takes part in every job.
class WorkerPool {
public:
  /// Starts `numThreads - 1` workers (the caller is the last thread).
  explicit WorkerPool(unsigned numThreads) {
    for (unsigned i = 1; i < numThreads; ++i)
      workers.emplace_back([this] { workerLoop(); });
  }

  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
  }

  /// Calls `fn(begin, end)` over disjoint ranges covering [0, n), `chunk`
  /// indices at a time, on all threads; returns when every range is done.
  void parallelFor(int64_t n, int64_t chunk,
                   const std::function<void(int64_t, int64_t)> &fn) {
    {
      std::lock_guard<std::mutex> lock(mu);
      job = &fn;
      jobSize = n;
      jobChunk = chunk;
      next.store(0, std::memory_order_relaxed);
      pending = static_cast<int>(workers.size());
      ++generation;
    }
    wake.notify_all();
    runChunks();
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [this] { return pending == 0; });
    job = nullptr;
  }

private:
  void runChunks() {
    while (true) {
      int64_t begin = next.fetch_add(jobChunk, std::memory_order_relaxed);
      if (begin >= jobSize)
        return;
      (*job)(begin, std::min(jobSize, begin + jobChunk));
    }
  }

  void workerLoop() {
    uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu);
        wake.wait(lock, [&] { return stopping || generation != seen; });
        if (stopping)
          return;
        seen = generation;
      }
      runChunks();
      std::lock_guard<std::mutex> lock(mu);
      if (--pending == 0)
        done.notify_one();
    }
  }

  std::mutex mu;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  bool stopping = false;
  uint64_t generation = 0;
  int pending = 0;
  const std::function<void(int64_t, int64_t)> *job = nullptr;
  int64_t jobSize = 0, jobChunk = 1;
  std::atomic<int64_t> next{0};
};

struct CPULaunch {
  std::string kernel;
  EntryFn entry = nullptr;
  /// The grid at the current symbol values (the kernel's recorded grid without
  /// `symgrid` records).
  int64_t grid[3] = {1, 1, 1};
  std::vector<void *> args;
};

/// The shared half: the loaded shared object, its entry points and the constants.
class CPUModel final : public LoadedModel {
public:
  ~CPUModel() override {
    if (handle)
      dlclose(handle);
    closeCodeFile();
  }

  Status load(const Bundle &bundle);

  /// NAME_entry of each kernel, by kernel index.
  std::vector<EntryFn> entries;

private:
  Status loadSharedObject(const std::string &code);
  void closeCodeFile();

  void *handle = nullptr;
  /// The descriptor of the loaded code file (memfd or unlinked temporary),
  /// and the name dlopen knew it by. Kept open while the library is loaded:
  /// glibc matches dlopen names against loaded objects, so the number, hence
  /// the /proc/self/fd/N name, must not be reused while it is.
  int codeFd = -1;
  std::string codePath;
  std::vector<AlignedMemory> constants;
};

/// One session: its buffers, launches and worker threads over a CPUModel.
class CPUBackend final : public Backend {
public:
  explicit CPUBackend(std::shared_ptr<const CPUModel> model) : model(std::move(model)) {}
  ~CPUBackend() override { pool.reset(); }

  Status load();
  Status writeBuffer(int id, const void *src, size_t bytes, size_t rows, size_t pitch) override {
    if (rows > 1)
      copyRows(addresses[id], pitch, src, bytes / rows, rows, bytes / rows);
    else
      std::memcpy(addresses[id], src, bytes);
    return Status::success();
  }
  Status readBuffer(int id, void *dst, size_t bytes, size_t rows, size_t pitch) override {
    if (rows > 1)
      copyRows(dst, bytes / rows, addresses[id], pitch, rows, bytes / rows);
    else
      std::memcpy(dst, addresses[id], bytes);
    return Status::success();
  }
  Status fillBuffer(int id, uint8_t byte, size_t bytes) override {
    std::memset(addresses[id], byte, bytes);
    return Status::success();
  }
  Status execute() override;
  Status executeLaunch(size_t index) override {
    runLaunch(launches[index]);
    return Status::success();
  }
  Status benchmark(int iters, std::vector<double> &perRunMs) override;
  Status runAsync(const std::vector<DeviceCopy> &inputs, const std::vector<DeviceCopy> &outputs,
                  void *stream) override;
  Status runHost(const std::vector<DeviceCopy> &inputs,
                 const std::vector<DeviceCopy> &outputs) override {
    return runAsync(inputs, outputs, nullptr); // host memory is the cpu's device memory
  }
  Status bindSymbols(const std::vector<int64_t> &values) override;
  uint64_t bufferAddress(int id) const override {
    return reinterpret_cast<uintptr_t>(addresses[id]);
  }

private:
  void runLaunch(const CPULaunch &launch);

  std::shared_ptr<const CPUModel> model;
  std::vector<AlignedMemory> storage;
  /// The session's symbol values (`symvalues` record), inside `storage`; null without.
  int32_t *symValues = nullptr;
  std::vector<uint8_t *> addresses;
  std::vector<CPULaunch> launches;
  unsigned numThreads = 1;
  std::unique_ptr<WorkerPool> pool;
};

/// `bytes` (at least 1) of zeroed memory aligned to `alignment`; null when out of memory
/// or when the rounded size would not fit.
AlignedMemory allocateZeroed(uint64_t bytes, size_t alignment) {
  uint64_t size = std::max<uint64_t>(bytes, 1);
  if (size > SIZE_MAX - alignment)
    return nullptr;
  // aligned_alloc needs a size that is a multiple of the alignment.
  size = (size + alignment - 1) / alignment * alignment;
  auto *p = static_cast<uint8_t *>(std::aligned_alloc(alignment, size));
  if (p)
    std::memset(p, 0, size);
  return AlignedMemory(p);
}

} // namespace

/// Writes all of `bytes` to `fd`; false with errno set on failure.
static bool writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

void CPUModel::closeCodeFile() {
  if (codeFd < 0)
    return;
  // dlclose may keep an object mapped (RTLD_NODELETE, unique symbols): then
  // its name stays taken and the descriptor must stay open with it.
  if (void *still = ::dlopen(codePath.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    ::dlclose(still);
    return;
  }
  ::close(codeFd);
  codeFd = -1;
}

Status CPUModel::loadSharedObject(const std::string &code) {
  // /proc/self/fd/N names any open descriptor, so the library needs no path
  // of its own on disk. AICC_RUNTIME_NO_MEMFD=1 takes the temporary-file
  // route (tests of the fallback).
  const bool haveProcFd = ::access("/proc/self/fd", X_OK) == 0;
  const char *noMemfd = std::getenv("AICC_RUNTIME_NO_MEMFD");
  int fd = -1;
  if (haveProcFd && !(noMemfd && std::strcmp(noMemfd, "1") == 0))
    fd = ::memfd_create("aicc-kernels", MFD_CLOEXEC);
  std::string tmpPath;
  if (fd < 0) {
    const char *tmpDir = std::getenv("TMPDIR");
    tmpPath = std::string(tmpDir && *tmpDir ? tmpDir : "/tmp") + "/aicc-kernels-XXXXXX";
    fd = ::mkostemp(tmpPath.data(), O_CLOEXEC);
    if (fd < 0)
      return Status::error("cannot create a temporary file for the kernel code (" + tmpPath +
                           "): " + std::strerror(errno));
  }
  auto removeTemp = [&] {
    if (!tmpPath.empty())
      ::unlink(tmpPath.c_str());
    tmpPath.clear();
  };
  if (!writeAll(fd, code)) {
    int err = errno;
    std::string where = tmpPath.empty() ? "a memory file" : "'" + tmpPath + "'";
    ::close(fd);
    removeTemp();
    return Status::error("cannot write the kernel code to " + where + ": " + std::strerror(err));
  }
  std::string loadPath = tmpPath;
  if (haveProcFd) {
    loadPath = "/proc/self/fd/" + std::to_string(fd);
    // Nothing on disk while dlopen runs (a crash inside it leaves nothing).
    removeTemp();
  }
  handle = ::dlopen(loadPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  // The mapping keeps the file's contents alive.
  removeTemp();
  if (!handle) {
    const char *err = ::dlerror();
    ::close(fd);
    return Status::error(std::string("cannot load the code section as a shared object: ") +
                         (err ? err : "unknown dlopen error"));
  }
  codeFd = fd;
  codePath = loadPath;
  return Status::success();
}

Status CPUModel::load(const Bundle &bundle) {
  // validateBundle() already keeps tensor maps to sm_90+ targets; say why here
  // too rather than call kernels without the parameters they expect.
  for (const KernelDesc &k : bundle.kernels)
    if (!k.tensorMaps.empty())
      return Status::error("kernel '" + k.name +
                           "' takes TMA tensor maps, which only the CUDA runtime builds "
                           "(sm_90 and newer); the cpu runtime cannot run it");
  plan = planOf(bundle);
  // A model without kernels (e.g. an identity) needs no code.
  if (!bundle.kernels.empty())
    if (Status s = loadSharedObject(bundle.code); !s.ok)
      return s;
  entries.resize(bundle.kernels.size());
  for (size_t k = 0; k < bundle.kernels.size(); ++k) {
    std::string symbol = bundle.kernels[k].name + "_entry";
    ::dlerror();
    void *sym = ::dlsym(handle, symbol.c_str());
    if (!sym)
      return Status::error("kernel '" + bundle.kernels[k].name +
                           "': the code section exports no '" + symbol + "'");
    entries[k] = reinterpret_cast<EntryFn>(sym);
  }

  constantAddresses.assign(bundle.buffers.size(), 0);
  for (size_t i = 0; i < bundle.buffers.size(); ++i) {
    const BufferDesc &b = bundle.buffers[i];
    if (b.kind != BufferKind::constant)
      continue;
    AlignedMemory p = allocateZeroed(b.sizeBytes, kBufferAlignment);
    if (!p)
      return Status::error("out of host memory allocating constant buffer " + std::to_string(i) +
                           " (" + std::to_string(b.sizeBytes) + " bytes)");
    std::memcpy(p.get(), bundle.weights.data() + b.offset, b.sizeBytes);
    constantAddresses[i] = reinterpret_cast<uintptr_t>(p.get());
    constantBytes += std::max<uint64_t>(b.sizeBytes, 1);
    constants.push_back(std::move(p));
  }
  return Status::success();
}

Status CPUBackend::load() {
  const Bundle &plan = model->plan;
  const size_t numBuffers = plan.buffers.size();
  std::vector<uint64_t> own(numBuffers, 0);
  // The memory plan (format version 4): every temp at its offset in one
  // zero-filled arena, which validateBundle checked.
  uint64_t arena = 0;
  if (plan.arenaBytes) {
    AlignedMemory p = allocateZeroed(*plan.arenaBytes, kArenaAlignment);
    if (!p)
      return Status::error("out of host memory allocating the temps' arena (" +
                           std::to_string(*plan.arenaBytes) + " bytes)");
    arena = reinterpret_cast<uintptr_t>(p.get());
    storage.push_back(std::move(p));
  }
  for (size_t i = 0; i < numBuffers; ++i) {
    const BufferDesc &b = plan.buffers[i];
    if (b.kind == BufferKind::alias || b.kind == BufferKind::constant ||
        (b.kind == BufferKind::temp && plan.arenaBytes))
      continue;
    // Never 0 bytes, so that every buffer has a distinct valid address.
    AlignedMemory p = allocateZeroed(b.sizeBytes, kBufferAlignment);
    if (!p)
      return Status::error("out of host memory allocating buffer " + std::to_string(i) + " (" +
                           std::to_string(b.sizeBytes) + " bytes)");
    own[i] = reinterpret_cast<uintptr_t>(p.get());
    storage.push_back(std::move(p));
  }
  for (uint64_t a : layoutBuffers(*model, arena, own))
    addresses.push_back(reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(a)));
  // The symbol values the kernels read (`symvalues`): the session's own copy of the const
  // buffer, written by bindSymbols() before each run (the model's constants are shared by
  // its sessions).
  if (plan.symValuesBuffer >= 0) {
    AlignedMemory p = allocateZeroed(4 * plan.symbols.size(), kBufferAlignment);
    if (!p)
      return Status::error("out of host memory allocating the symbol values");
    symValues = reinterpret_cast<int32_t *>(p.get());
    addresses[plan.symValuesBuffer] = p.get();
    storage.push_back(std::move(p));
  }

  const std::vector<size_t> kernelOf = launchKernelIndices(plan);
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const LaunchDesc &l = plan.launches[i];
    const KernelDesc &k = plan.kernels[kernelOf[i]];
    CPULaunch launch;
    launch.kernel = l.kernel;
    launch.entry = model->entries[kernelOf[i]];
    for (int d = 0; d < 3; ++d)
      launch.grid[d] = k.grid[d];
    for (int id : l.buffers)
      launch.args.push_back(addresses[id]);
    launches.push_back(std::move(launch));
  }
  if (Status s = bindSymbols(symbolMaxima(plan)); !s.ok)
    return s;

  unsigned hw = std::thread::hardware_concurrency();
  numThreads = hw ? hw : 1;
  if (const char *env = std::getenv("AICC_NUM_THREADS")) {
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end == env || *end != '\0' || n < 1 || n > 4096)
      return Status::error(std::string("AICC_NUM_THREADS='") + env +
                           "' is not a thread count between 1 and 4096");
    numThreads = static_cast<unsigned>(n);
  }
  return Status::success();
}

void CPUBackend::runLaunch(const CPULaunch &launch) {
  const int64_t gx = launch.grid[0], gy = launch.grid[1];
  const int64_t total = gx * gy * launch.grid[2];
  void **args = const_cast<void **>(launch.args.data());
  auto runRange = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t pid[3] = {i % gx, (i / gx) % gy, i / (gx * gy)};
      launch.entry(args, pid, launch.grid);
    }
  };
  // One program, or one thread: no hand-off to the pool.
  if (total < 2 || numThreads < 2) {
    runRange(0, total);
    return;
  }
  if (!pool)
    pool = std::make_unique<WorkerPool>(numThreads);
  // About 8 chunks per thread balances uneven programs without contention.
  int64_t chunk = std::max<int64_t>(1, total / (int64_t(numThreads) * 8));
  pool->parallelFor(total, chunk, runRange);
}

Status CPUBackend::bindSymbols(const std::vector<int64_t> &values) {
  const Bundle &plan = model->plan;
  // Session checked every value against its symbol's range (<= 2^31 - 1).
  if (symValues)
    for (size_t i = 0; i < values.size() && i < plan.symbols.size(); ++i)
      symValues[i] = static_cast<int32_t>(values[i]);
  if (plan.symGrids.empty() && plan.symRanges.empty() && plan.plans.empty())
    return Status::success(); // every launch keeps its recorded grid
  const std::vector<std::array<int64_t, 3>> grids = launchGridsAt(plan, values);
  for (size_t i = 0; i < launches.size(); ++i)
    for (int d = 0; d < 3; ++d)
      launches[i].grid[d] = grids[i][d];
  return Status::success();
}

Status CPUBackend::execute() {
  for (const CPULaunch &launch : launches)
    runLaunch(launch);
  return Status::success();
}

Status CPUBackend::runAsync(const std::vector<DeviceCopy> &inputs,
                            const std::vector<DeviceCopy> &outputs, void *stream) {
  if (stream)
    return Status::error("a cpu session runs on the calling thread: pass no stream");
  for (const DeviceCopy &c : inputs)
    writeBuffer(c.buffer, reinterpret_cast<const void *>(c.address), c.bytes, c.rows, c.pitch);
  if (Status s = execute(); !s.ok)
    return s;
  for (const DeviceCopy &c : outputs)
    readBuffer(c.buffer, reinterpret_cast<void *>(c.address), c.bytes, c.rows, c.pitch);
  return Status::success();
}

Status CPUBackend::benchmark(int iters, std::vector<double> &perRunMs) {
  if (Status s = execute(); !s.ok)
    return s;
  perRunMs.clear();
  perRunMs.reserve(iters);
  for (int i = 0; i < iters; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (Status s = execute(); !s.ok)
      return s;
    std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    perRunMs.push_back(elapsed.count());
  }
  return Status::success();
}

Status aicc::runtime::detail::loadCPUModel(const Bundle &bundle,
                                           std::shared_ptr<const LoadedModel> &out) {
  auto model = std::make_shared<CPUModel>();
  if (Status s = model->load(bundle); !s.ok)
    return s;
  out = std::move(model);
  return Status::success();
}

Status aicc::runtime::detail::createCPUBackend(std::shared_ptr<const LoadedModel> model,
                                               std::unique_ptr<Backend> &out) {
  // Model::load pairs cpu models with cpu sessions.
  auto backend =
      std::make_unique<CPUBackend>(std::static_pointer_cast<const CPUModel>(std::move(model)));
  if (Status s = backend->load(); !s.ok)
    return s;
  out = std::move(backend);
  return Status::success();
}
