"""Simulator of warp-specialized Hopper kernels (TMA + mbarrier + wgmma), as
convert-tile-attention-to-wgmma writes them (run with canonicalize, cse and
--mlir-print-op-generic after it). It extends simt_sim.py (the parser, the values, the
per-thread ops) with warpgroups that run concurrently: each warpgroup of a CTA is an agent
(its 128 threads in lockstep, numpy vectors over the threads) in its own Python thread, and
one agent runs at a time; the scheduler switches agents at every synchronization op, at
random among those that can run (seeded), and lands TMA copies at random points, so that a
kernel whose correctness depends on one interleaving fails. The GPU semantics are written
from the PTX ISA, independently of the compiler:
  - mbarrier (PTX ISA 9.7.13.15): init(count); arrive (one arrival per active thread);
    arrive.expect_tx(bytes) (tx-count += bytes, then the arrival); a phase completes when the
    pending arrivals reach 0 and the tx-count is 0, then the arrivals reset to the count;
    try_wait.parity(p) returns once the current phase's parity differs from p (the phase of
    parity p completed), and blocks the agent until then;
  - cp.async.bulk.tensor.3d tile mode (TMA load, 9.7.9.25): the box at the coordinates (inner
    first) of a tensor map (tile.tensor_maps: dims outermost first, the box, the 128-byte
    swizzle), elements outside the dims read as 0, written to shared memory row by row (128
    bytes per row), 16-byte chunk c of row r at chunk c ^ (r % 8) (the swizzle is a function
    of the address bits, so the destination must be 1024-byte aligned); the copy lands later
    (at a random point, or when an agent waits on its mbarrier) and then completes its bytes
    on the mbarrier (complete_tx);
  - wgmma.mma_async m64nNk16 f32 += f16/bf16 (9.7.15): A and B from shared-memory matrix
    descriptors (start address, leading / stride byte offsets, 128-byte swizzle; K-major:
    row m at start + (m / 8) SBO + (m % 8) 128 + 2 k; MN-major: element (k, n) at start +
    (n / 64) LBO + (k / 8) SBO + (k % 8) 128 + 2 (n % 64); then the swizzle), or A from
    registers (4 registers of 16-bit pairs: row 16 warp + lane / 4 + 8 (r % 2), column
    2 (lane % 4) + 8 (r / 2) + h); the accumulator's register i of thread t is row
    16 (t / 32) + (t % 32) / 4 + 8 ((i % 4) / 2), column 8 (i / 4) + 2 (t % 4) + i % 2. A
    wgmma reads its shared-memory operands and produces its result when wgmma.wait_group
    retires its group (the latest the hardware may), products exact, the sum rounded to f32;
  - bar.sync / bar.arrive with a barrier id and a thread count (named barriers, 9.7.13.1):
    a barrier completes when the count of threads arrived; bar.sync blocks the agent until
    the barrier it arrived at completes; gpu.barrier is barrier 0 over every thread.
Errors (SimError): an agent blocked forever (deadlock: no agent can run and no copy is in
flight), a TMA copy landing on shared memory that a wgmma issued before and not yet retired
reads (WAR), a wgmma reading shared memory with a copy in flight or never written (RAW), a
wgmma result or register operand read before the wait_group that retires it, more arrivals
on an mbarrier than it expects, copies or wgmma groups in flight at kernel exit, misaligned
or out-of-bounds TMA boxes.
"""
import random
import re
import threading

import numpy as np

import simt_sim as ss
from simt_sim import SimError, prop, round_to

SWIZZLE = 128


def swizzled(addr):
    """The 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B and the wgmma descriptor mode 1): the
    16-byte chunk bits 4-6 of a shared address xor its 128-byte row bits 7-9."""
    return addr ^ (((addr >> 7) & 7) << 4)


