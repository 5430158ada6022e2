//===- ImportFold.cpp - constant folding of graph ops during ONNX import --===//
//
// ONNX models compute shapes at run time (Shape -> Gather / Slice -> Concat ->
// Reshape, Cast / Range / ConstantOfShape in the "_expanded" function bodies),
// and from opset 13 on axes / splits / starts / ends arrive as inputs. With
// static input shapes (and inputs bound with --bind-input) all of that is
// constant: every value the importer defines is folded here when its
// producer is a graph op whose operands are small dense constants, so that
// later nodes see a graph.constant where they need a compile-time operand.
//
// Semantics are those of the graph ops (GraphOps.td), which follow the ONNX
// operator spec: integer arithmetic wraps at the element width, integer Div
// truncates toward zero, Mod follows `fmod`, Cast truncates float to integer.
// Float results are computed in double and rounded once to the element type:
// for +, -, *, /, sqrt that equals the correctly rounded single operation
// (double has more than 2p + 2 bits for p <= 24, Figueroa, "When is double
// rounding innocuous?", SIGNUM 1995). Transcendental functions are not folded,
// so results match the kernels bit for bit. Anything else (NaN operands,
// division by zero, out-of-range casts or indices, large tensors) is left to
// the kernels.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace aicc::onnx_import::detail;

namespace {
// Operands and results bigger than kMaxFoldElements (Importer.h) are not folded
// (shape arithmetic is small).

/// The elements of a small dense constant, row-major: integers (bool as 0 / 1,
/// unsigned zero-extended) as int64, floats as double.
struct Elements {
  RankedTensorType type;
  bool isFloat = false;
  SmallVector<int64_t> ints;
  SmallVector<double> floats;

