//===- Session.h - Run a compiled bundle on the CPU or a GPU ---*- C++ -*-===//
//
// A Session runs a bundle's launch plan on one device as often as asked. It
// holds the per-run state (inputs, outputs, the temps' arena, a stream, a
// captured CUDA graph) and shares the code and weights of its Model
// (aicc/Runtime/Model.h) with every other session of that model:
//
//   Bundle bundle;
//   if (Status s = readBundleFile("model.aicc", bundle); !s.ok) ...
//   std::unique_ptr<Session> session;
//   if (Status s = Session::create(bundle, Device::cuda, session); !s.ok) ...
//   std::vector<HostTensor> outputs;
//   if (Status s = session->run(inputs, outputs); !s.ok) ...
//
// Session::create(bundle, ...) loads a private Model; Session::create(model,
// ...) makes another session of a loaded one.
//
// A bundle with bounded symbolic dims (format version 6, docs/symbolic-shapes.md)
// runs every value of its symbols: each run binds them from the input shapes
// (getSymbols(), TensorInfo::symbolic), copies the inputs into the buffers sized
// for the bound (prefixes, or rows at the bound's pitch: TensorInfo::layoutAt,
// format version 8), and returns outputs of the bound values' shapes. With a
// `symvalues` buffer (format version 7) the session also writes the bound values
// into its own copy of that buffer before the run's launches.
//
// Nothing here depends on MLIR or LLVM. The CUDA backend reaches the driver
// through dlopen("libcuda.so.1"), so a runtime built with CUDA support still
// starts on machines without a GPU (creating a cuda session then fails).
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_SESSION_H
#define AICC_RUNTIME_SESSION_H

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Model.h"
#include "aicc/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aicc::runtime {

/// The most CUDA graphs one session keeps (SessionOptions::cudaGraphs): a graph
/// bakes its launches' grids, so a bundle with `symgrid` records (grids that
/// shrink with a symbol, docs/bundle-format.md) is captured once per binding of
/// the symbols; beyond this many bindings the least recently run graph is
/// destroyed (and captured again when its binding comes back). A bundle without
/// `symgrid` records has one graph, whatever the symbols' values.
inline constexpr size_t kMaxCudaGraphsPerSession = 8;

/// A dense tensor in host memory, owned by value.
struct HostTensor {
  DType dtype = DType::f32;
  /// Dimensions in elements, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
  /// Row-major, little-endian element bytes; size() must equal
  /// product(shape) * dtypeSize(dtype).
  std::vector<uint8_t> data;

  /// Returns a zero-filled tensor of the given type (shape dims must be >= 0).
  static HostTensor zeros(DType dtype, std::vector<int64_t> shape);
  /// Number of elements (1 for a scalar; 0 when a dimension is invalid).
  int64_t numElements() const;
  /// Typed view of `data`; the caller picks the C++ type matching `dtype`.
  template <typename T> T *as() { return reinterpret_cast<T *>(data.data()); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(data.data());
  }
};

/// How a session is created (Session::create). Creating a session from a
/// loaded Model reads only `cudaGraphs`: the device and limits are the
/// model's.
struct SessionOptions {
  /// The CUDA device ordinal (0 .. count-1 of the devices the driver shows;
  /// CUDA_VISIBLE_DEVICES chooses and renumbers them). Ignored for cpu.
  int deviceIndex = 0;
  /// CUDA: run the launch plan as one CUDA graph, captured at the first run
  /// (stream capture of every cuLaunchKernel with its parameters and tensor
  /// maps, which never change after load) and replayed by every later run,
  /// instead of one cuLaunchKernel per launch; with `symgrid` records, one graph
  /// per binding of the symbols (at most kMaxCudaGraphsPerSession, least recently
  /// used evicted). Runs with a LaunchObserver
  /// (aicc-run --bisect) always launch one kernel at a time. The environment
  /// variable AICC_CUDA_GRAPHS=0 turns graphs off for every session (aicc-run
  /// --no-cuda-graphs does for its own). Ignored for cpu.
  bool cudaGraphs = true;
  /// Caps checked by validateBundle before anything is loaded.
  Limits limits;
};

