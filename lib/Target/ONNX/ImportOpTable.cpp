//===- ImportOpTable.cpp - the op table: (domain, op type, since-version) -> handler -===//
//
// Every op the importer knows is a row of one table, registered by the file that imports
// it (Importer::register<Family>Ops); importNode looks the node up and calls the row's
// handler. The table is built once per process (thread-safe: a function-local static)
// and only read afterwards.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace mlir;
using namespace aicc::onnx_import::detail;

static std::string tableKey(llvm::StringRef domain, llvm::StringRef opType) {
  return (domain + llvm::Twine('\0') + opType).str();
}

void OpTable::add(llvm::StringRef domain, llvm::StringRef opType, int64_t sinceVersion,
                  OpHandler handler) {
  bool inserted = rows.try_emplace(tableKey(domain, opType),
                                   OpEntry{domain.str(), opType.str(), sinceVersion, handler})
                      .second;
  if (!inserted) // a defect of the importer's registrations, not of any input
    llvm::report_fatal_error(llvm::Twine("ONNX op table: '") + opType + "' of domain '" + domain +
                             "' is registered twice");
  domains.insert(domain);
}

const OpEntry *OpTable::lookup(llvm::StringRef domain, llvm::StringRef opType) const {
  if (domain == "ai.onnx")
    domain = "";
  auto it = rows.find(tableKey(domain, opType));
  return it == rows.end() ? nullptr : &it->second;
}

std::vector<const OpEntry *> OpTable::entries() const {
  std::vector<const OpEntry *> out;
  for (const auto &row : rows)
    out.push_back(&row.second);
  std::sort(out.begin(), out.end(), [](const OpEntry *a, const OpEntry *b) {
    return std::tie(a->domain, a->opType) < std::tie(b->domain, b->opType);
  });
  return out;
}

const OpTable &Importer::opTable() {
  static const OpTable table = [] {
    OpTable t;
    registerCoreOps(t);
    registerElementwiseOps(t);
    registerTensorOps(t);
    registerNNOps(t);
    registerIndexOps(t);
    registerSpatialOps(t);
    registerRecurrentOps(t);
    registerSignalOps(t);
    registerIntegerOps(t);
    registerLossOps(t);
    registerTransformerOps(t);
    registerMiscOps(t);
    return t;
  }();
  return table;
}

LogicalResult Importer::importNode(const NodeCtx &nc) {
  const OpEntry *entry = opTable().lookup(nc.node.domain(), nc.opType());
  if (!entry)
    return emitError(nc.loc) << "unsupported ONNX op '" << nc.opType() << "' (node '" << nc.name
                             << "', opset " << opset << ")";
  if (opset < entry->sinceVersion)
    return nodeError(nc) << nc.opType() << " is defined from opset " << entry->sinceVersion
                         << "; the model imports opset " << opset;
  return entry->handler(*this, nc);
}

std::vector<std::pair<std::string, int64_t>> aicc::onnx_import::supportedOps() {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const OpEntry *e : Importer::opTable().entries())
    out.emplace_back(e->domain.empty() ? e->opType : e->domain + "." + e->opType, e->sinceVersion);
  return out;
}
