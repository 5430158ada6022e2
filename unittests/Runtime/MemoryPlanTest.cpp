//===- MemoryPlanTest.cpp - The arena placement of temps ------------------===//
//
// planMemory over random launch plans, checked by a brute-force pairwise test
// written independently of checkMemoryPlan; checkMemoryPlan's refusals; the
// version-4 records round trip.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/MemoryPlan.h"

#include "BundleTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace aicc::runtime;

namespace {

/// A plan with `numTemps` f32 temps of random sizes (some aliased), a few
/// inputs and constants, and `numLaunches` launches of 1-5 random buffers.
/// Each launch has its own kernel so that the bundle validates.
Bundle randomPlan(std::mt19937 &rng, int numTemps, int numLaunches) {
  Bundle b;
  b.target = "cpu";
  auto add = [&](BufferKind kind, int64_t elems, uint64_t offset = 0) {
    BufferDesc d;
    d.id = static_cast<int>(b.buffers.size());
    d.dtype = DType::f32;
    d.kind = kind;
    d.shape = {elems};
    d.sizeBytes = static_cast<uint64_t>(elems) * 4;
    d.offset = offset;
    b.buffers.push_back(d);
    return d.id;
  };
  int in = add(BufferKind::input, 16);
  b.inputs.push_back({0, in, "x"});
  b.weights.assign(64, '\0');
  add(BufferKind::constant, 16, 0);
  std::uniform_int_distribution<int64_t> elems(0, 5000);
  for (int i = 0; i < numTemps; ++i) {
    int id = add(BufferKind::temp, rng() % 4 == 0 ? elems(rng) * 50 : elems(rng));
    if (rng() % 4 == 0) // an alias of it, smaller
      add(BufferKind::alias, b.buffers[id].shape[0] / 2, id);
  }
  int out = add(BufferKind::output, 16);
  b.outputs.push_back({0, out, "y"});
  // Sometimes a second output that is a view of a temp (it must outlive every launch).
  if (rng() % 2) {
    int temp = -1;
    for (const BufferDesc &d : b.buffers)
      if (d.kind == BufferKind::temp)
        temp = d.id;
    if (temp >= 0)
      b.outputs.push_back({1, add(BufferKind::alias, b.buffers[temp].shape[0], temp), "view"});
  }
  std::uniform_int_distribution<int> pick(0, static_cast<int>(b.buffers.size()) - 1), count(1, 5);
  b.code = "CODE";
  for (int l = 0; l < numLaunches; ++l) {
    LaunchDesc launch;
    launch.kernel = "k" + std::to_string(l);
    int n = count(rng);
    for (int i = 0; i < n; ++i)
      launch.buffers.push_back(pick(rng));
    KernelDesc k;
    k.name = launch.kernel;
    k.numParams = n;
    for (int id : launch.buffers)
      k.params.push_back({DType::f32, b.buffers[id].sizeBytes});
    b.kernels.push_back(k);
    b.launches.push_back(launch);
  }
  return b;
}

/// Independent of MemoryPlan.cpp: every pair of temps used by launches whose
/// use ranges intersect must have disjoint byte ranges.
void expectNoLiveOverlap(const Bundle &b) {
  const size_t n = b.buffers.size();
  std::vector<long> first(n, -1), last(n, -1);
  for (size_t l = 0; l < b.launches.size(); ++l)
    for (int id : b.launches[l].buffers) {
      int r = id;
      while (b.buffers[r].kind == BufferKind::alias)
        r = static_cast<int>(b.buffers[r].offset);
      if (first[r] < 0)
        first[r] = static_cast<long>(l);
      last[r] = static_cast<long>(l);
    }
  for (const IODesc &io : b.outputs) {
    int r = io.bufferId;
    while (b.buffers[r].kind == BufferKind::alias)
      r = static_cast<int>(b.buffers[r].offset);
    if (b.buffers[r].kind == BufferKind::temp && !b.launches.empty()) {
      if (first[r] < 0)
        first[r] = 0;
      last[r] = static_cast<long>(b.launches.size()) - 1;
    }
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const BufferDesc &x = b.buffers[i], &y = b.buffers[j];
      if (x.kind != BufferKind::temp || y.kind != BufferKind::temp || first[i] < 0 || first[j] < 0)
        continue;
      bool liveTogether = !(last[i] < first[j] || last[j] < first[i]);
      bool share = x.offset < y.offset + y.sizeBytes && y.offset < x.offset + x.sizeBytes &&
                   x.sizeBytes && y.sizeBytes;
      ASSERT_FALSE(liveTogether && share)
          << "buffers " << i << " and " << j << " live together at [" << first[i] << "," << last[i]
          << "] and [" << first[j] << "," << last[j] << "] share bytes";
    }
}

} // namespace

