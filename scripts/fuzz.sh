#!/usr/bin/env bash
# The sanitizer build and the libFuzzer targets (docs/fuzzing.md).
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]   a fuzzing campaign: each target (onnx, mlir, bundle,
#                                            tensorproto, numpy; default all, one after the other) for
#                                            SECONDS (default 3600) with $AICC_FUZZ_JOBS workers
#                                            (libFuzzer -fork) on a persistent corpus
#   scripts/fuzz.sh --build                  configure + build the sanitizer build dir (clang-22,
#                                            ASan + UBSan, libFuzzer): fuzzers and unit tests
#   scripts/fuzz.sh --unit-tests             run the unit tests of that build under ASan/UBSan
#   scripts/fuzz.sh --short [SECONDS]        the test command's run: replay fuzz/regressions, then
#                                            every target for SECONDS (default $AICC_FUZZ_SECONDS
#                                            or 60) on fresh seeds, $AICC_FUZZ_PARALLEL (2) at once
#   scripts/fuzz.sh --seeds                  (re)build the seed corpora only
#   scripts/fuzz.sh --triage TARGET [DIR]    replay every finding in DIR (default the target's
#                                            artifacts dir) and group them by kind and first aicc
#                                            stack frame: one line per distinct defect
#
# Every mode exits non-zero on a crash, timeout, leak, out-of-memory or sanitizer report, and
# prints where the input is (AICC_SAN_BUILD_DIR/fuzz-artifacts/TARGET/) and how to reproduce.
# Environment: AICC_BUILD_DIR (main build, default build/; it must be built: seeds use
# aicc-compile), AICC_SAN_BUILD_DIR (default build-san/), AICC_FUZZ_CORPUS (campaign corpus
# root, default fuzz-corpus/, ignored by git), AICC_FUZZ_JOBS (campaign workers, default 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AICC_BUILD_DIR:-$root/build}
san=${AICC_SAN_BUILD_DIR:-$root/build-san}
seeds=$san/fuzz-seeds
artifacts=$san/fuzz-artifacts
all_targets=(onnx mlir bundle tensorproto numpy)

# Per-target libFuzzer flags: the input size cap (each target also refuses bigger inputs
# itself) and the dictionary.
target_flags() {
  case $1 in
    onnx) echo "-max_len=131072" ;;
    mlir) echo "-max_len=16384 -dict=$root/fuzz/mlir.dict" ;;
    bundle) echo "-max_len=262144 -dict=$root/fuzz/bundle.dict" ;;
    tensorproto) echo "-max_len=65536" ;;
    numpy) echo "-max_len=65536 -dict=$root/fuzz/numpy.dict" ;;
    *) echo "fuzz.sh: unknown target '$1' (onnx, mlir, bundle, tensorproto, numpy)" >&2; return 2 ;;
  esac
}
# Common flags: a per-input timeout, memory limits, UBSan/ASan reports are crashes (the build
# makes them fatal), leaks are findings (libFuzzer's default with LSan).
common_flags="-timeout=30 -rss_limit_mb=2560 -malloc_limit_mb=2048 -print_final_stats=1"
# allow_user_poisoning=0: see fuzz/SanitizerOptions.cpp (LLVM's BumpPtrAllocator poisons slabs in
# instrumented code that Debian's uninstrumented libMLIR then hands out: false reports).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

configure_san() {
  if [[ ! -f $san/build.ninja ]]; then
    cmake -G Ninja -S "$root" -B "$san" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DAICC_SANITIZE=address,undefined -DAICC_ENABLE_FUZZERS=ON -DAICC_ENABLE_CUDA=OFF \
      -DAICC_VENV="${AICC_VENV:-$root/.venv}"
  fi
}

unit_tests=(AICCRuntimeTests AICCONNXImportTests AICCGraphTests AICCReferenceTests AICCCompilerTests)

do_build() {
  configure_san
  ninja -C "$san" -j"$(nproc)" aicc-fuzzers "${unit_tests[@]}" aicc-run aicc-make-test-bundle \
    AICCRuntimeTestKernels
}