/// A tensor in the session's memory space: a CUdeviceptr of the session's
/// device (cuda) or a host address (cpu). For runAsync() it is caller-owned
/// memory (the session never frees it), or the session's own buffer of that
/// input or output (getInputBuffer(), getOutputBuffer()); `bytes` must equal
/// the tensor's recorded size (product(shape) * dtypeSize(dtype)); for a tensor
/// with a symbolic dim, its size at the run's symbol values (the recorded size
/// / max x value).
struct DeviceBuffer {
  uint64_t address = 0;
  size_t bytes = 0;
};

/// What Session::benchmark measured: milliseconds of one pass of the launch
/// plan (host copies excluded), over `runs` back-to-back passes.
struct BenchmarkStats {
  int runs = 0;
  /// Mean over all runs: the time of all passes divided by `runs` (CUDA events
  /// around them on the GPU, std::chrono::steady_clock on the CPU).
  double meanMs = 0;
  /// Order statistics of the per-pass times: the element at floor(p * runs)
  /// of the sorted times for p = 0.5 (median) and 0.9 (p90).
  double medianMs = 0, p90Ms = 0, minMs = 0, maxMs = 0;
};

/// Summarizes per-run milliseconds (the order statistics above); an empty
/// list gives all zeros.
BenchmarkStats summarizeRuns(std::vector<double> perRunMs);

/// Called by Session::run() after launch `launchIndex` (manifest order) has
/// completed on the device, before the next one starts. It may read any buffer
/// with Session::readBuffer(). A non-ok Status stops the run and is returned.
using LaunchObserver = std::function<Status(size_t launchIndex)>;

namespace detail {
class Backend;
} // namespace detail

/// A bundle loaded on one device, with its buffers allocated. Thread-safe in
/// the sense that every member function may be called from any thread: calls
/// are serialized by a mutex (one run at a time per session, since the runs
/// share the session's buffers); to run in parallel, make one session per
/// thread from one Model, which they share.
class Session {
public:
  /// Loads `bundle` on `device` and allocates every buffer (temps and outputs
  /// zero-filled, constants copied from the weights). The session copies what
  /// it needs: `bundle` may be destroyed afterwards. Fails, leaving `out`
  /// unchanged, when the bundle is invalid (validateBundle), its target does
  /// not match the device (cpu needs target cpu, cuda needs sm_*), the code
  /// cannot be loaded (dlopen error, missing NAME_entry symbol, cubin rejected
  /// by the driver), a kernel's block exceeds what the compiled kernel allows,
  /// memory runs out, or, for cuda, no driver/device is available.
  ///
  /// CPU sessions run programs on `std::thread::hardware_concurrency()`
  /// threads; the environment variable AICC_NUM_THREADS overrides that count.
  ///
  /// The bundle is validated against `limits` (validateBundle) before any
  /// code is loaded or memory allocated. A CPU bundle's shared object is
  /// loaded from an anonymous memory file (memfd_create, dlopen of
  /// /proc/self/fd/N); only where that is unavailable (or with the
  /// environment variable AICC_RUNTIME_NO_MEMFD=1, for tests) from a private
  /// temporary file in $TMPDIR (or /tmp), which is unlinked before dlopen
  /// when /proc is mounted and on every error path otherwise, so no file is
  /// left behind. A bundle is code: only load bundles you built or trust
  /// (docs/bundle-format.md, "Trust model").
  static Status create(const Bundle &bundle, Device device, std::unique_ptr<Session> &out,
                       const Limits &limits = Limits());
  /// The same with every option (device index, CUDA graphs, limits); a
  /// deviceIndex out of range fails naming the visible count.
  static Status create(const Bundle &bundle, Device device, std::unique_ptr<Session> &out,
                       const SessionOptions &options);
  /// A new session of a loaded model (Model::load): allocates and zero-fills
  /// the session's own inputs, outputs and temps' arena (or one allocation
  /// per temp without a memory plan) and, for cuda, creates its stream; the
  /// code and constants are the model's, shared. Only options.cudaGraphs is
  /// read. Fails, leaving `out` unchanged, on a null model or when memory runs
  /// out. Sessions of one model are independent: each may run on its own
  /// thread at the same time as the others.
  static Status create(std::shared_ptr<const Model> model, std::unique_ptr<Session> &out,
                       const SessionOptions &options = SessionOptions());

  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Runs the model once: checks that `inputs` has one tensor per model input
  /// with exactly the recorded dtype and shape (errors read like
  /// "input 0 ('x'): expected f32[2,3], got f32[3,2]"), copies them to the
  /// device, runs every launch in manifest order, waits for completion and
  /// copies each model output into `outputs` (resized to getOutputs().size()).
  ///
  /// Symbolic dims (getSymbols() not empty): an input with a symbolic dim
  /// (TensorInfo::symbolic: dim `axis` is `factor` x symbol s) must have the
  /// recorded dtype and rank and every recorded dim but `axis`; its dim `axis`
  /// must be factor x v for a v in s's [min, max], the same v in every input
  /// that carries s. Errors: "input 0 ('x'): dim 0 is 7, not a multiple of 4
  /// (dim 0 is 4 x batch)", "input 0 ('x'): batch = 70 is outside the compiled
  /// range [1, 64] (dim 0)", "input 1 ('y'): batch = 3, but input 0 ('x')
  /// gives batch = 5", "input 0 ('x'): expected f32[batch,4] (batch in [1,
  /// 64]), got f32[3,5]". The run then binds the symbols to those values
  /// (getSymbolValues()): each input's bytes are copied into its buffer (sized
  /// for the bound) where TensorInfo::layoutAt(values) places them (the first
  /// bytes, or rows at the bound's pitch when the symbolic dim follows non-unit
  /// dims), launches with `symgrid` records run their shrunk grids, and an
  /// output with a symbolic dim gets the shape TensorInfo::shapeAt(values) and
  /// the bytes of its buffer that layoutAt(values) names.
  /// Inputs and outputs without a symbolic dim are as recorded.
  /// On a cuda session the copies go through page-locked staging memory the
  /// session allocates at its first run (pageable copies when none can be
  /// had), enqueued with the launches on the session's stream, one wait per
  /// run. `outputs` may be the same vector as `inputs`. On error `outputs` is
  /// left unchanged; after a GPU fault the session should be discarded.
  Status run(const std::vector<HostTensor> &inputs,
             std::vector<HostTensor> &outputs);

