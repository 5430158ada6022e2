//===- GraphMatVec.cpp - small-M matmuls as dot-product reductions --------===//
//
// A matmul with a handful of rows (a decode step, an MLP at batch 8) gives the matmul
// template a grid of 1-16 programs, each running a long K loop: most SMs idle. Written
// instead as the dot products it is, out[m, n] = sum_k A[m, k] * W[n, k], it becomes one
// row-reduction kernel (the multiply fuses in as its prologue, the bias and activation as
// its epilogue) with one program per output element, reading W's rows contiguously: the
// bandwidth-bound GEMV of BLAS. The pass description in Passes.td has the rule.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Target/TargetAttr.h"

#include "mlir/IR/Builders.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHMATVEC
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

struct GraphMatVecPass : aicc::graph::impl::GraphMatVecBase<GraphMatVecPass> {
  using GraphMatVecBase::GraphMatVecBase;

  void runOnOperation() override {
    // GPU targets only: on the CPU the matmul kernel's blocked loop is the better GEMV.
    ModuleOp module = getOperation()->getParentOfType<ModuleOp>();
    if (module)
      if (auto t = module->getAttrOfType<StringAttr>(aicc::kTargetAttrName);
          t && t.getValue() == "cpu")
        return;
    SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (isa<MatMulOp, GemmOp>(op) && !op->getParentOfType<FusionGroupOp>())
        candidates.push_back(op);
    });
    for (Operation *op : candidates)
      rewrite(op);
  }

  /// A batch of one-row products by one 2-D weight, MatMul [b..., 1, K] x [K, N] (a decode
  /// step's projections at batch > 1: x [B, 1, d]), left to the matmul kernels: one
  /// [rows, K] x [K, N] product between two reshapes (views), so the kernel reads the weight
  /// once for all rows instead of once per batch matrix of one row.
  void flattenSingleRows(Operation *op, Value a, Value w, RankedTensorType aT,
                         RankedTensorType outT, int64_t rows) {
    if (!isa<MatMulOp>(op) || aT.getRank() < 3 || aT.getDimSize(aT.getRank() - 2) != 1 || rows < 2)
      return;
    OpBuilder b(op);
    Location loc = op->getLoc();
    int64_t K = aT.getShape().back(), N = outT.getShape().back();
    Value a2 = ReshapeOp::create(b, loc, RankedTensorType::get({rows, K}, aT.getElementType()), a);
    Value y =
        MatMulOp::create(b, loc, RankedTensorType::get({rows, N}, outT.getElementType()), a2, w);
    op->getResult(0).replaceAllUsesWith(ReshapeOp::create(b, loc, outT, y).getResult());
    op->erase();
  }

  void rewrite(Operation *op) {
    Value a, w, bias;
    bool wIsNK = false; // W stored [N, K] (Gemm transB)
    if (auto g = dyn_cast<GemmOp>(op)) {
      if (g.getTransA() || g.getAlpha().convertToDouble() != 1.0 ||
          (g.getC() && g.getBeta().convertToDouble() != 1.0))
        return;
      a = g.getA();
      w = g.getB();
      bias = g.getC();
      wIsNK = g.getTransB();
    } else {
      auto m = cast<MatMulOp>(op);
      a = m.getLhs();
      w = m.getRhs();
    }
    auto aT = dyn_cast<RankedTensorType>(a.getType());
    auto wT = dyn_cast<RankedTensorType>(w.getType());
    auto outT = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!aT || !wT || !outT || !aT.hasStaticShape() || !wT.hasStaticShape() ||
        !outT.hasStaticShape() || aT.getRank() < 2 || wT.getRank() != 2)
      return;
    // A's leading dims are rows too: [.., M, K] x [K, N] is one [rows, K] x [K, N].
    int64_t K = aT.getShape().back();
    int64_t rows = aT.getNumElements() / std::max<int64_t>(K, 1);
    int64_t N = wIsNK ? wT.getDimSize(0) : wT.getDimSize(1);
    Type elemType = aT.getElementType();
    if (((elemType.isF16() || elemType.isBF16()) && rows > halfMaxRows) || rows > maxRows) {
      flattenSingleRows(op, a, w, aT, outT, rows);
      return;
    }
    if (rows < 1 || K < minK || N < 1 || (wIsNK ? wT.getDimSize(1) : wT.getDimSize(0)) != K)
      return;
    // Gemm's C broadcasts to [M, N] (unidirectionally); with A 2-D rows == M.
    if (bias) {
      auto cT = dyn_cast<RankedTensorType>(bias.getType());
      if (!cT || cT.getRank() > 2 || aT.getRank() != 2)
        return;
    }
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (!wIsNK) {
      // [K, N] from a constant: transposed at compile time (graph.transpose's folder);
      // otherwise left alone (a transpose kernel would cost more than the GEMV gains).
      if (!w.getDefiningOp<ConstantOp>())
        return;
      Value t = b.createOrFold<TransposeOp>(loc, RankedTensorType::get({N, K}, wT.getElementType()),
                                            w, b.getDenseI64ArrayAttr({1, 0}));
      if (!t.getDefiningOp<ConstantOp>()) {
        if (Operation *d = t.getDefiningOp(); d && d->use_empty())
          d->erase();
        return;
      }
      w = t;
    }
    Type elem = aT.getElementType();
    // f16 / bf16 products are exact in f32, as in the matmul's f32 accumulator.
    Type acc = elem.isF16() || elem.isBF16() ? Float32Type::get(&getContext()) : elem;
    auto asAcc = [&](Value v, ArrayRef<int64_t> shape) -> Value {
      Value r = ReshapeOp::create(b, loc, RankedTensorType::get(shape, elem), v);
      return acc == elem ? r : CastOp::create(b, loc, RankedTensorType::get(shape, acc), r);
    };
    Value a3 = asAcc(a, {rows, 1, K});
    Value w3 = asAcc(w, {1, N, K});
    Value p = MulOp::create(b, loc, RankedTensorType::get({rows, N, K}, acc), a3, w3);
    Value s = ReduceSumOp::create(b, loc, RankedTensorType::get({rows, N}, acc), p,
                                  b.getDenseI64ArrayAttr({2}), b.getBoolAttr(false));
    if (acc != elem)
      s = CastOp::create(b, loc, RankedTensorType::get({rows, N}, elem), s);
    if (bias)
      s = AddOp::create(b, loc, RankedTensorType::get({rows, N}, elem), s, bias);
    if (cast<RankedTensorType>(s.getType()) != outT)
      s = ReshapeOp::create(b, loc, outT, s);
    op->getResult(0).replaceAllUsesWith(s);
    op->erase();
  }
};
} // namespace