TEST(MemoryPlanTest, RandomPlansNeverOverlapTwoLiveTemps) {
  std::mt19937 rng(20261202);
  for (int trial = 0; trial < 300; ++trial) {
    Bundle b = randomPlan(rng, 1 + trial % 60, 1 + (trial * 7) % 80);
    ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
    MemoryPlanStats st;
    Status s = planMemory(b, &st);
    ASSERT_TRUE(s.ok) << s.message;
    ASSERT_TRUE(b.arenaBytes.has_value());
    expectNoLiveOverlap(b);
    EXPECT_TRUE(checkMemoryPlan(b).ok) << checkMemoryPlan(b).message;
    EXPECT_GE(st.arenaBytes, st.peakLiveBytes);
    EXPECT_LE(st.arenaBytes, st.unplannedBytes);
    for (const BufferDesc &d : b.buffers)
      if (d.kind == BufferKind::temp) {
        EXPECT_EQ(d.offset % kArenaAlignment, 0u);
        EXPECT_LE(d.offset + d.sizeBytes, *b.arenaBytes);
      }
    // The planned bundle is a valid version-4 bundle and survives the round trip.
    b.formatVersion = kBundleFormatVersion;
    ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
    Bundle parsed;
    s = parseBundle(serializeBundle(b), parsed);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(parsed.arenaBytes, b.arenaBytes);
    for (size_t i = 0; i < b.buffers.size(); ++i)
      EXPECT_EQ(parsed.buffers[i].offset, b.buffers[i].offset);
  }
}