class MBarrier:
    def __init__(self, count):
        self.count, self.pending, self.tx, self.phase = count, count, 0, 0

    def arrive(self, n):
        self.pending -= n
        if self.pending < 0:
            raise SimError(f"mbarrier: {-self.pending} more arrivals than its count "
                           f"{self.count} in phase {self.phase}")
        self.check()

    def check(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count


class TensorMap:
    def __init__(self, buf, dims, box, swizzle, elem):
        self.buf, self.dims, self.box, self.swizzle, self.elem = buf, dims, box, swizzle, elem


class Lazy:
    """The result of a wgmma not yet retired by wgmma.wait_group."""

    def __init__(self):
        self.value = None


class LazyElem:
    """Register `pos` of a Lazy result (an llvm.extractvalue of it): it may only feed the
    next wgmma of a chain, or be read once the wgmma retired."""

    def __init__(self, lazy, pos):
        self.lazy, self.pos = lazy, pos


class CTAState:
    """What a CTA's agents share: shared memory (2-byte slots: the kernels' operands are
    16-bit; NaN until written), its in-flight TMA writes and wgmma reads per slot, the
    mbarriers (by address), the named barriers, the TMA copies in flight, the scheduler."""

    def __init__(self, smem_bytes, rng):
        n = smem_bytes // 2
        self.smem = np.full(n, np.nan)
        self.pending = np.zeros(n, dtype=np.int64)
        self.reading = np.zeros(n, dtype=np.int64)
        self.mbar = {}
        self.named = {}
        self.copies = []
        self.rng = rng
        self.cv = threading.Condition()
        self.agents = []
        self.current = None
        self.error = None

    # -- TMA copies
    def land(self, copy):
        slots, vals, bar, nbytes = copy
        if np.any(self.reading[slots] > 0):
            raise SimError(f"WAR race: a TMA copy lands on smem[{2 * int(slots[0])}] that an "
                           f"unretired wgmma reads")
        self.smem[slots] = vals
        self.pending[slots] -= 1
        b = self.mbar[bar]
        b.tx -= nbytes
        b.check()

    def land_some(self, p):
        if self.copies and self.rng.random() < p:
            self.land(self.copies.pop(self.rng.randrange(len(self.copies))))

    # -- scheduling (called with cv held)
    def pick(self):
        while True:
            run = [a for a in self.agents if not a.done and (a.pred is None or a.pred())]
            if run:
                self.current = self.rng.choice(run)
                return
            if not any(not a.done for a in self.agents):
                self.current = None
                return
            if not self.copies:
                names = ", ".join(f"warpgroup {a.w}: {a.waiting}" for a in self.agents
                                  if not a.done)
                raise SimError(f"deadlock: every warpgroup waits ({names})")
            self.land(self.copies.pop(self.rng.randrange(len(self.copies))))


class Agent(ss.CTA):
    """One warpgroup (128 threads) of a CTA."""

    def __init__(self, sim, cs, bid, w):
        super().__init__(sim, bid, 128)
        self.cs, self.w = cs, w
        self.done = False
        self.pred = None
        self.waiting = ""
        self.wg_groups = []  # committed wgmma groups: lists of records
        self.open_wg = []

    # -- scheduling
    def switch(self, pred=None, what=""):
        """Gives the CTA to an agent that can run (maybe this one); returns when this agent
        runs again with `pred` true."""
        cs = self.cs
        with cs.cv:
            self.pred, self.waiting = pred, what
            cs.land_some(0.25)
            cs.pick()
            cs.cv.notify_all()
            while cs.current is not self and cs.error is None:
                cs.cv.wait()
            if cs.error is not None:
                raise SimError("aborted")
            self.pred, self.waiting = None, ""

    def active(self):
        return int(self.mask.sum())

    def leader(self, x):
        """The value of the first active thread (the ops a lone thread runs)."""
        x = np.asarray(x)
        return int(x.flat[0]) if x.ndim == 0 else int(x[np.argmax(self.mask)])

    # -- wgmma
    def smem_matrix(self, desc, rows, cols, k_major):
        """Slots of the [rows, cols] matrix a descriptor describes: K-major [M or N, K] (rows
        = M/N, cols = K), else MN-major [K, N] (rows = K, cols = N)."""
        start = (desc & 0x3FFF) << 4
        lbo = ((desc >> 16) & 0x3FFF) << 4
        sbo = ((desc >> 32) & 0x3FFF) << 4
        if (desc >> 62) & 3 != 1:
            raise SimError("wgmma descriptor without the 128-byte swizzle not simulated")
        r = np.arange(rows)[:, None]
        c = np.arange(cols)[None, :]
        if k_major:
            addr = start + (r // 8) * sbo + (r % 8) * SWIZZLE + 2 * c
        else:
            addr = start + (c // 64) * lbo + (r // 8) * sbo + (r % 8) * SWIZZLE + 2 * (c % 64)
        slots = swizzled(addr) // 2
        if slots.min() < 0 or slots.max() >= self.cs.smem.size:
            raise SimError("wgmma operand outside the shared memory")
        return slots

    def issue_wgmma(self, n, a, b_desc, b_kmajor, acc, scale_d, elem):
        """Records one m64nNk16 wgmma: `a` is ('desc', descriptor) (K-major) or ('regs',
        four [128, 2] register arrays); B [16, n] from its descriptor."""
        cs = self.cs
        reads = []
        if a[0] == "desc":
            a_slots = self.smem_matrix(a[1], 64, 16, True)
            reads.append(a_slots)
        b_slots = self.smem_matrix(b_desc, n if b_kmajor else 16, 16 if b_kmajor else n, b_kmajor)
        reads.append(b_slots)
        for s in reads:
            if np.any(cs.pending[s] > 0):
                raise SimError(f"RAW race: wgmma reads smem[{2 * int(s.flat[0])}] with a TMA "
                               f"copy in flight")
            if np.any(np.isnan(cs.smem[s])):
                raise SimError(f"wgmma reads never-written smem[{2 * int(s.flat[0])}]")
            np.add.at(cs.reading, s.reshape(-1), 1)
        out = Lazy()
        self.open_wg.append({"n": n, "a": a, "a_slots": reads[0] if a[0] == "desc" else None,
                             "b_slots": b_slots, "b_kmajor": b_kmajor, "acc": acc,
                             "scale_d": scale_d, "elem": elem, "out": out, "reads": reads})
        return out

    def retire(self, rec):
        cs = self.cs
        n = rec["n"]
        t = np.arange(128)
        warp, lane = t // 32, t % 32
        if rec["a"][0] == "desc":
            A = cs.smem[rec["a_slots"]]
        else:
            A = np.full((64, 16), np.nan)
            for r in range(4):
                for h in range(2):
                    A[16 * warp + lane // 4 + 8 * (r % 2), 2 * (lane % 4) + 8 * (r // 2) + h] = \
                        rec["a"][1][r][:, h]
        B = cs.smem[rec["b_slots"]]
        if rec["b_kmajor"]:
            B = B.T  # [n, 16] -> [16, n]
        for s in rec["reads"]:
            np.subtract.at(cs.reading, s.reshape(-1), 1)
        acc = rec["acc"]
        if isinstance(acc, Lazy):
            if acc.value is None:
                raise SimError("wgmma chained on an accumulator of a later group")
            acc = acc.value
        regs = n // 2
        i = np.arange(regs)
        rows = (16 * warp + lane // 4)[:, None] + 8 * ((i % 4) // 2)[None, :]
        cols = 8 * (i // 4)[None, :] + 2 * (lane % 4)[:, None] + (i % 2)[None, :]
        D = A @ B
        if rec["scale_d"]:
            D = D + self.unpack(acc, rows, cols, n)
        rec["out"].value = round_to(D[rows, cols], "f32")

    @staticmethod
    def unpack(acc, rows, cols, n):
        M = np.zeros((64, n))
        M[rows, cols] = np.asarray(acc)
        return M

    def retire_groups(self, keep):
        while len(self.wg_groups) > keep:
            for rec in self.wg_groups.pop(0):
                self.retire(rec)

    def concrete(self, v, what):
        if isinstance(v, LazyElem):
            return self.concrete(v.lazy, what)[:, v.pos]
        if isinstance(v, Lazy):
            if v.value is None:
                raise SimError(f"{what} reads a wgmma result before wgmma.wait_group retired it")
            return v.value
        return v

    # -- ops
    def op(self, o):
        n = o.name
        env = self.env
        cs = self.cs
        T = self.T
        if n in ("scf.for", "scf.if"):
            return super().op(o)
        ops = [env[x] for x in o.operands]
        if n not in ("llvm.extractvalue", "llvm.inline_asm", "nvvm.wgmma.mma_async",
                     "scf.yield"):
            for x in ops:
                if isinstance(x, (Lazy, LazyElem)):
                    self.concrete(x, n)  # raises when not retired
                    raise SimError(f"{n} reads a wgmma result without an operand fence")

        def set1(v):
            env[o.results[0]] = v

        if n == "gpu.thread_id":
            return set1(np.arange(T, dtype=np.int64) + 128 * self.w)
        if n == "gpu.barrier":
            return self.named_barrier(0, 128 * len(cs.agents), True)
        if n == "memref.extract_aligned_pointer_as_index":
            if not isinstance(ops[0], str) or ops[0] != "dynsmem":
                raise SimError("the address of a global buffer is not simulated")
            return set1(np.zeros(T, dtype=np.int64))
        if n == "llvm.inttoptr":
            return set1(ops[0])
        if n == "llvm.load":
            # A generic-proxy read of 16-bit elements at a shared address (the matmul's norm
            # prologue reads its rows of A back from the stage): it must not race a TMA copy
            # in flight, nor read what no copy wrote.
            m = re.match(r"vector<(\d+)x(f16|bf16)>", o.out_types[0])
            if not m:
                raise SimError(f"llvm.load of {o.out_types[0]} not simulated")
            k = int(m.group(1))
            addr = np.asarray(ops[0], dtype=np.int64)
            slots = addr // 2  # the address as stored (the kernel applied the swizzle)
            slots = slots[:, None] + np.arange(k)[None, :]
            if slots.min() < 0 or slots.max() >= cs.smem.size:
                raise SimError("llvm.load outside the shared memory")
            if np.any(cs.pending[slots] > 0):
                raise SimError(f"RAW race: ld.shared of smem[{2 * int(slots.flat[0])}] with a "
                               f"TMA copy in flight")
            if np.any(np.isnan(cs.smem[slots])):
                raise SimError(f"ld.shared of never-written smem[{2 * int(slots.flat[0])}]")
            return set1(cs.smem[slots].copy())
        if n == "llvm.mlir.undef":
            k = len(ss.split_types(re.search(r"struct<\((.*)\)>", o.out_types[0]).group(1)))
            return set1(np.full((T, k), np.nan))
        if n in ("nvvm.fence.mbarrier.init", "nvvm.setmaxregister", "nvvm.wgmma.fence.aligned"):
            return
        if n == "nvvm.mbarrier.init":
            cs.mbar[self.leader(ops[0])] = MBarrier(self.leader(ops[1]))
            return
        if n in ("nvvm.mbarrier.arrive", "nvvm.mbarrier.arrive.expect_tx"):
            addr = self.uniform(ops[0])
            b = cs.mbar.get(addr)
            if b is None:
                raise SimError(f"arrive on an uninitialized mbarrier at {addr}")
            if n.endswith("expect_tx"):
                b.tx += self.uniform(ops[1]) * self.active()
            b.arrive(self.active())
            self.switch()
            return
        if n == "nvvm.mbarrier.try_wait.parity":
            addr, p = self.uniform(ops[0]), self.uniform(ops[1])
            b = cs.mbar.get(addr)
            if b is None:
                raise SimError(f"wait on an uninitialized mbarrier at {addr}")
            self.switch(lambda: (b.phase & 1) != p, f"mbarrier {addr} parity {p}")
            return
        if n == "nvvm.cp.async.bulk.tensor.shared.cluster.global":
            return self.tma_load(ops)
        if n == "nvvm.wgmma.mma_async":
            shape = prop(o, "shape")
            m_, n_, k_ = (int(x) for x in re.search(r"m = (\d+), n = (\d+), k = (\d+)",
                                                    shape).groups())
            if (m_, k_) != (64, 16):
                raise SimError(f"wgmma shape {shape} not simulated")
            la, lb = prop(o, "layoutA"), prop(o, "layoutB")
            if "row" not in la:
                raise SimError("an MN-major A descriptor is not simulated")
            acc = ops[0]
            if not isinstance(acc, Lazy):
                acc = self.concrete(acc, "wgmma")
            out = self.issue_wgmma(n_, ("desc", self.uniform(ops[1])), self.uniform(ops[2]),
                                   "col" in lb, acc, "one" in prop(o, "scaleD"),
                                   re.search(r"wgmma_type<(\w+)>", prop(o, "typeA")).group(1))
            self.switch()
            return set1(out)
        if n == "llvm.inline_asm":
            return self.inline_asm(o, ops)
        if n == "llvm.extractvalue":
            src = ops[0]
            pos = ss.int_array(prop(o, "position"))[0]
            if isinstance(src, Lazy):
                return set1(LazyElem(src, pos) if src.value is None else src.value[:, pos])
            if isinstance(src, list):
                return set1(src[pos])
            return set1(src[:, pos])
        if n == "nvvm.wgmma.commit.group.sync.aligned":
            self.wg_groups.append(self.open_wg)
            self.open_wg = []
            self.switch()
            return
        if n == "nvvm.wgmma.wait.group.sync.aligned":
            self.switch()
            self.retire_groups(int(prop(o, "group").split(":")[0]))
            return
        if n in ("nvvm.barrier", "nvvm.barrier.arrive"):
            return self.named_barrier(self.uniform(ops[0]), self.uniform(ops[1]),
                                      n == "nvvm.barrier")
        return super().op(o)

    def named_barrier(self, bid, count, sync):
        cs = self.cs
        if self.active() % 32:
            raise SimError(f"barrier {bid} reached by part of a warp")
        nb = cs.named.setdefault(bid, {"arrived": 0, "gen": 0, "count": count})
        if nb["count"] != count:
            raise SimError(f"barrier {bid} used with thread counts {nb['count']} and {count}")
        gen = nb["gen"]
        nb["arrived"] += self.active()
        if nb["arrived"] > count:
            raise SimError(f"barrier {bid}: {nb['arrived']} threads arrived, count {count}")
        if nb["arrived"] == count:
            nb["gen"] += 1
            nb["arrived"] = 0
        if sync:
            self.switch(lambda: nb["gen"] > gen, f"bar.sync {bid}")
        else:
            self.switch()

    def tma_load(self, ops):
        cs = self.cs
        if self.active() != 1:
            raise SimError("cp.async.bulk.tensor issued by more than one thread")
        dst, tmap = self.leader(ops[0]), ops[1]
        if not isinstance(tmap, TensorMap):
            raise SimError("TMA copy without a tensor map parameter")
        self.sim.tma_loads += 1
        coords = [self.leader(x) for x in ops[2:-1]]
        bar = self.leader(ops[-1])
        if len(coords) != 3 or tmap.swizzle != SWIZZLE:
            raise SimError("only 3-D tile-mode TMA loads with the 128-byte swizzle are simulated")
        if dst % 1024:
            raise SimError(f"TMA destination {dst} is not 1024-byte aligned (128-byte swizzle)")
        B0, B1, B2 = tmap.box
        d0, d1, d2 = tmap.dims
        if B0 != 1 or B2 * 2 != SWIZZLE:
            raise SimError(f"TMA box {tmap.box} not simulated")
        c2, c1, c0 = coords[2], coords[1], coords[0]  # batch, row, col (inner first in ops)
        r = np.arange(B1)[:, None]
        c = np.arange(B2)[None, :]
        rows, cols = c1 + r, c0 + c
        ok = (0 <= c2 < d0) & (rows >= 0) & (rows < d1) & (cols >= 0) & (cols < d2)
        idx = (c2 * d1 + np.clip(rows, 0, d1 - 1)) * d2 + np.clip(cols, 0, d2 - 1)
        vals = np.where(ok, tmap.buf.data[idx], 0.0)
        slots = (dst + swizzled(r * SWIZZLE + 2 * c)) // 2
        if slots.max() >= cs.smem.size:
            raise SimError("TMA box outside the shared memory")
        if bar not in cs.mbar:
            raise SimError(f"TMA completes on an uninitialized mbarrier at {bar}")
        cs.pending[slots.reshape(-1)] += 1
        cs.copies.append((slots.reshape(-1), vals.reshape(-1), bar, B1 * B2 * 2))
        self.switch()

    def inline_asm(self, o, ops):
        text = prop(o, "asm_string").strip('"')
        if text == "":
            # The operand fence (asm volatile with tied registers): the values pass through.
            return self.env.__setitem__(o.results[0],
                                        [self.concrete(x, "an operand fence") for x in ops])
        m = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.(\w+)\.\w+ ", text)
        if not m:
            raise SimError(f"inline asm not simulated: {text[:60]!r}")
        n = int(m.group(1))
        tail = re.search(r"p, 1, 1, ([01]);", text)
        if "setp.ne.b32 p, 1, 0;" not in text or not tail:
            raise SimError(f"register-A wgmma form not simulated: {text[-40:]!r}")
        a = [self.concrete(x, "a register-A wgmma") for x in ops[:4]]
        accs = ops[5:5 + n // 2]
        chain = accs[0].lazy if isinstance(accs[0], LazyElem) else None
        if chain is not None and chain.value is None and all(
                isinstance(x, LazyElem) and x.lazy is chain and x.pos == i
                for i, x in enumerate(accs)):
            acc = chain  # the accumulator of the wgmma before it, in flight
        else:
            acc = np.stack([self.concrete(x, "a register-A wgmma") for x in accs], axis=1)
        # imm-trans-b: 1 = B MN-major, 0 = K-major.
        out = self.issue_wgmma(n, ("regs", a), self.uniform(ops[4]), tail.group(1) == "0", acc,
                               True, m.group(2))
        self.switch()
        return self.env.__setitem__(o.results[0], out)


class WgmmaSim(ss.Sim):
    """simt_sim.Sim whose launches of kernels with tile.tensor_maps run as agents."""

    def __init__(self, module_text, seed=0):
        super().__init__(module_text)
        self.seed = seed
        self.ctas = 0
        self.tma_loads = 0  # cp.async.bulk.tensor copies issued (every launch)

    def launch(self, kname, buffers):
        k = self.kernels[kname]
        maps_text = prop(k, "tile.tensor_maps")
        if maps_text is None:
            return super().launch(kname, buffers)
        sched = prop(k, "tile.schedule")
        grid = [int(x) for x in re.search(r"grid = \[(\d+), (\d+), (\d+)\]", sched).groups()]
        # A kernel that chose its own launch shape (a persistent grid: each CTA loops over
        # the schedule's tiles) runs that grid.
        if prop(k, "tile.launch_grid") is not None:
            grid = ss.int_array(prop(k, "tile.launch_grid"))
        self.grid = grid
        threads = ss.int_array(prop(k, "tile.launch_block"))[0]
        smem_bytes = int(prop(k, "tile.dynamic_shared_bytes").split(":")[0])
        maps = []
        for mt in re.findall(r"\{([^{}]*)\}", maps_text):
            f = lambda key: re.search(key + r" = ([^,}]*(?:array<[^>]*>)?)", mt).group(1)
            arr = lambda key: [int(x) for x in re.findall(r"-?\d+", re.search(
                key + r" = array<i64: ([^>]*)>", mt).group(1))]
            maps.append(TensorMap(buffers[int(f("param").split(":")[0])], arr("dims"),
                                  arr("box"), int(f("swizzle").split(":")[0]),
                                  f("element").strip()))
        body = k.regions[0][0]
        args = list(buffers[:len(body.args) - len(maps)]) + maps
        rng = random.Random(self.seed)
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    self.run_cta(body, args, (x, y, z), threads // 128, smem_bytes, rng)
                    self.ctas += 1

    def run_cta(self, body, args, bid, warpgroups, smem_bytes, rng):
        cs = CTAState(smem_bytes, random.Random(rng.random()))
        cs.agents = [Agent(self, cs, bid, w) for w in range(warpgroups)]

        def main(agent):
            with cs.cv:
                while cs.current is not agent and cs.error is None:
                    cs.cv.wait()
            try:
                if cs.error is None:
                    agent.run_block(body, args)
                    if agent.open_wg or agent.wg_groups:
                        raise SimError(f"warpgroup {agent.w} exits with wgmma groups in flight")
            except Exception as e:  # noqa: BLE001 - reported by the launching thread
                with cs.cv:
                    if cs.error is None:
                        cs.error = e
            finally:
                with cs.cv:
                    agent.done = True
                    if cs.error is None:
                        try:
                            cs.pick()
                        except SimError as e:
                            cs.error = e
                    cs.cv.notify_all()

        threads = [threading.Thread(target=main, args=(a,)) for a in cs.agents]
        for t in threads:
            t.start()
        with cs.cv:
            cs.current = cs.agents[0]
            cs.cv.notify_all()
        for t in threads:
            t.join()
        if cs.error is not None:
            if isinstance(cs.error, SimError):
                raise cs.error
            raise SimError(f"{type(cs.error).__name__}: {cs.error}") from cs.error
        if cs.copies:
            raise SimError("the CTA exits with TMA copies in flight")
