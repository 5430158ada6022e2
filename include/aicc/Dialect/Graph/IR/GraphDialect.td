//===- GraphDialect.td - aicc graph dialect ----------------*- tablegen -*-===//
#ifndef AICC_DIALECT_GRAPH_IR_GRAPHDIALECT_TD
#define AICC_DIALECT_GRAPH_IR_GRAPHDIALECT_TD

include "mlir/IR/OpBase.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::aicc::graph";
  let summary = "Tensor-level operator DAG (value semantics, ranked tensors)";
  let description = [{
    The graph dialect is aicc's model-level IR: one op per ONNX-style operator, SSA values of
    ranked tensor type, value semantics (no aliasing, no side effects). Broadcasting follows
    numpy / ONNX multidirectional broadcasting (ONNX Broadcasting.md). Fusion groups
    (`graph.fusion_group`) mark the ops that later become one kernel.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
}

#endif
