#!/usr/bin/env bash
# Prints, for one ctest build tree, the tests that failed in its last run
# and the last lines of each one's output, so that the end of a long CI log
# says what failed without scrolling back through the whole suite:
#   ctest-failures.sh <build-dir> <pass name> [lines per test, default 40]
# Reads ctest's own records (Testing/Temporary/LastTestsFailed.log and
# LastTest.log); prints nothing when the last run had no failure.
set -uo pipefail
dir=$1 pass=$2 keep=${3:-40}
failed=$dir/Testing/Temporary/LastTestsFailed.log
[ -s "$failed" ] || exit 0
echo "== $pass: $(wc -l < "$failed") failed test(s)"
sed 's/^[0-9]*:/  /' "$failed"
awk -v keep="$keep" -v list="$failed" '
  BEGIN { while ((getline l < list) > 0) { sub(/^[0-9]+:/, "", l); bad[l] = 1 } }
  /^[0-9]+\/[0-9]+ Test: / { name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); next }
  /^Output:$/ { inout = 1; n = 0; next }
  inout && /^<end of output>$/ {
    inout = 0
    if (name in bad) {
      print "---- " name " (last " keep " lines)"
      for (i = (n > keep ? n - keep : 0); i < n; i++) print buf[i % keep]
    }
    next
  }
  inout { buf[n % keep] = $0; n++ }
' "$dir/Testing/Temporary/LastTest.log"
