# NetPIPE (Debian packages netpipe-openmpi and netpipe-mpich2, C, one per
# MPI): ping-pong between 2 ranks over 47 message sizes up to 16 KiB (the
# powers of two and their neighbours, 20 round trips each), in NetPIPE's
# integrity mode (-i): every byte received is checked against what was sent.
# Result lines: per size, the bytes, the repetitions and the verdict.
app_missing() {
  case "$1" in
    openmpi) command -v NPopenmpi > /dev/null || echo "NPopenmpi not installed (Debian package netpipe-openmpi)" ;;
    mpich) command -v NPmpich2 > /dev/null || echo "NPmpich2 not installed (Debian package netpipe-mpich2)" ;;
  esac
}
app_prepare() { :; }
app_command() {
  np=2
  case "$1" in openmpi) cmd=(NPopenmpi) ;; mpich) cmd=(NPmpich2) ;; esac
  cmd+=(-i -n 20 -u 16384 -o np.out)
}
app_output() { cat "$dir/stdout" "$dir/stderr"; }   # NetPIPE reports on stderr
app_filter() { grep -E '^ *[0-9]+: +[0-9]+ bytes' | sed -E 's/ +/ /g'; }
