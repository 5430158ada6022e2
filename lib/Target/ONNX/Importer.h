//===- Importer.h - the ONNX importer's private interface -------*- C++ -*-===//
//
// Shared by the importer's source files (ImportONNX.cpp: model, values,
// tensors, core ops; Import<Family>.cpp: one file per op family). Not a public
// header: the public entry points are in include/aicc/Target/ONNX/ImportONNX.h.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_TARGET_ONNX_IMPORTER_H
#define AICC_LIB_TARGET_ONNX_IMPORTER_H

#include "aicc/Target/ONNX/ImportONNX.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
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
/// IR versions 11-13 add element types only (float4/float8e8m0/int2), which
/// the importer rejects by type.
constexpr int64_t kMaxIRVersion = 13;
/// Constants with more bytes than this become dense_resource blobs.
constexpr uint64_t kMaxDenseBytes = 64 * 1024;

/// Names of TensorProto.DataType values (onnx.proto, IR version 11), for
/// messages: the system libonnx may be older than the model.
llvm::StringRef dataTypeName(int32_t dt);
/// TensorProto.DataType -> MLIR element type; null for unsupported types.
Type convertElementType(int32_t dt, MLIRContext *ctx);
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

  llvm::StringRef opType() const { return node.op_type(); }
};

class Importer {
public:
  Importer(MLIRContext &ctx, llvm::StringRef modelPath)
      : ctx(ctx), b(&ctx),
        fileLoc(FileLineColLoc::get(&ctx, modelPath.empty() ? "<memory>" : modelPath, 0, 0)) {
    modelDir = llvm::sys::path::parent_path(modelPath).str();
  }

  LogicalResult importModel(const onnx::ModelProto &model, ModuleOp module);

private:
  // Diagnostics.
  InFlightDiagnostic nodeError(const NodeCtx &nc) {
    return emitError(nc.loc) << nc.opType() << " node '" << nc.name << "': ";
  }
  Location nameLoc(llvm::StringRef name) {
    return NameLoc::get(StringAttr::get(&ctx, name), fileLoc);
  }

  // Values.
  LogicalResult collectInitializers(const onnx::GraphProto &g);
  FailureOr<Value> lookup(llvm::StringRef name, Location useLoc, const NodeCtx *nc);
  FailureOr<Value> getInput(const NodeCtx &nc, int idx);
  FailureOr<Value> getOptionalInput(const NodeCtx &nc, int idx);
  LogicalResult define(const NodeCtx &nc, int outIdx, Value v);
  LogicalResult checkArity(const NodeCtx &nc, int minIn, int maxIn, int maxOut);
  FailureOr<SmallVector<int64_t>> getConstantInts(const NodeCtx &nc, Value v, llvm::StringRef what,
                                                  bool allowBool = false);

  // Types and tensors.
  FailureOr<RankedTensorType> convertValueInfo(const onnx::ValueInfoProto &vi,
                                               llvm::StringRef what);
  FailureOr<ElementsAttr> convertTensor(const onnx::TensorProto &t, llvm::StringRef name,
                                        Location loc);
  FailureOr<RankedTensorType> checkFloat(const NodeCtx &nc, Value v, llvm::StringRef what);

