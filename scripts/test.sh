#!/usr/bin/env bash
# The whole test suite: builds into build/ and runs every test (unit, both
# MPIs, command line), builds Release without tests (build-release/), then rebuilds with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/ and runs the suite again, then
# with ThreadSanitizer into build-tsan/ for the threaded tests.
# Set MPISCOPE_TEST_SANITIZERS=0 to skip the sanitizer passes.
# Last, the fuzz pass: the libFuzzer targets of tests/fuzz/ built with clang
# into build-fuzz/, each run for MPISCOPE_FUZZ_SECONDS (default 20) over its
# corpus; any crash fails. MPISCOPE_TEST_FUZZ=0 skips it (docs/fuzzing.md).
# Tests run MPISCOPE_TEST_JOBS at a time (default: the number of cores);
# tests/CMakeLists.txt says which take both cores or a lock of their own.
# Each pass's duration is printed at the end (the budget: docs/testing.md).
# The builds of the later passes (ASan, TSan, Release, fuzz) run niced
# beside the test passes before them; the time waited for each is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${MPISCOPE_TEST_JOBS:-$(nproc)}
durations=()   # "<seconds> <pass>" of each pass, in order
pass_start=$SECONDS
pass_end() { durations+=("$((SECONDS - pass_start)) $1"); pass_start=$SECONDS; }
scripts/build.sh build
pass_end "build"
status=0
failed_passes=() # "<build dir>:<pass name>" of each ctest pass with a failure
sanitizers=${MPISCOPE_TEST_SANITIZERS:-1}
fuzz=${MPISCOPE_TEST_FUZZ:-1}

# The builds the later passes need run beside the tests of the earlier ones,
# at the lowest priority (nice 19): a test pass spends much of its time
# waiting on launchers, timeouts and sleeps (the normal pass kept about 1.4
# of the 2 cores busy), and a nice 19 compiler gets almost no time while a
# test wants the core. Each build's own time is printed with the time the
# suite then waited for it. A failed build fails the suite.
bg_names=() bg_pids=() bg_starts=()
bg() { # bg NAME CMD...: starts CMD niced in the background, output in NAME.log
  local name=$1; shift
  ( renice -n 19 -p "$BASHPID" > /dev/null; "$@" ) > "$name.log" 2>&1 &
  bg_names+=("$name") bg_pids+=($!) bg_starts+=($SECONDS)
}
bg_wait() { # bg_wait NAME: waits for it; 0 if it succeeded
  local name=$1 i rc=0 t0=$SECONDS
  for i in "${!bg_names[@]}"; do [ "${bg_names[$i]}" = "$name" ] && break; done
  wait "${bg_pids[$i]}" || rc=$?
  durations+=("$((SECONDS - t0)) waited for $name (built in $((SECONDS - bg_starts[$i])) s beside the tests)")
  pass_start=$SECONDS
  if [ "$rc" != 0 ]; then
    grep -E "error|warning|Error" "$name.log" | head -40 || true
    tail -5 "$name.log"
    echo "$name failed (exit $rc; $name.log)"
    status=1
  fi
  return $rc
}
asan_build() {
  scripts/build.sh build-asan -DMPISCOPE_SANITIZE=address,undefined -DMPISCOPE_CORPUS_FROM="$PWD/build"
}
# Every build type must build (warnings as errors); the suite runs on
# RelWithDebInfo, and a compile-only Release build (libraries, program,
# helpers; no tests) checks the optimizer's warnings. MinSizeRel, Debug and
# clang were checked by hand (docs/design.md, "Build types").
release_build() {
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DMPISCOPE_WERROR=ON -DBUILD_TESTING=OFF &&
    cmake --build build-release -j "$(nproc)"
}
tsan_build() {
  scripts/build.sh build-tsan -DMPISCOPE_SANITIZE=thread -DMPISCOPE_TEST_CORPUS=OFF
}
fuzz_build() {
  cmake -S tests/fuzz -B build-fuzz -DCMAKE_C_COMPILER=clang -DMPISCOPE_FUZZ=ON &&
    cmake --build build-fuzz -j2
}
later_builds() { # what the passes after the sanitizer tests need, in order
  local rc=0
  if [ "$sanitizers" != 0 ]; then tsan_build || rc=1; fi
  release_build || rc=1
  if [ "$fuzz" != 0 ]; then fuzz_build || rc=1; fi
  return $rc
}

