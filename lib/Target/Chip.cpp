//===- Chip.cpp - the chip table (include/aicc/Target/Chip.h) ------------------------===//
#include "aicc/Target/Chip.h"

#include "mlir/IR/Types.h"

using namespace aicc;

namespace {
constexpr uint32_t bits(std::initializer_list<ChipFeature> fs) {
  uint32_t b = 0;
  for (ChipFeature f : fs)
    b |= static_cast<uint32_t>(f);
  return b;
}

/// NVIDIA H200 SXM. Sources: the NVIDIA H200 Tensor Core GPU datasheet (HBM3e 4.8 TB/s;
/// dense peaks FP16/BF16 989.4 TFLOP/s, TF32 494.7, FP32 66.9, FP64 33.5: the datasheet's
/// sparse figures halved where it quotes sparsity); the H100/Hopper tuning guide and the
/// CUDA C++ Programming Guide, compute capability 9.0 (132 SMs on the SXM part, 50 MiB L2,
/// 227 KiB shared memory per block out of 228 KiB per SM, 64K 32-bit registers and 2048
/// threads per SM).
constexpr ChipInfo h200(llvm::StringRef name, llvm::StringRef ptx, uint32_t features) {
  ChipInfo c{name, "H200 SXM", "h200"};
  c.isGPU = true;
  c.computeCapability = 90;
  c.ptxFeatures = ptx;
  c.features = features;
  c.smCount = 132;
  c.hbmBytesPerSecond = 4.8e12;
  c.l2Bytes = int64_t(50) << 20;
  c.peakF16 = 989.4e12;
  c.peakBF16 = 989.4e12;
  c.peakTF32 = 494.7e12;
  c.peakF32 = 66.9e12;
  c.peakF64 = 33.5e12;
  c.sharedMemPerBlockBytes = 227 << 10;
  c.sharedMemPerSMBytes = 228 << 10;
  c.registersPerSM = 64 << 10;
  c.maxThreadsPerSM = 2048;
  return c;
}

/// NVIDIA A100 SXM4 80GB. Sources: the NVIDIA A100 Tensor Core GPU datasheet (HBM2e
/// 2,039 GB/s; dense peaks FP16/BF16 312 TFLOP/s, TF32 156, FP32 19.5, FP64 9.7 (FMA
/// pipe)); the CUDA C++ Programming Guide, compute capability 8.0 (108 SMs, 40 MiB L2,
/// 163 KiB shared memory per block out of 164 KiB per SM, 64K registers, 2048 threads).
constexpr ChipInfo a100() {
  ChipInfo c{"sm_80", "A100 SXM4 80GB", "a100"};
  c.isGPU = true;
  c.computeCapability = 80;
  // PTX 7.8 (CUDA 11.8): every instruction the sm_80 / sm_90 lowerings emit.
  c.ptxFeatures = "+ptx78";
  c.features = bits({ChipFeature::CpAsync, ChipFeature::LdMatrix, ChipFeature::MmaSync});
  c.smCount = 108;
  c.hbmBytesPerSecond = 2.039e12;
  c.l2Bytes = int64_t(40) << 20;
  c.peakF16 = 312e12;
  c.peakBF16 = 312e12;
  c.peakTF32 = 156e12;
  c.peakF32 = 19.5e12;
  c.peakF64 = 9.7e12;
  c.sharedMemPerBlockBytes = 163 << 10;
  c.sharedMemPerSMBytes = 164 << 10;
  c.registersPerSM = 64 << 10;
  c.maxThreadsPerSM = 2048;
  return c;
}

/// NVIDIA A10 (sm_86, the data-center GA102 part). Sources: the NVIDIA A10 Tensor Core GPU
/// datasheet (GDDR6 600 GB/s; dense peaks FP16/BF16 125 TFLOP/s, TF32 62.5, FP32 31.2: the
/// datasheet's sparse figures halved; FP64 at 1/32 of FP32); 72 SMs and 6 MB of L2 (GA102 as
/// the A10 configures it); the CUDA C++ Programming Guide, compute capability 8.6 (99 KiB of
/// shared memory per block out of 100 KiB per SM, 64K registers, 1536 threads per SM).
constexpr ChipInfo a10() {
  ChipInfo c{"sm_86", "A10", "a10"};
  c.isGPU = true;
  c.computeCapability = 86;
  c.ptxFeatures = "+ptx78";
  c.features = bits({ChipFeature::CpAsync, ChipFeature::LdMatrix, ChipFeature::MmaSync});
  c.smCount = 72;
  c.hbmBytesPerSecond = 600e9;
  c.l2Bytes = int64_t(6) << 20;
  c.peakF16 = 125e12;
  c.peakBF16 = 125e12;
  c.peakTF32 = 62.5e12;
  c.peakF32 = 31.2e12;
  c.peakF64 = 0.976e12;
  c.sharedMemPerBlockBytes = 99 << 10;
  c.sharedMemPerSMBytes = 100 << 10;
  c.registersPerSM = 64 << 10;
  c.maxThreadsPerSM = 1536;
  return c;
}

/// NVIDIA L40S (sm_89, Ada). Sources: the NVIDIA L40S datasheet (142 SMs' worth of 568
/// fourth-generation tensor cores, GDDR6 864 GB/s; dense peaks FP16/BF16 362.05 TFLOP/s, TF32
/// 183, FP32 91.6: the datasheet's sparse figures halved; FP64 at 1/64 of FP32); the CUDA C++
/// Programming Guide, compute capability 8.9 (99 KiB of shared memory per block out of
/// 100 KiB per SM, 64K registers, 1536 threads per SM). L2: not in the datasheet, left 0.
constexpr ChipInfo l40s() {
  ChipInfo c{"sm_89", "L40S", "l40s"};
  c.isGPU = true;
  c.computeCapability = 89;
  // PTX 7.8 (CUDA 11.8) is the first with sm_89.
  c.ptxFeatures = "+ptx78";
  c.features = bits({ChipFeature::CpAsync, ChipFeature::LdMatrix, ChipFeature::MmaSync});
  c.smCount = 142;
  c.hbmBytesPerSecond = 864e9;
  c.peakF16 = 362.05e12;
  c.peakBF16 = 362.05e12;
  c.peakTF32 = 183e12;
  c.peakF32 = 91.6e12;
  c.peakF64 = 1.431e12;
  c.sharedMemPerBlockBytes = 99 << 10;
  c.sharedMemPerSMBytes = 100 << 10;
  c.registersPerSM = 64 << 10;
  c.maxThreadsPerSM = 1536;
  return c;
}

/// NVIDIA B200 (sm_100, HGX B200 at 1,000 W). Sources: the NVIDIA HGX B200 specifications
/// (HBM3e 8 TB/s; dense peaks FP16/BF16 2.25 PFLOP/s, TF32 1.1, FP32 80 TFLOP/s, FP64 40:
/// the sparse figures halved); 148 SMs; the CUDA C++ Programming Guide, compute capability
/// 10.0 (227 KiB of shared memory per block out of 228 KiB per SM, 64K registers, 2048
/// threads per SM). aicc has no tcgen05 lowering: sm_100 takes the mma.sync path (wgmma is
/// sm_90a only). L2: left 0.
constexpr ChipInfo b200() {
  ChipInfo c{"sm_100", "B200", "b200"};
  c.isGPU = true;
  c.computeCapability = 100;
  // PTX 8.6 (CUDA 12.8) is the first with sm_100.
  c.ptxFeatures = "+ptx86";
  c.features = bits({ChipFeature::CpAsync, ChipFeature::LdMatrix, ChipFeature::MmaSync,
                     ChipFeature::TMA});
  c.smCount = 148;
  c.hbmBytesPerSecond = 8e12;
  c.peakF16 = 2.25e15;
  c.peakBF16 = 2.25e15;
  c.peakTF32 = 1.1e15;
  c.peakF32 = 80e12;
  c.peakF64 = 40e12;
  c.sharedMemPerBlockBytes = 227 << 10;
  c.sharedMemPerSMBytes = 228 << 10;
  c.registersPerSM = 64 << 10;
  c.maxThreadsPerSM = 2048;
  return c;
}

constexpr ChipInfo cpu() {
  ChipInfo c{"cpu", "host CPU", ""};
  return c;
}

constexpr uint32_t kAmpere =
    bits({ChipFeature::CpAsync, ChipFeature::LdMatrix, ChipFeature::MmaSync});

const ChipInfo kChips[] = {
    cpu(),
    a100(),
    a10(),
    l40s(),
    // Plain sm_90: the Ampere instructions plus TMA (cp.async.bulk.tensor is not
    // arch-specific); PTX 7.8 as for sm_80.
    h200("sm_90", "+ptx78", kAmpere | bits({ChipFeature::TMA})),
    // sm_90a: the arch-specific wgmma and setmaxnreg need PTX 8.0 (PTX ISA, "Target ISA
    // notes").
    h200("sm_90a", "+ptx80",
         kAmpere | bits({ChipFeature::TMA, ChipFeature::Wgmma, ChipFeature::SetMaxNReg})),
    b200(),
};
} // namespace