  /// Like run(), but waits for every launch to finish and calls
  /// `afterEachLaunch` after it (debugging: aicc-run --bisect reads each
  /// kernel's output buffer there). Slower than run() on the GPU, which
  /// otherwise queues all launches at once. An empty observer behaves as run().
  Status run(const std::vector<HostTensor> &inputs,
             std::vector<HostTensor> &outputs,
             const LaunchObserver &afterEachLaunch);

  /// Runs the model on caller-owned memory without host copies: enqueues on
  /// `stream` (a CUstream of the session's device, cast to void*; nullptr for
  /// the legacy default stream) device-to-device copies of `inputs` (one per
  /// model input, index order) into the session's input buffers, the launch
  /// plan (the CUDA graph when graphs are on), and copies of the outputs into
  /// `outputs` (one per model output); then returns without waiting. The caller
  /// waits on its stream (cuStreamSynchronize, or an event) before reading the
  /// outputs, and keeps every buffer valid until then. A later call, on any
  /// stream, is ordered after this one (it waits on an event this one
  /// records); the synchronous members wait for it first. On a cpu session the
  /// addresses are host pointers, `stream` must be nullptr and the run is done
  /// when the call returns. Errors: a count or size that differs from the
  /// model's ("input 0 ('x'): expected 24 bytes (f32[2,3]), got 16"), a
  /// driver error. With symbolic dims the symbols are bound from the inputs'
  /// sizes: an input with a symbolic dim of symbol s must have recorded bytes /
  /// max x v bytes for a v in s's range, the same v in every input that
  /// carries s ("input 0 ('x'): expected a multiple of 16 bytes (f32[batch,4]:
  /// 16 bytes per batch), got 20", "input 0 ('x'): 1600 bytes is batch = 100,
  /// outside the compiled range [1, 64]"), and every output buffer must then
  /// have its size at those values ("output 0 ('y'): expected 24 bytes
  /// (f32[2,3] at batch = 2), got 48"). The binding is the session's until the
  /// next run (getSymbolValues()).
  ///
  /// Buffers of the session itself (getInputBuffer(), getOutputBuffer()) are
  /// taken in place: an input whose address is the session's buffer for that
  /// input is not copied, nor an output whose address is the session's buffer
  /// for that output, when the run places the tensor at the buffer's start
  /// (always without a symbolic dim; with one, when layoutAt() at the run's
  /// values is one prefix, or its rows lie at their own width: the symbol at
  /// its max). The sizes are checked as for any buffer. A caller buffer that
  /// overlaps a session buffer any other way is refused, since the copy would
  /// read or overwrite bytes it has not used yet ("input 0 ('x'): its 64 bytes
  /// at 0x... overlap the session's buffer for input 0 ('x') (96 bytes at
  /// 0x...) but cannot be taken in place: pass the session's address exactly,
  /// or memory outside it"; at the session's address but in rows at a pitch:
  /// "... at batch = 2 the run places 2 rows of 16 bytes 32 bytes apart in that
  /// buffer, so only batch = 4 is taken in place: pass memory outside it"): an
  /// input that overlaps the buffer of itself or of another input that is not
  /// taken in place, an output that overlaps the buffer of itself or of another
  /// output (but one that shares its buffer). An output may be written into the
  /// session's buffer of an input that is not an output (the output copies
  /// follow the launches): the next run then takes that input in place (an
  /// LLM's KV cache).
  Status runAsync(const std::vector<DeviceBuffer> &inputs,
                  const std::vector<DeviceBuffer> &outputs, void *stream = nullptr);