TEST(MemoryPlanTest, AChainReusesTwoSlots) {
  // t_i is written by launch i and read by launch i+1: two slots suffice, and
  // greedy by size finds them (the lower bound).
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  const int n = 10;
  for (int i = 0; i < n; ++i)
    b.buffers.push_back({i, DType::f32, BufferKind::temp, 4096, {1024}, 0});
  for (int i = 0; i + 1 < n; ++i) {
    b.kernels.push_back({"k" + std::to_string(i), {1, 1, 1}, {1, 1, 1}, 0, 2});
    b.kernels.back().params = {{DType::f32, 4096}, {DType::f32, 4096}};
    b.launches.push_back({"k" + std::to_string(i), {i, i + 1}});
  }
  MemoryPlanStats st;
  ASSERT_TRUE(planMemory(b, &st).ok);
  EXPECT_EQ(st.peakLiveBytes, 2u * 4096);
  EXPECT_EQ(st.arenaBytes, 2u * 4096);
  EXPECT_EQ(st.unplannedBytes, 10u * 4096);
  EXPECT_EQ(st.numTemps, 10u);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(b.buffers[i].offset, (i % 2) * 4096u) << i;
  const std::string report = formatMemoryReport(b, st);
  EXPECT_NE(report.find("arena:             8192 bytes (0.008 MiB), 1.000x the lower bound"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("buffer 3 f32[1024] at 4096 (+4096), launches 2..3"), std::string::npos)
      << report;
}

TEST(MemoryPlanTest, UnusedTempsAndAliasesExtendNothingButTheirSource) {
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  b.buffers.push_back({0, DType::f32, BufferKind::temp, 1024, {256}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::temp, 1024, {256}, 0}); // never used
  b.buffers.push_back({2, DType::f32, BufferKind::alias, 1024, {16, 16}, 0});
  b.buffers.push_back({3, DType::f32, BufferKind::temp, 1024, {256}, 0});
  for (int i = 0; i < 3; ++i) {
    b.kernels.push_back({"k" + std::to_string(i), {1, 1, 1}, {1, 1, 1}, 0, 1});
    b.kernels.back().params = {{DType::f32, 1024}};
  }
  // Temp 0 written at 0, read through its alias at 2; temp 3 only at 1: live together.
  b.launches = {{"k0", {0}}, {"k1", {3}}, {"k2", {2}}};
  std::vector<TempLifetime> lt;
  ASSERT_TRUE(computeTempLifetimes(b, lt).ok);
  ASSERT_EQ(lt.size(), 2u);
  EXPECT_EQ(lt[0].buffer, 0);
  EXPECT_EQ(lt[0].first, 0u);
  EXPECT_EQ(lt[0].last, 2u);
  EXPECT_EQ(lt[1].buffer, 3);
  MemoryPlanStats st;
  ASSERT_TRUE(planMemory(b, &st).ok);
  EXPECT_EQ(st.numUnusedTemps, 1u);
  EXPECT_EQ(st.arenaBytes, 2048u);
  EXPECT_NE(b.buffers[0].offset, b.buffers[3].offset);
  EXPECT_EQ(b.buffers[1].offset, 0u);
}

TEST(MemoryPlanTest, CheckRefusesBadPlacements) {
  std::mt19937 rng(7);
  Bundle b = randomPlan(rng, 30, 40);
  ASSERT_TRUE(planMemory(b).ok);
  // Two temps live at the same launch moved onto each other.
  std::vector<TempLifetime> lt;
  ASSERT_TRUE(computeTempLifetimes(b, lt).ok);
  bool moved = false;
  for (size_t i = 0; i < lt.size() && !moved; ++i)
    for (size_t j = i + 1; j < lt.size() && !moved; ++j)
      if (!(lt[i].last < lt[j].first || lt[j].last < lt[i].first) &&
          b.buffers[lt[i].buffer].sizeBytes && b.buffers[lt[j].buffer].sizeBytes &&
          b.buffers[lt[j].buffer].sizeBytes <= *b.arenaBytes - b.buffers[lt[i].buffer].offset) {
        Bundle bad = b;
        bad.buffers[lt[j].buffer].offset = bad.buffers[lt[i].buffer].offset;
        Status s = checkMemoryPlan(bad);
        EXPECT_FALSE(s.ok);
        EXPECT_NE(s.message.find("are both live at launch"), std::string::npos) << s.message;
        moved = true;
      }
  ASSERT_TRUE(moved);

  Bundle misaligned = b;
  for (BufferDesc &d : misaligned.buffers)
    if (d.kind == BufferKind::temp) {
      d.offset += 16;
      break;
    }
  EXPECT_NE(checkMemoryPlan(misaligned).message.find("is not a multiple of 256"),
            std::string::npos);

  Bundle outside = b;
  for (BufferDesc &d : outside.buffers)
    if (d.kind == BufferKind::temp && d.sizeBytes) {
      d.offset = *outside.arenaBytes;
      break;
    }
  EXPECT_NE(checkMemoryPlan(outside).message.find("lie outside the arena"), std::string::npos)
      << checkMemoryPlan(outside).message;
}

TEST(MemoryPlanTest, ArenaRecordsAreParsedStrictly) {
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  b.buffers.push_back({0, DType::f32, BufferKind::input, 16, {4}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::temp, 16, {4}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::output, 16, {4}, 0});
  b.inputs.push_back({0, 0, "x"});
  b.outputs.push_back({0, 2, "y"});
  b.kernels.push_back({"k", {1, 1, 1}, {1, 1, 1}, 0, 2});
  b.kernels[0].params = {{DType::f32, 16}, {DType::f32, 16}};
  b.launches = {{"k", {0, 1}}, {"k", {1, 2}}};
  ASSERT_TRUE(planMemory(b).ok);
  b.buffers[1].offset = 256;
  b.arenaBytes = 512;
  const std::string bytes = serializeBundle(b);
  EXPECT_NE(bytes.find("aicc-bundle 4\ntarget cpu\narena 512\n"), std::string::npos);
  EXPECT_NE(bytes.find("buffer 1 f32 temp 16 1 4 256\n"), std::string::npos);
  Bundle parsed;
  ASSERT_TRUE(parseBundle(bytes, parsed).ok);
  EXPECT_EQ(parsed.arenaBytes, std::optional<uint64_t>(512));
  EXPECT_EQ(parsed.buffers[1].offset, 256u);

  auto manifestError = [&](const std::string &from, const std::string &to) {
    std::string text = bytes.substr(16, bytes.find("checksum xxh64") - 16);
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::string code = "CODE";
    Bundle out;
    return parseBundle(test::sealed(text, code, ""), out).message;
  };
  EXPECT_NE(manifestError("arena 512\n", "arena 512\narena 512\n").find("'arena' record repeated"),
            std::string::npos);
  EXPECT_NE(manifestError("arena 512\nbuffer 0 f32 input 16 1 4\n",
                          "buffer 0 f32 input 16 1 4\narena 512\n")
                .find("must precede the buffer records"),
            std::string::npos);
  EXPECT_NE(manifestError("aicc-bundle 4", "aicc-bundle 3").find("'arena' record in a version-3"),
            std::string::npos);
  EXPECT_NE(manifestError("temp 16 1 4 256", "temp 16 1 4").find("fields, expected 7"),
            std::string::npos);
  EXPECT_NE(manifestError("arena 512", "arena 128").find("memory plan: buffer 1"),
            std::string::npos);
  EXPECT_NE(manifestError("temp 16 1 4 256", "temp 16 1 4 100").find("not a multiple of 256"),
            std::string::npos);
  // Without an arena a temp takes no offset field.
  EXPECT_NE(manifestError("arena 512\n", "").find("fields, expected 6"), std::string::npos);
}

TEST(MemoryPlanTest, ATempBehindAnOutputLivesToTheEnd) {
  // Launch 0 writes temp 0, which model output 1 (an alias) exposes; launches 1 and 2
  // use temp 2. Temp 0 must keep its bytes to the end: the caller reads it after the run
  // (the conformance layer_normalization *_expanded models return such views).
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  b.buffers.push_back({0, DType::f32, BufferKind::temp, 1024, {256}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::alias, 1024, {16, 16}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::temp, 1024, {256}, 0});
  b.outputs.push_back({0, 1, "y"});
  for (int i = 0; i < 3; ++i) {
    b.kernels.push_back({"k" + std::to_string(i), {1, 1, 1}, {1, 1, 1}, 0, 1});
    b.kernels.back().params = {{DType::f32, 1024}};
  }
  b.launches = {{"k0", {0}}, {"k1", {2}}, {"k2", {2}}};
  std::vector<TempLifetime> lt;
  ASSERT_TRUE(computeTempLifetimes(b, lt).ok);
  ASSERT_EQ(lt.size(), 2u);
  EXPECT_EQ(lt[0].first, 0u);
  EXPECT_EQ(lt[0].last, 2u);
  ASSERT_TRUE(planMemory(b).ok);
  EXPECT_NE(b.buffers[0].offset, b.buffers[2].offset);
  EXPECT_EQ(*b.arenaBytes, 2048u);
  // The same plan with the two temps on the same bytes is refused.
  b.buffers[2].offset = b.buffers[0].offset;
  EXPECT_NE(checkMemoryPlan(b).message.find("are both live at launch"), std::string::npos);
}

namespace {

/// A dataflow plan: temp i is written by launch i (its first use) and read by
/// 1-2 later launches, each launch reading 1-2 earlier temps (some through an
/// alias); sizes from a small set so that equal sizes are common. A launch's
/// kernel declares (input 0, output) in place when their sizes agree, with
/// probability 1/2 (and, rarely, a second pair whose input is the same temp).
Bundle randomInPlacePlan(std::mt19937 &rng, int numTemps) {
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  const uint64_t sizes[] = {256, 512, 1024, 1000};
  std::vector<int> tempIds, viewOf;
  for (int i = 0; i < numTemps; ++i) {
    uint64_t bytes = sizes[rng() % 4];
    int id = static_cast<int>(b.buffers.size());
    b.buffers.push_back({id, DType::f32, BufferKind::temp, bytes, {int64_t(bytes / 4)}, 0});
    tempIds.push_back(id);
    viewOf.push_back(-1);
    if (rng() % 5 == 0) {
      int alias = static_cast<int>(b.buffers.size());
      b.buffers.push_back(
          {alias, DType::f32, BufferKind::alias, bytes, {1, int64_t(bytes / 4)}, uint64_t(id)});
      viewOf.back() = alias;
    }
  }
  for (int l = 0; l < numTemps; ++l) {
    KernelDesc k;
    k.name = "k" + std::to_string(l);
    LaunchDesc launch;
    launch.kernel = k.name;
    if (l > 0) {
      int reads = 1 + static_cast<int>(rng() % 2);
      for (int r = 0; r < reads; ++r) {
        int t = static_cast<int>(rng() % l);
        // Prefer the previous temp, so that the last read is often this launch.
        if (rng() % 2)
          t = l - 1;
        int id = viewOf[t] >= 0 && rng() % 2 ? viewOf[t] : tempIds[t];
        launch.buffers.push_back(id);
      }
    }
    launch.buffers.push_back(tempIds[l]);
    k.numParams = static_cast<int>(launch.buffers.size());
    for (int id : launch.buffers)
      k.params.push_back({DType::f32, b.buffers[id].sizeBytes});
    const int out = k.numParams - 1;
    if (out > 0 && k.params[0].sizeBytes == k.params[out].sizeBytes && rng() % 2)
      k.inPlace.push_back({0, out, 0});
    b.kernels.push_back(k);
    b.launches.push_back(launch);
  }
  // The last temp is the model's output, read after the plan.
  b.buffers[tempIds.back()].kind = BufferKind::output;
  b.outputs.push_back({0, tempIds.back(), "y"});
  return b;
}

/// Executes the plan on a model of the arena, 256-byte granules each owned by
/// the temp whose value is there: a launch first reads its inputs (every
/// granule of each must still hold that input's value), then writes the temp
/// it creates (which must not overlap any input of the launch, except exactly
/// an input its kernel may overwrite in place and that is not read later).
/// Independent of MemoryPlan.cpp.
void expectExecutionReadsWhatWasWritten(const Bundle &b) {
  ASSERT_TRUE(b.arenaBytes.has_value());
  std::vector<int> owner((*b.arenaBytes + 255) / 256, -1);
  auto rootOf = [&](int id) {
    while (b.buffers[id].kind == BufferKind::alias)
      id = static_cast<int>(b.buffers[id].offset);
    return id;
  };
  auto granules = [&](int id, size_t &lo, size_t &hi) {
    lo = b.buffers[id].offset / 256;
    hi = (b.buffers[id].offset + b.buffers[id].sizeBytes + 255) / 256;
  };
  std::vector<size_t> lastRead(b.buffers.size(), 0);
  for (size_t l = 0; l < b.launches.size(); ++l)
    for (int id : b.launches[l].buffers)
      lastRead[rootOf(id)] = l;
  for (size_t l = 0; l < b.launches.size(); ++l) {
    const LaunchDesc &launch = b.launches[l];
    const KernelDesc *k = b.findKernel(launch.kernel);
    ASSERT_NE(k, nullptr);
    const int written = rootOf(launch.buffers.back());
    // The model output lies outside the arena: it overwrites nothing.
    const bool inArena = b.buffers[written].kind == BufferKind::temp;
    for (size_t p = 0; p + 1 < launch.buffers.size(); ++p) {
      int read = rootOf(launch.buffers[p]);
      size_t lo, hi;
      granules(read, lo, hi);
      for (size_t g = lo; g < hi; ++g)
        ASSERT_EQ(owner[g], read) << "launch " << l << " reads buffer " << read << " but granule "
                                  << g << " holds buffer " << owner[g];
      size_t wlo, whi;
      granules(written, wlo, whi);
      bool overlaps = inArena && wlo < hi && lo < whi;
      if (!overlaps)
        continue;
      bool inPlace = false;
      for (const InPlaceDesc &d : k->inPlace)
        inPlace |= rootOf(launch.buffers[d.input]) == read && d.output + 1 == k->numParams;
      ASSERT_TRUE(inPlace && wlo == lo && whi == hi && lastRead[read] == l &&
                  b.buffers[read].kind == BufferKind::temp)
          << "launch " << l << " writes buffer " << written << " over buffer " << read
          << " that it reads, not in place";
    }
    size_t lo, hi;
    granules(written, lo, hi);
    for (size_t g = lo; inArena && g < hi; ++g)
      owner[g] = written;
  }
}

} // namespace

TEST(MemoryPlanTest, InPlaceHandoffsOnRandomPlans) {
  std::mt19937 rng(20261203);
  size_t handoffs = 0, belowBound = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Bundle b = randomInPlacePlan(rng, 2 + trial % 40);
    ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
    MemoryPlanStats st;
    Status s = planMemory(b, &st);
    ASSERT_TRUE(s.ok) << s.message;
    expectExecutionReadsWhatWasWritten(b);
    s = checkMemoryPlan(b);
    ASSERT_TRUE(s.ok) << s.message;
    handoffs += st.numInPlace;
    belowBound += st.arenaBytes < st.peakLiveBytes;
    size_t kept = 0;
    for (const KernelDesc &k : b.kernels)
      kept += k.inPlace.size();
    // The bundle keeps one record per handoff made (each kernel runs once here).
    EXPECT_EQ(kept, st.numInPlace);
    // The planned bundle survives the round trip (version 5 with records, else 4).
    Bundle parsed;
    s = parseBundle(serializeBundle(b), parsed);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(parsed.formatVersion, kept ? 5 : 4);
    for (size_t i = 0; i < b.kernels.size(); ++i)
      ASSERT_EQ(parsed.kernels[i].inPlace.size(), b.kernels[i].inPlace.size());
    for (size_t i = 0; i < b.buffers.size(); ++i)
      EXPECT_EQ(parsed.buffers[i].offset, b.buffers[i].offset);
  }
  // The generator makes handoffs, and they save memory.
  EXPECT_GT(handoffs, 100u);
  EXPECT_GT(belowBound, 20u);
}

