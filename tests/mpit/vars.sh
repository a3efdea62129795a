#!/usr/bin/env bash
# `mpiscope vars` against the MPI_T API, on one MPI:
#   vars.sh <flavor> <varlist program> <known cvar> <its expected value>
# The program (varlist.c), with the tool preloaded, lists what the API
# gives; the command's --json must name exactly the same control variables
# (with the same scopes), performance variables and categories, before
# MPI_Init and after it (--after-init), and show the known variable's value;
# every C bool control variable's value is true or false (issue 16: Open MPI
# stores bytes such as 191 in some, printed raw before). Then the filters:
# a glob, --kind, --verbosity, --category, and the text output's tree.
set -uo pipefail
flavor=$1 prog=$2 known=$3 expect=$4
cli=$MSC_CLI
lib=$MSC_LIBDIR/$flavor/libmpiscope.so
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
preload="${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$lib"

LD_PRELOAD=$preload "$prog" before "$known" > api-before.txt || fail "varlist before"
LD_PRELOAD=${MSC_PRELOAD_EXTRA:-} "$cli" vars --mpi "$flavor" --json > vars-before.json \
  || fail "mpiscope vars"
case $flavor in
  openmpi) "$MSC_MPIRUN" -np 1 -x "LD_PRELOAD=$preload" -x MPISCOPE_OUTPUT="$work/out" \
             "$prog" after "$known" > api-after.txt || fail "varlist after" ;;
  mpich) "$MSC_MPIRUN" -np 1 -genv LD_PRELOAD "$preload" -genv MPISCOPE_OUTPUT "$work/out" \
             "$prog" after "$known" > api-after.txt || fail "varlist after" ;;
esac
LD_PRELOAD=${MSC_PRELOAD_EXTRA:-} "$cli" vars --mpi "$flavor" --after-init --json \
  > vars-after.json || fail "mpiscope vars --after-init"

/usr/bin/python3 - "$known" "$expect" <<'PY' || status=1
import json, sys
known, expect = sys.argv[1], sys.argv[2]
ok = True
for when in ("before", "after"):
    api = {"cvar": [], "pvar": [], "category": []}
    value = None
    for line in open(f"api-{when}.txt"):
        kind, _, rest = line.rstrip("\n").partition(" ")
        if kind == "value": value = rest
        else: api[kind].append(rest)
    scopes = dict(c.rsplit(" ", 1) for c in api["cvar"])
    api["cvar"] = [c.rsplit(" ", 1)[0] for c in api["cvar"]]
    doc = json.load(open(f"vars-{when}.json"))
    assert doc["after_init"] == (when == "after")
    for kind, key in (("cvar", "cvars"), ("pvar", "pvars"), ("category", "categories")):
        got = [v["name"] for v in doc[key]]
        if got != api[kind]:
            print(f"FAIL {when}: {key}: vars lists {len(got)}, the API {len(api[kind])}; "
                  f"differ: {sorted(set(got) ^ set(api[kind]))[:5]}")
            ok = False
        else:
            print(f"{when}: {key}: {len(got)} (as the API)")
    cv = {v["name"]: v for v in doc["cvars"]}
    bad = [(n, v["scope"], scopes.get(n)) for n, v in cv.items() if v["scope"] != scopes.get(n)]
    if bad:
        print(f"FAIL {when}: scopes differ from the API's: {bad[:5]}"); ok = False
    bools = [v for v in doc["cvars"] if v["datatype"] == "bool"]
    bad = [(v["name"], v["value"]) for v in bools if v["value"] not in ("true", "false", None)]
    if bad:
        print(f"FAIL {when}: C bool values not true/false: {bad[:5]}"); ok = False
    else:
        print(f"{when}: {len(bools)} C bool control variables, values true/false")
    if known not in cv or cv[known]["value"] != expect or (value is not None and value != expect
                                                           and cv[known]["enum"] is None):
        print(f"FAIL {when}: {known}: vars says {cv.get(known, {}).get('value')!r}, API {value!r}, "
              f"expected {expect!r}")
        ok = False
    # mpiscope's own variables and category tree are there.
    pv = {(v["name"], v["class"]): v for v in doc["pvars"]}
    p = pv.get(("mpiscope_pending_requests", "level"))
    if not p or p["class"] != "level" or not p["readonly"] or not p["continuous"]:
        print(f"FAIL {when}: mpiscope_pending_requests: {p}"); ok = False
    cats = {c["name"]: c for c in doc["categories"]}
    root = cats.get("mpiscope")
    kids = {doc["categories"][i]["name"] for i in root["categories"]} if root else set()
    if "mpiscope_mpit" not in kids or len(cats["mpiscope_mpit"]["pvars"]) < 13:
        print(f"FAIL {when}: category tree: mpiscope has {kids}"); ok = False
sys.exit(0 if ok else 1)
PY

# Filters: a glob and --kind; --verbosity; --category; the tree.
n=$("$cli" vars --mpi "$flavor" --kind cvar --json 'mpiscope_*' | /usr/bin/python3 -c \
  'import json,sys; d=json.load(sys.stdin); print(len(d["cvars"]), "pvars" in d)')
[ "$n" = "$(grep -c '^MSC_SETTING(' "$MSC_SOURCE_DIR/src/core/settings.def" | awk '{print $1+1, "False"}')" ] \
  || fail "glob mpiscope_* --kind cvar: $n, expected every setting and mpiscope_recording"
n=$("$cli" vars --mpi "$flavor" --kind pvar --verbosity user/basic --json 'mpiscope_*' | \
  /usr/bin/python3 -c 'import json,sys; print(sorted({v["verbosity"] for v in json.load(sys.stdin)["pvars"]}))')
[ "$n" = "['user/basic']" ] || fail "--verbosity user/basic: $n"
n=$("$cli" vars --mpi "$flavor" --kind pvar --category mpiscope --json | \
  /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pvars"]))')
[ "$n" = 13 ] || fail "--category mpiscope: $n pvars, expected mpiscope's 13"
"$cli" vars --mpi "$flavor" --kind category 'mpiscope*' > tree.txt
grep -q '^mpiscope  (0 cvars, 0 pvars)' tree.txt && grep -q '^  mpiscope_mpit  (0 cvars, 13 pvars)' tree.txt \
  || { fail "category tree"; cat tree.txt >&2; }
"$cli" vars --mpi "$flavor" --kind cvar mpiscope_mode > mode.txt
grep -q '^mpiscope_mode  *user/basic  *constant  *char  *none  *profile  ' mode.txt \
  || { fail "text table"; cat mode.txt >&2; }
"$cli" vars --mpi nompi > /dev/null 2> err.txt && fail "--mpi nompi accepted"
grep -q "openmpi or mpich" err.txt || fail "--mpi nompi: $(cat err.txt)"
"$cli" vars --kind bogus > /dev/null 2> err.txt; [ $? = 2 ] || fail "--kind bogus: exit code"
# The MPI of a program given as argument.
"$cli" vars --kind enum "$prog" | head -1 | grep -q "^Enumerations of $flavor" || fail "program's MPI"
exit $status
