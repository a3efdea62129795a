"""mpit.json of a run that asked for variables Open MPI invalidates at
MPI_Init (mtl_psm2_*, registered before it, gone after) with MPI_T
initialized before MPI_Init: none is sampled (the MPI_T union learns
performance variables when first asked, after MPI_Init, so they are not
listed; one that is gets a note), and pml_ob1_unexpected_msgq_length is
still sampled (rank 1: 20 messages flooded, back to 0 at the end).
   check_invalid.py <dir>"""
import json, os, sys

doc = json.load(open(os.path.join(sys.argv[1], "mpit.json")))["pvars"]
ok = True
names = [v["name"] for v in doc["variables"]]
if names != ["pml_ob1_unexpected_msgq_length"]:
    print(f"FAIL sampled: {names}")
    ok = False
notes = doc.get("notes", [])
bad = [n for n in notes if not (n.startswith("mtl_psm2_") and "left out: no handle" in n)]
if bad:
    print(f"FAIL notes: {len(notes)}, unexpected ones: {bad}")
    ok = False
else:
    print(f"ok {len(notes) + doc['notes_dropped']} variables left out with a note"
          + (f", e.g. {notes[0]!r}" if notes else ""))
q = doc["variables"][0]["per_rank"][1] if names else {}
if (q.get("max"), q.get("end")) != (20, 0):
    print(f"FAIL rank 1 queue max/end: {q}")
    ok = False
sys.exit(0 if ok else 1)