do_unit_tests() {
  local failed=0 t
  for t in "${unit_tests[@]}"; do
    echo "== sanitized unit tests: $t"
    if ! "$san/bin/$t" --gtest_brief=1; then
      echo "FAILED under ASan/UBSan: $san/bin/$t"
      failed=1
    fi
  done
  # aicc-run end to end (its own test script) with the sanitized aicc-run.
  echo "== sanitized aicc-run end-to-end test"
  bash "$root/unittests/Runtime/aicc-run-test.sh" "$san/bin/aicc-run" \
    "$san/bin/aicc-make-test-bundle" cpu "$san/lib/aicc_test_add_kernel.so" \
    "$san/aicc-run-test" >"$san/aicc-run-test.log" 2>&1 ||
    { echo "FAILED under ASan/UBSan: aicc-run-test.sh (log: $san/aicc-run-test.log)"; failed=1; }
  return $failed
}

do_seeds() {
  rm -rf "$seeds"
  bash "$root/fuzz/make-seeds.sh" "$build" "$seeds"
}

# report TARGET LOG: prints the findings of one run and how to reproduce them.
report() {
  local t=$1 log=$2 f
  echo "FAILED: aicc-fuzz-$t found a problem (log: $log):"
  grep -m 20 -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|aicc-fuzz|SUMMARY:" \
    "$log" | sed 's/^/    /' || true
  for f in "$artifacts/$t"/{crash,timeout,oom,leak}-*; do
    [[ -f $f ]] || continue
    echo "  input: $f"
    echo "  reproduce: AICC_FUZZ_VERBOSE=1 $san/bin/aicc-fuzz-$t $f"
    echo "  minimize:  $san/bin/aicc-fuzz-$t -minimize_crash=1 -runs=20000 $(target_flags "$t") $f"
  done
}

# clean_log LOG: true when the log holds no sanitizer or libFuzzer error report.
clean_log() {
  ! grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^SUMMARY: " "$1"
}

# replay TARGET: runs every input of fuzz/regressions/TARGET once.
replay() {
  local t=$1 dir=$root/fuzz/regressions/$1 log=$artifacts/$1/replay.log
  mkdir -p "$artifacts/$t"
  [[ -d $dir ]] && [[ -n $(ls "$dir") ]] || return 0
  if ! "$san/bin/aicc-fuzz-$t" $(target_flags "$t") $common_flags -runs=0 \
      -artifact_prefix="$artifacts/$t/" "$dir" >"$log" 2>&1 || ! clean_log "$log"; then
    report "$t" "$log"
    return 1
  fi
  echo "fuzz: $t: $(ls "$dir" | wc -l) regression inputs replayed, no findings"
}

# short TARGET SECONDS: one fresh run over (a sample of) the seeds and the regressions.
# libFuzzer runs every seed before it starts mutating, whatever -max_total_time says, so the
# short run takes at most $AICC_FUZZ_SHORT_SEEDS (default 500) seeds per target: the first
# ones by (content hash) name, a fixed pseudo-random sample.
short_run() {
  local t=$1 secs=$2 corpus=$san/fuzz-corpus-short/$1 log=$artifacts/$1/short.log
  local sample=$san/fuzz-seeds-short/$1 f
  rm -rf "$corpus" "$sample" && mkdir -p "$corpus" "$sample" "$artifacts/$t"
  # sed, not head: head exits early, sort then dies of SIGPIPE, and under pipefail + errexit
  # that ended this background run without a word (CI, 2026-12-01).
  ls "$seeds/$t" | sort | sed -n "1,${AICC_FUZZ_SHORT_SEEDS:-500}p" |
    while read -r f; do ln -s "$seeds/$t/$f" "$sample/$f"; done
  local dirs=("$corpus" "$sample")
  [[ -d $root/fuzz/regressions/$t ]] && dirs+=("$root/fuzz/regressions/$t")
  if ! nice "$san/bin/aicc-fuzz-$t" $(target_flags "$t") $common_flags \
      -max_total_time="$secs" -artifact_prefix="$artifacts/$t/" "${dirs[@]}" >"$log" 2>&1 ||
      ! clean_log "$log"; then
    report "$t" "$log"
    return 1
  fi
  echo "fuzz: $t: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}') executions in ${secs} s, no findings"
}

# wait_run PID TARGET: waits for one background short_run; a run that ended without a
# verdict line (killed, or a script error under errexit) is a failure that says so.
wait_run() {
  local rc=0
  wait "$1" || rc=$?
  [[ $rc -eq 0 ]] || echo "FAILED: fuzz: $2: the run ended with exit status $rc"
  return $rc
}

