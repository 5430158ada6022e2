//===- Importer.h - the ONNX importer's private interface -------*- C++ -*-===//
//
// Shared by the importer's source files: ImportONNX.cpp (the model, values,
// checks, attributes, entry points), ImportTensorData.cpp (ValueInfo types and
// TensorProto data), ImportOpTable.cpp (the op table and importNode),
// ImportBuilders.cpp (the graph builders every family uses), and one file per op
// family (Import<Family>.cpp: Core, TensorOps, NN, Elementwise, Index, Spatial,
// Recurrent, Signal, Integer, Loss, Transformer, Misc), each registering its ops
// in the table (register<Family>Ops). Not a public
// header: the public entry points are in include/aicc/Target/ONNX/ImportONNX.h.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_TARGET_ONNX_IMPORTER_H
#define AICC_LIB_TARGET_ONNX_IMPORTER_H

#include "aicc/Target/ONNX/ImportONNX.h"

#include "aicc/Support/CheckedSize.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace aicc::onnx_import::detail {
using namespace mlir;
namespace graph = aicc::graph;

/// Range of the default-domain opset this importer implements the semantics
/// of. Opsets 1-6 are accepted for the old models in ONNX's own test data
/// (legacy `broadcast` attribute on Add/Sub/Mul/Div/Gemm).
constexpr int64_t kMinOpset = 1;
/// Opsets 22-27 (onnx 1.22's schemas) change the ops aicc imports only by
/// widening type constraints (bf16/float8/int4 ...), except: Cast/CastLike 25
/// add round_mode (float8 only; aicc rejects float8 types), QuantizeLinear 25
/// adds precision and DequantizeLinear 25 output_dtype (checked by their
/// importers), Range 27 adds stash_type (f16/bf16 accumulation precision; aicc
/// folds Range in double precision), and pooling 22 states that windows
/// starting in the end padding are dropped (already so for ceil_mode).
constexpr int64_t kMaxOpset = 27;
/// IR versions 11-14 add element types (float4 / float8e8m0 / int2 / float6), which
/// the importer rejects by type, and (14) TypeProto.Opaque outside ONNX-ML builds,
/// which it rejects as a value that is not a tensor (onnx.proto's IR_VERSION notes).
constexpr int64_t kMaxIRVersion = 14;
/// Constants with more bytes than this become dense_resource blobs.
constexpr uint64_t kMaxDenseBytes = 64 * 1024;
/// Results of more elements than this are not folded to constants at import
/// (ImportFold.cpp; ConstantOfShape above it is a runtime fill).
constexpr int64_t kMaxFoldElements = 16384;
/// Cap on one table the importer computes on the host for a node (constant
/// index / coefficient tables of Resize, DFT, windows, folded constants ...):
/// such tables become constants of the bundle, so an op whose decomposition
/// needs more is refused (Importer::checkTable) rather than materialized.
constexpr int64_t kMaxImportTableBytes = int64_t(256) << 20;
/// Largest index sequence (Importer::iotaAlong) materialized as a constant; longer ones
/// are computed at run time.
constexpr int64_t kMaxIotaConstant = 65536;

/// A TensorProto.DataType for messages: its name ("FLOAT8E4M3FN", from
/// aicc/Support/ONNXDataTypeNames.h: the system libonnx may be older than the model), or
/// "unknown data type N".
std::string dataTypeName(int32_t dt);
/// TensorProto.DataType -> MLIR element type; null for unsupported types.
Type convertElementType(int32_t dt, MLIRContext *ctx);
/// MLIR element type -> TensorProto.DataType (UNDEFINED for others).
int32_t onnxDataType(Type t);
/// Bytes per element in ONNX raw_data / external data (BOOL: one byte).
uint64_t storageBytes(Type elementType);
bool isGraphFloat(Type t);
std::string shapeStr(llvm::ArrayRef<int64_t> shape);
/// Product of `dims`, or nullopt on overflow.
std::optional<int64_t> product(llvm::ArrayRef<int64_t> dims);
/// A resource blob key: the ONNX name with characters outside [A-Za-z0-9_.]
/// replaced, so the key prints as a bare identifier.
std::string blobKey(llvm::StringRef name);
/// AttributeProto.type, inferred from the field that is set for old models
/// that leave `type` unset.
int attrType(const onnx::AttributeProto &a);
llvm::StringRef attrTypeName(int t);

/// The node being imported: its proto, display name, location, attributes.
struct NodeCtx {
  const onnx::NodeProto &node;
  std::string name;
  Location loc;
  llvm::StringMap<const onnx::AttributeProto *> attrs;
  /// The attributes the importer looked up (findAttr), for checkUnreadAttributes.
  mutable llvm::StringSet<> readAttrs;

  llvm::StringRef opType() const { return node.op_type(); }
};

/// Why a tensor of `shape` and element type `elem` is refused under the size
/// cap `maxBytes` (ImportOptions::maxTensorBytes), or an empty string: a
/// negative or dynamic dim, a dim above the cap, a product of the non-zero dims
/// above it (which bounds every partial product of the shape), or elements x
/// bytes above it (all computed with overflow checks).
std::string tensorSizeProblem(llvm::ArrayRef<int64_t> shape, Type elem, uint64_t maxBytes);

/// The importer's backstop of the size discipline: checks the result types of
/// every op the importer's builder creates (tensorSizeProblem) and remembers
/// the first refused one; the importer reports it (located at the op, i.e. at
/// its node) and stops before the op's result is used.
struct SizeGuard : public OpBuilder::Listener {
  explicit SizeGuard(uint64_t maxBytes) : maxBytes(maxBytes) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override;

