# ScaLAPACK's test programs (Debian package scalapack-mpi-test, Fortran
# drivers over BLACS, which calls MPI from C; built for both MPIs): xdlu,
# the double-precision LU factorization and solve, on 2 ranks over a 1x2
# and a 2x1 process grid (input LU.dat made by the test: 3 sizes, 2 block
# sizes, 2 right-hand-side counts; condition estimation and iterative
# refinement on).
# Result lines: one per test with its sizes, grid and verdict (the times and
# rate columns dropped), and the closing counts of passed and failed tests.
app_missing() {
  [ -x "/usr/lib/x86_64-linux-gnu/scalapack/$1-tests/xdlu" ] ||
    echo "xdlu for $1 not installed (Debian package scalapack-mpi-test)"
}
app_prepare() {
  cat > LU.dat <<'IN'
'ScaLAPACK LU factorization input (mpiscope application test)'
'mpiscope'
'LU.out'                output file name (if any)
6                       device out
3                       number of problems sizes
10 17 31                values of M
12 13 31                values of N
2                       number of NB's
2 5                     values of NB
2                       number of NRHS's
1 3                     values of NRHS
2                       Number of NBRHS's
1 3                     values of NBRHS
2                       number of process grids (ordered pairs of P & Q)
1 2                     values of P
2 1                     values of Q
1.0                     threshold
T                       (T or F) Test Cond. Est. and Iter. Ref. Routines
IN
}
app_command() { np=2; cmd=("/usr/lib/x86_64-linux-gnu/scalapack/$1-tests/xdlu"); }
app_output() { cat "$dir/stdout"; }
app_filter() {
  awk '$1 == "WALL" || $1 == "CPU" { print $1, $2, $3, $4, $5, $6, $7, $8, $NF; next }
       /tests completed and|tests skipped because|^Finished/ { print }'
}