do_short() {
  local secs=${1:-${AICC_FUZZ_SECONDS:-60}} parallel=${AICC_FUZZ_PARALLEL:-2} failed=0 t
  rm -rf "$artifacts"
  for t in "${all_targets[@]}"; do
    replay "$t" || failed=1
  done
  if [[ $secs -gt 0 ]]; then
    [[ -d $seeds ]] || do_seeds
    local pids=() names=()
    for t in "${all_targets[@]}"; do
      short_run "$t" "$secs" &
      pids+=($!)
      names+=("$t")
      if [[ ${#pids[@]} -ge $parallel ]]; then
        wait_run "${pids[0]}" "${names[0]}" || failed=1
        pids=("${pids[@]:1}")
        names=("${names[@]:1}")
      fi
    done
    local i
    for i in "${!pids[@]}"; do
      wait_run "${pids[$i]}" "${names[$i]}" || failed=1
    done
  fi
  return $failed
}

# campaign TARGET SECONDS: a long run on the persistent corpus. One worker: libFuzzer is
# restarted after each finding until the time is up (cheaper than -fork=1, whose jobs each
# replay part of the corpus); more workers: -fork=N, which keeps going by itself.
campaign() {
  local t=$1 secs=$2 jobs=${AICC_FUZZ_JOBS:-1}
  local corpus=${AICC_FUZZ_CORPUS:-$root/fuzz-corpus}/$t log=$artifacts/$t/campaign.log
  mkdir -p "$corpus" "$artifacts/$t"
  local dirs=("$corpus" "$seeds/$t")
  # AICC_FUZZ_SKIP_REGRESSIONS=1: leave them out (a tree where some are still open would stop
  # at them at once).
  [[ -d $root/fuzz/regressions/$t && ${AICC_FUZZ_SKIP_REGRESSIONS:-0} != 1 ]] &&
    dirs+=("$root/fuzz/regressions/$t")
  echo "fuzz: $t for $secs s, $jobs worker(s), corpus $corpus, log $log"
  : >"$log"
  local end=$((SECONDS + secs)) runs=0 n
  if [[ $jobs -gt 1 ]]; then
    (cd "$artifacts/$t" && nice "$san/bin/aicc-fuzz-$t" $(target_flags "$t") $common_flags \
      -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$secs" -artifact_prefix="$artifacts/$t/" "${dirs[@]}") >>"$log" 2>&1 || true
  else
    local before after
    while [[ $SECONDS -lt $((end - 5)) ]]; do
      before=$(ls "$artifacts/$t" | wc -l)
      nice "$san/bin/aicc-fuzz-$t" $(target_flags "$t") $common_flags \
        -max_total_time=$((end - SECONDS)) -artifact_prefix="$artifacts/$t/" "${dirs[@]}" \
        >>"$log" 2>&1 && break
      after=$(ls "$artifacts/$t" | wc -l)
      # The same input again (a seed or corpus entry that crashes at once): restarting
      # would only find it again.
      if [[ $after -le $before ]]; then
        echo "fuzz: $t: an input already found crashes again; fix it first (see the log)"
        break
      fi
    done
  fi
  for n in $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}'); do
    runs=$((runs + n))
  done
  local findings
  findings=$(find "$artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' \
    -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  echo "fuzz: $t: $runs executions (one worker's count; with -fork see the last '#N:' line" \
       "of $log), $findings finding(s)"
  if [[ $findings -gt 0 ]]; then
    triage "$t"
    return 1
  fi
}

# triage TARGET DIR: one line per distinct (kind, first aicc frame) with a count and an example.
triage() {
  /usr/bin/python3 "$root/fuzz/triage.py" "$san/bin/aicc-fuzz-$1" "${2:-$artifacts/$1}" \
    $(target_flags "$1") -timeout=30 -rss_limit_mb=2560 -malloc_limit_mb=2048
}

case ${1:-all} in
  --triage) triage "${2:?usage: fuzz.sh --triage TARGET [DIR]}" "${3:-}" ;;
  --build) do_build ;;
  --unit-tests) do_unit_tests ;;
  --seeds) do_seeds ;;
  --short) do_short "${2:-}" ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *)
    targets=("${1:-all}")
    [[ ${targets[0]} == all ]] && targets=("${all_targets[@]}")
    secs=${2:-3600}
    for t in "${targets[@]}"; do target_flags "$t" >/dev/null; done
    [[ -x $san/bin/aicc-fuzz-${targets[0]} ]] || do_build
    [[ -d $seeds ]] || do_seeds
    status=0
    for t in "${targets[@]}"; do
      campaign "$t" "$secs" || status=1
    done
    exit $status
    ;;
esac
