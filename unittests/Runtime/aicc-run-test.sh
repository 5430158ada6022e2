#!/usr/bin/env bash
# End-to-end test of aicc-run's command line, exit codes and comparisons.
# usage: aicc-run-test.sh AICC_RUN MAKE_TEST_BUNDLE cpu|cuda CODE_FILE WORK_DIR
set -u
RUN=$1 MAKE=$2 MODE=$3 CODE=$4 WORK=$5
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
"$MAKE" "$MODE" "$CODE" "$WORK" || { echo "FAILED: cannot make the test bundle"; exit 1; }
B=$WORK/add.aicc
failures=0

# expect CODE PATTERN CMD...: CMD exits with CODE and its output matches PATTERN.
expect() {
  local code=$1 pattern=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $code ]] || ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAILED: $* -> exit $rc (expected $code), output:"
    echo "$out" | sed 's/^/    /'
    echo "    (expected to match: $pattern)"
    failures=$((failures + 1))
  else
    echo "ok: ${*:2}"
  fi
}

expect 0 "usage: aicc-run BUNDLE" "$RUN" --help
expect 2 "no bundle given" "$RUN"
expect 2 "unknown option '--bogus'" "$RUN" "$B" --bogus
expect 2 "unknown option '--rtol2'" "$RUN" "$B" --rtol2=1
expect 2 "--rtol expects a non-negative number" "$RUN" "$B" --rtol abc
expect 2 "needs a value" "$RUN" "$B" --atol
expect 2 "--device must be cuda or cpu" "$RUN" "$B" --device=tpu
expect 2 "--benchmark expects" "$RUN" "$B" --benchmark=0
expect 2 "only one bundle" "$RUN" "$B" "$B"
expect 2 "cannot be combined" "$RUN" "$B" --input x.pb --test-data-set d
expect 1 "cannot open bundle '$WORK/missing.aicc'" "$RUN" "$WORK/missing.aicc"
printf 'AICCBND1junk' >"$WORK/junk.aicc"
expect 1 "truncated bundle" "$RUN" "$WORK/junk.aicc"

S0=$WORK/test_data_set_0 S1=$WORK/test_data_set_1
expect 0 "output 0 \('c'\): max_abs_err=[0-9.e+-]+ max_rel_err=[0-9.e+-]+ shape=\[1000\] PASS" \
  "$RUN" "$B" --test-data-set "$S0"
expect 0 "2 of 2 test data set\(s\) passed" \
  "$RUN" "$B" --test-data-set="$S0" --test-data-set "$S1" --rtol=0 --atol 0
expect 1 "shape=\[1000\] FAIL \(1 of 1000 elements" "$RUN" "$B" --test-data-set "$WORK/bad_expected"
expect 1 "0 of 1 test data set" "$RUN" "$B" --test-data-set "$WORK/bad_expected"
expect 0 "PASS" "$RUN" "$B" --test-data-set "$WORK/bad_expected" --atol 0.02
expect 1 "1 of 2 test data set" "$RUN" "$B" --test-data-set "$S0" --test-data-set "$WORK/bad_expected"
expect 1 "input 1 \('b'\): expected f32\[1000\], got f32\[999\]" \
  "$RUN" "$B" --test-data-set "$WORK/bad_shape"
expect 1 "input_0.pb" "$RUN" "$B" --test-data-set "$WORK/nonexistent"
expect 1 "has 2 input\(s\) but 1 --input" "$RUN" "$B" --input "$S0/input_0.pb"

# --input + --output-dir, then check the written output against the inputs.
expect 0 "output 0 \('c'\): f32\[1000\]" \
  "$RUN" "$B" --input "$S0/input_0.pb" --input "$S0/input_1.pb" --output-dir "$WORK/out"
mkdir -p "$WORK/check"
cp "$S0/input_0.pb" "$S0/input_1.pb" "$WORK/check/" && cp "$WORK/out/output_0.pb" "$WORK/check/"
expect 0 "PASS" "$RUN" "$B" --test-data-set "$WORK/check" --rtol 0 --atol 0
expect 0 "PASS" "$RUN" "$B" --test-data-set "$WORK/check" --test-data-set "$S1" --output-dir "$WORK/out2"
[[ -f $WORK/out2/check/output_0.pb && -f $WORK/out2/test_data_set_1/output_0.pb ]] ||
  { echo "FAILED: per-data-set output directories missing"; failures=$((failures + 1)); }
ls "$WORK/out" | grep -q tmp && { echo "FAILED: temporary file left in output dir"; failures=$((failures + 1)); }

