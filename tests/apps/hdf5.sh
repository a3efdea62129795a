# Parallel HDF5 (Debian packages libhdf5-openmpi-dev and libhdf5-mpich-dev,
# C; HDF5 is the packaged application code here, driving MPI-IO): our small
# program tests/apps/hdf5_io.c, built against each MPI's HDF5, on 2 ranks:
# collective writes of a 2-D dataset, an attribute, independent and
# collective reads, every value verified.
# Result lines: what rank 0 prints (sizes, verdicts, checksum).
app_missing() {
  [ -x "$MSC_APPS_BIN/$1/apps/hdf5_io" ] || echo "hdf5_io not built (Debian package libhdf5-$1-dev)"
}
app_prepare() { :; }
app_command() { np=2; cmd=("$MSC_APPS_BIN/$1/apps/hdf5_io" hdf5_io.h5 64 128); }
app_output() { cat "$dir/stdout"; }
app_filter() { cat; }