  /// The session's own memory for model input `inputIndex` (getInputs()
  /// order): its address (a CUdeviceptr on cuda, a host pointer on cpu) and
  /// its bytes at the recorded shape (for a symbolic dim, at the bound: the
  /// buffer's whole size). The memory belongs to the session and stays valid,
  /// at the same address, while the session lives; runAsync() takes it without
  /// a copy (above). Every run writes the inputs into it (run(), and runAsync()
  /// with another address for this input): write the input there, then run
  /// with this address. On cuda, write it in stream order before the runAsync()
  /// that reads it (on that call's stream, or after waiting for the last run:
  /// the session's own copies and launches use it until then). Fails on an
  /// index out of range.
  Status getInputBuffer(size_t inputIndex, DeviceBuffer &out) const;
  /// The same for model output `outputIndex` (getOutputs() order): the memory
  /// the launches write that output to, as of the end of each run, until the
  /// next run starts (read it in stream order after runAsync() on cuda). A
  /// bundle may return an input's buffer as an output (a buffer that is both
  /// a model input and output has kind input) or an alias of one: then this is
  /// that input's memory, the same address getInputBuffer() gives. A temp's
  /// output is the session's memory too. Fails on an index out of range, or
  /// for an output that is one of the model's constants (memory of the Model,
  /// shared by all its sessions and never written by a run).
  Status getOutputBuffer(size_t outputIndex, DeviceBuffer &out) const;
  /// Bytes the last successful run() or runAsync() copied between the caller's
  /// memory and the session's buffers (inputs in plus outputs out; those taken
  /// in place count 0); 0 before any run. Shows whether a caller's buffers
  /// were taken in place.
  uint64_t getLastRunCopyBytes() const;

  /// True when runs replay a CUDA graph (cuda, SessionOptions::cudaGraphs and
  /// AICC_CUDA_GRAPHS not 0, and a driver with the graph API).
  bool usesCudaGraphs() const;

  /// Copies the current contents of plan buffer `bufferId` (an index into
  /// getBuffers(); alias buffers read their source's memory under their own
  /// shape) into `out`, sized and typed from the buffer. Valid after create();
  /// meant for LaunchObserver callbacks and after run(). A buffer sized for a
  /// symbol's bound is read whole: past the prefix a run at a smaller value
  /// uses, it holds whatever earlier runs or kernels left there. Fails on an id
  /// out of range or a device copy error.
  Status readBuffer(int bufferId, HostTensor &out);

