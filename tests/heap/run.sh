#!/usr/bin/env bash
# Runs tests/heap's program with check mode's allocator interposer preloaded,
# after a sanitizer's runtime when one is given (MSC_PRELOAD_EXTRA, as the
# sanitizer passes do): the interposer is then never called, and the test
# expects exactly that.
#   run.sh <heap library> <program> <case>
set -uo pipefail
lib=$1 prog=$2 case=$3
if [ -n "${MSC_PRELOAD_EXTRA:-}" ]; then
  MSC_HEAP_EXPECT=inactive LD_PRELOAD="$MSC_PRELOAD_EXTRA:$lib" exec "$prog" "$case"
fi
MSC_HEAP_EXPECT=active LD_PRELOAD="$lib" exec "$prog" "$case"
