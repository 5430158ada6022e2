"""Checks an `aicc-compile --memory-report` independently of the planner: no two temps live at
the same launch share arena bytes (except a temp the report says is in place of another: the
same bytes, its first launch the other's last), every temp lies inside the arena, offsets are
256-aligned, and the arena is at least the peak-live lower bound unless temps are in place.
Prints one summary line."""
import re
import sys

text = sys.stdin.read()
arena = int(re.search(r"arena: +(\d+) bytes", text).group(1))
bound = int(re.search(r"peak live temps: +(\d+) bytes", text).group(1))
rows = re.findall(r"buffer (\d+) \S+ at (\d+) \(\+(\d+)\), launches (\d+)\.\.(\d+)"
                  r"(?:, in place of buffer (\d+))?", text)
temps = [tuple(map(int, m[:5])) for m in rows]
in_place = {int(m[0]): int(m[5]) for m in rows if m[5]}
by_id = {t[0]: t for t in temps}
for i, (b, off, size, first, last) in enumerate(temps):
    assert off % 256 == 0, f"buffer {b}: offset {off} not 256-aligned"
    assert off + size <= arena, f"buffer {b}: [{off}, {off + size}) outside the arena {arena}"
    for (b2, off2, size2, first2, last2) in temps[i + 1:]:
        live = not (last < first2 or last2 < first)
        share = off < off2 + size2 and off2 < off + size
        handoff = any(in_place.get(y) == x and by_id[x][1:3] == by_id[y][1:3] and
                      by_id[x][4] == by_id[y][3] for x, y in ((b, b2), (b2, b)))
        assert not (live and share) or handoff, f"buffers {b} and {b2} are live together and overlap"
assert arena >= bound or in_place, f"arena {arena} below the lower bound {bound}"
print(f"memory plan ok: {len(temps)} temps, {len(in_place)} in place, arena {arena}, "
      f"lower bound {bound}, {'at' if arena == bound else 'above' if arena > bound else 'below'} "
      f"the bound")
