//===- MemoryPlan.cpp - Temps packed into one arena by lifetime -----------===//
//
// Lifetimes from the launch order, the greedy-by-size placement of Pisarchyk
// and Lee (arXiv:2001.03288, section 4.3) and the O(n log n) check of a
// placement read from a bundle. See include/aicc/Runtime/MemoryPlan.h.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/MemoryPlan.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <queue>

using namespace aicc::runtime;

namespace {

/// `bytes` rounded up to kArenaAlignment, at least kArenaAlignment (so that
/// every used temp has a distinct address); false on overflow.
bool padToArenaAlignment(uint64_t bytes, uint64_t &out) {
  uint64_t b = std::max<uint64_t>(bytes, 1);
  if (__builtin_add_overflow(b, kArenaAlignment - 1, &b))
    return false;
  out = b / kArenaAlignment * kArenaAlignment;
  return true;
}

/// The buffer owning the memory of each buffer id (aliases resolved), in one
/// pass: an alias's source precedes it (validated).
std::vector<int> aliasRoots(const Bundle &bundle) {
  std::vector<int> root(bundle.buffers.size());
  for (size_t i = 0; i < bundle.buffers.size(); ++i) {
    const BufferDesc &b = bundle.buffers[i];
    root[i] = b.kind == BufferKind::alias && b.offset < i ? root[b.offset] : static_cast<int>(i);
  }
  return root;
}

std::string byteRange(uint64_t offset, uint64_t bytes) {
  return "[" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + ")";
}

} // namespace

Status aicc::runtime::computeTempLifetimes(const Bundle &bundle, std::vector<TempLifetime> &out) {
  out.clear();
  const std::vector<int> root = aliasRoots(bundle);
  constexpr size_t kUnused = static_cast<size_t>(-1);
  std::vector<size_t> first(bundle.buffers.size(), kUnused), last(bundle.buffers.size(), 0);
  for (size_t i = 0; i < bundle.launches.size(); ++i)
    for (int id : bundle.launches[i].buffers) {
      if (id < 0 || static_cast<size_t>(id) >= root.size())
        continue; // validateBundle refuses it
      int r = root[id];
      if (bundle.buffers[r].kind != BufferKind::temp)
        continue;
      if (first[r] == kUnused)
        first[r] = i;
      last[r] = i;
    }
  // A model output that is a view of a temp (an alias record) is read after the last
  // launch: its temp stays live to the end of the plan.
  for (const IODesc &io : bundle.outputs) {
    if (io.bufferId < 0 || static_cast<size_t>(io.bufferId) >= root.size() ||
        bundle.launches.empty())
      continue;
    int r = root[io.bufferId];
    if (bundle.buffers[r].kind != BufferKind::temp)
      continue;
    if (first[r] == kUnused)
      first[r] = 0;
    last[r] = bundle.launches.size() - 1;
  }
  for (size_t id = 0; id < bundle.buffers.size(); ++id) {
    if (bundle.buffers[id].kind != BufferKind::temp || first[id] == kUnused)
      continue;
    TempLifetime t;
    t.buffer = static_cast<int>(id);
    t.first = first[id];
    t.last = last[id];
    if (!padToArenaAlignment(bundle.buffers[id].sizeBytes, t.paddedBytes))
      return Status::error("buffer " + std::to_string(id) + ": " +
                           std::to_string(bundle.buffers[id].sizeBytes) +
                           " bytes cannot be padded to the arena alignment");
    out.push_back(t);
  }
  return Status::success();
}