# --poison: a complete plan still passes; an output element no kernel writes
# passes on the zero-filled memory of a fresh session but fails once poisoned.
expect 0 "1 of 1 test data set\(s\) passed" "$RUN" "$B" --test-data-set "$S0" --poison
expect 0 "2 of 2 test data set\(s\) passed" "$RUN" "$B" --poison --test-data-set "$S0" --test-data-set "$S1"
expect 0 "shape=\[1000\] PASS" "$RUN" "$WORK/add_short.aicc" --test-data-set "$WORK/short_grid"
expect 1 "shape=\[1000\] FAIL \(232 of 1000 elements" \
  "$RUN" "$WORK/add_short.aicc" --test-data-set "$WORK/short_grid" --poison
expect 0 "output 0 \('c'\): f32\[1000\] .*mean=(-)?nan" \
  "$RUN" "$WORK/add_short.aicc" --poison --input "$S0/input_0.pb" --input "$S0/input_1.pb"
expect 2 "--poison takes no value" "$RUN" "$B" --poison=1

expect 0 "benchmark: 5 runs on $MODE, [0-9.]+ ms/run" "$RUN" "$B" --benchmark 5

# A bundle with a symbolic dim (format version 6): a, b, c are f32[10 x n], n in [1, 100].
# Its signature names the symbol; any n in range runs, outputs in the run's shapes.
SYM=$WORK/add_sym.aicc
expect 0 "symbolic dims: n in \[1, 100\]" "$RUN" "$SYM"
expect 0 "signature: input 1 \('b'\) f32\[10\*n\]" "$RUN" "$SYM"
expect 0 "signature: output 0 \('c'\) f32\[10\*n\]" "$RUN" "$SYM"
expect 0 "pseudo-random float inputs at the symbols' bounds \(n = 100\)" "$RUN" "$SYM"
expect 0 "output 0 \('c'\): f32\[1000\] min" "$RUN" "$SYM"
expect 0 "3 of 3 test data set\(s\) passed" "$RUN" "$SYM" --poison --rtol 0 --atol 0 \
  --test-data-set "$WORK/sym_1" --test-data-set "$WORK/sym_37" --test-data-set "$WORK/sym_100"
expect 0 "symbols: n = 37" "$RUN" "$SYM" --test-data-set "$WORK/sym_37"
expect 0 "shape=\[370\] PASS" "$RUN" "$SYM" --test-data-set "$WORK/sym_37"
expect 0 "output 0 \('c'\): f32\[10\] min" "$RUN" "$SYM" --input "$WORK/sym_1/input_0.pb" \
  --input "$WORK/sym_1/input_1.pb"
# --output-dir writes the run's shape: the file checks as a test data set at n = 37.
expect 0 "output 0 \('c'\): f32\[370\]" "$RUN" "$SYM" --input "$WORK/sym_37/input_0.pb" \
  --input "$WORK/sym_37/input_1.pb" --output-dir "$WORK/sym_out"
mkdir -p "$WORK/sym_check"
cp "$WORK/sym_37/input_0.pb" "$WORK/sym_37/input_1.pb" "$WORK/sym_out/output_0.pb" "$WORK/sym_check/"
expect 0 "shape=\[370\] PASS" "$RUN" "$SYM" --test-data-set "$WORK/sym_check" --rtol 0 --atol 0
# Inputs at n = 37 against the expected output at n = 100: the shapes differ.
mkdir -p "$WORK/sym_mixed"
cp "$WORK/sym_37/input_0.pb" "$WORK/sym_37/input_1.pb" "$WORK/sym_100/output_0.pb" "$WORK/sym_mixed/"
expect 1 "output 0 \('c'\): expected f32\[1000\], got f32\[370\] FAIL" \
  "$RUN" "$SYM" --test-data-set "$WORK/sym_mixed"
expect 1 "input 1 \('b'\): n = 38, but input 0 \('a'\) gives n = 37" \
  "$RUN" "$SYM" --test-data-set "$WORK/sym_disagree"
expect 1 "input 0 \('a'\): n = 101 is outside the compiled range \[1, 100\] \(dim 0 is 1010 = 10 x n\)" \
  "$RUN" "$SYM" --test-data-set "$WORK/sym_range"
expect 1 "input 1 \('b'\): dim 0 is 375, not a multiple of 10 \(dim 0 is 10 x n\)" \
  "$RUN" "$SYM" --input "$WORK/sym_disagree/input_0.pb" --input "$WORK/sym_multiple/input_1.pb"
# --benchmark runs at the values of the last run.
expect 0 "benchmark: 3 runs on $MODE at n = 37, [0-9.]+ ms/run" "$RUN" "$SYM" \
  --input "$WORK/sym_37/input_0.pb" --input "$WORK/sym_37/input_1.pb" --benchmark 3
expect 0 "\"symbols\": \{\"n\": 37\}" "$RUN" "$SYM" --test-data-set "$WORK/sym_37" --benchmark 2 \
  --json -
if [[ $MODE == cuda ]]; then
  expect 1 "cannot run on device cpu" "$RUN" "$B" --device=cpu
else
  expect 1 "cannot run on device cuda" "$RUN" "$B" --device cuda
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all aicc-run checks passed"
