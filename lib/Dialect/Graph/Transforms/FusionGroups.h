//===- FusionGroups.h - the groups graph-fuse forms -------------*- C++ -*-===//
//
// Private to lib/Dialect/Graph/Transforms: the state graph-fuse (GraphFuse.cpp) grows
// kernels in, shared with its horizontal fusion (HorizontalFusion.cpp). A group is the set
// of graph ops one kernel will hold; outlining turns each into a graph.fusion_group.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_DIALECT_GRAPH_TRANSFORMS_FUSIONGROUPS_H
#define AICC_LIB_DIALECT_GRAPH_TRANSFORMS_FUSIONGROUPS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace aicc::graph::fusion {

/// A group being formed: its ops (program order once sorted) and kind ("epilogue",
/// "softmax", "elementwise", "reduction", "window", "attention", "single").
struct Group {
  llvm::SmallVector<mlir::Operation *> ops;
  std::string kind;
};

/// The groups formed so far and the group of each op. A group emptied by a merge stays in
/// `groups` (indices are stable) with no ops.
struct FusionGroups {
  llvm::SmallVector<Group> groups;
  llvm::DenseMap<mlir::Operation *, unsigned> groupOf;

  bool assigned(mlir::Operation *op) const { return groupOf.count(op); }
  void add(unsigned g, mlir::Operation *op) {
    groups[g].ops.push_back(op);
    groupOf[op] = g;
  }
  unsigned newGroup(llvm::StringRef kind) {
    groups.push_back({{}, kind.str()});
    return groups.size() - 1;
  }
};

/// Horizontal fusion of the reduction groups `formed` (graph-fuse phase 1b): sibling
/// reductions (same input shape, axes and keepdims) that read a common input of the
/// reduce input's size and do not depend on each other become one kernel that reads that
/// input once (mean and variance in one pass). At most kMaxSiblingReductions per kernel.
void mergeSiblingReductions(FusionGroups &fg, llvm::ArrayRef<unsigned> formed);

/// Horizontal fusion of elementwise groups (graph-fuse phase 4): two groups whose results
/// have one element type, that read a common input at least as large as each result of
/// one of them, become one kernel of several results (the elementwise template's
/// programs cover the largest result, the others' stores are masked), when the later one does not depend on
/// the earlier one (reshapes of the earlier one's results that sit before the later group
/// move after it).
void mergeSiblings(FusionGroups &fg);

/// Scatter kernels (graph-fuse phase 2b, kind "single"): each scatter_elements / scatter_nd takes
/// the DAG of elementwise ops and remap views (transpose, reshape, slice, concat) that computes its
/// `updates` operand from other kernels' results, when every user of each value it takes
/// is in the kernel (rule single-user: nothing else reads it, so it is never stored; a
/// graph output has the return as a user) and the scatter reads it only as its updates
/// (a value that is also its data or indices stays a kernel input). The template evaluates that
/// DAG at each update element it writes (ScatterTemplate.cpp): a KV cache's rotated new keys go
/// straight from the QKV product into the cache, no kernel writing them first. Taking only
/// reshapes would change nothing but index arithmetic, so they alone are left as views.
void formScatters(FusionGroups &fg, mlir::Block &top);

} // namespace aicc::graph::fusion

#endif // AICC_LIB_DIALECT_GRAPH_TRANSFORMS_FUSIONGROUPS_H