Status aicc::runtime::planMemory(Bundle &bundle, MemoryPlanStats *stats) {
  std::vector<TempLifetime> temps;
  if (Status s = computeTempLifetimes(bundle, temps); !s.ok)
    return s;
  MemoryPlanStats st;
  st.numTemps = temps.size();
  for (const BufferDesc &b : bundle.buffers) {
    uint64_t *sum = b.kind == BufferKind::input      ? &st.inputBytes
                    : b.kind == BufferKind::output   ? &st.outputBytes
                    : b.kind == BufferKind::constant ? &st.constantBytes
                                                     : nullptr;
    if (sum && __builtin_add_overflow(*sum, b.sizeBytes, sum))
      return Status::error("the buffers' sizes overflow 2^64 bytes");
    if (b.kind != BufferKind::temp)
      continue;
    ++st.numUnusedTemps;
    uint64_t padded = 0;
    if (!padToArenaAlignment(b.sizeBytes, padded) ||
        __builtin_add_overflow(st.unplannedBytes, padded, &st.unplannedBytes))
      return Status::error("the temps' sizes overflow 2^64 bytes");
  }
  st.numUnusedTemps -= temps.size();

  // Peak live bytes: +size at the first launch, -size after the last.
  std::vector<uint64_t> born(bundle.launches.size() + 1, 0), died(bundle.launches.size() + 1, 0);
  for (const TempLifetime &t : temps) {
    born[t.first] += t.paddedBytes; // each sum is at most unplannedBytes: no overflow
    died[t.last + 1] += t.paddedBytes;
  }
  uint64_t live = 0;
  for (size_t i = 0; i < bundle.launches.size(); ++i) {
    live = live + born[i] - died[i];
    st.peakLiveBytes = std::max(st.peakLiveBytes, live);
  }

  // Greedy by size (Pisarchyk & Lee 2020, section 4.3).
  std::vector<size_t> order(temps.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TempLifetime &x = temps[a], &y = temps[b];
    if (x.paddedBytes != y.paddedBytes)
      return x.paddedBytes > y.paddedBytes;
    if (x.first != y.first)
      return x.first < y.first;
    return x.buffer < y.buffer;
  });
  struct Placed {
    uint64_t offset, end;
    size_t first, last;
  };
  std::vector<Placed> placed; // sorted by offset
  std::vector<uint64_t> offsets(temps.size(), 0);
  uint64_t arena = 0;
  for (size_t idx : order) {
    const TempLifetime &t = temps[idx];
    uint64_t prevEnd = 0, bestOffset = 0, bestGap = UINT64_MAX;
    bool found = false;
    for (const Placed &p : placed) {
      if (p.last < t.first || t.last < p.first)
        continue; // never live together: may overlap
      if (p.offset >= prevEnd) {
        uint64_t gap = p.offset - prevEnd;
        if (gap >= t.paddedBytes && gap < bestGap) {
          bestGap = gap;
          bestOffset = prevEnd;
          found = true;
        }
      }
      prevEnd = std::max(prevEnd, p.end);
    }
    uint64_t offset = found ? bestOffset : prevEnd, end = 0;
    if (__builtin_add_overflow(offset, t.paddedBytes, &end))
      return Status::error("the arena would exceed 2^64 bytes");
    offsets[idx] = offset;
    arena = std::max(arena, end);
    Placed p{offset, end, t.first, t.last};
    placed.insert(
        std::upper_bound(placed.begin(), placed.end(), p,
                         [](const Placed &a, const Placed &b) { return a.offset < b.offset; }),
        p);
  }

  // Temps no launch uses sit at offset 0, so the arena must hold them too
  // (Session::readBuffer may still read them).
  for (BufferDesc &b : bundle.buffers)
    if (b.kind == BufferKind::temp) {
      b.offset = 0;
      uint64_t padded = 0;
      if (!padToArenaAlignment(b.sizeBytes, padded))
        return Status::error("buffer " + std::to_string(b.id) + ": " + std::to_string(b.sizeBytes) +
                             " bytes cannot be padded to the arena alignment");
      arena = std::max(arena, padded);
    }
  for (size_t i = 0; i < temps.size(); ++i)
    bundle.buffers[temps[i].buffer].offset = offsets[i];
  bundle.arenaBytes = arena;
  st.arenaBytes = arena;
  if (stats)
    *stats = st;
  return Status::success();
}