  uint64_t maxBytes;
  /// The first op with a refused result type, its type and the reason.
  Operation *badOp = nullptr;
  Type badType;
  std::string problem;
};

class Importer;
/// Imports node `nc` into `importer`'s graph: a located error and failure() when the node
/// is refused.
using OpHandler = LogicalResult (*)(Importer &importer, const NodeCtx &nc);

/// One row of the op table: op `opType` of ONNX domain `domain` ("" is the default
/// domain, ai.onnx) is imported by `handler` for models whose opset is at least
/// `sinceVersion`, the op's first version in ONNX's operator schemas (onnx/defs as of onnx
/// 1.22; the "since version" of docs/Operators.md). What changes between later versions
/// of the op is the handler's to check (Importer::opset).
struct OpEntry {
  std::string domain;
  std::string opType;
  int64_t sinceVersion;
  OpHandler handler;
};

/// The op table (ImportOpTable.cpp), built once from every family's register<Family>Ops.
class OpTable {
public:
  /// Adds a row; registering one (domain, op type) twice is a defect of the importer and
  /// aborts (report_fatal_error).
  void add(llvm::StringRef domain, llvm::StringRef opType, int64_t sinceVersion, OpHandler handler);
  /// A default-domain row.
  void add(llvm::StringRef opType, int64_t sinceVersion, OpHandler handler) {
    add("", opType, sinceVersion, handler);
  }
  /// The row of (domain, opType), "ai.onnx" meaning ""; null when there is none.
  const OpEntry *lookup(llvm::StringRef domain, llvm::StringRef opType) const;
  /// Every row, sorted by domain and op type.
  std::vector<const OpEntry *> entries() const;

private:
  llvm::StringMap<OpEntry> rows;
  llvm::StringSet<> domains;
};

class Importer {
public:
  Importer(MLIRContext &ctx, llvm::StringRef modelPath, const ImportOptions &opts)
      : ctx(ctx), opts(opts), b(&ctx),
        fileLoc(FileLineColLoc::get(&ctx, modelPath.empty() ? "<memory>" : modelPath, 0, 0)),
        guard(opts.maxTensorBytes) {
    modelDir = llvm::sys::path::parent_path(modelPath).str();
    b.setListener(&guard);
  }

  LogicalResult importModel(const onnx::ModelProto &model, ModuleOp module);

  /// The op table, built on first use (thread-safe) and immutable afterwards.
  static const OpTable &opTable();

private:
  /// A table handler calling member `Fn` (register<Family>Ops: `handle<&Importer::importX>`).
  template <auto Fn> static LogicalResult handle(Importer &im, const NodeCtx &nc) {
    return (im.*Fn)(nc);
  }
  /// A table handler that folds integer arithmetic on constants first (ImportCore.cpp).
  template <auto Fn> static LogicalResult foldIntBinaryOr(Importer &im, const NodeCtx &nc);
  // The families' registrations, one per Import<Family>.cpp (ImportOpTable.cpp calls them).
  static void registerCoreOps(OpTable &t);
  static void registerElementwiseOps(OpTable &t);
  static void registerTensorOps(OpTable &t);
  static void registerNNOps(OpTable &t);
  static void registerIndexOps(OpTable &t);
  static void registerSpatialOps(OpTable &t);
  static void registerRecurrentOps(OpTable &t);
  static void registerSignalOps(OpTable &t);
  static void registerIntegerOps(OpTable &t);
  static void registerLossOps(OpTable &t);
  static void registerTransformerOps(OpTable &t);
  static void registerMiscOps(OpTable &t);

  // Diagnostics.
  InFlightDiagnostic nodeError(const NodeCtx &nc) {
    return emitError(nc.loc) << nc.opType() << " node '" << nc.name << "': ";
  }
  Location nameLoc(llvm::StringRef name) {
    return NameLoc::get(StringAttr::get(&ctx, name), fileLoc);
  }

  // Sizes (the size discipline: include/aicc/Support/CheckedSize.h).
  /// Refuses (a located error naming the node and `what`) a tensor of `shape`
  /// and `elem` that tensorSizeProblem refuses. Call before allocating
  /// anything for the tensor or building its type.
  LogicalResult checkShape(const NodeCtx &nc, llvm::ArrayRef<int64_t> shape, Type elem,
                           const llvm::Twine &what);
  /// Refuses a host-side table of `count` entries of `entryBytes` bytes that the
  /// importer is about to allocate for node `nc` (a constant it materializes,
  /// coefficient tables, ...): above kMaxImportTableBytes, or overflowing.
  LogicalResult checkTable(const NodeCtx &nc, CheckedInt count, int64_t entryBytes,
                           const llvm::Twine &what);
  /// Reports the SizeGuard's refused op, if any (once), as an error of node
  /// `nc`; failure() then.
  LogicalResult checkGuard(const NodeCtx *nc);

  // onnx.checker's rules (ImportValidate.cpp).
  /// check_tensor: one data field (none when empty), the one data_type prescribes.
  LogicalResult validateTensorFields(const onnx::TensorProto &t, llvm::StringRef name,
                                     Location loc);
  /// Before a node is imported: attribute well-formedness, and per libonnx's schema the
  /// attribute names / types, required attributes, arity and input element types.
  LogicalResult validateNode(const NodeCtx &nc);
  /// After a node is imported, for opsets newer than libonnx's schemas: attributes that
  /// neither the old schema nor the importer knows.
  LogicalResult checkUnreadAttributes(const NodeCtx &nc);
  /// A declared type (graph output, value_info) that contradicts `v`'s.
  LogicalResult checkDeclaredType(const onnx::ValueInfoProto &vi, Value v, llvm::StringRef what);