TEST(MemoryPlanTest, InPlaceChainUsesOneSlot) {
  // t0 -> t1 -> ... each launch reads t_i and writes t_{i+1} in place: one slot.
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  const int n = 6;
  for (int i = 0; i < n; ++i)
    b.buffers.push_back({i, DType::f32, BufferKind::temp, 4096, {1024}, 0});
  b.kernels.push_back({"first", {1, 1, 1}, {1, 1, 1}, 0, 1});
  b.kernels.back().params = {{DType::f32, 4096}};
  b.kernels.push_back({"relu", {1, 1, 1}, {1, 1, 1}, 0, 2});
  b.kernels.back().params = {{DType::f32, 4096}, {DType::f32, 4096}};
  b.kernels.back().inPlace = {{0, 1, 0}};
  b.launches.push_back({"first", {0}});
  for (int i = 0; i + 1 < n; ++i)
    b.launches.push_back({"relu", {i, i + 1}});
  MemoryPlanStats st;
  ASSERT_TRUE(planMemory(b, &st).ok);
  EXPECT_EQ(st.numInPlace, 5u);
  EXPECT_EQ(st.arenaBytes, 4096u);
  EXPECT_EQ(st.peakLiveBytes, 2u * 4096);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(b.buffers[i].offset, 0u) << i;
  EXPECT_TRUE(checkMemoryPlan(b).ok) << checkMemoryPlan(b).message;
  EXPECT_NE(formatMemoryReport(b, st).find("in place:          5 temp(s)"), std::string::npos)
      << formatMemoryReport(b, st);

  // Without the record the same placement is an overlap, and the checker says so.
  Bundle noRecord = b;
  noRecord.kernels[1].inPlace.clear();
  Status s = checkMemoryPlan(noRecord);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("are both live at launch 1"), std::string::npos) << s.message;

  // A record does not allow reuse when the input is read later: t1 also read by a last launch.
  Bundle readLater = b;
  readLater.kernels.push_back({"use", {1, 1, 1}, {1, 1, 1}, 0, 1});
  readLater.kernels.back().params = {{DType::f32, 4096}};
  readLater.launches.push_back({"use", {1}});
  s = checkMemoryPlan(readLater);
  EXPECT_FALSE(s.ok) << "t1 is read after t2 overwrote it";
  MemoryPlanStats st2;
  ASSERT_TRUE(planMemory(readLater, &st2).ok);
  EXPECT_TRUE(checkMemoryPlan(readLater).ok) << checkMemoryPlan(readLater).message;
  EXPECT_NE(readLater.buffers[1].offset, readLater.buffers[2].offset);

  // Validation: pairs must name two distinct parameters of one size.
  Bundle bad = b;
  bad.kernels[1].inPlace = {{0, 0, 0}};
  EXPECT_NE(validateBundle(bad).message.find("the same parameter twice"), std::string::npos);
  bad.kernels[1].inPlace = {{0, 2, 0}};
  EXPECT_NE(validateBundle(bad).message.find("outside 0..1"), std::string::npos);
  bad.kernels[1].inPlace = {{0, 1, 0}};
  bad.formatVersion = 4;
  EXPECT_NE(validateBundle(bad).message.find("need format version 5"), std::string::npos)
      << validateBundle(bad).message;
}

