//===- CodeGen.cpp - MLIR -> LLVM IR, and the per-kernel dumps -------------===//
//
// The kernels' LLVM IR goes to machine code in lib/Target (NVPTX.h: PTX and cubins; Host.h:
// the CPU's shared object); this file holds the driver's side of it.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Target/LLVMCodeGen.h"
#include "aicc/Target/NVPTX.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::codegen;

FailureOr<std::string> aicc::detail::translateToLLVMIRText(Operation *kernels) {
  llvm::LLVMContext llvmCtx;
  auto mod = translateModuleToLLVMIR(kernels, llvmCtx, "aicc_kernels");
  if (!mod)
    return kernels->emitError("translation to LLVM IR failed"), failure();
  std::string s;
  llvm::raw_string_ostream os(s);
  mod->print(os, nullptr);
  return s;
}

LogicalResult aicc::detail::dumpKernels(Location loc, StringRef dir, StringRef llvmIR,
                                       const llvm::StringMap<std::string> &tileIR, bool gpu,
                                       StringRef chip, StringRef features, StringRef cudaPath) {
  llvm::LLVMContext llvmCtx;
  auto parsed = parseLLVMIR(loc, llvmIR, llvmCtx);
  if (failed(parsed))
    return failure();
  llvm::Module &whole = **parsed;
  SmallVector<std::string> kernels;
  for (llvm::Function &f : whole.functions()) {
    if (f.isDeclaration())
      continue;
    bool isKernel = gpu ? f.getCallingConv() == llvm::CallingConv::PTX_Kernel
                        : f.getName().ends_with("_entry");
    if (isKernel)
      kernels.push_back((gpu ? f.getName() : f.getName().drop_back(6)).str());
  }
  for (const std::string &k : kernels) {
    llvm::SmallString<256> kdir(dir);
    llvm::sys::path::append(kdir, k);
    if (auto ec = llvm::sys::fs::create_directories(kdir))
      return emitError(loc, "cannot create ") << kdir << ": " << ec.message(), failure();
    auto file = [&](StringRef name) {
      llvm::SmallString<256> p(kdir);
      llvm::sys::path::append(p, name);
      return std::string(p);
    };
    auto it = tileIR.find(k);
    if (it != tileIR.end() && failed(writeFile(loc, file("tile.mlir"), it->second)))
      return failure();
    // This kernel alone: drop the bodies of the other kernels, then unused globals.
    std::unique_ptr<llvm::Module> one = llvm::CloneModule(whole);
    for (llvm::Function &f : one->functions()) {
      StringRef n = f.getName();
      bool mine = gpu ? n == k : (n == k || n == k + "_entry");
      bool otherKernel = gpu ? f.getCallingConv() == llvm::CallingConv::PTX_Kernel
                             : llvm::is_contained(kernels, n.str()) || n.ends_with("_entry");
      if (!mine && otherKernel && !f.isDeclaration())
        f.deleteBody();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    one->print(os, nullptr);
    if (failed(writeFile(loc, file("kernel.ll"), text)))
      return failure();
    if (!gpu)
      continue;
    auto ptx = nvptx::emitPTX(loc, text, chip, features, cudaPath);
    if (failed(ptx) || failed(writeFile(loc, file("kernel.ptx"), *ptx)))
      return failure();
    llvm::json::Object summary{{"kernel", k}, {"chip", chip.str()}};
    std::string log;
    if (!nvptx::findPtxas(cudaPath).empty()) {
      if (failed(nvptx::assemblePTX(loc, *ptx, chip, cudaPath, &log)))
        return failure();
      // ptxas -v: "Used 30 registers, used 1 barriers, 8736 bytes smem, ..." and
      // "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
      auto grab = [&](StringRef pattern) -> std::optional<int64_t> {
        llvm::Regex re(pattern);
        SmallVector<StringRef> m;
        int64_t v;
        if (re.match(log, &m) && !m[1].getAsInteger(10, v))
          return v;
        return std::nullopt;
      };
      auto put = [&](StringRef key, std::optional<int64_t> v) {
        if (v)
          summary[key] = *v;
      };
      put("registers", grab("Used ([0-9]+) registers"));
      put("barriers", grab("used ([0-9]+) barriers"));
      summary["shared_bytes"] = grab("([0-9]+) bytes smem").value_or(0);
      put("stack_frame_bytes", grab("([0-9]+) bytes stack frame"));
      put("spill_store_bytes", grab("([0-9]+) bytes spill stores"));
      put("spill_load_bytes", grab("([0-9]+) bytes spill loads"));
      summary["ptxas_log"] = log;
    } else {
      summary["ptxas"] = "unavailable (no CUDA toolkit found); PTX only";
    }
    std::string json;
    llvm::raw_string_ostream js(json);
    js << llvm::formatv("{0:2}", llvm::json::Value(std::move(summary))) << "\n";
    if (failed(writeFile(loc, file("resources.json"), json)))
      return failure();
  }
  return success();
}
