# LAMMPS (Debian package lammps, C++, Open MPI only): a Lennard-Jones melt in
# the spirit of LAMMPS's "melt" example, 864 atoms for 100 steps on 4 ranks
# (a 1x2x2 processor grid: halo exchange with Irecv/Send/Wait, Sendrecv in
# the atom migration, Allreduce for the thermodynamic output).
# Result lines: the thermo table, atom and neighbour counts, the processor
# grid. LAMMPS's own statistics are held against the calls: every
# reneighbouring migrates atoms in 2 of the 3 dimensions (the x dimension
# has one process), one MPI_Sendrecv of the message size per dimension and
# direction.
app_missing() {
  [ "$1" = openmpi ] || { echo "Debian packages LAMMPS for Open MPI only"; return; }
  command -v lmp > /dev/null || echo "lmp not installed (Debian package lammps)"
}
app_prepare() {
  cat > in.melt <<'IN'
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 6 0 6 0 6
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 20 delay 0 check no
fix             1 all nve
thermo          25
run             100
IN
}
app_command() { np=4; cmd=(lmp -in in.melt -log none); }
app_output() { cat "$dir/stdout"; }
app_filter() {
  grep -E '^ +[0-9]+ +[-0-9.e+]+ +[-0-9.e+]+|MPI processor grid|^Created|^Step|^(Nlocal|Nghost|Neighs):|^Histogram|^Total # of neighbors|^Ave neighs|^Neighbor list builds|^Dangerous builds' |
    sed -E 's/CPU = [0-9.e+-]+ seconds//'
}
app_check() {
  local grid builds
  grid=$(sed -n 's/^ *\([0-9]*\) by \([0-9]*\) by \([0-9]*\) MPI processor grid.*/\1 \2 \3/p' "$dir/stdout")
  builds=$(sed -n 's/^Neighbor list builds = \([0-9]*\)$/\1/p' "$dir/stdout")
  /usr/bin/python3 - "$dir/out/profile.json" "$np" "$builds" $grid <<'PY'
import json, sys
prof, np, builds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dims = sum(1 for g in sys.argv[4:7] if int(g) > 1)
calls = {f["name"]: f["calls"] for f in json.load(open(prof))["functions"]}
# Per reneighbouring (the builds LAMMPS reports, and the setup's), on each
# rank and each dimension split in 2: one Sendrecv of the atom count in
# Comm::exchange and one per direction in Comm::borders.
want = np * 3 * dims * (builds + 1)
print(f"lammps: {builds} neighbour-list builds, {dims} split dimensions: "
      f"{want} MPI_Sendrecv expected, {calls.get('MPI_Sendrecv', 0)} in the profile")
# liblammps has no line tables: its call sites are named by their functions,
# demangled (CommBrick::exchange and ::borders are where the Sendrecvs are).
sites = {fr.get("symbol") for cs in json.load(open(prof))["callsites"]
         if cs["function"] == "MPI_Sendrecv" for fr in cs["frames"]}
named = {"LAMMPS_NS::CommBrick::exchange()", "LAMMPS_NS::CommBrick::borders()"}
print(f"lammps: MPI_Sendrecv call sites {sorted(s for s in sites if s)}")
sys.exit(calls.get("MPI_Sendrecv", 0) != want or not named <= sites)
PY
}
app_comms_real=1   # Cart_create on every rank