  // Values.
  LogicalResult collectInitializers(const onnx::GraphProto &g);
  /// The value of graph input `vi` bound by `binding` (ImportOptions::bindInputs):
  /// reads and parses the TensorProto file, checks it against the declaration.
  FailureOr<ElementsAttr> loadBinding(const onnx::ValueInfoProto &vi, const InputBinding &binding);
  FailureOr<Value> lookup(llvm::StringRef name, Location useLoc, const NodeCtx *nc);
  FailureOr<Value> getInput(const NodeCtx &nc, int idx);
  FailureOr<Value> getOptionalInput(const NodeCtx &nc, int idx);
  /// Names output `outIdx` of the node `v`, folded to a graph.constant first when
  /// foldToConstant can.
  LogicalResult define(const NodeCtx &nc, int outIdx, Value v);
  /// When `v` is the result of a graph op whose operands are (or fold to) small dense
  /// constants, a new graph.constant of its value, which replaces `v`'s uses
  /// (ImportFold.cpp: which ops, and the exactness rules).
  /// `depth`: operands are folded first, recursively; chains deeper than
  /// kMaxFoldDepth (an unrolled recurrence of 65536 steps) are left unfolded rather
  /// than overflowing the stack (aicc-fuzz-onnx audit).
  std::optional<Value> foldToConstant(Value v, unsigned depth = 0);
  static constexpr unsigned kMaxFoldDepth = 256;
  LogicalResult checkArity(const NodeCtx &nc, int minIn, int maxIn, int maxOut);
  FailureOr<SmallVector<int64_t>> getConstantInts(const NodeCtx &nc, Value v, llvm::StringRef what,
                                                  bool allowBool = false);
  // Compound operand accessors (ImportOperands.cpp): each reports its one failure through
  // nodeError like the accessors it combines.
  /// How messages name input `idx` in role `role`: "shape input 'x'" ("shape input" when
  /// the node has no input `idx`).
  std::string inputWhat(const NodeCtx &nc, int idx, llvm::StringRef role);
  /// Optional input `idx` as constant integers (getConstantInts); nullopt when the node
  /// omits it (fewer inputs, or the name "").
  FailureOr<std::optional<SmallVector<int64_t>>> getOptionalConstantInts(const NodeCtx &nc, int idx,
                                                                         llvm::StringRef what);
  /// Gather / scatter indices: int32 or int64 elements (ONNX's T_IND / tensor(int64)), else
  /// "indices must be int32 or int64, got TYPE".
  LogicalResult checkIndexTensor(const NodeCtx &nc, RankedTensorType indices);
  /// Optional input `idx` as one constant scalar (getConstantScalar); nullopt when omitted.
  FailureOr<std::optional<double>> getOptionalConstantScalar(const NodeCtx &nc, int idx,
                                                             llvm::StringRef what);

  /// When `v` (input #`inputIdx` of `nc`) is a constant (an initializer, a Constant node,
  /// a folded value), refuses its first element outside [-n, n), n = bounds[p %
  /// bounds.size()] for the element at row-major position p (one bound for Gather's
  /// indices, one per coordinate for GatherND / ScatterND tuples), with a located error
  /// naming the input, the position and the range (onnxruntime fails such a Gather /
  /// Scatter at run time). Succeeds for indices computed at run time, which nothing
  /// checks (the kernels clamp or wrap them).
  LogicalResult checkConstantIndices(const NodeCtx &nc, int inputIdx, Value v,
                                     llvm::ArrayRef<int64_t> bounds);

  // Types and tensors.
  FailureOr<RankedTensorType> convertValueInfo(const onnx::ValueInfoProto &vi,
                                               llvm::StringRef what);
  FailureOr<ElementsAttr> convertTensor(const onnx::TensorProto &t, llvm::StringRef name,
                                        Location loc);
  FailureOr<RankedTensorType> checkFloat(const NodeCtx &nc, Value v, llvm::StringRef what);

  // Attributes.
  const onnx::AttributeProto *findAttr(const NodeCtx &nc, llvm::StringRef name) {
    nc.readAttrs.insert(name);
    auto it = nc.attrs.find(name);
    return it == nc.attrs.end() ? nullptr : it->second;
  }
  LogicalResult attrTypeError(const NodeCtx &nc, const onnx::AttributeProto &a, int want) {
    return nodeError(nc) << "attribute '" << a.name() << "' must be " << attrTypeName(want)
                         << ", got " << attrTypeName(attrType(a));
  }
  FailureOr<int64_t> getInt(const NodeCtx &nc, llvm::StringRef name, int64_t dflt);
  FailureOr<float> getFloat(const NodeCtx &nc, llvm::StringRef name, float dflt);
  FailureOr<std::string> getString(const NodeCtx &nc, llvm::StringRef name, llvm::StringRef dflt);
  FailureOr<std::optional<SmallVector<int64_t>>> getInts(const NodeCtx &nc, llvm::StringRef name);
  FailureOr<int64_t> normalizeAxis(const NodeCtx &nc, int64_t axis, int64_t rank, bool allowRank);

