//===- Bundle.h - The .aicc bundle: data model, reader, writer -*- C++ -*-===//
//
// A bundle holds everything needed to run one compiled model: the launch plan
// (manifest), the kernel code and the weights. The byte format is specified in
// docs/bundle-format.md (versions 1 to 6); this header is its in-memory form.
//
// The compiler fills a Bundle and calls serializeBundle(); the runtime calls
// parseBundle() and hands the result to Session::create(). Nothing here depends
// on MLIR or LLVM.
//
// Trust: a bundle is code (the runtime dlopen's or loads its code section).
// The reader never crashes or over-allocates on malformed bytes, and version 3
// checksums and parameter records catch corruption and inconsistency, not a
// malicious author: only run bundles you built or trust.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_BUNDLE_H
#define AICC_RUNTIME_BUNDLE_H

#include "aicc/Runtime/Limits.h"
#include "aicc/Runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aicc::runtime {

/// The newest format version: 8 (checksums and parameter records since 3; the
/// `arena` record of the memory plan since 4; `inplace` records since 5;
/// `symbol`, `symdim` and `symgrid` records, bounded symbolic dims, since 6;
/// the `symvalues` record, kernels that read the run's symbol values, since 7;
/// `symdim` records after non-unit dims, tensors that are rows of their buffer
/// at a smaller value, since 8; `symrange` records, launches that run only for
/// some values of a symbol (kernel variants per shape bucket), since 9; `plan`
/// records, whole launch plans per range of a symbol's values, since 10).
/// serializeBundle() writes the oldest version that holds the bundle (10 with a
/// `plan` record, else 9 with a `symrange` record, else 8 with such a `symdim`,
/// else 7 with a `symvalues` record, else 6 when it has symbolic dims, else 5
/// when a kernel has `inplace` records, else 4); parseBundle() reads versions 1
/// to 10.
constexpr int kBundleFormatVersion = 10;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element type of a tensor buffer. The manifest spells them `f32 f16 bf16 f64
/// i64 i32 i16 i8 u64 u32 u16 u8 bool` (dtypeName / parseDType); all are stored
/// little-endian, integers in two's complement (iN) or plain binary (uN).
enum class DType {
  f32,
  f16,
  bf16,
  f64,
  i64,
  i32,
  i8,
  u8,
  boolean,
  i16,
  u16,
  u32,
  u64,
};

/// Size of one element in bytes (bool: 1 byte, 0 or 1).
size_t dtypeSize(DType dtype);

/// Manifest spelling of `dtype`: "f32", ..., "bool" for DType::boolean. The
/// returned pointer is a static string.
const char *dtypeName(DType dtype);

/// Parses a manifest spelling ("f32", ..., "bool"); std::nullopt when `name` is
/// not one of the thirteen names.
std::optional<DType> parseDType(std::string_view name);

/// Formats a tensor type the way error messages print it, e.g. "f32[2,3]"
/// ("f32[]" for a scalar).
std::string formatTensorType(DType dtype, const std::vector<int64_t> &shape);

/// Number of elements of `shape` (1 for rank 0); std::nullopt when a dimension
/// is negative or the product overflows int64_t.
std::optional<int64_t> shapeNumElements(const std::vector<int64_t> &shape);

//===----------------------------------------------------------------------===//
// Manifest records
//===----------------------------------------------------------------------===//

/// Who provides a buffer's memory (manifest field KIND).
enum class BufferKind {
  input,    ///< model input; the runtime copies the caller's tensor in
  output,   ///< model output; allocated by the runtime, copied out after a run
  temp,     ///< scratch; allocated by the runtime, in the arena when the bundle has one
  constant, ///< spelled `const`; data lives in the weights section at `offset`
  alias,    ///< same memory as buffer `offset` (the source id), another shape
};

/// Manifest spelling of `kind` ("input", "output", "temp", "const", "alias").
const char *bufferKindName(BufferKind kind);

/// Parses a manifest KIND spelling; std::nullopt when unknown.
std::optional<BufferKind> parseBufferKind(std::string_view name);

