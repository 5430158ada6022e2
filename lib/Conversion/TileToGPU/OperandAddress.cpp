//===- OperandAddress.cpp - element addresses of tensor-core dot operands ---------===//
#include "OperandAddress.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {
/// i32 arithmetic with constants folded away where they are neutral.
struct I32 {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) { return v == 1 ? x : arith::MulIOp::create(b, loc, x, c(v)); }
  Value div(Value x, int64_t v) { return v == 1 ? x : arith::DivUIOp::create(b, loc, x, c(v)); }
  Value rem(Value x, int64_t v) { return v == 1 ? c(0) : arith::RemUIOp::create(b, loc, x, c(v)); }
  Value below(Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(v));
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
};
} // namespace

Im2ColRow aicc::im2colRow(OpBuilder &b, Location loc, tl::Im2ColLoadOp l, Value p) {
  I32 m{b, loc};
  ArrayRef<int64_t> out = l.getOutput();
  // (n, oh, ow) = p split over [N, OH, OW]; ih = oh * strides[0] - pads[0] + kh * dilations[0].
  Value pix = m.rem(p, out[0] * out[1]);
  auto start = [&](Value o, int d) -> Value {
    return arith::SubIOp::create(b, loc, m.mul(o, l.getStrides()[d]), m.c(l.getPads()[d]));
  };
  Im2ColRow r;
  r.n = m.div(p, out[0] * out[1]);
  r.ih0 = start(m.div(pix, out[1]), 0);
  r.iw0 = start(m.rem(pix, out[1]), 1);
  r.ok = m.below(p, l.getNumRows());
  return r;
}

std::pair<Value, Value> aicc::im2colElement(OpBuilder &b, Location loc, tl::Im2ColLoadOp l,
                                            const Im2ColRow &row, Value q) {
  I32 m{b, loc};
  ArrayRef<int64_t> in = l.getInput(), kr = l.getKernel();
  int64_t C = in[1], H = in[2], W = in[3], KH = kr[0], KW = kr[1];
  // NCHW: (c, kh, kw) = q split over [C, KH, KW]; NHWC: (kh, kw, c) over [KH, KW, C].
  Value ch, kh, kw;
  if (l.isNHWC()) {
    kh = m.div(q, KW * C);
    kw = m.div(m.rem(q, KW * C), C);
    ch = m.rem(q, C);
  } else {
    ch = m.div(q, KH * KW);
    kh = m.div(m.rem(q, KH * KW), KW);
    kw = m.rem(q, KW);
  }
  Value ih = m.add(row.ih0, m.mul(kh, l.getDilations()[0]));
  Value iw = m.add(row.iw0, m.mul(kw, l.getDilations()[1]));
  Value ok = m.both(m.both(row.ok, m.below(q, l.getNumCols())),
                    m.both(m.below(ih, H), m.below(iw, W)));
  // NCHW: ((n*C + c)*H + ih)*W + iw; NHWC: ((n*H + ih)*W + iw)*C + c.
  Value off = l.isNHWC() ? m.add(m.mul(m.add(m.mul(m.add(m.mul(row.n, H), ih), W), iw), C), ch)
                         : m.add(m.mul(m.add(m.mul(m.add(m.mul(row.n, C), ch), H), ih), W), iw);
  return {off, ok};
}

std::pair<Value, Value> aicc::blockLoadElement(OpBuilder &b, Location loc, tl::BlockLoadOp l,
                                               Value batch, Value row, Value col, Value rows) {
  I32 m{b, loc};
  ArrayRef<int64_t> d = l.getDims();
  Value ok = m.both(m.below(batch, d[0]), m.both(m.below(row, d[1]), m.below(col, d[2])));
  if (rows)
    ok = m.both(ok, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows));
  Value off = m.add(m.mul(m.add(m.mul(batch, d[1]), row), d[2]), col);
  return {off, ok};
}