  int64_t size() const { return isFloat ? floats.size() : ints.size(); }
  ArrayRef<int64_t> shape() const { return type.getShape(); }
  /// Element `i` as a double (exact for integers up to 2^53).
  double asDouble(int64_t i) const { return isFloat ? floats[i] : (double)ints[i]; }
  /// An empty result of `t` (same float-ness as t's element type).
  static Elements like(RankedTensorType t) {
    Elements e;
    e.type = t;
    e.isFloat = isa<FloatType>(t.getElementType());
    return e;
  }
  /// Appends element `i` of `src` (same float-ness).
  void push(const Elements &src, int64_t i) {
    if (isFloat)
      floats.push_back(src.floats[i]);
    else
      ints.push_back(src.ints[i]);
  }
};

std::optional<Elements> readElements(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  auto type = cast<RankedTensorType>(c.getType());
  if (!dense || type.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  Elements e = Elements::like(type);
  Type et = type.getElementType();
  if (e.isFloat) {
    for (const APFloat &x : dense.getValues<APFloat>()) {
      if (x.isNaN())
        return std::nullopt;
      e.floats.push_back(x.convertToDouble());
    }
    return e;
  }
  if (!isa<IntegerType>(et))
    return std::nullopt;
  bool zext = et.isUnsignedInteger() || et.isInteger(1);
  for (const APInt &x : dense.getValues<APInt>())
    e.ints.push_back(zext ? (int64_t)x.getZExtValue() : x.getSExtValue());
  return e;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Linear index into a tensor of shape `from` (broadcast to `to` by numpy's
/// right-aligned rules) of the element at linear index `lin` of `to`.
int64_t broadcastIndex(ArrayRef<int64_t> from, ArrayRef<int64_t> to, int64_t lin) {
  int64_t off = 0, stride = 1;
  for (int64_t d = (int64_t)to.size() - 1, s = (int64_t)from.size() - 1; d >= 0; --d, --s) {
    int64_t idx = lin % to[d];
    lin /= to[d];
    if (s < 0)
      continue;
    off += (from[s] == 1 ? 0 : idx) * stride;
    stride *= from[s];
  }
  return off;
}

/// Wraps `v` to an integer of `t`'s width and signedness (two's complement).
int64_t wrapInt(int64_t v, IntegerType t) {
  unsigned w = t.getWidth();
  if (w >= 64)
    return v;
  if (w == 1)
    return v & 1;
  uint64_t mask = (uint64_t(1) << w) - 1, u = (uint64_t)v & mask;
  if (t.isUnsigned())
    return (int64_t)u;
  return llvm::SignExtend64(u, w);
}

class Folder {
public:
  explicit Folder(Operation *op) : op(op) {}

  /// The folded result of `op` (single result), or nullopt.
  std::optional<Elements> fold() {
    if (op->getNumResults() != 1 || op->getNumRegions() != 0)
      return std::nullopt;
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!rt || rt.getNumElements() > kMaxFoldElements ||
        !(isa<FloatType>(rt.getElementType()) || isa<IntegerType>(rt.getElementType())))
      return std::nullopt;
    for (Value v : op->getOperands()) {
      auto e = readElements(v);
      if (!e)
        return std::nullopt;
      in.push_back(std::move(*e));
    }
    out = Elements::like(rt);
    bool ok =
        llvm::TypeSwitch<Operation *, bool>(op)
            .Case<graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp, graph::MinOp,
                  graph::MaxOp, graph::ModOp, graph::AndOp, graph::OrOp, graph::XorOp,
                  graph::EqualOp, graph::LessOp, graph::LessEqualOp, graph::GreaterOp,
                  graph::GreaterEqualOp>([&](auto) { return binary(); })
            .Case<graph::WhereOp>([&](auto) { return where(); })
            .Case<graph::NegOp, graph::AbsOp, graph::SignOp, graph::NotOp, graph::CeilOp,
                  graph::FloorOp, graph::RoundOp, graph::SqrtOp, graph::ReciprocalOp,
                  graph::ReluOp>([&](auto) { return unary(); })
            .Case<graph::CastOp>([&](auto) { return castOp(); })
            .Case<graph::ClipOp>([&](graph::ClipOp c) { return clip(c); })
            .Case<graph::ReshapeOp>([&](auto) {
              out.ints = in[0].ints;
              out.floats = in[0].floats;
              return in[0].isFloat == out.isFloat;
            })
            .Case<graph::ExpandOp, graph::TileOp>([&](auto) { return expandOrTile(); })
            .Case<graph::SliceOp>([&](graph::SliceOp s) { return slice(s); })
            .Case<graph::ConcatOp>([&](graph::ConcatOp c) { return concat(c); })
            .Case<graph::TransposeOp>([&](graph::TransposeOp t) { return transpose(t); })
            .Case<graph::GatherOp>([&](graph::GatherOp g) { return gather(g); })
            .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp, graph::ReduceMinOp,
                  graph::ReduceProdOp>([&](auto r) { return reduce(r.getAxes(), r.getKeepdims()); })
            .Default([](Operation *) { return false; });
    if (!ok || unrepresentable || out.size() != rt.getNumElements())
      return std::nullopt;
    return std::move(out);
  }

private:
  Type resultElem() const { return out.type.getElementType(); }

  /// Stores `v` as element of the result, rounding / wrapping to its type. A value no int64
  /// holds (a Clip bound of 2^63, NaN) is not folded: the cast would be undefined
  /// behaviour (aicc-fuzz-onnx audit).
  void store(double v) {
    if (out.isFloat) {
      out.floats.push_back(v);
      return;
    }
    if (!(v >= -0x1p63 && v < 0x1p63)) {
      unrepresentable = true;
      v = 0;
    }
    out.ints.push_back(wrapInt((int64_t)v, cast<IntegerType>(resultElem())));
  }
  bool unrepresentable = false;
  void storeInt(int64_t v) {
    if (out.isFloat)
      out.floats.push_back((double)v);
    else
      out.ints.push_back(wrapInt(v, cast<IntegerType>(resultElem())));
  }

  bool binary() {
    const Elements &x = in[0], &y = in[1];
    if (x.isFloat != y.isFloat)
      return false;
    auto shape = out.shape();
    bool cmp = isa<graph::EqualOp, graph::LessOp, graph::LessEqualOp, graph::GreaterOp,
                   graph::GreaterEqualOp>(op);
    bool unsignedInts = !x.isFloat && x.type.getElementType().isUnsignedInteger();
    for (int64_t i = 0, n = out.type.getNumElements(); i < n; ++i) {
      int64_t xi = broadcastIndex(x.shape(), shape, i), yi = broadcastIndex(y.shape(), shape, i);
      if (x.isFloat) {
        double a = x.floats[xi], c = y.floats[yi];
        std::optional<double> r = llvm::TypeSwitch<Operation *, std::optional<double>>(op)
                                      .Case([&](graph::AddOp) { return a + c; })
                                      .Case([&](graph::SubOp) { return a - c; })
                                      .Case([&](graph::MulOp) { return a * c; })
                                      .Case([&](graph::DivOp) -> std::optional<double> {
                                        if (c == 0)
                                          return std::nullopt;
                                        return a / c;
                                      })
                                      .Case([&](graph::MinOp) { return std::min(a, c); })
                                      .Case([&](graph::MaxOp) { return std::max(a, c); })
                                      .Case([&](graph::EqualOp) { return (double)(a == c); })
                                      .Case([&](graph::LessOp) { return (double)(a < c); })
                                      .Case([&](graph::LessEqualOp) { return (double)(a <= c); })
                                      .Case([&](graph::GreaterOp) { return (double)(a > c); })
                                      .Case([&](graph::GreaterEqualOp) { return (double)(a >= c); })
                                      .Default([](Operation *) { return std::nullopt; });
        if (!r)
          return false;
        if (cmp)
          out.ints.push_back(*r != 0);
        else
          store(*r);
        continue;
      }
      int64_t a = x.ints[xi], c = y.ints[yi];
      // Unsigned compares and min / max on the zero-extended values are exact
      // below 2^63; wider unsigned values are left to the kernels.
      if (unsignedInts && (a < 0 || c < 0))
        return false;
      std::optional<int64_t> r =
          llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
              .Case([&](graph::AddOp) { return (int64_t)((uint64_t)a + (uint64_t)c); })
              .Case([&](graph::SubOp) { return (int64_t)((uint64_t)a - (uint64_t)c); })
              .Case([&](graph::MulOp) { return (int64_t)((uint64_t)a * (uint64_t)c); })
              .Case([&](graph::DivOp) -> std::optional<int64_t> {
                if (c == 0 || (a == INT64_MIN && c == -1))
                  return std::nullopt;
                return a / c; // truncates toward zero
              })
              .Case([&](graph::ModOp m) -> std::optional<int64_t> {
                if (c == 0 || (a == INT64_MIN && c == -1))
                  return std::nullopt;
                int64_t r = a % c; // sign of the dividend (fmod = 1)
                if (!m.getFmod() && r != 0 && ((r < 0) != (c < 0)))
                  r += c; // sign of the divisor (fmod = 0)
                return r;
              })
              .Case([&](graph::MinOp) { return std::min(a, c); })
              .Case([&](graph::MaxOp) { return std::max(a, c); })
              .Case([&](graph::AndOp) { return (int64_t)(a && c); })
              .Case([&](graph::OrOp) { return (int64_t)(a || c); })
              .Case([&](graph::XorOp) { return (int64_t)((a != 0) != (c != 0)); })
              .Case([&](graph::EqualOp) { return (int64_t)(a == c); })
              .Case([&](graph::LessOp) { return (int64_t)(a < c); })
              .Case([&](graph::LessEqualOp) { return (int64_t)(a <= c); })
              .Case([&](graph::GreaterOp) { return (int64_t)(a > c); })
              .Case([&](graph::GreaterEqualOp) { return (int64_t)(a >= c); })
              .Default([](Operation *) { return std::nullopt; });
      if (!r)
        return false;
      storeInt(*r);
    }
    return true;
  }

  bool where() {
    const Elements &cnd = in[0], &x = in[1], &y = in[2];
    if (x.isFloat != out.isFloat || y.isFloat != out.isFloat)
      return false;
    auto shape = out.shape();
    for (int64_t i = 0, n = out.type.getNumElements(); i < n; ++i) {
      bool c = cnd.ints[broadcastIndex(cnd.shape(), shape, i)] != 0;
      const Elements &src = c ? x : y;
      out.push(src, broadcastIndex(src.shape(), shape, i));
    }
    return true;
  }

  bool unary() {
    const Elements &x = in[0];
    if (x.isFloat != out.isFloat)
      return false;
    for (int64_t i = 0; i < x.size(); ++i) {
      if (!x.isFloat) {
        int64_t a = x.ints[i];
        std::optional<int64_t> r =
            llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
                .Case([&](graph::NegOp) { return (int64_t)(0 - (uint64_t)a); })
                .Case([&](graph::AbsOp) { return a < 0 ? (int64_t)(0 - (uint64_t)a) : a; })
                .Case([&](graph::SignOp) { return (int64_t)((a > 0) - (a < 0)); })
                .Case([&](graph::NotOp) { return (int64_t)(a == 0); })
                .Default([](Operation *) { return std::nullopt; });
        if (!r)
          return false;
        storeInt(*r);
        continue;
      }
      double a = x.floats[i];
      std::optional<double> r =
          llvm::TypeSwitch<Operation *, std::optional<double>>(op)
              .Case([&](graph::NegOp) { return -a; })
              .Case([&](graph::AbsOp) { return std::fabs(a); })
              .Case([&](graph::SignOp) { return (double)((a > 0) - (a < 0)); })
              .Case([&](graph::CeilOp) { return std::ceil(a); })
              .Case([&](graph::FloorOp) { return std::floor(a); })
              .Case([&](graph::RoundOp) { return std::nearbyint(a); }) // halves to even
              .Case([&](graph::SqrtOp) -> std::optional<double> {
                if (a < 0)
                  return std::nullopt;
                return std::sqrt(a);
              })
              .Case([&](graph::ReciprocalOp) -> std::optional<double> {
                if (a == 0)
                  return std::nullopt;
                return 1.0 / a;
              })
              .Case([&](graph::ReluOp) { return std::max(a, 0.0); })
              .Default([](Operation *) { return std::nullopt; });
      if (!r)
        return false;
      store(*r);
    }
    return true;
  }

  bool castOp() {
    const Elements &x = in[0];
    Type to = resultElem();
    for (int64_t i = 0; i < x.size(); ++i) {
      if (to.isInteger(1)) {
        out.ints.push_back(x.asDouble(i) != 0);
        continue;
      }
      if (out.isFloat) {
        // Integers beyond 2^53 would be rounded twice (to double, then to the type).
        if (!x.isFloat && (x.ints[i] > (int64_t(1) << 53) || x.ints[i] < -(int64_t(1) << 53)))
          return false;
        out.floats.push_back(x.asDouble(i));
        continue;
      }
      auto it = cast<IntegerType>(to);
      if (!x.isFloat) {
        out.ints.push_back(wrapInt(x.ints[i], it));
        continue;
      }
      // Float to integer truncates toward zero; out-of-range values are not folded.
      double t = std::trunc(x.floats[i]);
      unsigned w = it.getWidth();
      double lo = it.isUnsigned() ? 0 : -std::ldexp(1.0, w - 1);
      double hi = it.isUnsigned() ? std::ldexp(1.0, w) : std::ldexp(1.0, w - 1);
      if (!(t >= lo && t < hi) || (w == 64 && it.isUnsigned() && t >= std::ldexp(1.0, 63)))
        return false;
      out.ints.push_back((int64_t)t);
    }
    return true;
  }

  bool clip(graph::ClipOp c) {
    const Elements &x = in[0];
    for (int64_t i = 0; i < x.size(); ++i) {
      double v = x.asDouble(i);
      if (!x.isFloat && (x.ints[i] > (int64_t(1) << 53) || x.ints[i] < -(int64_t(1) << 53)))
        return false;
      if (auto lo = c.getMin())
        v = std::max(v, lo->convertToDouble());
      if (auto hi = c.getMax())
        v = std::min(v, hi->convertToDouble());
      store(v);
    }
    return true;
  }

  bool expandOrTile() {
    const Elements &x = in[0];
    auto to = out.shape();
    bool tile = isa<graph::TileOp>(op);
    if (x.type.getRank() != (int64_t)to.size() && tile)
      return false;
    auto xs = x.shape();
    for (int64_t i = 0, n = out.type.getNumElements(); i < n; ++i) {
      int64_t src;
      if (!tile) {
        src = broadcastIndex(xs, to, i);
      } else {
        int64_t lin = i, off = 0, stride = 1;
        for (int64_t d = (int64_t)to.size() - 1; d >= 0; --d) {
          int64_t idx = lin % to[d];
          lin /= to[d];
          if (xs[d] == 0)
            return false;
          off += (idx % xs[d]) * stride;
          stride *= xs[d];
        }
        src = off;
      }
      out.push(x, src);
    }
    return true;
  }

  bool slice(graph::SliceOp s) {
    const Elements &x = in[0];
    auto starts = s.getStarts(), steps = s.getSteps();
    auto to = out.shape();
    auto xstr = stridesOf(x.shape());
    if ((int64_t)starts.size() != x.type.getRank() || steps.size() != starts.size())
      return false;
    for (int64_t i = 0, n = out.type.getNumElements(); i < n; ++i) {
      int64_t lin = i, off = 0;
      for (int64_t d = (int64_t)to.size() - 1; d >= 0; --d) {
        int64_t idx = lin % to[d];
        lin /= to[d];
        int64_t src = starts[d] + idx * steps[d];
        if (src < 0 || src >= x.shape()[d])
          return false;
        off += src * xstr[d];
      }
      out.push(x, off);
    }
    return true;
  }

  bool concat(graph::ConcatOp c) {
    int64_t axis = c.getAxis();
    auto to = out.shape();
    if (axis < 0 || axis >= (int64_t)to.size())
      return false;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= to[d];
    for (int64_t o = 0; o < outer; ++o)
      for (const Elements &x : in) {
        if (x.isFloat != out.isFloat)
          return false;
        int64_t chunk = outer ? x.size() / outer : 0;
        for (int64_t k = 0; k < chunk; ++k)
          out.push(x, o * chunk + k);
      }
    return true;
  }

  bool transpose(graph::TransposeOp t) {
    const Elements &x = in[0];
    auto perm = t.getPerm();
    auto to = out.shape();
    auto xstr = stridesOf(x.shape());
    if (perm.size() != to.size())
      return false;
    for (int64_t i = 0, n = out.type.getNumElements(); i < n; ++i) {
      int64_t lin = i, off = 0;
      for (int64_t d = (int64_t)to.size() - 1; d >= 0; --d) {
        int64_t idx = lin % to[d];
        lin /= to[d];
        off += idx * xstr[perm[d]];
      }
      out.push(x, off);
    }
    return true;
  }

  bool gather(graph::GatherOp g) {
    const Elements &x = in[0], &idx = in[1];
    int64_t axis = g.getAxis();
    if (idx.isFloat || axis < 0 || axis >= x.type.getRank())
      return false;
    int64_t outer = 1, inner = 1, n = x.shape()[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= x.shape()[d];
    for (int64_t d = axis + 1; d < x.type.getRank(); ++d)
      inner *= x.shape()[d];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k : idx.ints) {
        if (k < -n || k >= n)
          return false;
        int64_t kk = k < 0 ? k + n : k;
        for (int64_t i = 0; i < inner; ++i)
          out.push(x, (o * n + kk) * inner + i);
      }
    return true;
  }

  bool reduce(ArrayRef<int64_t> axes, bool keepdims) {
    const Elements &x = in[0];
    int64_t rank = x.type.getRank();
    SmallVector<bool> reduced(rank, axes.empty());
    for (int64_t a : axes) {
      if (a < 0 || a >= rank)
        return false;
      reduced[a] = true;
    }
    // The kept dims, in order, index the result (keepdims only adds size-1 dims).
    SmallVector<int64_t> keptShape;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        keptShape.push_back(x.shape()[d]);
    int64_t numOut = 1, count = 1;
    for (int64_t d = 0; d < rank; ++d)
      (reduced[d] ? count : numOut) *= x.shape()[d];
    if (count == 0)
      return false; // the identity of max / min / mean is not defined
    SmallVector<double> acc(numOut, 0.0);
    SmallVector<bool> seen(numOut, false);
    auto keptStrides = stridesOf(keptShape);
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t lin = i, o = 0, k = (int64_t)keptShape.size() - 1;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t idx = lin % x.shape()[d];
        lin /= x.shape()[d];
        if (!reduced[d])
          o += idx * keptStrides[k--];
      }
      double v = x.asDouble(i), &a = acc[o];
      if (!seen[o]) {
        a = v;
        seen[o] = true;
        continue;
      }
      if (isa<graph::ReduceSumOp, graph::ReduceMeanOp>(op))
        a += v;
      else if (isa<graph::ReduceProdOp>(op))
        a *= v;
      else if (isa<graph::ReduceMaxOp>(op))
        a = std::max(a, v);
      else
        a = std::min(a, v);
    }
    (void)keepdims;
    for (double a : acc)
      store(isa<graph::ReduceMeanOp>(op) ? a / (double)count : a);
    return true;
  }

  Operation *op;
  SmallVector<Elements> in;
  Elements out;
};
} // namespace

