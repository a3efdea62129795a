#!/usr/bin/env bash
# The closing summary on stderr (src/profile/banner.c), on one MPI:
#   banner.sh <flavor> <np>
# 1. `mpiscope run` of tests/profile/io.c: wall time, MPI share, imbalance,
#    the three functions with the most time, the MPI-IO line and the next
#    command, each equal to what profile.json says, before "results in".
# 2. `mpiscope run --check --trace` of icoll.c: the checks line (no
#    findings) and the trace's size, the bytes under trace/.
# 3. The library alone (no `mpiscope run`): rank 0 prints the same summary
#    once; with MPISCOPE_QUIET=1 nothing.
# Environment: MSC_CLI, MSC_TEST_BIN, MSC_LIBDIR, MSC_OUT (tests/profile/tests.cmake).
set -u
flavor=$1 np=$2
for v in $(env | sed -n 's/^\(MPISCOPE_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
rm -rf "$MSC_OUT" && mkdir -p "$MSC_OUT" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
case $flavor in
  openmpi) launch=(mpirun.openmpi -np "$np") ;;
  mpich) launch=(mpirun.mpich -n "$np") ;;
esac
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expected <dir> <shown>: the summary lines profile.json (and checks.json,
# trace/) imply, computed independently of banner.c.
expected() {
  python3 - "$1" "$2" <<'EOF'
import json, os, sys
d, shown = sys.argv[1], sys.argv[2]
p = json.load(open(os.path.join(d, "profile.json")))
s = p["summary"]
def human(b):
    u = ["B", "KiB", "MiB", "GiB", "TiB"]; i = 0
    while b >= 1024 and i < 4: b /= 1024; i += 1
    return f"{b:.0f} {u[i]}" if i == 0 else f"{b:.1f} {u[i]}"
hosts = len(p["run"]["hosts"])
print(f'mpiscope: {p["program"]}, {p["ranks"]} rank(s) on {hosts} host(s): wall {s["wall_ns_max"] / 1e9:.3f} s, '
      f'MPI {s["mpi_pct"]:.1f} % of the time, imbalance {s["imbalance_pct"]:.1f} %')
top = sorted(p["functions"], key=lambda f: (-f["time_ns"], f["name"]))[:3]
print("mpiscope: most MPI time: " + ", ".join(f'{f["name"]} {100 * f["time_ns"] / s["mpi_ns_total"]:.1f} %' for f in top))
io = p.get("io", {})
if io.get("files"):
    print(f'mpiscope: MPI-IO: {len(io["files"])} file(s), {human(io["bytes_read"])} read, '
          f'{human(io["bytes_written"])} written, I/O imbalance {io["imbalance_pct"]:.1f} %')
if os.path.exists(os.path.join(d, "checks.json")):
    c = json.load(open(os.path.join(d, "checks.json")))
    print("mpiscope: checks: no findings" if not c["findings"] else "mpiscope: checks: (findings)")
t = os.path.join(d, "trace")
if os.path.isdir(t):
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(t) for f in fs)
    print(f"mpiscope: trace: {human(size)} in {shown}/trace")
print(f"mpiscope: next: mpiscope report {shown} (add --html for one page to open in a browser)")
EOF
}

# summary <stderr file>: its summary lines (those of the banner), in order.
summary() {
  grep -E '^mpiscope(\[0\])?: ' "$1" | grep -vE 'results in' | sed 's/^mpiscope\[0\]: /mpiscope: /'
}

# 1. mpiscope run, MPI-IO.
out="$MSC_OUT/io"
"$MSC_CLI" run -o "$out" -- "${launch[@]}" "$MSC_TEST_BIN/$flavor/profile_io" 2> "$MSC_OUT/1.err"
rc=$?
[ $rc = 0 ] || fail "run 1: exit code $rc: $(cat "$MSC_OUT/1.err")"
want=$(expected "$out" "$out")
got=$(summary "$MSC_OUT/1.err")
[ "$got" = "$want" ] || fail "run 1: the summary is
$got
expected
$want"
tail -n 1 "$MSC_OUT/1.err" | grep -qE "^mpiscope: results in $out( \(.*profile.json.*\))?$" || fail "run 1: the last line is not 'results in': $(tail -n 1 "$MSC_OUT/1.err")"
[ "$(grep -c 'MPI-IO: 5 file(s)' "$MSC_OUT/1.err")" = 1 ] || [ "$np" != 4 ] || fail "run 1: no MPI-IO line of 5 files"

# 2. With checks and a trace.
out="$MSC_OUT/ct"
"$MSC_CLI" run --check --trace -o "$out" -- "${launch[@]}" "$MSC_TEST_BIN/$flavor/profile_icoll" 2> "$MSC_OUT/2.err"
rc=$?
[ $rc = 0 ] || fail "run 2: exit code $rc: $(cat "$MSC_OUT/2.err")"
want=$(expected "$out" "$out")
got=$(summary "$MSC_OUT/2.err")
[ "$got" = "$want" ] || fail "run 2: the summary is
$got
expected
$want"
grep -q "mpiscope: trace: " "$MSC_OUT/2.err" || fail "run 2: no trace line"
grep -q "mpiscope: checks: no findings" "$MSC_OUT/2.err" || fail "run 2: no checks line"

# 3. The library alone: rank 0's summary; then quiet.
lib="$MSC_LIBDIR/$flavor/libmpiscope.so"
out="$MSC_OUT/lib"
case $flavor in
  openmpi) env=(-x LD_PRELOAD="$lib" -x MPISCOPE_OUTPUT="$out") quiet=(-x MPISCOPE_QUIET=1) ;;
  mpich) env=(-genv LD_PRELOAD "$lib" -genv MPISCOPE_OUTPUT "$out") quiet=(-genv MPISCOPE_QUIET 1) ;;
esac
"${launch[@]}" "${env[@]}" "$MSC_TEST_BIN/$flavor/profile_io" 2> "$MSC_OUT/3.err"
want=$(expected "$out" "$out")
got=$(summary "$MSC_OUT/3.err")
[ "$got" = "$want" ] || fail "library: the summary is
$got
expected
$want"
rm -rf "$out"
"${launch[@]}" "${env[@]}" "${quiet[@]}" "$MSC_TEST_BIN/$flavor/profile_io" 2> "$MSC_OUT/4.err"
[ -z "$(summary "$MSC_OUT/4.err")" ] || fail "MPISCOPE_QUIET=1: a summary was printed: $(cat "$MSC_OUT/4.err")"

[ "$failures" = 0 ] && echo "banner: ok"
exit $((failures > 0))
