#!/usr/bin/env bash
# The coverage report names every PMPI_ function the MPI library exports,
# as wrapped or as skipped with a reason, and the tool library does export
# every function the report calls wrapped. C rows read "NAME STATUS REASON";
# rows of other bindings (Fortran) "NAME BINDING STATUS SYMBOLS-OR-REASON":
#   coverage.sh <coverage.txt> <tool library> <MPI C library>...
set -uo pipefail
report=$1 tool=$2
shift 2
status=0
[ -s "$report" ] || { echo "coverage.sh: no report $report" >&2; exit 1; }
exported=$(nm -D --defined-only "$@" | awk '{print $NF}' | sed 's/@.*//' |
           sed -n 's/^PMPI_\([A-Za-z0-9_]*\)$/MPI_\1/p' | sort -u)
[ -n "$exported" ] || { echo "coverage.sh: no PMPI_ symbols in $*" >&2; exit 1; }
c_rows() { grep -v '^#' "$report" | awk '$2 == "wrapped" || $2 == "skipped"'; }
listed=$(c_rows | awk '{print $1}' | sort -u)
missing=$(comm -23 <(echo "$exported") <(echo "$listed"))
if [ -n "$missing" ]; then
  echo "coverage.sh: exported by the MPI but absent from $report:" $missing >&2
  status=1
fi
bad=$(grep -v '^#' "$report" | awk '!((($2 == "wrapped" || $2 == "skipped") && NF >= 3) ||
                                        (($3 == "wrapped" || $3 == "skipped") && NF >= 4)) {print $1}')
if [ -n "$bad" ]; then
  echo "coverage.sh: lines without a status and a reason:" $bad >&2
  status=1
fi
wrapped=$(c_rows | awk '$2 == "wrapped" {print $1}' | sort -u)
tool_syms=$(nm -D --defined-only "$tool" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
unexported=$(comm -23 <(echo "$wrapped") <(echo "$tool_syms"))
if [ -n "$unexported" ]; then
  echo "coverage.sh: reported wrapped but not exported by $tool:" $unexported >&2
  status=1
fi
total=$(echo "$exported" | wc -l)
header=$(sed -n 's/^# \([0-9]*\) PMPI_ functions: \([0-9]*\) wrapped.*/\1 \2/p' "$report")
n_wrapped=$(echo "$wrapped" | wc -l)
if [ "${header#* }" != "$n_wrapped" ]; then
  echo "coverage.sh: header says '${header}' (total, wrapped), the lines $n_wrapped wrapped" >&2
  status=1
fi
echo "coverage.sh: $total PMPI_ functions exported, $n_wrapped wrapped, $(echo "$missing" | grep -c .) missing"
exit $status
