//===- PipelineSteps.cpp - run a pass pipeline one pass at a time ----------===//
#include "aicc/Support/PipelineSteps.h"
#include "aicc/Support/OutputFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace aicc;

std::string PipelineStep::pipeline() const {
  std::string s;
  for (const std::string &n : nesting)
    s += n + "(";
  s += pass;
  s.append(nesting.size(), ')');
  return s;
}

FailureOr<std::vector<PipelineStep>> aicc::flattenPipeline(StringRef text, std::string &error) {
  std::vector<PipelineStep> steps;
  std::vector<std::string> nesting;
  size_t i = 0, n = text.size();
  auto skipSpace = [&] {
    while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t'))
      ++i;
  };
  while (true) {
    skipSpace();
    if (i >= n)
      break;
    if (text[i] == ',') {
      ++i;
      continue;
    }
    if (text[i] == ')') {
      if (nesting.empty()) {
        error = "unbalanced ')' at offset " + std::to_string(i);
        return failure();
      }
      nesting.pop_back();
      ++i;
      continue;
    }
    size_t start = i;
    while (i < n && text[i] != '(' && text[i] != '{' && text[i] != ',' && text[i] != ')' &&
           text[i] != ' ')
      ++i;
    std::string name = text.slice(start, i).str();
    if (name.empty()) {
      error = "unexpected '" + std::string(1, text[i]) + "' at offset " + std::to_string(i);
      return failure();
    }
    skipSpace();
    if (i < n && text[i] == '(') {
      nesting.push_back(name);
      ++i;
      continue;
    }
    std::string pass = name;
    if (i < n && text[i] == '{') {
      int depth = 0;
      size_t ostart = i;
      for (; i < n; ++i) {
        if (text[i] == '{')
          ++depth;
        else if (text[i] == '}' && --depth == 0) {
          ++i;
          break;
        }
      }
      if (depth != 0) {
        error = "unbalanced '{' in the options of " + name;
        return failure();
      }
      pass += text.slice(ostart, i).str();
    }
    steps.push_back({nesting, pass, name});
  }
  if (!nesting.empty()) {
    error = "unbalanced '(' after " + nesting.back();
    return failure();
  }
  return steps;
}

std::string aicc::printPipeline(OpPassManager &pm) {
  std::string s;
  llvm::raw_string_ostream os(s);
  pm.printAsTextualPipeline(os);
  return s;
}

LogicalResult aicc::runStep(Operation *root, const PipelineStep &step) {
  PassManager pm(root->getContext(), root->getName().getStringRef());
  std::string inner;
  // Strip the root op name: parsePassPipeline on a PassManager takes the nested part.
  std::vector<std::string> nested(step.nesting.begin() + (step.nesting.empty() ? 0 : 1),
                                  step.nesting.end());
  for (const std::string &n : nested)
    inner += n + "(";
  inner += step.pass;
  inner.append(nested.size(), ')');
  std::string err;
  llvm::raw_string_ostream es(err);
  if (failed(parsePassPipeline(inner, pm, es)))
    return root->emitError("cannot parse pipeline step '") << step.pipeline() << "': " << err;
  return pm.run(root);
}

std::string aicc::printIR(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, OpPrintingFlags().enableDebugInfo(false));
  os << "\n";
  return s;
}

LogicalResult aicc::writeFileAtomically(StringRef path, StringRef text, std::string &error) {
  if (llvm::Error e = writeOutputFile(path, text)) {
    error = llvm::toString(std::move(e));
    return failure();
  }
  return success();
}

LogicalResult aicc::writeStepDump(StringRef dir, unsigned index, const PipelineStep &step,
                                  StringRef previous, StringRef ir, std::string &error,
                                  std::string *writtenPath) {
  if (auto ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create '" + dir.str() + "': " + ec.message();
    return failure();
  }
  char num[16];
  snprintf(num, sizeof(num), "%02u", index);
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, std::string(num) + "-" + step.name + ".mlir");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// aicc step " << num << ": " << step.name << "\n";
  os << "// reproduce: aicc-opt " << previous << " --pass-pipeline='" << step.pipeline()
     << "'\n";
  os << ir;
  if (writtenPath)
    *writtenPath = std::string(path);
  return writeFileAtomically(path, text, error);
}

std::string aicc::unifiedDiff(StringRef before, StringRef after, StringRef beforeLabel,
                              StringRef afterLabel) {
  if (before == after)
    return "";
  auto diff = llvm::sys::findProgramByName("diff");
  if (!diff)
    return "(no 'diff' program on PATH to show the change)\n";
  llvm::SmallString<128> a, b, out;
  int fa, fb, fo;
  if (llvm::sys::fs::createTemporaryFile("aicc-before", "mlir", fa, a) ||
      llvm::sys::fs::createTemporaryFile("aicc-after", "mlir", fb, b) ||
      llvm::sys::fs::createTemporaryFile("aicc-diff", "txt", fo, out))
    return "(cannot create temporary files for the diff)\n";
  {
    llvm::raw_fd_ostream oa(fa, /*shouldClose=*/true), ob(fb, /*shouldClose=*/true);
    oa << before;
    ob << after;
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(fo);
  std::string la = ("--label=" + beforeLabel).str(), lb = ("--label=" + afterLabel).str();
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out), std::nullopt};
  llvm::sys::ExecuteAndWait(*diff, {*diff, "-u", la, lb, a, b}, std::nullopt, redirects);
  std::string result;
  if (auto buf = llvm::MemoryBuffer::getFile(out))
    result = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(a);
  llvm::sys::fs::remove(b);
  llvm::sys::fs::remove(out);
  return result;
}
