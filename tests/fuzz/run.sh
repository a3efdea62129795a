#!/usr/bin/env bash
# Runs each fuzz target of build-fuzz/ over its committed corpus and then on
# fresh inputs for a short time. Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
# (default 20 per target; MSC_FUZZ_TARGETS="settings run" picks targets).
# New inputs go to a scratch copy of the corpus, never into tests/fuzz/corpus/.
# A crash, a sanitizer report, a leak or a timeout fails the run; the input
# that did it is left in BUILD_DIR/fuzz-out/<target>/ and its path printed.
# Targets run MSC_FUZZ_JOBS at a time (default 1; each libFuzzer run is one
# process on one core); their lines are printed in the targets' order.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [SECONDS]}" && pwd)
seconds=${2:-20}
# One target: runs it and prints its verdict; non-zero on a failure.
fuzz_one() {
  local t=$1
  maxlen=8192
  supp=
  # The seed's global definitions are 27 kB; the OTF2 library's own leaks
  # (matched in its frames, which need the slow unwinder: no frame pointers).
  [ "$t" = trace ] && maxlen=65536 supp=$here/trace.supp
  out=$build/fuzz-out/$t
  rm -rf "$out" && mkdir -p "$out/corpus"
  cp "$here/corpus/$t"/* "$out/corpus/"
  # No MPISCOPE_* settings of the caller's environment: the run target
  # reads them as `mpiscope run` would. allocator_may_return_null: a size
  # read from a corrupted file (OTF2 sizes its id maps so) gets NULL from
  # malloc, as without ASan, and the code's own handling of it is what runs.
  if (cd "$out" && env $(env | sed -n 's/^\(MPISCOPE_[A-Za-z0-9_]*\)=.*/-u \1/p') \
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1${supp:+:fast_unwind_on_malloc=0} \
        LSAN_OPTIONS=${supp:+suppressions=$supp} \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$build/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
        -max_len=$maxlen -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$out/" corpus \
        >"$out/log" 2>&1); then
    echo "fuzz $t: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/log" | grep -o '[0-9]*$') runs in ${seconds}s)"
  else
    echo "fuzz $t: FAILED; the input is in $out/ (crash-*, leak-*, timeout-*); log: $out/log"
    grep -E 'ERROR|runtime error|SUMMARY|==[0-9]+==' "$out/log" | head -20
    return 1
  fi
}

status=0
targets=(${MSC_FUZZ_TARGETS:-settings run report trace vars})
jobs=${MSC_FUZZ_JOBS:-1}
mkdir -p "$build/fuzz-out"
for t in "${targets[@]}"; do
  rm -f "$build/fuzz-out/$t.rc"
  (fuzz_one "$t" > "$build/fuzz-out/$t.result" 2>&1; echo $? > "$build/fuzz-out/$t.rc") &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
wait
for t in "${targets[@]}"; do
  cat "$build/fuzz-out/$t.result"
  [ "$(cat "$build/fuzz-out/$t.rc" 2>/dev/null)" = 0 ] || status=1
done
exit $status
