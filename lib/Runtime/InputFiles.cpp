//===- InputFiles.cpp - aicc-run's --input files --------------------------===//
#include "aicc/Runtime/InputFiles.h"

#include "aicc/Runtime/NumpyData.h"
#include "aicc/Runtime/ONNXData.h"

#include <algorithm>
#include <map>
#include <sys/stat.h>

using namespace aicc::runtime;

namespace {

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// "arr_K" (numpy.savez's name of its K-th positional array) -> K, else -1.
int savezPosition(const std::string &name) {
  if (name.size() < 5 || name.compare(0, 4, "arr_") != 0 || name.size() > 12)
    return -1;
  int k = 0;
  for (size_t i = 4; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9')
      return -1;
    k = k * 10 + (name[i] - '0');
  }
  return k;
}

} // namespace

Status aicc::run::loadInputFiles(const std::vector<std::string> &args, uint64_t maxBytes,
                                 std::vector<LoadedInput> &out) {
  out.clear();
  int next = 0;
  for (const std::string &arg : args) {
    std::string name, path = arg;
    if (size_t eq = arg.find('='); eq != std::string::npos && eq > 0 && !isFile(arg)) {
      name = arg.substr(0, eq);
      path = arg.substr(eq + 1);
      if (path.empty())
        return Status::error("--input " + arg + ": no file after '='");
    }
    if (endsWith(path, ".npz")) {
      if (!name.empty())
        return Status::error("--input " + arg +
                             ": an .npz archive names its inputs by its members; give it "
                             "without NAME=");
      std::vector<NamedTensor> members;
      if (Status s = readNpzFile(path, members, maxBytes); !s.ok)
        return s;
      if (members.empty())
        return Status::error("'" + path + "' holds no arrays");
      int base = next;
      for (NamedTensor &m : members) {
        LoadedInput in;
        in.source = "--input " + path + " (member '" + m.name + "')";
        if (int k = savezPosition(m.name); k >= 0) {
          in.position = base + k;
          next = std::max(next, in.position + 1);
        } else {
          in.name = m.name;
        }
        in.tensor = std::move(m.tensor);
        out.push_back(std::move(in));
      }
      continue;
    }
    LoadedInput in;
    in.source = "--input " + arg;
    in.name = name;
    if (name.empty())
      in.position = next++;
    Status s = endsWith(path, ".npy") ? readNpyFile(path, in.tensor, maxBytes)
                                      : readTensorProtoFile(path, in.tensor, nullptr, maxBytes);
    if (!s.ok)
      return s;
    out.push_back(std::move(in));
  }
  std::map<int, const LoadedInput *> seen;
  for (const LoadedInput &in : out)
    if (in.position >= 0 && !seen.emplace(in.position, &in).second)
      return Status::error(in.source + " and " + seen[in.position]->source +
                           " both give positional input " + std::to_string(in.position));
  return Status::success();
}

bool aicc::run::anyNamed(const std::vector<LoadedInput> &inputs) {
  return std::any_of(inputs.begin(), inputs.end(),
                     [](const LoadedInput &in) { return !in.name.empty(); });
}

Status aicc::run::placeInputs(const std::vector<LoadedInput> &inputs,
                              const std::vector<std::string> &modelNames,
                              const std::vector<int> &positional, std::vector<int> &modelIndex) {
  modelIndex.assign(inputs.size(), -1);
  std::vector<const LoadedInput *> given(modelNames.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const LoadedInput &in = inputs[i];
    int index = -1;
    if (!in.name.empty()) {
      auto it = std::find(modelNames.begin(), modelNames.end(), in.name);
      if (it == modelNames.end()) {
        std::string names;
        for (const std::string &n : modelNames)
          names += (names.empty() ? "'" : ", '") + n + "'";
        return Status::error(in.source + ": the model has no input '" + in.name +
                             "' (its inputs: " + (names.empty() ? "none" : names) + ")");
      }
      index = static_cast<int>(it - modelNames.begin());
    } else {
      if (in.position >= static_cast<int>(positional.size()))
        return Status::error(in.source + " is positional input " + std::to_string(in.position) +
                             " but the model takes " + std::to_string(positional.size()) +
                             " input(s) by position");
      index = positional[in.position];
    }
    if (given[index])
      return Status::error(in.source + " and " + given[index]->source + " both give input '" +
                           modelNames[index] + "'");
    given[index] = &in;
    modelIndex[i] = index;
  }
  return Status::success();
}