if [ "$sanitizers" != 0 ]; then
  # The check corpus's programs are not instrumented: the normal tree's serve.
  bg build-asan asan_build
else
  bg later-builds later_builds
fi
(cd build && ctest --output-on-failure --timeout 300 -j "$jobs") || { status=1; failed_passes+=(build:normal); }
pass_end "tests (normal build)"

if [ "$sanitizers" != 0 ]; then
  if bg_wait build-asan; then
    bg later-builds later_builds   # TSan, Release, fuzz: beside the ASan tests
    echo "== the suite again under AddressSanitizer and UndefinedBehaviorSanitizer"
    # The ASan runtime must come first in the list of preloaded libraries,
    # before the tool library. The MPI libraries keep memory until exit by
    # design, so leak checking is off; every other ASan and UBSan error fails.
    export MSC_PRELOAD_EXTRA=$(gcc -print-file-name=libasan.so)
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    # The packaged applications (label apps) are left out: they are not built
    # with the sanitizers (only the tool library is), and under ASan their
    # four runs each would add about as much time again as the whole normal
    # pass gives them (docs/apps.md); the normal pass runs them.
    (cd build-asan && ctest --output-on-failure --timeout 600 -j "$jobs" -LE 'no-sanitizer|apps') ||
      { status=1; failed_passes+=(build-asan:asan+ubsan); }
    pass_end "tests (ASan+UBSan)"
    unset MSC_PRELOAD_EXTRA ASAN_OPTIONS UBSAN_OPTIONS
  else
    bg later-builds later_builds
  fi
fi
bg_wait later-builds || true

if [ "$sanitizers" != 0 ] && [ -d build-tsan/tests ]; then
  echo "== the threaded tests under ThreadSanitizer"
  # tests/tsan.supp suppresses reports inside the MPI libraries only, each
  # with its reason. UCX_MEM_EVENTS=no: MPICH's UCX transport hooks madvise()
  # at thread exit (libucm), which crashes TSan's runtime; the hooks only
  # serve UCX's registration cache, which shared-memory runs do not need.
  export MSC_PRELOAD_EXTRA=$(gcc -print-file-name=libtsan.so) UCX_MEM_EVENTS=no
  export TSAN_OPTIONS="halt_on_error=1 report_signal_unsafe=0 suppressions=$PWD/tests/tsan.supp"
  # The check corpus's "threads" category is erroneous programs run in the
  # normal pass (their races are the point), not threaded tests of the tool.
  (cd build-tsan && ctest --output-on-failure --timeout 600 -j "$jobs" -R threads -E check/corpus/) ||
    { status=1; failed_passes+=(build-tsan:tsan); }
  pass_end "tests (TSan)"
  unset MSC_PRELOAD_EXTRA TSAN_OPTIONS
fi

if [ "$fuzz" != 0 ]; then
  echo "== fuzz targets (libFuzzer, clang) for ${MPISCOPE_FUZZ_SECONDS:-20} s each"
  if [ -x build-fuzz/fuzz_run ]; then
    MSC_FUZZ_JOBS=$jobs tests/fuzz/run.sh build-fuzz "${MPISCOPE_FUZZ_SECONDS:-20}" || status=1
  else
    echo "fuzz: the targets did not build (later-builds.log)"
    status=1
  fi
  pass_end "fuzz (run)"
fi
echo "== durations (seconds)"
total=0
for d in "${durations[@]}"; do printf '  %6s  %s\n' "${d%% *}" "${d#* }"; total=$((total + ${d%% *})); done
printf '  %6s  %s\n' "$total" "total"
# A CI log is often read from its end: repeat what failed there, with the
# last lines of each failed test's output.
for p in "${failed_passes[@]}"; do scripts/ctest-failures.sh "${p%%:*}" "${p#*:}"; done
[ "$status" = 0 ] && echo "== all passes passed" || echo "== FAILED (see above)"
exit $status