Status aicc::runtime::checkMemoryPlan(const Bundle &bundle) {
  if (!bundle.arenaBytes)
    return Status::success();
  const uint64_t arena = *bundle.arenaBytes;
  for (const BufferDesc &b : bundle.buffers) {
    if (b.kind != BufferKind::temp)
      continue;
    std::string label = "buffer " + std::to_string(b.id) +
                        (b.line ? " (manifest line " + std::to_string(b.line) + ")" : "");
    if (b.offset % kArenaAlignment != 0)
      return Status::error(label + ": arena offset " + std::to_string(b.offset) +
                           " is not a multiple of " + std::to_string(kArenaAlignment));
    if (b.offset > arena || b.sizeBytes > arena - b.offset)
      return Status::error(label + ": bytes [" + std::to_string(b.offset) + ", +" +
                           std::to_string(b.sizeBytes) + ") lie outside the arena of " +
                           std::to_string(arena) + " bytes");
  }
  std::vector<TempLifetime> temps;
  if (Status s = computeTempLifetimes(bundle, temps); !s.ok)
    return s;
  std::sort(temps.begin(), temps.end(), [](const TempLifetime &a, const TempLifetime &b) {
    return a.first != b.first ? a.first < b.first : a.buffer < b.buffer;
  });
  // Live temps by offset (their ranges are disjoint), and by when they die.
  std::map<uint64_t, int> live;
  using Death = std::pair<size_t, int>; // (last launch, buffer)
  std::priority_queue<Death, std::vector<Death>, std::greater<Death>> deaths;
  auto rangeOf = [&](int id) {
    const BufferDesc &b = bundle.buffers[id];
    return std::make_pair(b.offset, b.offset + b.sizeBytes);
  };
  for (const TempLifetime &t : temps) {
    while (!deaths.empty() && deaths.top().first < t.first) {
      live.erase(bundle.buffers[deaths.top().second].offset);
      deaths.pop();
    }
    auto [begin, end] = rangeOf(t.buffer);
    if (begin == end)
      continue; // zero bytes overlap nothing
    auto overlap = [&](int other) {
      auto [ob, oe] = rangeOf(other);
      return Status::error("buffers " + std::to_string(other) + " and " + std::to_string(t.buffer) +
                           " are both live at launch " + std::to_string(t.first) +
                           " but share arena bytes (" + byteRange(ob, oe - ob) + " and " +
                           byteRange(begin, end - begin) + ")");
    };
    auto next = live.lower_bound(begin);
    if (next != live.end() && next->first < end)
      return overlap(next->second);
    if (next != live.begin() && rangeOf(std::prev(next)->second).second > begin)
      return overlap(std::prev(next)->second);
    live.emplace(begin, t.buffer);
    deaths.push({t.last, t.buffer});
  }
  return Status::success();
}

std::string aicc::runtime::formatMemoryReport(const Bundle &bundle, const MemoryPlanStats &st) {
  auto mib = [](uint64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.3f MiB", static_cast<double>(bytes) / (1 << 20));
    return std::string(buf);
  };
  auto ratio = [](uint64_t a, uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3fx", b ? static_cast<double>(a) / b : 1.0);
    return std::string(buf);
  };
  std::string out = "memory report (target " + bundle.target + "): " + std::to_string(st.numTemps) +
                    " temps in one arena, " + std::to_string(bundle.launches.size()) +
                    " launches\n";
  out += "  arena:             " + std::to_string(st.arenaBytes) + " bytes (" + mib(st.arenaBytes) +
         "), " + ratio(st.arenaBytes, st.peakLiveBytes) + " the lower bound\n";
  out += "  peak live temps:   " + std::to_string(st.peakLiveBytes) + " bytes (" +
         mib(st.peakLiveBytes) + "): the lower bound without in-place reuse\n";
  out += "  one buffer each:   " + std::to_string(st.unplannedBytes) + " bytes (" +
         mib(st.unplannedBytes) + "), " + ratio(st.unplannedBytes, st.arenaBytes) + " the arena\n";
  out += "  outside the arena: inputs " + std::to_string(st.inputBytes) + ", outputs " +
         std::to_string(st.outputBytes) + ", constants " + std::to_string(st.constantBytes) +
         " bytes\n";
  if (st.numUnusedTemps)
    out += "  " + std::to_string(st.numUnusedTemps) + " temp(s) no launch uses (no memory)\n";
  std::vector<TempLifetime> temps;
  if (computeTempLifetimes(bundle, temps).ok)
    for (const TempLifetime &t : temps) {
      const BufferDesc &b = bundle.buffers[t.buffer];
      out += "  buffer " + std::to_string(t.buffer) + " " + formatTensorType(b.dtype, b.shape) +
             " at " + std::to_string(b.offset) + " (+" + std::to_string(t.paddedBytes) +
             "), launches " + std::to_string(t.first) + ".." + std::to_string(t.last) + "\n";
    }
  return out;
}
