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
#include <string_view>
#include <unordered_map>

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

/// A temp that may take over the bytes of another at one launch: `from`'s last
/// use and `to`'s first use are launch `launch`, whose kernel declares
/// (input, output) in place over them (InPlaceDesc `pair` of kernel `kernel`).
struct Handoff {
  int from = 0, to = 0;
  size_t launch = 0, kernel = 0, pair = 0;
};

/// Every handoff the bundle's `inplace` records allow, in launch order: for a
/// launch whose kernel declares (i, o), A = root(buffers[i]) and B =
/// root(buffers[o]) are distinct used temps of equal SIZE_BYTES, A's last use
/// and B's first use are this launch, and each of A and B is passed once (no
/// other parameter of the launch reads or writes them). `byBuffer` maps a
/// buffer id to its index in `temps` (-1 for none).
std::vector<Handoff> findHandoffs(const Bundle &bundle, const std::vector<TempLifetime> &temps,
                                  const std::vector<int> &byBuffer) {
  std::vector<Handoff> out;
  bool any = false;
  for (const KernelDesc &k : bundle.kernels)
    any |= !k.inPlace.empty();
  if (!any)
    return out;
  const std::vector<int> root = aliasRoots(bundle);
  // Temps the caller reads after the run (a model output is a view of them).
  std::vector<bool> behindOutput(bundle.buffers.size(), false);
  for (const IODesc &io : bundle.outputs)
    if (io.bufferId >= 0 && static_cast<size_t>(io.bufferId) < root.size())
      behindOutput[root[io.bufferId]] = true;
  std::unordered_map<std::string_view, size_t> kernelByName;
  for (size_t k = 0; k < bundle.kernels.size(); ++k)
    kernelByName.emplace(bundle.kernels[k].name, k);
  for (size_t l = 0; l < bundle.launches.size(); ++l) {
    const LaunchDesc &launch = bundle.launches[l];
    auto it = kernelByName.find(launch.kernel);
    if (it == kernelByName.end())
      continue;
    const KernelDesc &k = bundle.kernels[it->second];
    auto rootAt = [&](int param) {
      return param >= 0 && static_cast<size_t>(param) < launch.buffers.size() &&
                     launch.buffers[param] >= 0 &&
                     static_cast<size_t>(launch.buffers[param]) < root.size()
                 ? root[launch.buffers[param]]
                 : -1;
    };
    // How often each buffer is passed, by root: counted once per launch (a launch's
    // records each look up two counts, so the work is linear in the manifest).
    std::unordered_map<int, int> passed;
    for (size_t p = 0; p < launch.buffers.size(); ++p)
      ++passed[rootAt(static_cast<int>(p))];
    for (size_t q = 0; q < k.inPlace.size(); ++q) {
      int a = rootAt(k.inPlace[q].input), b = rootAt(k.inPlace[q].output);
      if (a < 0 || b < 0 || a == b || byBuffer[a] < 0 || byBuffer[b] < 0)
        continue;
      const TempLifetime &ta = temps[byBuffer[a]], &tb = temps[byBuffer[b]];
      // The input was written before this launch (first use earlier: handoffs then go
      // strictly forward in time, so they never form a cycle) and is read for the last
      // time here, not after the plan (a temp behind a model output).
      if (ta.first >= l || ta.last != l || behindOutput[a] || tb.first != l ||
          bundle.buffers[a].sizeBytes != bundle.buffers[b].sizeBytes || passed[a] != 1 ||
          passed[b] != 1)
        continue;
      out.push_back({a, b, l, it->second, q});
    }
  }
  return out;
}