std::optional<Value> Importer::foldToConstant(Value v, unsigned depth) {
  Operation *op = v.getDefiningOp();
  if (!op || isa<graph::ConstantOp>(op) || !isa<graph::GraphDialect>(op->getDialect()) ||
      notFoldable.contains(op) || depth > kMaxFoldDepth)
    return std::nullopt;
  // Operands produced by this node's other ops first (their producers from earlier nodes
  // were tried when those nodes were defined, and are in notFoldable when they failed).
  for (OpOperand &operand : op->getOpOperands())
    if (auto folded = foldToConstant(operand.get(), depth + 1))
      operand.set(*folded);
  std::optional<Elements> e = Folder(op).fold();
  if (!e) {
    notFoldable.insert(op);
    return std::nullopt;
  }
  RankedTensorType t = e->type;
  Attribute attr;
  if (e->isFloat) {
    auto ft = cast<FloatType>(t.getElementType());
    SmallVector<APFloat> vals;
    for (double d : e->floats) {
      APFloat f(d);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(f);
    }
    attr = DenseElementsAttr::get(t, vals);
  } else {
    auto it = cast<IntegerType>(t.getElementType());
    if (it.getWidth() == 1) {
      SmallVector<bool> bits(e->ints.begin(), e->ints.end());
      attr = DenseElementsAttr::get(t, bits);
    } else {
      SmallVector<APInt> vals;
      for (int64_t x : e->ints)
        vals.push_back(APInt(64, (uint64_t)x).trunc(it.getWidth()));
      attr = DenseElementsAttr::get(t, vals);
    }
  }
  // The op stays (an earlier node's name may map to it); once unused, canonicalization
  // removes it.
  Value c = createConstant(op->getLoc(), cast<ElementsAttr>(attr));
  v.replaceAllUsesWith(c);
  return c;
}