  /// Sets every byte of every output and temp buffer, and with `symbolicInputs`
  /// of every input buffer with a symbolic dim, to `byte`: call it before run()
  /// so that elements the kernels leave unwritten, or read past the part of an
  /// input a run writes, show (aicc-run --poison; 0xFF makes every float
  /// element a NaN and every integer -1). Other inputs and constants keep their
  /// contents; aliases share the memory of their source, so an alias of an
  /// output or temp is poisoned with it. A buffer that is both a model input and
  /// output has kind input: untouched unless it is a symbolic input.
  /// Fails on a device error.
  Status poisonBuffers(uint8_t byte = 0xFF, bool symbolicInputs = true);

  /// Measures the launch plan alone: one warm-up pass, then `iters` (>= 1)
  /// back-to-back passes over the buffers as the last run() left them (zeroed
  /// inputs if run() was never called); host<->device copies are excluded.
  /// With symbolic dims the passes run at the binding of the last run() or
  /// runAsync() (getSymbolValues(): every symbol at its max before any run).
  /// Each pass is timed on its own (GPU: a CUDA event recorded on the stream
  /// after each pass, in chunks of at most 1024 passes enqueued at once; CPU:
  /// std::chrono::steady_clock), and `stats` gets their mean and order
  /// statistics in milliseconds.
  Status benchmark(int iters, BenchmarkStats &stats);
  /// The same, giving only the mean milliseconds per pass.
  Status benchmark(int iters, double &msPerRun);

  /// The device this session runs on.
  Device getDevice() const { return model->getDevice(); }
  /// Bytes the session allocated for the plan's buffers on its device: every
  /// input and output, and the temps' arena once (each temp once without a
  /// memory plan); aliases own nothing. The constants are the model's
  /// (getModel().getConstantBytes()), shared by every session of it. Driver
  /// and context overhead not included.
  uint64_t getAllocatedBytes() const { return allocatedBytes; }
  /// The model this session runs (kept alive by the session).
  const Model &getModel() const { return *model; }
  /// The bundle's target ("cpu", "sm_90a", ...).
  const std::string &getTarget() const { return model->getTarget(); }
  /// Model inputs in index order (name, dtype, shape at the bound, symbolic dim).
  const std::vector<TensorInfo> &getInputs() const { return model->getInputs(); }
  /// Model outputs in index order (name, dtype, shape at the bound, symbolic dim).
  const std::vector<TensorInfo> &getOutputs() const { return model->getOutputs(); }
  /// The model's bounded symbolic dims (empty for a model of one shape).
  const std::vector<SymbolInfo> &getSymbols() const { return model->getSymbols(); }
  /// The value of each symbol (getSymbols() order) at the last run() or
  /// runAsync() that passed its input checks; each symbol's max before any.
  /// benchmark() runs at these values.
  std::vector<int64_t> getSymbolValues() const;
  /// Every buffer of the launch plan, indexed by buffer id. With a memory plan
  /// (format version 4) temps share an arena: after a run, a temp holds its
  /// last value only until the launch that reuses its bytes.
  const std::vector<BufferInfo> &getBuffers() const { return model->getBuffers(); }
  /// The launches in execution (manifest) order.
  const std::vector<LaunchInfo> &getLaunches() const { return model->getLaunches(); }
  /// How many of getLaunches() run at getSymbolValues(): all of them, but for the
  /// launches of other shape buckets (format version 9 `symrange` records), which a run
  /// skips.
  size_t getRunLaunchCount() const;

private:
  Session();
  /// Makes `values` the binding of the backend and of getSymbolValues().
  Status bindSymbols(const std::vector<int64_t> &values);
  /// The session's memory of model input or output `index` (in range): its address and
  /// its bytes at the recorded shape; `constant`, when given, says whether that output is a
  /// constant of the model (shared by its sessions, never the session's own).
  DeviceBuffer ownBuffer(bool output, size_t index, bool *constant = nullptr) const;

  std::shared_ptr<const Model> model;
  uint64_t allocatedBytes = 0;
  /// The current binding (getSymbolValues()).
  std::vector<int64_t> symbolValues;
  /// getLastRunCopyBytes().
  uint64_t lastRunCopyBytes = 0;
  std::unique_ptr<detail::Backend> backend;
  /// Serializes every call (see the class comment); recursive, since a
  /// LaunchObserver calls readBuffer() from inside run().
  mutable std::recursive_mutex mutex;
};

} // namespace aicc::runtime

#endif // AICC_RUNTIME_SESSION_H