/// One `buffer` record: a tensor the kernels read or write.
struct BufferDesc {
  /// Buffer id; buffers are numbered 0, 1, 2 ... in manifest order, so
  /// `Bundle::buffers[i].id == i`.
  int id = 0;
  DType dtype = DType::f32;
  BufferKind kind = BufferKind::temp;
  /// Size in bytes; always product(shape) * dtypeSize(dtype).
  uint64_t sizeBytes = 0;
  /// Dimensions in elements, outermost first (row-major); empty for a scalar.
  std::vector<int64_t> shape;
  /// For BufferKind::constant: byte offset of the data inside the weights
  /// section (a multiple of 64). For BufferKind::alias: the id of the source
  /// buffer (smaller than `id`). For BufferKind::temp in a bundle with an arena
  /// (Bundle::arenaBytes): byte offset inside the arena (a multiple of
  /// kArenaAlignment, aicc/Runtime/MemoryPlan.h). Unused (0) otherwise.
  uint64_t offset = 0;
  /// 1-based manifest line of the record, for messages; 0 when the bundle was
  /// built in memory.
  size_t line = 0;
};

/// One `input` or `output` record: binds a model input/output to a buffer.
struct IODesc {
  /// 0-based position among the model's inputs (or outputs), ONNX graph order.
  int index = 0;
  /// The buffer holding the tensor.
  int bufferId = 0;
  /// The ONNX name (decoded; may contain any byte except NUL).
  std::string name;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `bound` record: a model input fixed at compile time (aicc-compile
/// --bind-input). It is not a runtime input: the compiled code holds its value.
/// The model's inputs in ONNX order (the K of test_data_set_N/input_K.pb) are
/// the bound inputs at their `position` and the `input` records, in index
/// order, filling the other positions (see modelInputOrder()).
struct BoundInputDesc {
  /// 0-based position among the model's inputs, bound and runtime together.
  int position = 0;
  /// The ONNX name (decoded; may contain any byte except NUL).
  std::string name;
  DType dtype = DType::f32;
  /// Size in bytes; always product(shape) * dtypeSize(dtype).
  uint64_t sizeBytes = 0;
  /// Dimensions in elements, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
  /// Byte offset of the value inside the weights section (a multiple of 64).
  uint64_t offset = 0;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `tensormap` record: a TMA descriptor (CUtensorMap, cuTensorMapEncodeTiled) the runtime
/// builds for every launch of a kernel and passes by value after the buffer parameters.
///
/// The map covers the buffer `launch.buffers[param]` of each launch, starting at its device
/// address. Fixed encoding choices (docs/bundle-format.md): no interleave, element strides all
/// 1, L2 promotion 256 B, out-of-bounds elements read as zero (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE).
/// Limits are those of cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map Object
/// Management"); validateBundle() checks them all.
struct TensorMapDesc {
  /// Index into the launch's buffers: the global address is that buffer's device address.
  int param = 0;
  /// Element type of the map (f16, bf16, f32, ... any DType with size 1/2/4/8).
  DType dtype = DType::f16;
  /// Global dims in elements, OUTERMOST FIRST, rank 1..5, each in [1, 2^32].
  std::vector<uint64_t> dims;
  /// Byte strides of dims[0..rank-2] (outermost first; the innermost dim is contiguous),
  /// each a multiple of 16 and < 2^40.
  std::vector<uint64_t> strides;
  /// Box dims in elements, outermost first, each in [1, 256]; box.back() * dtypeSize a
  /// multiple of 16.
  std::vector<uint32_t> box;
  /// 0 (none), 32, 64 or 128 bytes; with a swizzle, box.back() * dtypeSize <= swizzle.
  uint32_t swizzle = 0;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `param` record (format version 3): what the kernel's code expects of
/// one buffer parameter, written by the compiler from the kernel it generated
/// (its memref signature), not from the plan's buffers. validateBundle()
/// checks every launch's buffer against it, so a plan whose buffers disagree
/// with the code (an edited or mixed-up manifest) is refused instead of
/// letting the kernel read or write out of bounds.
struct ParamDesc {
  /// The kernel's element type. Kernels see integers signless: an `iN`
  /// parameter takes an `iN` or `uN` buffer; every other dtype only itself.
  DType dtype = DType::f32;
  /// Bytes the kernel accesses through the parameter: its element count times
  /// dtypeSize(dtype). A launch's buffer must have exactly this SIZE_BYTES
  /// (shapes may differ: kernels take flat views).
  uint64_t sizeBytes = 0;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `inplace` record (format version 5): the kernel may write output
/// parameter `output` over the memory of input parameter `input`. The compiler
/// declares it only for kernels where every program reads each element of the
/// input before it writes the element at the same byte offset of the output,
/// and no program reads an element another program writes (the elementwise
/// template: one program per block of flat indices, both parameters accessed
/// at the same offsets, of the same element size and count). The memory plan
/// (planMemory) then lets a temp that such a launch writes take the bytes of
/// a temp whose last use is that launch; the bundle keeps the records the plan
/// used, and checkMemoryPlan allows exactly those overlaps.
struct InPlaceDesc {
  /// Parameter indices (0 .. numParams-1): the input read, the output written.
  int input = 0, output = 0;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// True when a buffer of `buffer` dtype may be passed for a parameter of
/// `param` dtype (equal, or integers of the same width; see ParamDesc).
bool paramDTypeAccepts(DType param, DType buffer);

/// Formats a tensor map the way error messages print it:
/// "param 1, f16 dims [512,256] strides [512] box [64,64] swizzle 128".
std::string formatTensorMap(const TensorMapDesc &map);

/// One `kernel` record.
struct KernelDesc {
  /// Kernel name: the `.entry` name in a cubin, or `NAME` of the exported
  /// `NAME_entry` function in a CPU shared object.
  std::string name;
  /// Program instances per dimension (x, y, z); each >= 1.
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// GPU threads per program (x, y, z); each >= 1; {1, 1, 1} for the cpu target.
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Shared memory in bytes passed as the launch's dynamic shared memory size
  /// (0 when the kernel uses only static shared memory).
  uint64_t sharedBytes = 0;
  /// Number of buffer parameters every launch of this kernel passes.
  int numParams = 0;
  /// One record per buffer parameter (`param` records, in parameter order):
  /// numParams entries in a version-3 bundle, none in versions 1 and 2.
  std::vector<ParamDesc> params;
  /// Output parameters the kernel may write over an input (`inplace` records,
  /// format version 5); see InPlaceDesc.
  std::vector<InPlaceDesc> inPlace;
  /// TMA descriptors (`tensormap` records, in order). Kernel parameters are the numParams
  /// buffer pointers, then one CUtensorMap (128 bytes, 64-byte aligned, by value) per entry.
  /// GPU targets sm_90 and newer only.
  std::vector<TensorMapDesc> tensorMaps;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `launch` record: run `kernel` over its grid with these buffers.
struct LaunchDesc {
  /// Name of a KernelDesc in the same bundle.
  std::string kernel;
  /// Buffer ids passed as the kernel's parameters, in order; the count equals
  /// the kernel's numParams.
  std::vector<int> buffers;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `symbol` record (format version 6): a symbolic dimension of the model
/// (an ONNX dim_param kept symbolic, `aicc-compile --dim NAME=MIN..MAX`).
/// The bundle is compiled at the bound: every buffer holds its tensor at
/// value MAX, and a run at value v uses a prefix of the buffers that carry the
/// symbol (docs/symbolic-shapes.md, "Bounded symbolic dims").
struct SymbolDesc {
  /// The ONNX dim_param name (decoded).
  std::string name;
  /// The values a run may bind: 1 <= min <= max <= 2^31 - 1.
  int64_t min = 1, max = 1;
  /// 1-based manifest line of the record; 0 when built in memory.
  size_t line = 0;
};

/// One `symdim` record (format version 6): dim `axis` of buffer `bufferId` is
/// `factor` x symbol `symbol`. The buffer's recorded shape holds factor x max
/// there, every dim before `axis` is 1 and no other dim is symbolic, so at
/// value v the tensor is the first sizeBytes / max x v bytes of the buffer
/// (row-major: a prefix). Model inputs and outputs carry these records.
struct SymDimDesc {
  int bufferId = 0;
  int axis = 0;
  /// Index into Bundle::symbols.
  int symbol = 0;
  /// >= 1.
  int64_t factor = 1;
  size_t line = 0;
};

/// One `symgrid` record (format version 6): at symbol value v, launch
/// `launchIndex` (0-based, manifest order of the `launch` records) runs
/// group x ceil(v x unit / per) programs along grid axis `axis` (0 = x, 1 =
/// y, 2 = z) instead of the kernel's recorded count there (the recorded count
/// is the value at max, and never smaller). The programs the record leaves
/// out only write the buffers' parts past the prefix a run at v reads back.
struct SymGridDesc {
  int launchIndex = 0;
  int axis = 0;
  int symbol = 0;
  /// All >= 1.
  int64_t unit = 1, per = 1, group = 1;
  size_t line = 0;
};

/// One `symrange` record (format version 9): launch `launchIndex` (0-based,
/// manifest order of the `launch` records) runs only at values of symbol
/// `symbol` in [lo, hi]; at other values it is skipped. A fusion group compiled
/// with one tile config per shape bucket (aicc-compile --shape-buckets,
/// docs/symbolic-shapes.md) is one launch per bucket over the same buffers,
/// each with the record of its bucket, so exactly one of them runs.
struct SymRangeDesc {
  int launchIndex = 0;
  int symbol = 0;
  /// symbols[symbol].min <= lo <= hi <= symbols[symbol].max.
  int64_t lo = 1, hi = 1;
  size_t line = 0;
};

/// One `plan` record (format version 10): the launches from `firstLaunch`
/// (0-based, manifest order of the `launch` records) up to the next plan's
/// first launch (or the last launch) are a whole launch plan that runs only at
/// values of symbol `symbol` in [lo, hi]; a run at other values skips them.
/// The plans' ranges partition the symbol's [min, max], so every run takes
/// exactly one plan; inside a plan, `symrange` buckets of that symbol cover the
/// plan's range instead of [min, max]. A plan compiled for one shape (aicc-compile
/// --specialize, docs/symbolic-shapes.md) is `packed`: at its values the model's
/// inputs and outputs are compact, row-major, at the start of their buffers
/// (TensorInfo::layoutAt gives one row), not rows at the bound's pitch.
struct PlanDesc {
  int firstLaunch = 0;
  int symbol = 0;
  /// symbols[symbol].min <= lo <= hi <= symbols[symbol].max.
  int64_t lo = 1, hi = 1;
  bool packed = false;
  size_t line = 0;
};

/// A whole bundle in memory. The bundle owns its code and weights bytes.
struct Bundle {
  /// The format version the bundle was read as (parseBundle), or
  /// kBundleFormatVersion for a bundle built in memory. Versions 1 and 2 have
  /// no `param` records (validateBundle then checks launches against the
  /// buffers alone) and were not checksummed.
  int formatVersion = kBundleFormatVersion;
  /// `cpu` or `sm_NN` / `sm_NNa` (e.g. `sm_90a`).
  std::string target;
  /// The memory plan (format version 4, `arena` record): when set, the runtime
  /// allocates one arena of this many bytes and places every temp at its
  /// `offset` there (planMemory() in aicc/Runtime/MemoryPlan.h writes both;
  /// validateBundle() checks that temps live at the same launch do not
  /// overlap). Unset (versions 1 to 3, or a bundle built in memory without a
  /// plan): every temp gets its own allocation.
  std::optional<uint64_t> arenaBytes;
  /// Indexed by buffer id.
  std::vector<BufferDesc> buffers;
  /// Symbolic dims (format version 6), indexed by symbol index; empty for a
  /// bundle compiled for one shape.
  std::vector<SymbolDesc> symbols;
  /// Which dims of which buffers carry a symbol (at most one per buffer).
  std::vector<SymDimDesc> symDims;
  /// Launch grids that shrink with a symbol's value.
  std::vector<SymGridDesc> symGrids;
  /// Launches that run only at some values of a symbol (format version 9).
  std::vector<SymRangeDesc> symRanges;
  /// Whole launch plans per range of one symbol's values (format version 10),
  /// ascending by firstLaunch, the first at launch 0; empty: one plan, every
  /// launch, inputs and outputs at the bound's layout.
  std::vector<PlanDesc> plans;
  /// The `symvalues` record (format version 7): the id of a `const` buffer of
  /// symbols.size() i32 elements (holding each symbol's max) that kernels read
  /// the run's symbol values from (attention over a sequence of run-time
  /// length). A session gives it its own memory and writes the values of each
  /// run's binding there before the run's launches; -1 when absent.
  int symValuesBuffer = -1;
  /// 1-based manifest line of the `symvalues` record; 0 when none or built in
  /// memory.
  size_t symValuesLine = 0;

  /// Indexed by model input index.
  std::vector<IODesc> inputs;
  /// Inputs fixed at compile time, in increasing position order.
  std::vector<BoundInputDesc> boundInputs;
  /// Indexed by model output index.
  std::vector<IODesc> outputs;
  std::vector<KernelDesc> kernels;
  /// Executed in this order on one stream.
  std::vector<LaunchDesc> launches;
  /// The code section: a cubin for sm_* targets, an ELF shared object for cpu.
  std::string code;
  /// The weights section: raw little-endian constant data.
  std::string weights;

  /// Returns the kernel named `name`, or nullptr.
  const KernelDesc *findKernel(std::string_view name) const;

  /// The model's inputs in ONNX order (inputs.size() + boundInputs.size()
  /// entries): entry K is `i >= 0` when position K is runtime input i
  /// (`inputs[i]`), `-1 - j` when it is bound input j (`boundInputs[j]`).
  /// Requires a valid bundle (validateBundle).
  std::vector<int> modelInputOrder() const;
};

/// Checks every invariant of docs/bundle-format.md on an in-memory bundle:
/// format version 1..6, an arena only from version 4 whose temps are aligned,
/// inside it and disjoint while live together (checkMemoryPlan), target spelling, buffer ids in
/// order, SIZE_BYTES == product(shape) * dtype size, const data inside the weights and 64-byte
/// aligned, alias sources that exist, precede the alias and are large enough,
/// input/output indices contiguous from 0 with valid buffers (each input
/// buffer bound exactly once), bound inputs with increasing positions below
/// inputs.size() + boundInputs.size(), names unlike the input records' and
/// values inside the weights, 64-byte aligned, unique kernel names, positive
/// grid/block, tensor maps within the TensorMapDesc limits on an sm_90+
/// target, one `param` record per buffer parameter (version 3), launches that
/// name a known kernel with the right number of valid buffer ids, whose
/// buffers match the kernel's parameter records and whose tensor maps lie
/// inside the buffers they cover; symbolic dims only from version 6: symbols
/// with unique non-empty names and 1 <= min <= max <= 2^31 - 1, each a dim of
/// some model input; symdims of input, output or alias buffers with elements,
/// at most one per buffer, whose dim `axis` is factor x max and follows only
/// dims of 1; symgrids of existing launches, at most one per (launch, axis),
/// whose program count at max fits the kernel's recorded grid; and the caps of
/// `limits` (buffer bytes and their sum, programs, threads, shared memory,
/// parameters), all computed with overflow checks. Returns the first violation, naming the record
/// (with its manifest line when known), the field, the value and the limit. Time and memory are
/// linear in the number of records (up to a log factor).
Status validateBundle(const Bundle &bundle, const Limits &limits = Limits());

/// Serializes `bundle` to the byte format, as version 6 when it has symbolic
/// dims (`symbols`, `symDims` or `symGrids` not empty), else as version 5 when a
/// kernel has `inplace` records (after its `param` records), else as version 4
/// (the `arena` record and the temps' arena offsets only when `arenaBytes` is
/// set; a bundle without symbolic dims gives the bytes the version-5 writer
/// gave): every kernel's
/// `param` records follow its `kernel` record (then its tensor maps), and the
/// manifest ends with the `checksum` record (XXH64 of the code, weights and
/// manifest sections). Deterministic: the same Bundle always gives the same
/// bytes (records are written in vector order: header, target, `arena`,
/// symbols, buffers each followed by its symdim, inputs, bound inputs,
/// outputs, kernels each followed by its params, in-place pairs and tensor
/// maps, launches, symgrids, symranges, symvalues, checksum; symdims whose buffer id is out of
/// range follow the last buffer). Names are percent-encoded. Does not validate (a kernel without
/// its param records gives a file the reader refuses); call validateBundle() first when the bundle
/// comes from untrusted code. `formatVersion` and the `line` fields are not consulted.
std::string serializeBundle(const Bundle &bundle);

/// Parses and validates a version-1 to -6 bundle from `bytes` into `out`
/// (which is overwritten). For versions 3 to 6, the checksums of all three sections
/// are verified before any record is parsed ("checksum mismatch in the code
/// section: ..."); `param` records are required of versions 3 to 6 and refused
/// before it, `tensormap` records refused in version 1, `symbol`, `symdim` and
/// `symgrid` records refused before version 6 and out of their place (symbols
/// after `target` / `arena` and before any buffer, a symdim right after its
/// buffer, symgrids after the last launch). Never crashes on
/// malformed input and reads nothing outside `bytes`: bad magic, truncated or
/// trailing sections, sections above `limits`, unknown or malformed records
/// (reported with their manifest line number), out-of-range ids, offsets and
/// sizes all give an error Status and leave `out` unspecified. Memory:
/// proportional to bytes.size() (the manifest is capped by
/// Limits::maxManifestBytes).
Status parseBundle(std::string_view bytes, Bundle &out, const Limits &limits = Limits());

/// Reads the regular file at `path` (readRegularFile(): directories, FIFOs
/// and devices are refused, size capped by limits.maxFileBytes) and parses it
/// with parseBundle(). Errors name the path.
Status readBundleFile(const std::string &path, Bundle &out, const Limits &limits = Limits());

/// Percent-encodes `name` for the manifest: bytes in [A-Za-z0-9_.:/-] are kept,
/// every other byte becomes `%XX` (upper-case hex).
std::string percentEncode(std::string_view name);

/// Decodes a percent-encoded manifest field into `out`. Fails on a `%` not
/// followed by two hex digits and on raw bytes outside [A-Za-z0-9_.:/-] (those
/// must have been encoded).
Status percentDecode(std::string_view field, std::string &out);

} // namespace aicc::runtime

#endif // AICC_RUNTIME_BUNDLE_H