TEST(MemoryPlanTest, InPlaceNeverOverwritesWhatTheCallerReads) {
  // t0 (written by launch 0) is read in place by launch 1, but a model output is a
  // view of t0: the caller reads it after the run, so t1 may not take its bytes.
  Bundle b;
  b.target = "cpu";
  b.code = "CODE";
  b.buffers.push_back({0, DType::f32, BufferKind::temp, 4096, {1024}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::temp, 4096, {1024}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::alias, 4096, {32, 32}, 0});
  b.buffers.push_back({3, DType::f32, BufferKind::output, 4096, {1024}, 0});
  b.outputs.push_back({0, 2, "t0 as a matrix"});
  b.outputs.push_back({1, 3, "y"});
  b.kernels.push_back({"first", {1, 1, 1}, {1, 1, 1}, 0, 1});
  b.kernels.back().params = {{DType::f32, 4096}};
  b.kernels.push_back({"relu", {1, 1, 1}, {1, 1, 1}, 0, 2});
  b.kernels.back().params = {{DType::f32, 4096}, {DType::f32, 4096}};
  b.kernels.back().inPlace = {{0, 1, 0}};
  b.kernels.push_back({"copy", {1, 1, 1}, {1, 1, 1}, 0, 2});
  b.kernels.back().params = {{DType::f32, 4096}, {DType::f32, 4096}};
  b.launches = {{"first", {0}}, {"relu", {0, 1}}, {"copy", {1, 3}}};
  ASSERT_TRUE(validateBundle(b).ok) << validateBundle(b).message;
  MemoryPlanStats st;
  ASSERT_TRUE(planMemory(b, &st).ok);
  EXPECT_EQ(st.numInPlace, 0u);
  EXPECT_NE(b.buffers[0].offset, b.buffers[1].offset);
  // The same placement forced: the checker refuses it.
  b.buffers[1].offset = b.buffers[0].offset;
  b.kernels[1].inPlace = {{0, 1, 0}};
  EXPECT_FALSE(checkMemoryPlan(b).ok);

  // Validation: a parameter in two pairs, and the turned-around pair (a cycle) are refused.
  Bundle twice = b;
  twice.kernels[1].inPlace = {{0, 1, 0}, {1, 0, 0}};
  EXPECT_NE(validateBundle(twice).message.find("already in another in-place pair"),
            std::string::npos)
      << validateBundle(twice).message;
}
