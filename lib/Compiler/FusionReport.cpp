//===- FusionReport.cpp - aicc-compile --fusion-report ---------------------===//
//
// After graph-fuse: every kernel (fusion group) with its ops, kind, bytes moved, FLOPs,
// arithmetic intensity and roofline time on a hardware description (CostModel.h), the
// unfused count (one kernel per op) for comparison, and for every producer -> consumer
// edge between two kernels the rule that kept them apart (the groups' `refusals`).
// Format: docs/fusion.md.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Dialect/Graph/Analysis/CostModel.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The ONNX node name (NameLoc) of `loc`, or "".
std::string nodeName(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string n = nodeName(l); !n.empty())
        return n;
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue().str();
  return "";
}

/// "relu 'Relu_3'" (the op's mnemonic, and its node name when it has one).
std::string opLabel(Operation *op) {
  std::string s = op->getName().stripDialect().str();
  if (std::string n = nodeName(op->getLoc()); !n.empty())
    s += " '" + n + "'";
  return s;
}

std::string human(double v, StringRef unit) {
  const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (v >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  return llvm::formatv("{0:f2} {1}{2}", v, prefixes[i], unit).str();
}

} // namespace

std::string aicc::detail::emitFusionReport(ModuleOp module, const HardwareDescription &hw) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("fusion report on {0} ({1}): {2} SMs, HBM {3:f2} TB/s, peak FP32 {4:f1} "
                      "TFLOP/s, FP16/BF16 {5:f1} TFLOP/s (tensor cores)\n",
                      hw.productAlias, hw.name, hw.smCount, hw.hbmBytesPerSecond / 1e12,
                      hw.peakF32 / 1e12, hw.peakF16 / 1e12);
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    // Kernel names as convert-graph-to-tile gives them: fused_<n>_<kind>, in program order.
    DenseMap<Operation *, std::string> names;
    SmallVector<FusionGroupOp> groups;
    for (auto g : fn.getBody().front().getOps<FusionGroupOp>()) {
      names[g] = "fused_" + std::to_string(groups.size()) + "_" + g.getKind().str();
      groups.push_back(g);
    }
    KernelCost fusedTotal, unfusedTotal;
    unsigned unfused = 0;
    std::string kernels;
    llvm::raw_string_ostream ks(kernels);
    for (FusionGroupOp g : groups) {
      KernelCost c = costOfGroup(g, hw);
      fusedTotal.bytesRead += c.bytesRead;
      fusedTotal.bytesWritten += c.bytesWritten;
      fusedTotal.flops += c.flops;
      fusedTotal.rooflineSeconds += c.rooflineSeconds;
      ks << llvm::formatv("{0,-24} {1,-12} {2,12} {3,12} {4,9:f2} {5,12:f4}\n", names[g],
                          g.getKind(), human(c.bytes(), "B"), human(c.flops, "FLOP"),
                          c.intensity, c.rooflineSeconds * 1e6);
      ks << "    ops:";
      bool first = true;
      for (Operation &op : g.getBody().front().without_terminator()) {
        ks << (first ? " " : ", ") << opLabel(&op);
        first = false;
        // A reshape is a view of its input's buffer, never a kernel (a GPU attention group
        // reads its operands through reshapes, AttentionOperands.h).
        if (isa<ReshapeOp>(op))
          continue;
        // Unfused: every op its own kernel, reading its operands and writing its result.
        KernelCost u = costOfOp(&op, hw);
        ++unfused;
        unfusedTotal.bytesRead += u.bytesRead;
        unfusedTotal.bytesWritten += u.bytesWritten;
        unfusedTotal.flops += u.flops;
        unfusedTotal.rooflineSeconds += u.rooflineSeconds;
      }
      ks << "\n";
    }
    os << "function @" << fn.getName() << ": " << unfused << " ops (unfused: " << unfused
       << " kernels), " << groups.size() << " fused kernels\n";
    os << llvm::formatv("{0,-24} {1,-12} {2,12} {3,12} {4,9} {5,12}\n", "kernel", "kind",
                        "bytes", "FLOPs", "FLOP/B", "roofline us");
    os << kernels;
    os << llvm::formatv("total fused:   {0} kernels, {1} moved, {2}, roofline {3:f4} us\n",
                        groups.size(), human(fusedTotal.bytes(), "B"),
                        human(fusedTotal.flops, "FLOP"), fusedTotal.rooflineSeconds * 1e6);
    os << llvm::formatv("total unfused: {0} kernels, {1} moved, {2}, roofline {3:f4} us\n",
                        unfused, human(unfusedTotal.bytes(), "B"),
                        human(unfusedTotal.flops, "FLOP"), unfusedTotal.rooflineSeconds * 1e6);

    // Producer -> consumer edges between kernels, with the rule that refused each.
    os << "kept apart (producer -> consumer: rule):\n";
    unsigned edges = 0;
    for (FusionGroupOp g : groups) {
      auto refusals = g->getAttrOfType<ArrayAttr>("refusals");
      if (!refusals)
        continue;
      Block &body = g.getBody().front();
      for (Attribute a : refusals) {
        auto d = dyn_cast<DictionaryAttr>(a);
        auto idx = d ? d.getAs<IntegerAttr>("input") : IntegerAttr();
        auto rule = d ? d.getAs<StringAttr>("rule") : StringAttr();
        if (!idx || !rule || idx.getInt() < 0 || idx.getInt() >= (int64_t)g.getInputs().size())
          continue;
        Value v = g.getInputs()[idx.getInt()];
        std::string via;
        while (auto r = v.getDefiningOp<ReshapeOp>()) {
          v = r.getInput();
          via = " (through reshape)";
        }
        std::string producer = "?";
        if (auto pg = v.getDefiningOp<FusionGroupOp>()) {
          unsigned k = cast<OpResult>(v).getResultNumber();
          Value inner = cast<YieldOp>(pg.getBody().front().getTerminator()).getValues()[k];
          producer = names[pg] + " (" +
                     (inner.getDefiningOp() ? opLabel(inner.getDefiningOp()) : "input") + ")";
        } else if (Operation *p = v.getDefiningOp()) {
          producer = opLabel(p);
        }
        std::string consumer;
        for (Operation *u : body.getArgument(idx.getInt()).getUsers()) {
          consumer = opLabel(u);
          break;
        }
        os << "  " << producer << " -> " << names[g] << " (" << consumer << ")" << via << ": "
           << rule.getValue() << "\n";
        ++edges;
      }
    }
    if (!edges)
      os << "  (none)\n";
  }
  return out;
}
