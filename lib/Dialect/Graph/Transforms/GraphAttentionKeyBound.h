//===- GraphAttentionKeyBound.h - graph.attention's key_bound from its mask -*- C++ -*-===//
//
// The pattern graph-recompose-attention runs after forming graph.attention: an attention
// whose bias is a static KV cache's mask where(keys <= pos, 0, -inf) gets key_bound = pos
// (GraphAttentionKeyBound.cpp gives the forms and why the bound is exact).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_DIALECT_GRAPH_TRANSFORMS_GRAPHATTENTIONKEYBOUND_H
#define AICC_LIB_DIALECT_GRAPH_TRANSFORMS_GRAPHATTENTIONKEYBOUND_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/PatternMatch.h"

namespace aicc::graph {

/// Adds the pattern that sets graph.attention's key_bound from a mask of key positions.
void populateAttentionKeyBoundPatterns(mlir::RewritePatternSet &patterns);

} // namespace aicc::graph

#endif