/// Index into `temps` of each buffer id, -1 for buffers without a lifetime.
std::vector<int> tempIndexByBuffer(const Bundle &bundle, const std::vector<TempLifetime> &temps) {
  std::vector<int> byBuffer(bundle.buffers.size(), -1);
  for (size_t i = 0; i < temps.size(); ++i)
    byBuffer[temps[i].buffer] = static_cast<int>(i);
  return byBuffer;
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

  // In-place chains: a temp that takes over another's bytes at a launch
  // (findHandoffs) joins its chain; a chain is placed as one temp live from
  // its head's first use to its tail's last. Handoffs are taken in launch
  // order while the temps involved are free ends.
  const std::vector<int> byBuffer = tempIndexByBuffer(bundle, temps);
  std::vector<int> next(temps.size(), -1), prev(temps.size(), -1);
  std::vector<std::vector<bool>> pairUsed(bundle.kernels.size());
  for (size_t k = 0; k < bundle.kernels.size(); ++k)
    pairUsed[k].assign(bundle.kernels[k].inPlace.size(), false);
  for (const Handoff &h : findHandoffs(bundle, temps, byBuffer)) {
    int a = byBuffer[h.from], b = byBuffer[h.to];
    if (next[a] >= 0 || prev[b] >= 0)
      continue;
    next[a] = b;
    prev[b] = a;
    pairUsed[h.kernel][h.pair] = true;
    ++st.numInPlace;
  }
  struct Chain {
    size_t head; // index into temps
    size_t first, last;
    uint64_t paddedBytes;
  };
  std::vector<Chain> chains;
  for (size_t i = 0; i < temps.size(); ++i) {
    if (prev[i] >= 0)
      continue;
    size_t tail = i;
    while (next[tail] >= 0)
      tail = static_cast<size_t>(next[tail]);
    chains.push_back({i, temps[i].first, temps[tail].last, temps[i].paddedBytes});
  }

  // Greedy placement (Pisarchyk & Lee 2020, section 4.3) over the chains, in three
  // orders; the smallest arena wins (ties: the earlier order). Each order is a
  // heuristic that loses on some plans: by size (their "greedy by size"); by the
  // widest launch a chain is live at, then size (an O(n log n) form of their
  // "greedy by breadth", which places the temps of the widest launch first); by
  // first use, then size (linear scan).
  auto bySizeThen = [&](const Chain &x, const Chain &y) {
    if (x.paddedBytes != y.paddedBytes)
      return x.paddedBytes > y.paddedBytes;
    if (x.first != y.first)
      return x.first < y.first;
    return temps[x.head].buffer < temps[y.head].buffer;
  };
  // Live chain bytes per launch, and the widest launch of each chain (a sparse
  // table of range maxima).
  const size_t numLaunches = bundle.launches.size();
  std::vector<uint64_t> widthOfChain(chains.size(), 0);
  if (numLaunches) {
    std::vector<uint64_t> delta(numLaunches + 1, 0), width(numLaunches, 0);
    std::vector<uint64_t> minus(numLaunches + 1, 0);
    for (const Chain &c : chains) {
      delta[c.first] += c.paddedBytes; // each sum is at most unplannedBytes
      minus[c.last + 1] += c.paddedBytes;
    }
    uint64_t live = 0;
    for (size_t l = 0; l < numLaunches; ++l)
      width[l] = live = live + delta[l] - minus[l];
    std::vector<std::vector<uint64_t>> table{width};
    for (size_t k = 1; (size_t(1) << k) <= numLaunches; ++k) {
      const std::vector<uint64_t> &prev = table.back();
      std::vector<uint64_t> row(numLaunches - (size_t(1) << k) + 1);
      for (size_t i = 0; i < row.size(); ++i)
        row[i] = std::max(prev[i], prev[i + (size_t(1) << (k - 1))]);
      table.push_back(std::move(row));
    }
    for (size_t c = 0; c < chains.size(); ++c) {
      size_t lo = chains[c].first, hi = chains[c].last, k = 0;
      while ((size_t(2) << k) <= hi - lo + 1)
        ++k;
      widthOfChain[c] = std::max(table[k][lo], table[k][hi + 1 - (size_t(1) << k)]);
    }
  }
  std::vector<std::vector<size_t>> orders(3, std::vector<size_t>(chains.size()));
  for (std::vector<size_t> &o : orders)
    for (size_t i = 0; i < o.size(); ++i)
      o[i] = i;
  std::sort(orders[0].begin(), orders[0].end(),
            [&](size_t a, size_t b) { return bySizeThen(chains[a], chains[b]); });
  std::sort(orders[1].begin(), orders[1].end(), [&](size_t a, size_t b) {
    if (widthOfChain[a] != widthOfChain[b])
      return widthOfChain[a] > widthOfChain[b];
    return bySizeThen(chains[a], chains[b]);
  });
  std::sort(orders[2].begin(), orders[2].end(), [&](size_t a, size_t b) {
    if (chains[a].first != chains[b].first)
      return chains[a].first < chains[b].first;
    return bySizeThen(chains[a], chains[b]);
  });
  struct Placed {
    uint64_t offset, end;
    size_t first, last;
  };
  // Places the chains in `order`, each in the smallest gap between the placed
  // chains live at the same time that fits, else above them all.
  auto place = [&](const std::vector<size_t> &order, std::vector<uint64_t> &chainOffset,
                   uint64_t &arenaOut) -> Status {
    std::vector<Placed> placed; // sorted by offset
    chainOffset.assign(chains.size(), 0);
    arenaOut = 0;
    for (size_t idx : order) {
      const Chain &t = chains[idx];
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
      chainOffset[idx] = offset;
      arenaOut = std::max(arenaOut, end);
      Placed p{offset, end, t.first, t.last};
      placed.insert(
          std::upper_bound(placed.begin(), placed.end(), p,
                           [](const Placed &a, const Placed &b) { return a.offset < b.offset; }),
          p);
    }
    return Status::success();
  };
  std::vector<uint64_t> bestChainOffset;
  uint64_t arena = 0;
  for (size_t o = 0; o < orders.size(); ++o) {
    std::vector<uint64_t> chainOffset;
    uint64_t size = 0;
    if (Status s = place(orders[o], chainOffset, size); !s.ok)
      return s;
    if (o == 0 || size < arena) {
      arena = size;
      bestChainOffset = std::move(chainOffset);
    }
  }
  std::vector<uint64_t> offsets(temps.size(), 0);
  for (size_t c = 0; c < chains.size(); ++c)
    for (int m = static_cast<int>(chains[c].head); m >= 0; m = next[m])
      offsets[m] = bestChainOffset[c];

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
  // The bundle keeps the in-place records this plan used, and only those.
  for (size_t k = 0; k < bundle.kernels.size(); ++k) {
    std::vector<InPlaceDesc> kept;
    for (size_t q = 0; q < bundle.kernels[k].inPlace.size(); ++q)
      if (pairUsed[k][q])
        kept.push_back(bundle.kernels[k].inPlace[q]);
    bundle.kernels[k].inPlace = std::move(kept);
  }
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
  // The handoffs the in-place records allow: (from, to) buffer pairs (found while
  // `temps` is still in buffer-id order).
  std::vector<std::pair<int, int>> allowed;
  for (const Handoff &h : findHandoffs(bundle, temps, tempIndexByBuffer(bundle, temps)))
    allowed.push_back({h.from, h.to});
  std::sort(allowed.begin(), allowed.end());
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
      // A temp that handed its bytes over in place is no longer the entry there.
      auto d = live.find(bundle.buffers[deaths.top().second].offset);
      if (d != live.end() && d->second == deaths.top().second)
        live.erase(d);
      deaths.pop();
    }
    // Not a structured binding: the lambda below captures both (C++17).
    auto range = rangeOf(t.buffer);
    auto begin = range.first, end = range.second;
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
    // An in-place handoff: exactly the bytes of a temp whose last use is this
    // launch, which the launch's kernel may write over (findHandoffs).
    if (next != live.end() && next->first == begin && rangeOf(next->second).second == end &&
        std::binary_search(allowed.begin(), allowed.end(), std::make_pair(next->second, t.buffer)))
      next = live.erase(next);
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
  if (st.numInPlace)
    out += "  in place:          " + std::to_string(st.numInPlace) +
           " temp(s) written over a dead input of their kernel (inplace records)\n";
  if (st.numUnusedTemps)
    out += "  " + std::to_string(st.numUnusedTemps) + " temp(s) no launch uses (no memory)\n";
  std::vector<TempLifetime> temps;
  if (computeTempLifetimes(bundle, temps).ok) {
    // A temp at the bytes of one it may take over in place (a handoff the plan made).
    std::vector<int> inPlaceOf(bundle.buffers.size(), -1);
    for (const Handoff &h : findHandoffs(bundle, temps, tempIndexByBuffer(bundle, temps)))
      if (bundle.buffers[h.from].offset == bundle.buffers[h.to].offset)
        inPlaceOf[h.to] = h.from;
    for (const TempLifetime &t : temps) {
      const BufferDesc &b = bundle.buffers[t.buffer];
      out += "  buffer " + std::to_string(t.buffer) + " " + formatTensorType(b.dtype, b.shape) +
             " at " + std::to_string(b.offset) + " (+" + std::to_string(t.paddedBytes) +
             "), launches " + std::to_string(t.first) + ".." + std::to_string(t.last);
      if (inPlaceOf[t.buffer] >= 0)
        out += ", in place of buffer " + std::to_string(inPlaceOf[t.buffer]);
      out += "\n";
    }
  }
  return out;
}
