#!/usr/bin/env python3
"""Groups fuzzer findings by defect: usage triage.py FUZZER DIR [LIBFUZZER_FLAG...].

Replays every crash-/timeout-/oom-/leak- file of DIR with FUZZER and prints one line per
distinct (kind of report, first stack frame in aicc's own sources), with a count and an
example input, so a campaign's hundreds of artifacts read as a handful of defects.
"""
import collections
import os
import pathlib
import re
import subprocess
import sys

KINDS = [
    (re.compile(r"ERROR: AddressSanitizer: ([\w-]+)"), "asan {}"),
    (re.compile(r"ERROR: LeakSanitizer: (.*)"), "leak"),
    (re.compile(r"runtime error: (.{0,80})"), "ubsan: {}"),
    (re.compile(r"Assertion [`'](.{0,80})"), "assert: {}"),
    (re.compile(r"LLVM ERROR: (.{0,80})"), "llvm fatal: {}"),
    (re.compile(r"^aicc-fuzz-\w+: (?!Running)(.{0,80})"), "oracle: {}"),
    (re.compile(r"ERROR: libFuzzer: (.{0,60})"), "libfuzzer: {}"),
]
FRAME = re.compile(r"#\d+ 0x[0-9a-f]+ in (.+?) (/\S*/(?:lib|include/aicc|tools)/\S+\.(?:cpp|h|inc):\d+)")


def signature(output):
    kind = frame = None
    for line in output.splitlines():
        if kind is None:
            for pattern, fmt in KINDS:
                m = pattern.search(line)
                if m:
                    kind = fmt.format(m.group(1).strip())
                    break
        m = FRAME.search(line)
        if frame is None and m and "/usr/" not in m.group(2) and "/fuzz/Fuzz" not in m.group(2):
            path = re.sub(r"^.*?/((lib|include/aicc|tools)/)", r"\1", m.group(2))
            func = re.sub(r"\(.*", "", m.group(1))[-70:]
            frame = f"{func} {path}"
    return (kind or "no longer reproduces") + " @ " + (frame or "no aicc frame")


def main():
    fuzzer, directory, flags = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3:]
    groups = collections.defaultdict(list)
    for f in sorted(directory.iterdir()):
        if not re.match(r"(crash|timeout|oom|leak)-", f.name):
            continue
        env = dict(os.environ, AICC_FUZZ_VERBOSE="0")
        try:
            out = subprocess.run([fuzzer, *flags, str(f)], capture_output=True, text=True,
                                 errors="replace", timeout=300, env=env)
            text = out.stdout + out.stderr
        except subprocess.TimeoutExpired:
            text = "ERROR: libFuzzer: timeout (replay over 300 s)"
        groups[signature(text)].append(f)
    for sig, files in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(files):4d}  {sig}\n      e.g. {min(files, key=lambda p: p.stat().st_size)}")


if __name__ == "__main__":
    main()