  // Ops.
  /// Imports `nc` by its row of the op table (ImportOpTable.cpp): refused when no row has
  /// its (domain, op type), or when the model's opset is below the row's sinceVersion.
  LogicalResult importNode(const NodeCtx &nc);
  /// And, Or, Xor (bool operands).
  LogicalResult importLogical(const NodeCtx &nc);
  LogicalResult importGatherElements(const NodeCtx &nc);
  LogicalResult importCastLike(const NodeCtx &nc);
  LogicalResult importShrink(const NodeCtx &nc);
  LogicalResult importTrilu(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importBinary(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importUnary(const NodeCtx &nc);
  LogicalResult importGelu(const NodeCtx &nc);
  LogicalResult importMatMul(const NodeCtx &nc);
  LogicalResult importGemm(const NodeCtx &nc);
  /// A Softmax-family node's (Softmax, LogSoftmax, Hardmax) float input of rank >= 1 and its
  /// `axis` (default -1 from opset 13, 1 before). Before opset 13 the op normalizes the input
  /// coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] along dim 1: then `x` is that
  /// reshape and `axis` 1, unless axis is the last dim (both readings agree); else `x` is the
  /// input.
  struct SoftmaxArgs {
    Value input;
    RankedTensorType type;
    Value x;
    int64_t axis;
  };
  FailureOr<SoftmaxArgs> parseSoftmaxArgs(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importSoftmaxLike(const NodeCtx &nc);
  LogicalResult importReshape(const NodeCtx &nc);
  LogicalResult importFlatten(const NodeCtx &nc);
  LogicalResult importTranspose(const NodeCtx &nc);
  struct ReduceArgs {
    Value input;
    SmallVector<int64_t> axes;
    bool keepdims = true, noop = false;
    bool fromBool = false; // a bool input, cast to f32 (allowBool only)
  };
  FailureOr<ReduceArgs> parseReduce(const NodeCtx &nc, int axesInputSince,
                                    bool allowBool = false);
  template <typename OpTy>
  Value buildReduce(Location loc, Value in, ArrayRef<int64_t> axes, bool keepdims) {
    auto t = cast<RankedTensorType>(in.getType());
    auto shape = graph::reducedShape(t.getShape(), axes, keepdims);
    return OpTy::create(b, loc, RankedTensorType::get(*shape, t.getElementType()), in,
                        b.getDenseI64ArrayAttr(axes), b.getBoolAttr(keepdims));
  }
  template <typename OpTy> LogicalResult importReduce(const NodeCtx &nc, int axesInputSince);
  LogicalResult importReduceComposite(const NodeCtx &nc);
  LogicalResult importShapeOp(const NodeCtx &nc);
  LogicalResult importPRelu(const NodeCtx &nc);
  LogicalResult importConv(const NodeCtx &nc);
  LogicalResult importPool(const NodeCtx &nc);
  LogicalResult importGlobalPool(const NodeCtx &nc);
  struct Window {
    SmallVector<int64_t> kernel, strides, pads, dilations, out;
  };
  /// Kernel, strides, pads (begin..., end...), dilations and output sizes of a conv / pool,
  /// from its attributes (auto_pad, ceil_mode) and the input's spatial sizes.
  FailureOr<Window> windowGeometry(const NodeCtx &nc, ArrayRef<int64_t> spatial,
                                   ArrayRef<int64_t> kernel, bool allowCeil);
  /// MaxPool's Indices output for input `x`, pooled output `y` and window `w`.
  FailureOr<Value> maxPoolIndices(const NodeCtx &nc, Value x, Value y, const Window &w,
                                  int64_t storageOrder);
  LogicalResult importSlice(const NodeCtx &nc);
  LogicalResult importPad(const NodeCtx &nc);
  LogicalResult importTile(const NodeCtx &nc);
  LogicalResult importSplit(const NodeCtx &nc);
  LogicalResult importDepthToSpace(const NodeCtx &nc, bool toSpace);
  LogicalResult importBatchNorm(const NodeCtx &nc);
  LogicalResult importInstanceNorm(const NodeCtx &nc);
  LogicalResult importLayerNorm(const NodeCtx &nc);
  LogicalResult importGroupNorm(const NodeCtx &nc);
  /// Broadcasting binary op (numpy rules). Operands that do not broadcast (a LayerNormalization
  /// Scale of the wrong shape, say) are a defect of the model, not of the decomposition: the op
  /// is built with x's type and recorded in the size guard, so that checkGuard fails the node
  /// with both shapes once it is imported (before, *shape dereferenced an empty optional).
  template <typename OpTy> Value bin(Location loc, Value x, Value y) {
    auto xt = cast<RankedTensorType>(x.getType()), yt = cast<RankedTensorType>(y.getType());
    auto shape = graph::broadcastShapes(xt.getShape(), yt.getShape());
    auto op = OpTy::create(b, loc, succeeded(shape) ? RankedTensorType::get(*shape, xt.getElementType()) : xt,
                           x, y);
    if (failed(shape) && !guard.badOp) {
      guard.badOp = op;
      guard.badType = yt;
      llvm::raw_string_ostream(guard.problem) << "does not broadcast with " << xt << " (numpy rules)";
    }
    return op;
  }
  Value scalarF(Location loc, Type elem, double v) {
    auto t = RankedTensorType::get({}, elem);
    return createConstant(loc, DenseElementsAttr::get(t, b.getFloatAttr(elem, v)));
  }
  /// (x - mean(x, axes)) / sqrt(var(x, axes) + eps), biased variance (ONNX definitions).
  Value normalize(Location loc, Value x, ArrayRef<int64_t> axes, double eps) {
    auto t = cast<RankedTensorType>(x.getType());
    Value mean = buildReduce<graph::ReduceMeanOp>(loc, x, axes, true);
    Value d = bin<graph::SubOp>(loc, x, mean);
    Value var = buildReduce<graph::ReduceMeanOp>(loc, bin<graph::MulOp>(loc, d, d), axes, true);
    Value denom = graph::SqrtOp::create(
        b, loc, var.getType(), bin<graph::AddOp>(loc, var, scalarF(loc, t.getElementType(), eps)));
    return bin<graph::DivOp>(loc, d, denom);
  }
  LogicalResult importSqueeze(const NodeCtx &nc, bool unsqueeze);
  LogicalResult importRange(const NodeCtx &nc);
  LogicalResult importConstantOfShape(const NodeCtx &nc);
  LogicalResult importExpand(const NodeCtx &nc);
  LogicalResult importGather(const NodeCtx &nc);
  LogicalResult importConcat(const NodeCtx &nc);
  /// Integer constant contents (any rank, at most 4096 elements), for folding shape math.
  std::optional<SmallVector<int64_t>> intConstant(Value v);
  /// Folds an integer binary op when both operands are small constants.
  std::optional<Value> foldIntBinary(const NodeCtx &nc, llvm::StringRef op);
  template <typename OpTy> LogicalResult importCompare(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importVariadic(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importNumUnary(const NodeCtx &nc);
  LogicalResult importParamUnary(const NodeCtx &nc);
  LogicalResult importClip(const NodeCtx &nc);
  LogicalResult importPow(const NodeCtx &nc);
  LogicalResult importMod(const NodeCtx &nc);
  LogicalResult importMean(const NodeCtx &nc);
  LogicalResult importWhere(const NodeCtx &nc);
  LogicalResult importCast(const NodeCtx &nc);
  LogicalResult castFloat8Attrs(const NodeCtx &nc);
  LogicalResult importNot(const NodeCtx &nc);
  /// The value of a constant scalar (float or integer) operand.
  FailureOr<double> getConstantScalar(const NodeCtx &nc, Value v, llvm::StringRef what);
  /// The elements (row-major, any rank, at most 65536) of a constant float or
  /// integer operand, as doubles.
  FailureOr<SmallVector<double>> getConstantFloats(const NodeCtx &nc, Value v,
                                                   llvm::StringRef what);
  /// `v` (a scalar read from a constant operand) as an int64: refused (a located error
  /// naming `what`) unless finite, integral and at most 2^62 in magnitude (a cast of
  /// anything else is undefined behaviour).
  FailureOr<int64_t> toInt(const NodeCtx &nc, double v, llvm::StringRef what);
  /// The one diagnostic for "`what` (value `v`) must be a compile-time constant";
  /// names the graph input and --bind-input when `v` is one. Always failure().
  LogicalResult notConstantError(const NodeCtx &nc, Value v, llvm::StringRef what);
  Value castTo(Location loc, Value v, Type elem) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() == elem)
      return v;
    return graph::CastOp::create(b, loc, RankedTensorType::get(t.getShape(), elem), v);
  }
  LogicalResult importIdentity(const NodeCtx &nc);
  LogicalResult importDropout(const NodeCtx &nc);
  LogicalResult importConstant(const NodeCtx &nc);
  /// Constants go to the top of the function, in creation order.
  Value createConstant(Location loc, ElementsAttr value) {
    OpBuilder::InsertionGuard guard(b);
    if (lastConstant)
      b.setInsertionPointAfter(lastConstant);
    else
      b.setInsertionPointToStart(entryBlock);
    lastConstant = graph::ConstantOp::create(b, loc, value);
    return lastConstant->getResult(0);
  }
  Value reshape(Location loc, Value v, llvm::ArrayRef<int64_t> shape) {
    auto t = cast<RankedTensorType>(v.getType());
    return graph::ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v);
  }

  //===--------------------------------------------------------------------===//
  // Graph builders (ImportBuilders.cpp; createConstant, reshape, castTo, bin
  // and scalarF above). Result types are derived from the operands, which the
  // caller has checked.
  //===--------------------------------------------------------------------===//

  /// A constant of `type` from row-major little-endian element bytes (dense when at most
  /// kMaxDenseBytes, else a resource blob named after `blobName`). Not for i1.
  Value rawConstant(Location loc, RankedTensorType type, ArrayRef<char> bytes,
                    llvm::StringRef blobName);
  /// A constant of `type` holding `values` (row-major; rounded to nearest for a float
  /// type, truncated toward zero for an integer type, NaN -> 0), as rawConstant.
  Value constantOf(Location loc, RankedTensorType type, ArrayRef<double> values,
                   llvm::StringRef blobName);
  /// A constant of integer `type` holding `values`, wrapped to the element width (two's
  /// complement, as the kernels compute); always dense (shape arithmetic, index tables
  /// within kMaxIotaConstant).
  Value intConstantOf(Location loc, RankedTensorType type, ArrayRef<int64_t> values);
  /// `size` elements of `v` along `dim` from `start` with `step` (graph.slice; other dims
  /// whole): `v` itself when that is all of it; with unit steps, a new constant when `v`
  /// is one (weights are sliced at import, not at run time).
  Value slice(Location loc, Value v, int64_t dim, int64_t start, int64_t size, int64_t step = 1);
  /// reshape(), folded into a new constant when `v` is one.
  Value reshapeFolded(Location loc, Value v, ArrayRef<int64_t> shape);
  /// graph.concat of same-rank tensors along `axis` (in range); the value itself when
  /// there is one.
  Value concat(Location loc, ValueRange vs, int64_t axis);
  /// graph.transpose, the result shape permuted by `perm`.
  Value transpose(Location loc, Value v, ArrayRef<int64_t> perm);

  //===--------------------------------------------------------------------===//
  // Op families, one source file each, registering its ops in the op table
  // (register<Family>Ops above). Helpers a family needs are declared in its
  // section below.
  //===--------------------------------------------------------------------===//

  // ImportLoss.cpp: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
  // -- ImportLoss.cpp helpers --
  LogicalResult importNegativeLogLikelihoodLoss(const NodeCtx &nc);
  LogicalResult importSoftmaxCrossEntropyLoss(const NodeCtx &nc);
  /// The reduction, ignore_index, target and weight checks shared by both loss ops.
  struct LossArgs {
    std::string reduction;
    std::optional<int64_t> ignoreIndex;
  };
  FailureOr<LossArgs> parseLossArgs(const NodeCtx &nc, RankedTensorType input, Value target,
                                    Value weight);
  /// NegativeLogLikelihoodLoss of `logProb` [N, C, d1..dk] at `target` [N, d1..dk] with the
  /// optional `weight` [C] (null when absent), per the ONNX operator's function body.
  Value buildNLLLoss(Location loc, Value logProb, Value target, Value weight,
                     const LossArgs &args);
  /// Sum of every element of `v`, a rank-0 tensor; reductions of more than 4096
  /// elements are split (the one-pass reduction template's limit).
  Value sumAll(Location loc, Value v);

  // ImportIndex.cpp: ArgMax/ArgMin, Hardmax, TopK, CumSum, OneHot, GatherND,
  // Scatter*, Einsum and other index-arithmetic ops.
  // -- ImportIndex.cpp helpers --
  /// NonZero of a compile-time constant input (folds to a constant).
  LogicalResult importNonZero(const NodeCtx &nc);
  // (ArgMax / ArgMin / Hardmax / TopK block)
  LogicalResult importArgMinMax(const NodeCtx &nc, bool isMax);
  LogicalResult importHardmax(const NodeCtx &nc);
  LogicalResult importTopK(const NodeCtx &nc);
  /// 0, 1, ..., n - 1 along `axis` of a tensor of `rank` dims (the others 1), in `elem`:
  /// an integer type (the indices wrap to its width) or a float type that holds them
  /// exactly (see indexFloatType). Up to kMaxIotaConstant elements a constant; above,
  /// hi * B + lo computed at run time from two constants of B = ceil(sqrt(n)) elements,
  /// so that compile-time memory and the bundle grow with sqrt(n) (fuzz finding: a
  /// GridSample batch of 4.6e8 built a 3.7 GB offset table in the importer).
  Value iotaAlong(Location loc, int64_t rank, int64_t axis, int64_t n, Type elem);
  /// f32 when every index below `n` is exact in it (n <= 2^24), else f64.
  Type indexFloatType(int64_t n) {
    return n <= (int64_t(1) << 24) ? Type(b.getF32Type()) : Type(b.getF64Type());
  }
  /// Index of the first (or, with `selectLast`, the last) maximum (`isMax`) or minimum of
  /// float `x` along `axis`, as a float of indexFloatType (exact), dim `axis` kept with
  /// size 1 when `keepdims`. NaN counts as the extreme (numpy argmax/argmin).
  Value argIndex(Location loc, Value x, int64_t axis, bool isMax, bool selectLast,
                 bool keepdims);
  // (end of the ArgMax / ArgMin / Hardmax / TopK block)
  /// CumSum, or CumProd when `product`.
  LogicalResult importCumulative(const NodeCtx &nc, bool product);
  LogicalResult importOneHot(const NodeCtx &nc);
  LogicalResult importEyeLike(const NodeCtx &nc);
  LogicalResult importGatherND(const NodeCtx &nc);
  LogicalResult importScatterElements(const NodeCtx &nc);
  LogicalResult importScatterND(const NodeCtx &nc);
  LogicalResult importEinsum(const NodeCtx &nc);
  FailureOr<std::string> scatterReduction(const NodeCtx &nc);
  // (shifts along an axis: shiftWithFill, in the Misc section)

  // ImportSpatial.cpp: Resize, Upsample, ConvTranspose and other spatial ops.
  // -- ImportSpatial.cpp helpers --
  LogicalResult importResize(const NodeCtx &nc);
  LogicalResult importConvTranspose(const NodeCtx &nc);
  LogicalResult importGridSample(const NodeCtx &nc);
  /// One tap of a separable resampling along `axis`: result[.., o, ..] =
  /// coeff[o] * x[.., index[o], ..] for o < index.size() (a constant-index gather,
  /// times a constant broadcast along `axis` unless every coeff is 1). Float x
  /// unless every coeff is 1.
  Value resampleAxis(Location loc, Value x, int64_t axis, ArrayRef<int64_t> index,
                     ArrayRef<double> coeff);
  /// result[.., o, ..] = sum_i w[o * in + i] * x[.., i, ..] along `axis` (float x),
  /// as one matmul with the constant W[out, in].
  Value resampleAxisMatmul(Location loc, Value x, int64_t axis, int64_t out, ArrayRef<double> w);

  // ImportRecurrent.cpp: RNN, LSTM, GRU (unrolled over the static sequence).
  // -- ImportRecurrent.cpp helpers --
  /// One activation of an RNN/GRU/LSTM with its alpha and beta (ONNX operator spec, LSTM,
  /// "Activation functions"); `name` is lower-case.
  struct RnnActivation {
    std::string name;
    double alpha = 0, beta = 0;
  };
  LogicalResult importRecurrent(const NodeCtx &nc);
  /// The `activations` attribute (or `defaults`), `perDirection` functions for each of
  /// `numDirections` directions, with activation_alpha/beta consumed in order.
  FailureOr<SmallVector<RnnActivation>>
  getRnnActivations(const NodeCtx &nc, ArrayRef<llvm::StringRef> defaults, int64_t numDirections);
  Value applyRnnActivation(Location loc, const RnnActivation &act, Value x);
  /// A STRINGS / FLOATS attribute; empty when absent.
  FailureOr<SmallVector<std::string>> getStringList(const NodeCtx &nc, llvm::StringRef name);
  FailureOr<SmallVector<float>> getFloatList(const NodeCtx &nc, llvm::StringRef name);

  // ImportInteger.cpp: BitShift, QuantizeLinear, DequantizeLinear and other
  // integer-arithmetic ops.
  // -- ImportInteger.cpp helpers --
  LogicalResult importBitShift(const NodeCtx &nc);
  LogicalResult importQuantizeLinear(const NodeCtx &nc);
  LogicalResult importDequantizeLinear(const NodeCtx &nc);
  LogicalResult importDynamicQuantizeLinear(const NodeCtx &nc);
  LogicalResult importMatMulInteger(const NodeCtx &nc);
  LogicalResult importConvInteger(const NodeCtx &nc);
  /// A (De)QuantizeLinear scale or zero point `p` made broadcastable against x (type `xt`):
  /// a scalar or 1-element 1-D tensor (per tensor) becomes rank 0; a 1-D tensor of
  /// x.shape[axis] values (per axis, opset >= 13; `axis` in [-rank, rank)) becomes
  /// [C, 1, ..., 1].
  FailureOr<Value> quantParam(const NodeCtx &nc, Value p, RankedTensorType xt, int64_t axis,
                              llvm::StringRef what);
  /// saturate(round_half_even(x / scale) + zeroPoint) as `qType` (an 8-bit integer type);
  /// x, scale (and zeroPoint, when not null) broadcast; computed in x's float type.
  Value quantizeTo(Location loc, Value x, Value scale, Value zeroPoint, Type qType);
  /// `v` - `zp` as f64 (`zp` null: just `v`): `zp` is a scalar, a 1-element 1-D tensor, or a
  /// 1-D tensor of zpShape[0] values reshaped to `zpShape` (empty: scalars only).
  FailureOr<Value> minusZeroPoint(const NodeCtx &nc, Value v, Value zp,
                                  llvm::ArrayRef<int64_t> zpShape, llvm::StringRef what);

  // ImportSignal.cpp: HannWindow, HammingWindow, BlackmanWindow, DFT, STFT, MelWeightMatrix.
  // -- ImportSignal.cpp helpers --
  LogicalResult importWindow(const NodeCtx &nc);
  LogicalResult importDFT(const NodeCtx &nc);
  LogicalResult importSTFT(const NodeCtx &nc);
  LogicalResult importMelWeightMatrix(const NodeCtx &nc);
  /// The element type named by the `output_datatype` attribute (default FLOAT).
  FailureOr<Type> getOutputDataType(const NodeCtx &nc);
  /// DFT of `x` ([..., C], C = 1 real or 2 complex) along `axis` (< rank - 1) with `length`
  /// points; result [..., K at axis, ..., 2], K = length or length / 2 + 1 when onesided.
  /// `weights` (empty, or one per sample along axis) multiply the samples first.
  FailureOr<Value> buildDFT(const NodeCtx &nc, Value x, int64_t axis, int64_t length, bool inverse,
                            bool onesided, ArrayRef<double> weights = {});

  // ImportTransformer.cpp: Attention, RMSNormalization, RotaryEmbedding (opsets 23-24) and
  // the activations Swish, Mish, decomposed into existing graph ops.
  // -- ImportTransformer.cpp helpers --
  LogicalResult importAttention(const NodeCtx &nc);
  LogicalResult importRMSNormalization(const NodeCtx &nc);
  LogicalResult importRotaryEmbedding(const NodeCtx &nc);
  LogicalResult importSwish(const NodeCtx &nc);
  LogicalResult importMish(const NodeCtx &nc);

  // ImportMisc.cpp: ops that fit no family above.
  // -- ImportMisc.cpp helpers --
  LogicalResult importThresholdedRelu(const NodeCtx &nc);
  LogicalResult importIsInfNaN(const NodeCtx &nc);
  LogicalResult importLRN(const NodeCtx &nc);
  LogicalResult importMVN(const NodeCtx &nc);
  // (LpPool / GlobalLpPool / LpNormalization / CumProd / CenterCropPad / Col2Im /
  //  AffineGrid / TensorScatter block)
  LogicalResult importLpPool(const NodeCtx &nc);
  LogicalResult importGlobalLpPool(const NodeCtx &nc);
  LogicalResult importLpNormalization(const NodeCtx &nc);
  LogicalResult importCenterCropPad(const NodeCtx &nc);
  LogicalResult importCol2Im(const NodeCtx &nc);
  LogicalResult importAffineGrid(const NodeCtx &nc);
  LogicalResult importTensorScatter(const NodeCtx &nc);
  /// LpPool's / GlobalLpPool's `p` (INT attribute since opset 2, FLOAT in opset 1), > 0.
  FailureOr<double> getLpPoolP(const NodeCtx &nc);
  /// |x|^p of float `x` (x * x for p = 2, |x| for p = 1), same type.
  Value lpPower(Location loc, Value x, double p);
  /// s^(1/p) of float `s` (sqrt for p = 2, s for p = 1), same type.
  Value lpRoot(Location loc, Value s, double p);
  /// `v` shifted by `s` > 0 positions along `axis` (toward higher indices, or lower ones
  /// when `backward`), `fill` shifted in; same type. Numeric element types.
  Value shiftWithFill(Location loc, Value v, int64_t axis, int64_t s, bool backward,
                      double fill);
  // (end of the LpPool ... TensorScatter block)

  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//
  MLIRContext &ctx;
  const ImportOptions &opts;
  /// The ImportOptions::dimParams some graph input used (the rest are reported).
  llvm::StringSet<> usedDimParams;
  /// The value each ONNX dim_param of the graph inputs was fixed to (--shape, --dim,
  /// --bind-input), and by what: one dim_param is one size in every input.
  llvm::StringMap<std::pair<int64_t, std::string>> dimParamValues;
  /// Records dim_param `param` = `value` fixed by `source`; a different earlier value is an
  /// error at `loc` naming both.
  LogicalResult noteDimParam(llvm::StringRef param, int64_t value, const std::string &source,
                             Location loc);
  /// Before the graph inputs are converted: --shape / --dim given twice or with a dim
  /// outside [0, 2^31), --shape naming no graph argument (an unknown, bound or initializer
  /// name). Located errors at the file.
  LogicalResult checkShapeOptions(const onnx::GraphProto &g,
                                  const llvm::StringMap<const InputBinding *> &bindings);
  /// After: a --dim that fixed no input and agrees with no dim_param fixed otherwise.
  LogicalResult checkDimParamsUsed(const onnx::GraphProto &g);
  /// "a, b, c": the graph inputs that are not initializers (for messages).
  std::string graphInputList(const onnx::GraphProto &g);
  OpBuilder b;
  Location fileLoc;
  SizeGuard guard;
  bool guardReported = false;
  std::string modelDir;
  int64_t opset = 0;
  Block *entryBlock = nullptr;
  Operation *lastConstant = nullptr;
  llvm::StringMap<Value> values;
  /// Ops foldToConstant tried and could not fold.
  llvm::DenseSet<Operation *> notFoldable;
  llvm::StringMap<const onnx::TensorProto *> initializers;
  /// Names read by some node or by the graph outputs.
  llvm::StringSet<> usedNames;

  //===--------------------------------------------------------------------===//
  // Values computed from symbolic dims (ImportShapeTaint.cpp; ImportOptions::shapeReferences)
  //===--------------------------------------------------------------------===//
  /// How a value depends on the size of a symbolic dim, per element (one entry for the
  /// whole value when it is not small), in increasing order: kShapeFree, kShapeSize (a
  /// symbolic dim's size or a sum of them: at least 1 at every value), kShapeLinear (a sum
  /// of multiples of sizes and constants: +, -, x by a constant), kShapeOther (any other
  /// function).
  /// kShapeData: elements that do not depend on the value while their count does (Range(0,
  /// n), ConstantOfShape, Expand of untainted data, and elementwise functions of them).
  enum ShapeTaint : uint8_t {
    kShapeFree = 0,
    kShapeSize = 1,
    kShapeLinear = 2,
    kShapeData = 3,
    kShapeOther = 4
  };
  llvm::StringMap<SmallVector<uint8_t>> shapeTaint;
  /// For a value tainted kShapeOther: the node that made a size into it ("node 'N' (Op)"),
  /// which a refusal further down names.
  llvm::StringMap<std::string> shapeOtherOrigin;
  /// Graph constants holding a value with a taint: the node that made each, and whether the
  /// graph may not read it as data (a taint other than kShapeData).
  llvm::DenseMap<Operation *, std::pair<std::string, bool>> taintedConstants;
  /// The taint of input `i` of `node` (empty: untainted or absent).
  ArrayRef<uint8_t> inputTaint(const onnx::NodeProto &node, int i) const;
  /// The taint of output 0 of node `nc` from its inputs' (some input is tainted).
  SmallVector<uint8_t> outputTaint(const NodeCtx &nc);
  /// Shape / Size of `in` (named `inName`): logs its shape (ImportOptions::shapeLog) and
  /// returns the taint of each of its dims (kShapeLinear where a reference differs).
  SmallVector<uint8_t> shapeDimTaint(llvm::StringRef inName, RankedTensorType in);
  /// After node `nc` was imported: the taint of its outputs from its inputs'; a node that
  /// reads a kShapeOther value and defines a value that is not a constant is refused.
  LogicalResult propagateShapeTaint(const NodeCtx &nc);
  /// After the last node: a tainted constant that the graph's results depend on is refused.
  LogicalResult checkShapeTaintUnused(Block &entry, ArrayRef<Value> results);
};

} // namespace aicc::onnx_import::detail

#endif // AICC_LIB_TARGET_ONNX_IMPORTER_H