llvm::ArrayRef<ChipInfo> aicc::allChips() { return kChips; }

const ChipInfo *aicc::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &c : kChips)
    if (c.name == name)
      return &c;
  for (const ChipInfo &c : kChips)
    if (!c.productAlias.empty() && c.productAlias == name)
      return &c;
  return nullptr;
}

std::string aicc::chipNames() {
  std::string s;
  for (const ChipInfo &c : kChips)
    s += (s.empty() ? "" : ", ") + c.name.str();
  return s;
}

std::string aicc::gpuChipNames() {
  std::string s;
  for (const ChipInfo &c : kChips)
    if (c.isGPU)
      s += (s.empty() ? "" : ", ") + c.name.str() + " (" + c.productAlias.str() + ")";
  return s;
}

std::string aicc::unknownHardwareMessage(llvm::StringRef name) {
  return "unknown hardware '" + name.str() + "' (expected a GPU row of the chip table: " +
         gpuChipNames() + ")";
}

double ChipInfo::peakFlops(mlir::Type elem, bool tensorCore, bool allowTF32) const {
  if (elem.isF64())
    return peakF64;
  if (!tensorCore)
    return peakF32;
  if (elem.isF16())
    return peakF16;
  if (elem.isBF16())
    return peakBF16;
  return allowTF32 ? peakTF32 : peakF32;
}
