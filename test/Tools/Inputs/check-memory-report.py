"""Checks an `aicc-compile --memory-report` independently of the planner: no two temps live at
the same launch share arena bytes, every temp lies inside the arena, offsets are 256-aligned,
and the arena is at least the peak-live lower bound. Prints one summary line."""
import re
import sys

text = sys.stdin.read()
arena = int(re.search(r"arena: +(\d+) bytes", text).group(1))
bound = int(re.search(r"peak live temps: +(\d+) bytes", text).group(1))
temps = [tuple(map(int, m)) for m in
         re.findall(r"buffer (\d+) \S+ at (\d+) \(\+(\d+)\), launches (\d+)\.\.(\d+)", text)]
for i, (b, off, size, first, last) in enumerate(temps):
    assert off % 256 == 0, f"buffer {b}: offset {off} not 256-aligned"
    assert off + size <= arena, f"buffer {b}: [{off}, {off + size}) outside the arena {arena}"
    for (b2, off2, size2, first2, last2) in temps[i + 1:]:
        live = not (last < first2 or last2 < first)
        share = off < off2 + size2 and off2 < off + size
        assert not (live and share), f"buffers {b} and {b2} are live together and overlap"
assert arena >= bound, f"arena {arena} below the lower bound {bound}"
print(f"memory plan ok: {len(temps)} temps, arena {arena}, lower bound {bound}, "
      f"{'at' if arena == bound else 'above'} the bound")
