//===- main.cpp - compile an ONNX model from memory and run it ------------===//
//
// The whole public API in one program: aicc::compileModel (include/aicc/Compiler.h) turns
// ONNX bytes into a bundle, aicc::runtime::parseBundle and Session (Runtime/Session.h) run
// it. Exit status 0 when the output is right, 1 otherwise.
//
//===----------------------------------------------------------------------===//
#include "aicc/Compiler.h"
#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Session.h"
#include "aicc/Version.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace rt = aicc::runtime;

// An ONNX model (opset 13): y = x + c, x and y float[4], the initializer c = [1, 2, 3, 4].
// Written by onnx.helper:
//   g = make_graph([make_node('Add', ['x', 'c'], ['y'], name='add')], 'add',
//                  [make_tensor_value_info('x', FLOAT, [4])],
//                  [make_tensor_value_info('y', FLOAT, [4])],
//                  [make_tensor('c', FLOAT, [4], [1, 2, 3, 4])])
//   m = make_model(g, opset_imports=[make_opsetid('', 13)], producer_name='aicc-consumer')
//   m.ir_version = 8; m.SerializeToString()
static const char kModel[] = "\x08\x08\x12\x0d\x61\x69\x63\x63\x2d\x63\x6f\x6e\x73\x75\x6d\x65\x72"
                             "\x3a\x57\x0a\x13\x0a\x01\x78"
                             "\x0a\x01\x63\x12\x01\x79\x1a\x03\x61\x64\x64\x22\x03\x41\x64\x64\x12"
                             "\x03\x61\x64\x64\x2a\x19\x08"
                             "\x04\x10\x01\x22\x10\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40"
                             "\x00\x00\x80\x40\x42\x01\x63"
                             "\x5a\x0f\x0a\x01\x78\x12\x0a\x0a\x08\x08\x01\x12\x04\x0a\x02\x08\x04"
                             "\x62\x0f\x0a\x01\x79\x12\x0a"
                             "\x0a\x08\x08\x01\x12\x04\x0a\x02\x08\x04\x42\x04\x0a\x00\x10\x0d";

static int fail(const std::string &message) {
  std::fprintf(stderr, "aicc-consumer: %s\n", message.c_str());
  return 1;
}

int main() {
  std::printf("%s (headers %s)\n", aicc::getVersionLine(), AICC_VERSION_STRING);

  // 1. Compile for the CPU target: the bundle's bytes.
  aicc::CompileOptions options;
  options.target = aicc::Target::CPU;
  llvm::Expected<std::string> bundleBytes =
      aicc::compileModel(llvm::StringRef(kModel, sizeof(kModel) - 1), "add.onnx",
                         aicc::InputKind::ONNX, aicc::EmitKind::Bundle, options);
  if (!bundleBytes)
    return fail("compile failed: " + llvm::toString(bundleBytes.takeError()));
  std::printf("compiled: %zu bundle bytes\n", bundleBytes->size());

  // 2. Load it and run it.
  rt::Bundle bundle;
  if (rt::Status s = rt::parseBundle(*bundleBytes, bundle); !s.ok)
    return fail("bad bundle: " + s.message);
  std::unique_ptr<rt::Session> session;
  if (rt::Status s = rt::Session::create(bundle, rt::Device::cpu, session); !s.ok)
    return fail("cannot load the bundle: " + s.message);
  rt::HostTensor x = rt::HostTensor::zeros(rt::DType::f32, {4});
  const float in[4] = {0.5f, -1.0f, 2.0f, 3.0f};
  std::memcpy(x.data.data(), in, sizeof(in));
  std::vector<rt::HostTensor> outputs;
  if (rt::Status s = session->run({x}, outputs); !s.ok)
    return fail("run failed: " + s.message);

  // 3. Check y = x + [1, 2, 3, 4].
  if (outputs.size() != 1 || outputs[0].numElements() != 4 || outputs[0].dtype != rt::DType::f32)
    return fail("unexpected outputs");
  const float want[4] = {1.5f, 1.0f, 5.0f, 7.0f};
  const float *y = outputs[0].as<float>();
  for (int i = 0; i < 4; ++i)
    if (std::fabs(y[i] - want[i]) > 1e-6f)
      return fail("y[" + std::to_string(i) + "] = " + std::to_string(y[i]) + ", expected " +
                  std::to_string(want[i]));
  std::printf("y = [%g, %g, %g, %g]: ok\n", y[0], y[1], y[2], y[3]);
  return 0;
}
