# mpi4py (Debian package python3-mpi4py, Python over the C API, Open MPI
# only): tests/apps/mpi4py_app.py on 2 ranks under Debian's Python.
# Result lines: what rank 0 prints (ring, checksums, collective results,
# the file written through MPI-IO).
app_missing() {
  [ "$1" = openmpi ] || { echo "Debian packages mpi4py for Open MPI only"; return; }
  /usr/bin/python3 -c 'import mpi4py' 2> /dev/null || echo "mpi4py not installed (Debian package python3-mpi4py)"
}
app_prepare() { :; }
app_command() { np=2; cmd=(/usr/bin/python3 "$here/mpi4py_app.py"); }
app_output() { cat "$dir/stdout"; }
app_filter() { cat; }
app_comms_real=1   # one Split with a colour on every rank
