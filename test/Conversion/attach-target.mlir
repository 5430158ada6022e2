// aicc-attach-target records the chip on the module, keeps a matching one, refuses another
// and unknown names.
// RUN: aicc-opt %s --split-input-file --pass-pipeline="builtin.module(aicc-attach-target{target=sm_90a hardware=h200})" -verify-diagnostics | FileCheck %s
// RUN: not aicc-opt %s --split-input-file --pass-pipeline="builtin.module(aicc-attach-target{target=sm_75})" 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not aicc-opt %s --split-input-file --pass-pipeline="builtin.module(aicc-attach-target{target=cpu hardware=cpu})" 2>&1 | FileCheck %s --check-prefix=BADHW

// CHECK-LABEL: module attributes {aicc.hardware = "h200", aicc.target = "sm_90a"}
// CHECK-LABEL: func.func @bare
// BADTARGET: error: aicc-attach-target: unknown target 'sm_75' (cpu, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100)
// BADHW: error: aicc-attach-target: unknown hardware 'cpu'
func.func @bare() {
  return
}

// -----

// The same chip: kept.
// CHECK-LABEL: module attributes {aicc.hardware = "h200", aicc.target = "sm_90a"}
// CHECK-LABEL: func.func @same
module attributes {aicc.hardware = "h200", aicc.target = "sm_90a"} {
  func.func @same() {
    return
  }
}

// -----

// expected-error @+1 {{aicc-attach-target: the module is for aicc.target = "cpu", not "sm_90a"}}
module attributes {aicc.hardware = "h200", aicc.target = "cpu"} {
  func.func @other() {
    return
  }
}