  // Attributes.
  const onnx::AttributeProto *findAttr(const NodeCtx &nc, llvm::StringRef name) {
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
  LogicalResult importNode(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importBinary(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importUnary(const NodeCtx &nc);
  LogicalResult importGelu(const NodeCtx &nc);
  LogicalResult importMatMul(const NodeCtx &nc);
  LogicalResult importGemm(const NodeCtx &nc);
  template <typename OpTy> LogicalResult importSoftmaxLike(const NodeCtx &nc);
  LogicalResult importReshape(const NodeCtx &nc);
  LogicalResult importFlatten(const NodeCtx &nc);
  LogicalResult importTranspose(const NodeCtx &nc);
  struct ReduceArgs {
    Value input;
    SmallVector<int64_t> axes;
    bool keepdims = true, noop = false;
  };
  FailureOr<ReduceArgs> parseReduce(const NodeCtx &nc, int axesInputSince);
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
  LogicalResult importSlice(const NodeCtx &nc);
  LogicalResult importPad(const NodeCtx &nc);
  LogicalResult importTile(const NodeCtx &nc);
  LogicalResult importSplit(const NodeCtx &nc);
  LogicalResult importDepthToSpace(const NodeCtx &nc, bool toSpace);
  LogicalResult importBatchNorm(const NodeCtx &nc);
  LogicalResult importInstanceNorm(const NodeCtx &nc);
  LogicalResult importLayerNorm(const NodeCtx &nc);
  LogicalResult importGroupNorm(const NodeCtx &nc);
  /// Broadcasting binary op (numpy rules; operands must broadcast).
  template <typename OpTy> Value bin(Location loc, Value x, Value y) {
    auto xt = cast<RankedTensorType>(x.getType()), yt = cast<RankedTensorType>(y.getType());
    auto shape = graph::broadcastShapes(xt.getShape(), yt.getShape());
    return OpTy::create(b, loc, RankedTensorType::get(*shape, xt.getElementType()), x, y);
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
  Value intConstantOf(Location loc, RankedTensorType type, ArrayRef<int64_t> values);
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
  LogicalResult importNot(const NodeCtx &nc);
  /// The value of a constant scalar (float or integer) operand.
  FailureOr<double> getConstantScalar(const NodeCtx &nc, Value v, llvm::StringRef what);
  /// The elements (row-major, any rank, at most 65536) of a constant float or
  /// integer operand, as doubles.
  FailureOr<SmallVector<double>> getConstantFloats(const NodeCtx &nc, Value v,
                                                   llvm::StringRef what);
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
  // Op families, one source file each. Each returns std::nullopt when `nc` is
  // not one of its ops, else the import's result. Helpers a family needs are
  // declared in its section below.
  //===--------------------------------------------------------------------===//

  /// ImportLoss.cpp: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
  std::optional<LogicalResult> importLossOps(const NodeCtx &nc);
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

  /// ImportIndex.cpp: ArgMax/ArgMin, Hardmax, TopK, CumSum, OneHot, GatherND,
  /// Scatter*, Einsum and other index-arithmetic ops.
  std::optional<LogicalResult> importIndexOps(const NodeCtx &nc);
  // -- ImportIndex.cpp helpers --
  // (ArgMax / ArgMin / Hardmax / TopK block)
  LogicalResult importArgMinMax(const NodeCtx &nc, bool isMax);
  LogicalResult importHardmax(const NodeCtx &nc);
  LogicalResult importTopK(const NodeCtx &nc);
  /// 0, 1, ..., shape[axis] - 1 along `axis` of a constant of `rank` dims (the others 1),
  /// in `elem` (a float type that holds the indices exactly, see indexFloatType).
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

  /// ImportSpatial.cpp: Resize, Upsample, ConvTranspose and other spatial ops.
  std::optional<LogicalResult> importSpatialOps(const NodeCtx &nc);
  // -- ImportSpatial.cpp helpers --

  /// ImportRecurrent.cpp: RNN, LSTM, GRU (unrolled over the static sequence).
  std::optional<LogicalResult> importRecurrentOps(const NodeCtx &nc);
  // -- ImportRecurrent.cpp helpers --

  /// ImportInteger.cpp: BitShift, QuantizeLinear, DequantizeLinear and other
  /// integer-arithmetic ops.
  std::optional<LogicalResult> importIntegerOps(const NodeCtx &nc);
  // -- ImportInteger.cpp helpers --

  /// ImportTransformer.cpp: Attention, RMSNormalization, RotaryEmbedding (opsets 23-24) and
  /// the activations Swish, Mish, decomposed into existing graph ops.
  std::optional<LogicalResult> importTransformerOps(const NodeCtx &nc);
  // -- ImportTransformer.cpp helpers --
  LogicalResult importAttention(const NodeCtx &nc);
  LogicalResult importRMSNormalization(const NodeCtx &nc);
  LogicalResult importRotaryEmbedding(const NodeCtx &nc);
  LogicalResult importSwish(const NodeCtx &nc);
  LogicalResult importMish(const NodeCtx &nc);
  /// A constant of float `type` holding `values` (row-major, rounded to nearest; a single
  /// value splats).
  Value floatConstantOf(Location loc, RankedTensorType type, ArrayRef<double> values);
  /// graph.transpose with the result shape derived from `perm`.
  Value transposeOf(Location loc, Value v, ArrayRef<int64_t> perm);
  /// `size` elements of `v` along `axis` from `start` with `step` (other dims whole).
  Value sliceOf(Location loc, Value v, int64_t axis, int64_t start, int64_t size, int64_t step);
  /// graph.concat of same-rank tensors along `axis` (in range).
  Value concatOf(Location loc, ValueRange vs, int64_t axis);

  /// ImportMisc.cpp: ops that fit no family above.
  std::optional<LogicalResult> importMiscOps(const NodeCtx &nc);
  // -- ImportMisc.cpp helpers --

  //===--------------------------------------------------------------------===//
  // State
  //===--------------------------------------------------------------------===//
  MLIRContext &ctx;
  OpBuilder b;
  Location fileLoc;
  std::string modelDir;
  int64_t opset = 0;
  Block *entryBlock = nullptr;
  Operation *lastConstant = nullptr;
  llvm::StringMap<Value> values;
  llvm::StringMap<const onnx::TensorProto *> initializers;
  /// Names read by some node or by the graph outputs.
  llvm::StringSet<> usedNames;
};

} // namespace aicc::onnx_import::detail

#endif // AICC_LIB_TARGET_ONNX_IMPORTER_H
