// MlirOptMain's debugging flags work in aicc-opt with aicc's passes.

// RUN: aicc-opt %s -graph-infer-shapes -canonicalize -graph-fuse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER-ALL
// AFTER-ALL:      // -----// IR Dump After GraphInferShapes (graph-infer-shapes) //----- //
// AFTER-ALL-NEXT: func.func @main
// AFTER-ALL:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-ALL:      // -----// IR Dump After GraphFuse (graph-fuse) //----- //
// AFTER-ALL-NEXT: func.func @main
// AFTER-ALL:        graph.fusion_group "epilogue"

// graph-infer-shapes on consistent IR changes nothing (before and after fusion), so only
// canonicalize (which drops the duplicate constant) and graph-fuse are printed.
// RUN: aicc-opt %s -graph-infer-shapes -canonicalize -graph-fuse -graph-infer-shapes --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER-CHANGE
// AFTER-CHANGE-NOT: IR Dump After GraphInferShapes
// AFTER-CHANGE:     // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// AFTER-CHANGE-NOT: IR Dump After GraphInferShapes
// AFTER-CHANGE:     // -----// IR Dump After GraphFuse (graph-fuse) //----- //
// AFTER-CHANGE-NOT: IR Dump After

// RUN: aicc-opt %s --mlir-print-ir-before=graph-fuse -graph-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE:      // -----// IR Dump Before GraphFuse (graph-fuse) //----- //
// BEFORE-NEXT: func.func @main
// BEFORE-NOT:    graph.fusion_group

// RUN: aicc-opt %s -graph-infer-shapes -graph-fuse --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING:      ... Execution time report ...
// TIMING:      Total Execution Time:
// TIMING:      ----Wall Time----  ----Name----
// TIMING:      'func.func' Pipeline
// TIMING-NEXT:   GraphInferShapes
// TIMING-NEXT:   GraphFuse
// TIMING:      Total

// A registered pipeline is timed pass by pass.
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline,aicc-fusion-pipeline)" --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING-PIPELINE
// TIMING-PIPELINE: GraphInferShapes
// TIMING-PIPELINE: Canonicalizer
// TIMING-PIPELINE: CSE
// TIMING-PIPELINE: GraphFuse

// The crash-reproducer flag is accepted; a failing pass writes a reproducer that replays
// the failure with --run-reproducer.
// RUN: rm -f %t.repro.mlir
// RUN: aicc-opt %s -graph-fuse --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir -o /dev/null
// RUN: not test -e %t.repro.mlir
// RUN: not aicc-opt %S/Inputs/unfused.mlir -convert-graph-to-tile --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=REPRO-ERR
// REPRO-ERR: error: convert-graph-to-tile: graph.relu is outside any fusion group
// REPRO-ERR: note: Pipeline failed while executing [`ConvertGraphToTile` on 'builtin.module' operation]: reproducer generated at `{{.*}}repro.mlir`
// RUN: FileCheck %s --check-prefix=REPRO --input-file=%t.repro.mlir
// REPRO:      graph.relu
// REPRO:      mlir_reproducer: {
// REPRO-NEXT:   pipeline: "builtin.module(convert-graph-to-tile{allow-tf32=false attention-block-m=0 attention-kv-splits=0 conv-algorithm=auto hardware= shape-buckets=6 target= tma-store=true})",
// RUN: not aicc-opt %t.repro.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY
// REPLAY: error: convert-graph-to-tile: graph.relu is outside any fusion group

func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %b = graph.constant dense<1.0> : tensor<3xf32>
  %b2 = graph.constant dense<1.0> : tensor<3xf32>
  %0 = graph.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = graph.add %0, %b2 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = graph.relu %1 : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
